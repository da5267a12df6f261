// Every tensor-core variant, for each input type, against an FP64 CPU product of the same
// rounded inputs, on shapes that are multiples of no tile, with padded leading dimensions,
// alpha/beta other than (1, 0) and unaligned pointers. Padding of A and B holds NaN (a
// variant that reads it fails); padding of C holds a sentinel that must survive; with
// beta = 0, C starts as NaN (a variant that reads it fails).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <random>

#include "bench/verify.hpp"
#include "core/gemm_operands.hpp"
#include "smemlab/cublas.hpp"
#include "smemlab/device_buffer.hpp"
#include "smemlab/matmul.hpp"
#include "smemlab/tensor_matmul.hpp"
#include "support/gpu.hpp"
#include "tensor_matmul/repack.hpp"
#include "tensor_matmul/tensor_map.hpp"
#include "tensor_matmul/tuning.hpp"
#include "tensor_matmul/variants.hpp"

using namespace smemlab;

namespace {

struct Case {
  int m, n, k;
  int pad;     // extra elements per row in lda, 2 x in ldb, 3 x in ldc
  int offset;  // elements between each allocation's start and its matrix: 1 misaligns it
  float alpha, beta;
  bool transpose_a = false;  // A stored as K x M (lda = m + pad), B as N x K (ldb = k + 2 pad)
  bool transpose_b = false;
};

std::string case_name(const Case& c) {
  std::string s = std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k);
  if (c.pad > 0) s += "_ld" + std::to_string(c.pad);
  if (c.offset > 0) s += "_offset" + std::to_string(c.offset);
  if (c.beta != 0.0F) s += "_beta";
  if (c.transpose_a) s += "_At";
  if (c.transpose_b) s += "_Bt";
  return s;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = [] {
    std::vector<Case> out;
    for (const auto& [m, n, k] : std::vector<std::array<int, 3>>{{1, 1, 1},
                                                                  {7, 13, 5},
                                                                  {31, 33, 17},
                                                                  {33, 31, 65},
                                                                  {127, 129, 255},
                                                                  {300, 520, 130},
                                                                  {1000, 1001, 999},
                                                                  {512, 512, 512},
                                                                  {100, 132, 3000},
                                                                  {16, 1030, 2049},
                                                                  {1030, 9, 2049}}) {
      out.push_back({m, n, k, 0, 0, 1.0F, 0.0F});
      out.push_back({m, n, k, 3, 0, 1.5F, -0.75F});  // rows not 16-byte aligned
    }
    // Rows 16-byte aligned in every type, with padding, edges in M and N, and beta.
    out.push_back({260, 392, 128, 8, 0, 0.5F, 2.0F});
    // The same with beta = 0: C's rows padded and 16-byte aligned, stored by TMA where a step can.
    out.push_back({260, 392, 128, 4, 0, 0.5F, 0.0F});
    // Aligned leading dimensions, misaligned pointers.
    out.push_back({200, 264, 136, 0, 1, 1.0F, 0.0F});
    // Rows 4-byte but not 16-byte aligned in every type (copied 4 bytes at a time), K odd: the
    // last 4 bytes of A's rows hold one bf16 or half.
    out.push_back({130, 66, 33, 1, 0, 1.0F, 0.5F});
    // Operands stored transposed: read as stored, or copied row-major first.
    out.push_back({127, 129, 255, 3, 0, 1.5F, -0.75F, true, false});
    out.push_back({300, 520, 130, 0, 0, 1.0F, 0.0F, false, true});
    out.push_back({260, 392, 128, 8, 0, 0.5F, 2.0F, false, true});
    out.push_back({1000, 1001, 999, 0, 0, 1.0F, 0.0F, true, true});
    out.push_back({16, 1030, 2049, 0, 0, 1.0F, 0.0F, false, true});
    out.push_back({1030, 9, 2049, 0, 1, 1.0F, 0.5F, true, true});
    // Aᵀ with rows 16-byte aligned in every type (read as stored by the Hopper tiles in bf16 and
    // half), edges in M and N, beta; and with Bᵀ as well.
    out.push_back({260, 392, 136, 4, 0, 0.5F, 2.0F, true, false});
    out.push_back({260, 392, 136, 4, 0, 1.0F, 0.0F, true, true});
    // One row of A stored transposed: with lda 1 the same memory as the row (read as is), with
    // lda 4 every fourth element (copied).
    out.push_back({1, 300, 257, 0, 0, 1.0F, 0.5F, true, false});
    out.push_back({1, 300, 257, 3, 0, 1.0F, 0.0F, true, true});
    // One row of A stored as is, its lda not whole 16-byte chunks (given one that is: only the
    // row is read); one column of B with ldb 1 (read as the row of B's transpose where a variant
    // reads that as stored), with an odd K.
    out.push_back({1, 300, 257, 1, 0, 1.0F, 0.0F});
    out.push_back({300, 1, 257, 0, 0, 1.5F, -0.75F});
    return out;
  }();
  return all;
}

constexpr float kSentinel = 1234.5F;

// Host copies of one case's inputs in the input type's storage, their values as float, and
// the FP64 product.
struct Inputs {
  int lda, ldb, ldc;
  std::vector<unsigned char> a_raw, b_raw;  // as stored: 2 or 4 bytes an element, offset elements in
  std::vector<float> a, b, c;               // a: m x k and b: k x n, row-major, whatever the storage
  std::vector<double> expected;  // m x n
};

// Rounds x to the input type (to nearest); returns its stored bytes and its value.
float rounded(float x, DType type, unsigned char* out) {
  if (type == DType::bf16) {
    const __nv_bfloat16 v = __float2bfloat16(x);
    std::memcpy(out, &v, 2);
    return __bfloat162float(v);
  }
  if (type == DType::f16) {
    const __half v = __float2half(x);
    std::memcpy(out, &v, 2);
    return __half2float(v);
  }
  std::memcpy(out, &x, 4);
  return x;
}

const Inputs& inputs_for(const Case& cs, DType type) {
  static std::map<std::string, Inputs> cache;
  const std::string key = case_name(cs) + std::string(dtype_name(type));
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  Inputs in;
  in.lda = (cs.transpose_a ? cs.m : cs.k) + cs.pad;
  in.ldb = (cs.transpose_b ? cs.k : cs.n) + 2 * cs.pad;
  in.ldc = cs.n + 3 * cs.pad;
  const float nan = std::nanf("");
  const std::size_t elem = dtype_bytes(type);
  std::mt19937 gen(static_cast<unsigned>(cs.m * 7919 + cs.n * 104729 + cs.k));
  std::uniform_real_distribution<float> dist(-1.0F, 1.0F);
  // Values (as float, dense-with-ld) and stored bytes (offset elements in, NaN padding).
  const auto fill = [&](std::vector<float>& values, std::vector<unsigned char>& raw, int rows, int cols, int ld) {
    values.assign(static_cast<std::size_t>(rows) * ld, nan);
    raw.assign((static_cast<std::size_t>(rows) * ld + cs.offset) * elem, 0);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < ld; ++c) {
        const std::size_t i = static_cast<std::size_t>(r) * ld + c;
        values[i] = rounded(c < cols ? dist(gen) : nan, type, &raw[(i + cs.offset) * elem]);
      }
  };
  // The row-major matrix (rows x cols) of values stored transposed: cols x rows, leading dimension ld.
  const auto untransposed = [](const std::vector<float>& stored, int rows, int cols, int ld) {
    std::vector<float> out(static_cast<std::size_t>(rows) * cols);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) out[static_cast<std::size_t>(r) * cols + c] = stored[static_cast<std::size_t>(c) * ld + r];
    return out;
  };
  fill(in.a, in.a_raw, cs.transpose_a ? cs.k : cs.m, cs.transpose_a ? cs.m : cs.k, in.lda);
  fill(in.b, in.b_raw, cs.transpose_b ? cs.n : cs.k, cs.transpose_b ? cs.k : cs.n, in.ldb);
  int ref_lda = in.lda;
  int ref_ldb = in.ldb;
  if (cs.transpose_a) {
    in.a = untransposed(in.a, cs.m, cs.k, in.lda);
    ref_lda = cs.k;
  }
  if (cs.transpose_b) {
    in.b = untransposed(in.b, cs.k, cs.n, in.ldb);
    ref_ldb = cs.n;
  }
  in.c.assign(static_cast<std::size_t>(cs.m) * in.ldc, kSentinel);
  for (int r = 0; r < cs.m; ++r)
    for (int c = 0; c < cs.n; ++c)  // with beta = 0, C must not be read: make reading it visible
      in.c[static_cast<std::size_t>(r) * in.ldc + c] = cs.beta == 0.0F ? nan : dist(gen);
  in.expected.resize(static_cast<std::size_t>(cs.m) * cs.n);
  matmul::reference_gemm(cs.m, cs.n, cs.k, cs.alpha, in.a.data(), ref_lda, in.b.data(), ref_ldb, cs.beta, in.c.data(),
                         in.ldc, in.expected.data(), cs.n);
  return cache.emplace(key, std::move(in)).first->second;
}

using Run = std::function<void(const tensor_matmul::GemmArgs&, const LaunchContext&)>;

// Runs one case and checks C against the CPU reference, and C's padding; the caller's
// workspace, when given, starts as garbage (0xFF bytes). Returns C.
std::vector<float> expect_matches_reference(const Run& run, const Case& cs, DType type, bool callers_workspace) {
  const Inputs& in = inputs_for(cs, type);
  DeviceBuffer<unsigned char> a(in.a_raw.size());
  DeviceBuffer<unsigned char> b(in.b_raw.size());
  DeviceBuffer<float> c(in.c.size());
  a.upload(in.a_raw, nullptr);
  b.upload(in.b_raw, nullptr);
  c.upload(in.c, nullptr);
  const CublasHandle cublas;
  const std::size_t skip = static_cast<std::size_t>(cs.offset) * dtype_bytes(type);
  tensor_matmul::GemmArgs args{.input = type, .m = cs.m, .n = cs.n, .k = cs.k, .alpha = cs.alpha,
                               .a = a.data() + skip, .lda = in.lda, .b = b.data() + skip, .ldb = in.ldb,
                               .beta = cs.beta, .c = c.data(), .ldc = in.ldc, .transpose_a = cs.transpose_a,
                               .transpose_b = cs.transpose_b};
  DeviceBuffer<std::byte> workspace(callers_workspace ? tensor_matmul::workspace_bytes(args) : 0);
  if (workspace.size() > 0) SMEMLAB_CUDA_CHECK(cudaMemset(workspace.data(), 0xFF, workspace.size()));
  args.workspace = callers_workspace ? workspace.data() : nullptr;
  args.workspace_size = workspace.size();
  run(args, LaunchContext{nullptr, cublas.get()});
  SMEMLAB_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> got(in.c.size());
  c.download(got, nullptr);

  const ErrorStats err = compare_matrix<float>(cs.m, cs.n, got.data(), in.ldc, in.expected.data(), cs.n);
  const double tol = tensor_matmul::relative_tolerance(type, cs.k);
  EXPECT_TRUE(err.within(tol)) << "relative " << err.relative << ", max element " << err.max_element
                               << ", non-finite " << err.non_finite << ", tolerance " << tol;
  std::size_t clobbered = 0;
  for (int r = 0; r < cs.m; ++r)
    for (int col = cs.n; col < in.ldc; ++col)
      clobbered += std::memcmp(&got[static_cast<std::size_t>(r) * in.ldc + col], &kSentinel, sizeof(float)) != 0;
  EXPECT_EQ(clobbered, 0U) << "elements of C's padding were written";
  return got;
}

Run run_variant(const tensor_matmul::TensorVariant& variant) {
  return [&variant](const tensor_matmul::GemmArgs& g, const LaunchContext& ctx) { tensor_matmul::gemm(variant, g, ctx); };
}

// One test per variant and type, over every case: each test is a process of its own under
// ctest, and a process's start on the GPU (its context) costs more than most cases.
using Param = std::tuple<std::string, DType>;
class TensorMatmulVariant : public testing::TestWithParam<Param> {};

// Every case through `run`, each named in a failure's trace; a case that throws is a failure
// of its own, and the next cases still run.
void expect_every_case_matches(const Run& run, DType type, bool callers_workspace) {
  for (const Case& cs : cases()) {
    SCOPED_TRACE(case_name(cs));
    try {
      expect_matches_reference(run, cs, type, callers_workspace);
    } catch (const std::exception& e) {
      ADD_FAILURE() << case_name(cs) << " threw: " << e.what();
    }
  }
}

std::string name_and_type(const std::string& name, DType type) { return name + "_" + std::string(dtype_name(type)); }

TEST_P(TensorMatmulVariant, MatchesTheCpuReferenceOnEveryCase) {
  SMEMLAB_REQUIRE_GPU();
  if (!tensor_matmul::device_supported()) GTEST_SKIP() << "needs compute capability 8.0 or later";
  const auto& [name, type] = GetParam();
  const auto& variant = tensor_matmul::find(name);
  if (!variant.info.runs(type)) GTEST_SKIP() << name << " does not take " << dtype_name(type);
  if (const std::string why = variant.info.why_unavailable(); !why.empty()) GTEST_SKIP() << why;
  expect_every_case_matches(run_variant(variant), type, false);
}

std::vector<std::string> variant_names() {
  std::vector<std::string> out;
  for (const auto& v : tensor_matmul::variants()) out.emplace_back(v.info.name);
  return out;
}

INSTANTIATE_TEST_SUITE_P(TensorMatmul, TensorMatmulVariant,
                         testing::Combine(testing::ValuesIn(variant_names()), testing::ValuesIn(kTensorInputs)),
                         [](const auto& info) { return name_and_type(std::get<0>(info.param), std::get<1>(info.param)); });

// The clusters step pairs tiles only on outputs larger than these cases; its paired kernel on
// every case and type.
class TensorMatmulClusterPairs : public testing::TestWithParam<DType> {};

TEST_P(TensorMatmulClusterPairs, MatchTheCpuReferenceOnEveryCase) {
  SMEMLAB_REQUIRE_GPU();
  tensor_matmul::TensorVariant paired = tensor_matmul::find("clusters");
  if (const std::string why = paired.info.why_unavailable(); !why.empty()) GTEST_SKIP() << why;
  paired.launch = tensor_matmul::detail::launch_cluster_pairs;
  expect_every_case_matches(run_variant(paired), GetParam(), false);
}

INSTANTIATE_TEST_SUITE_P(TensorMatmul, TensorMatmulClusterPairs, testing::ValuesIn(kTensorInputs),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

// The repacking path with the caller's workspace (the tests above let it allocate its own).
TEST(TensorMatmulAutotuned, RepacksIntoTheCallersWorkspace) {
  SMEMLAB_REQUIRE_GPU();
  if (!tensor_matmul::device_supported()) GTEST_SKIP() << "needs compute capability 8.0 or later";
  for (const DType type : kTensorInputs)
    for (const Case& cs : {Case{127, 129, 255, 3, 0, 1.5F, -0.75F}, Case{200, 264, 136, 0, 1, 1.0F, 0.0F}}) {
      SCOPED_TRACE(case_name(cs) + " " + std::string(dtype_name(type)));
      expect_matches_reference(run_variant(tensor_matmul::find("autotuned")), cs, type, true);
    }
}

// Every kernel the default call can choose, K whole and in ranges (3, and more ranges than
// some cases have K-steps), on every case and type, with scratch allocated for the call (a
// hand-picked split needs more than workspace_bytes, which counts the chooser's own split).
class TensorMatmulKernel : public testing::TestWithParam<Param> {};

// A runner that launches one choice of the default call, as that call would.
auto launches(const tensor_matmul::KernelChoice& choice) {
  return [choice](const tensor_matmul::GemmArgs& g, const LaunchContext& ctx) {
    tensor_matmul::validate(g);
    tensor_matmul::gemm_kernel(choice, g, ctx);
  };
}

TEST_P(TensorMatmulKernel, MatchesTheCpuReferenceWholeAndSplit) {
  SMEMLAB_REQUIRE_GPU();
  if (!tensor_matmul::device_supported()) GTEST_SKIP() << "needs compute capability 8.0 or later";
  const auto& [name, type] = GetParam();
  const auto shapes = tensor_matmul::kernel_shapes();
  const auto& shape = *std::find_if(shapes.begin(), shapes.end(), [&](const auto& s) { return s.name == name; });
  if (shape.hopper && !tensor_matmul::detail::why_no_wgmma().empty())
    GTEST_SKIP() << tensor_matmul::detail::why_no_wgmma();
  for (const int splits : shape.splits_k ? std::vector<int>{1, 3, 40} : std::vector<int>{1}) {
    SCOPED_TRACE("K in up to " + std::to_string(splits) + " ranges");
    expect_every_case_matches(launches({shape.name, splits}), type, false);
  }
}

// Every variant with operands stored transposed, through the caller's workspace (garbage on
// entry): the row-major copies first and the variant's own scratch after them, or where the
// default call's Hopper tiles read Bᵀ as stored, its aligned copy (N rows of K, which can take
// more than K rows of N) beside the partial sums of K's ranges.
TEST(TensorMatmulTransposed, EveryVariantInTheCallersWorkspace) {
  SMEMLAB_REQUIRE_GPU();
  if (!tensor_matmul::device_supported()) GTEST_SKIP() << "needs compute capability 8.0 or later";
  std::vector<Case> transposed;
  for (const Case& cs : cases())
    if (cs.transpose_a || cs.transpose_b) transposed.push_back(cs);
  transposed.push_back({64, 1024, 4097, 0, 0, 1.0F, 0.0F, false, true});  // K just past 64 steps, in ranges
  // Aᵀ at the same shape, except for cuBLAS: CUDA 13.0's cublasGemmEx returned C 1.6% off the FP64
  // reference there on an H100 (bf16 and half), in half the time it takes with A as is
  // (docs/perf/tensor-matmul.md, "Operands stored transposed"); every other variant agrees.
  const Case a_transposed{64, 1024, 4097, 0, 0, 1.0F, 0.0F, true, false};
  for (const auto& variant : tensor_matmul::variants()) {
    if (!variant.info.why_unavailable().empty()) continue;
    for (const DType type : kTensorInputs) {
      if (!variant.info.runs(type)) continue;
      std::vector<Case> variant_cases = transposed;
      if (!variant.info.reference) variant_cases.push_back(a_transposed);
      for (const Case& cs : variant_cases) {
        SCOPED_TRACE(std::string(variant.info.name) + " " + case_name(cs) + " " + std::string(dtype_name(type)));
        expect_matches_reference(run_variant(variant), cs, type, true);
      }
    }
  }
}

// Every kernel with every type it takes (14's swapped tiles: tf32 only).
std::vector<Param> kernel_params() {
  std::vector<Param> out;
  for (const auto& s : tensor_matmul::kernel_shapes())
    for (const DType type : kTensorInputs)
      if (!s.swapped || type == DType::tf32) out.emplace_back(std::string(s.name), type);
  return out;
}

INSTANTIATE_TEST_SUITE_P(TensorMatmul, TensorMatmulKernel, testing::ValuesIn(kernel_params()),
                         [](const auto& info) { return name_and_type(std::get<0>(info.param), std::get<1>(info.param)); });

// The FP32 family's streamed product as the default call launches it for thin tf32 products
// (float operands, FP32 sums), on every case: thin or not, aligned or not.
TEST(TensorMatmulCudaCoreSkinny, MatchesTheCpuReferenceOnEveryCase) {
  SMEMLAB_REQUIRE_GPU();
  if (!tensor_matmul::device_supported()) GTEST_SKIP() << "needs compute capability 8.0 or later";
  expect_every_case_matches(launches({tensor_matmul::kCudaCoreSkinny, 1}), DType::tf32, false);
}

// Step 19's dot products as the default call launches them, in every type.
TEST(TensorMatmulCudaCoreDot, MatchesTheCpuReferenceOnEveryCase) {
  SMEMLAB_REQUIRE_GPU();
  if (!tensor_matmul::device_supported()) GTEST_SKIP() << "needs compute capability 8.0 or later";
  for (const DType type : kTensorInputs) {
    SCOPED_TRACE(std::string(dtype_name(type)));
    expect_every_case_matches(launches({tensor_matmul::kCudaCoreDot, 1}), type, false);
  }
}

// Split-K adds its ranges in a fixed order, through the workspace (split_k) or in a cluster
// (skinny, cluster_split_k), and the dot kernel its threads' sums in warp order: the same shape
// and choice give the same bits on every run, whatever the workspace held. Also through the
// caller's workspace.
class TensorMatmulSplitK : public testing::TestWithParam<std::string> {};

TEST_P(TensorMatmulSplitK, IsBitwiseTheSameFromRunToRun) {
  SMEMLAB_REQUIRE_GPU();
  const auto& variant = tensor_matmul::find(GetParam());
  if (const std::string why = variant.info.why_unavailable(); !why.empty()) GTEST_SKIP() << why;
  for (const DType type : kTensorInputs) {
    if (!variant.info.runs(type)) continue;  // swapped: tf32 only
    SCOPED_TRACE(std::string(dtype_name(type)));
    const Case cs{100, 132, 3000, 0, 0, 1.0F, 0.0F};  // few tiles, K in ranges
    const std::vector<float> first = expect_matches_reference(run_variant(variant), cs, type, true);
    const std::vector<float> second = expect_matches_reference(run_variant(variant), cs, type, true);
    const std::vector<float> allocated = expect_matches_reference(run_variant(variant), cs, type, false);
    EXPECT_EQ(std::memcmp(first.data(), second.data(), first.size() * sizeof(float)), 0);
    EXPECT_EQ(std::memcmp(first.data(), allocated.data(), first.size() * sizeof(float)), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(TensorMatmul, TensorMatmulSplitK,
                         testing::Values("split_k", "skinny", "swapped", "cluster_split_k", "dot"));

// Stream-K's kernel as the default call launches it (A of one row as a row, Aᵀ in tf32 copied
// row-major first), planned for `sms` SMs, in scratch of 0xFF bytes: flags that were not zeroed
// by the call would read as set.
Run stream_k_on(int sms) {
  return [sms](const tensor_matmul::GemmArgs& call, const LaunchContext& ctx) {
    tensor_matmul::validate(call);
    tensor_matmul::GemmArgs g = smemlab::detail::with_row_vector_a(call, dtype_bytes(call.input));
    DeviceBuffer<std::byte> scratch(tensor_matmul::workspace_bytes(g) + tensor_matmul::stream_k_bytes(sms, 128, 256) +
                                    tensor_matmul::detail::kWorkspaceAlignment);
    SMEMLAB_CUDA_CHECK(cudaMemset(scratch.data(), 0xFF, scratch.size()));
    g.workspace = scratch.data();
    g.workspace_size = scratch.size();
    smemlab::detail::with_row_major_operands(
        g, dtype_bytes(g.input), ctx.stream,
        [&](const tensor_matmul::GemmArgs& plain) {
          tensor_matmul::detail::launch_stream_k_kernel("streamk128x256", plain, ctx, sms);
        },
        false, g.input == DType::tf32);
    SMEMLAB_CUDA_CHECK(cudaDeviceSynchronize());  // before the scratch is freed
  };
}

// Planned for fewer SMs than the GPU has, the small cases share tiles between blocks in every
// way: a tile begun by one block and ended by the next, a block inside one tile, four pieces of
// a tile, and (896 x 512 x 1024 on 11 SMs: 3 shared tiles of 16 K-steps over 11 blocks) five.
// A case of two whole waves and a partial one on the GPU runs twice, with the same bits.
class TensorMatmulStreamK : public testing::TestWithParam<DType> {};

TEST_P(TensorMatmulStreamK, MatchesTheCpuReferenceOnAnyNumberOfBlocks) {
  SMEMLAB_REQUIRE_GPU();
  if (const std::string why = tensor_matmul::detail::why_no_wgmma(); !why.empty()) GTEST_SKIP() << why;
  for (const int sms : {2, 3, 5, 7}) {
    SCOPED_TRACE("planned for " + std::to_string(sms) + " SMs");
    expect_every_case_matches(stream_k_on(sms), GetParam(), false);
  }
  expect_matches_reference(stream_k_on(11), Case{896, 512, 1024, 0, 0, 1.0F, 0.0F}, GetParam(), false);
  const Case waves{2100, 4000, 136, 0, 0, 1.0F, 0.0F};  // 17 x 16 tiles: 2.06 waves on 132 SMs
  const auto& variant = tensor_matmul::find("stream_k");
  const std::vector<float> first = expect_matches_reference(run_variant(variant), waves, GetParam(), true);
  const std::vector<float> second = expect_matches_reference(run_variant(variant), waves, GetParam(), true);
  EXPECT_EQ(std::memcmp(first.data(), second.data(), first.size() * sizeof(float)), 0);
}

INSTANTIATE_TEST_SUITE_P(TensorMatmul, TensorMatmulStreamK, testing::ValuesIn(kTensorInputs),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
