// The library's contract with a production caller, for every GPU variant of every family:
// - captured into a CUDA graph in global capture mode (as torch.cuda.graph captures), the graph
//   replays correctly with new input values; the variants that add on the host refuse capture;
// - called from 8 host threads at once, each with its own stream, workspace and cuBLAS handle,
//   every result is right.
// Inputs are random, outputs are poisoned before every run, and results are compared with a
// double-precision CPU reference (a transpose bit for bit).
#include <gtest/gtest.h>

#include <cuda_bf16.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <latch>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/verify.hpp"
#include "smemlab/cublas.hpp"
#include "smemlab/attention.hpp"
#include "smemlab/device_buffer.hpp"
#include "smemlab/histogram.hpp"
#include "smemlab/matmul.hpp"
#include "smemlab/reduce.hpp"
#include "smemlab/scan.hpp"
#include "smemlab/tensor_matmul.hpp"
#include "smemlab/transpose.hpp"
#include "support/gpu.hpp"

using namespace smemlab;

namespace {

// One variant's call on inputs of its own: fill() writes new random inputs and poisons the
// output (on the stream, outside any graph), run() is the library call, check() waits for the
// stream and says what is wrong (empty: right).
class Call {
 public:
  virtual ~Call() = default;
  virtual void fill(unsigned seed, cudaStream_t stream) = 0;
  virtual void run(const LaunchContext& ctx) = 0;
  virtual std::string check(cudaStream_t stream) = 0;
};

std::vector<float> random_floats(std::size_t count, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0F, 1.0F);
  std::vector<float> out(count);
  for (auto& x : out) x = dist(gen);
  return out;
}

// New random values in `to`, on the stream; returns them.
std::vector<float> upload_random(DeviceBuffer<float>& to, unsigned seed, cudaStream_t stream) {
  std::vector<float> host = random_floats(to.size(), seed);
  SMEMLAB_CUDA_CHECK(cudaMemcpyAsync(to.data(), host.data(), to.bytes(), cudaMemcpyHostToDevice, stream));
  return host;
}

template <class T>
std::vector<T> download(const DeviceBuffer<T>& buffer, cudaStream_t stream) {
  std::vector<T> host(buffer.size());
  buffer.download(host, stream);
  return host;
}

// A dense m x n C = A B against the FP64 product of the inputs' values: empty when its
// norm-wise relative error is within `tolerance` (never, with an element left poisoned: NaN).
std::string gemm_error(const std::vector<float>& got, int m, int n, int k, const std::vector<float>& a,
                       const std::vector<float>& b, double tolerance) {
  std::vector<double> want(got.size());
  matmul::reference_gemm(m, n, k, 1.0, a.data(), k, b.data(), n, 0.0, nullptr, n, want.data(), n);
  const ErrorStats error = compare_matrix<float>(m, n, got.data(), n, want.data(), n);
  if (error.relative <= tolerance) return {};
  return "relative error " + std::to_string(error.relative);
}

// Odd sizes, and deep enough in K for the choosers' split-K.
constexpr int kM = 67;
constexpr int kN = 45;
constexpr int kK = 1029;

class MatmulCall : public Call {
 public:
  explicit MatmulCall(const matmul::GemmVariant& v) : variant_(v) {
    matmul::GemmArgs probe = args();
    workspace_ = DeviceBuffer<std::byte>(std::max<std::size_t>(matmul::workspace_bytes(v, probe), 1));
  }
  void fill(unsigned seed, cudaStream_t stream) override {
    a_host_ = random_floats(a_.size(), seed);
    b_host_ = random_floats(b_.size(), seed + 1);
    SMEMLAB_CUDA_CHECK(cudaMemcpyAsync(a_.data(), a_host_.data(), a_.bytes(), cudaMemcpyHostToDevice, stream));
    SMEMLAB_CUDA_CHECK(cudaMemcpyAsync(b_.data(), b_host_.data(), b_.bytes(), cudaMemcpyHostToDevice, stream));
    c_.poison(stream);
    workspace_.poison(stream);  // a workspace may hold anything
  }
  void run(const LaunchContext& ctx) override { matmul::gemm(variant_, args(), ctx); }
  std::string check(cudaStream_t stream) override {
    return gemm_error(download(c_, stream), kM, kN, kK, a_host_, b_host_, matmul::relative_tolerance(kK));
  }

 private:
  matmul::GemmArgs args() const {
    matmul::GemmArgs g{kM, kN, kK, 1.0F, a_.data(), kK, b_.data(), kN, 0.0F, c_.data(), kN};
    g.workspace = workspace_.data();
    g.workspace_size = workspace_.bytes();
    return g;
  }
  const matmul::GemmVariant& variant_;
  DeviceBuffer<float> a_{static_cast<std::size_t>(kM) * kK};
  DeviceBuffer<float> b_{static_cast<std::size_t>(kK) * kN};
  DeviceBuffer<float> c_{static_cast<std::size_t>(kM) * kN};
  DeviceBuffer<std::byte> workspace_;
  std::vector<float> a_host_, b_host_;
};

// The variant's first input type (bf16 but for tf32-only steps), an N that keeps B's rows
// unaligned (the variants that repack do so).
constexpr int kTensorM = 67;
constexpr int kTensorN = 75;
constexpr int kTensorK = 520;

class TensorCall : public Call {
 public:
  explicit TensorCall(const tensor_matmul::TensorVariant& v) : variant_(v), type_(v.info.dtypes.front()) {
    workspace_ = DeviceBuffer<std::byte>(std::max<std::size_t>(tensor_matmul::workspace_bytes(args()), 1));
  }
  void fill(unsigned seed, cudaStream_t stream) override {
    a_stored_ = stored(random_floats(kA, seed), a_values_);
    b_stored_ = stored(random_floats(kB, seed + 1), b_values_);
    SMEMLAB_CUDA_CHECK(cudaMemcpyAsync(a_.data(), a_stored_.data(), a_stored_.size(), cudaMemcpyHostToDevice, stream));
    SMEMLAB_CUDA_CHECK(cudaMemcpyAsync(b_.data(), b_stored_.data(), b_stored_.size(), cudaMemcpyHostToDevice, stream));
    c_.poison(stream);
    workspace_.poison(stream);
  }
  void run(const LaunchContext& ctx) override { tensor_matmul::gemm(variant_, args(), ctx); }
  std::string check(cudaStream_t stream) override {
    return gemm_error(download(c_, stream), kTensorM, kTensorN, kTensorK, a_values_, b_values_,
                      tensor_matmul::relative_tolerance(type_, kTensorK));
  }

 private:
  static constexpr std::size_t kA = static_cast<std::size_t>(kTensorM) * kTensorK;
  static constexpr std::size_t kB = static_cast<std::size_t>(kTensorK) * kTensorN;
  // The bytes the device holds (bf16, or floats for tf32), and in `values` the floats they are.
  std::vector<std::byte> stored(const std::vector<float>& values, std::vector<float>& exact) const {
    std::vector<std::byte> out(values.size() * dtype_bytes(type_));
    exact = values;
    if (type_ == DType::tf32) {
      std::memcpy(out.data(), values.data(), out.size());
      return out;
    }
    for (std::size_t i = 0; i < values.size(); ++i) {
      const __nv_bfloat16 v = __float2bfloat16(values[i]);
      exact[i] = __bfloat162float(v);
      std::memcpy(out.data() + i * sizeof(v), &v, sizeof(v));
    }
    return out;
  }
  tensor_matmul::GemmArgs args() const {
    tensor_matmul::GemmArgs g{type_,       kTensorM, kTensorN, kTensorK,  1.0F, a_.data(), kTensorK,
                              b_.data(),   kTensorN, 0.0F,     c_.data(), kTensorN};
    g.workspace = workspace_.data();
    g.workspace_size = workspace_.bytes();
    return g;
  }
  const tensor_matmul::TensorVariant& variant_;
  DType type_;
  DeviceBuffer<std::byte> a_{kA * 4};  // room for floats
  DeviceBuffer<std::byte> b_{kB * 4};
  DeviceBuffer<float> c_{static_cast<std::size_t>(kTensorM) * kTensorN};
  DeviceBuffer<std::byte> workspace_;
  std::vector<std::byte> a_stored_, b_stored_;
  std::vector<float> a_values_, b_values_;
};

constexpr std::size_t kSumCount = 100'003;

class ReduceCall : public Call {
 public:
  explicit ReduceCall(const reduce::ReduceVariant& v)
      : variant_(v), workspace_(std::max<std::size_t>(reduce::workspace_bytes<float>(v, kSumCount), 1)) {}
  void fill(unsigned seed, cudaStream_t stream) override {
    host_ = upload_random(in_, seed, stream);
    out_.poison(stream);
    workspace_.poison(stream);
  }
  void run(const LaunchContext& ctx) override {
    reduce::sum<float>(variant_, {in_.data(), kSumCount, out_.data(), workspace_.data()}, ctx);
  }
  std::string check(cudaStream_t stream) override {
    const float got = download(out_, stream)[0];
    const reduce::ReferenceSum want = reduce::reference_sum(host_.data(), host_.size());
    const double error = std::abs(got - want.sum) / want.abs_sum;
    if (error <= 1e-5) return {};  // float sums of 10^5 terms: well under this
    return "sum " + std::to_string(got) + ", want " + std::to_string(want.sum);
  }

 private:
  const reduce::ReduceVariant& variant_;
  DeviceBuffer<float> in_{kSumCount};
  DeviceBuffer<float> out_{1};
  DeviceBuffer<std::byte> workspace_;
  std::vector<float> host_;
};

class ScanCall : public Call {
 public:
  explicit ScanCall(const scan::ScanVariant& v)
      : variant_(v), workspace_(std::max<std::size_t>(scan::workspace_bytes<float>(v, kSumCount), 1)) {}
  void fill(unsigned seed, cudaStream_t stream) override {
    host_ = upload_random(in_, seed, stream);
    out_.poison(stream);
    workspace_.poison(stream);
  }
  void run(const LaunchContext& ctx) override {
    scan::run<float>(variant_, {in_.data(), out_.data(), kSumCount, scan::Kind::exclusive, workspace_.data()}, ctx);
  }
  std::string check(cudaStream_t stream) override {
    const scan::ReferenceCheck c = scan::check_scan<float>(host_, download(out_, stream), scan::Kind::exclusive);
    return c.verified ? std::string() : "element " + std::to_string(c.first_bad) + " wrong";
  }

 private:
  const scan::ScanVariant& variant_;
  DeviceBuffer<float> in_{kSumCount};
  DeviceBuffer<float> out_{kSumCount};
  DeviceBuffer<std::byte> workspace_;
  std::vector<float> host_;
};

class HistogramCall : public Call {
 public:
  explicit HistogramCall(const histogram::HistogramVariant& v)
      : variant_(v), workspace_(std::max<std::size_t>(histogram::workspace_bytes<float>(v, kSumCount, kBins), 1)) {}
  void fill(unsigned seed, cudaStream_t stream) override {
    host_ = upload_random(in_, seed, stream);  // [-1, 1): the range [0, 1) drops about half
    counts_.poison(stream);
    dropped_.poison(stream);
    workspace_.poison(stream);
  }
  void run(const LaunchContext& ctx) override {
    histogram::run<float>(variant_,
                          {.samples = in_.data(),
                           .n = kSumCount,
                           .counts = counts_.data(),
                           .bins = kBins,
                           .lower = 0.0F,
                           .upper = 1.0F,
                           .dropped = dropped_.data(),
                           .workspace = workspace_.data()},
                          ctx);
  }
  std::string check(cudaStream_t stream) override {
    const histogram::Counts want = histogram::reference_counts<float>(host_, kBins, 0.0F, 1.0F);
    if (download(counts_, stream) != want.bins) return "counts wrong";
    if (download(dropped_, stream)[0] != want.dropped) return "dropped count wrong";
    return {};
  }

 private:
  static constexpr int kBins = 1024;
  const histogram::HistogramVariant& variant_;
  DeviceBuffer<float> in_{kSumCount};
  DeviceBuffer<std::uint32_t> counts_{kBins};
  DeviceBuffer<std::uint32_t> dropped_{1};
  DeviceBuffer<std::byte> workspace_;
  std::vector<float> host_;
};

// Causal attention over 2 batches x 4 query heads sharing 2 kv heads, 77 queries and 90 keys
// of head dim 64: O within the norm-wise bound of the reference, every log-sum-exp within 1e-4.
class AttentionCall : public Call {
 public:
  explicit AttentionCall(const attention::AttentionVariant& v) : variant_(v) {
    workspace_ = DeviceBuffer<std::byte>(std::max<std::size_t>(attention::workspace_bytes(v, args(nullptr)), 1));
  }
  void fill(unsigned seed, cudaStream_t stream) override {
    const auto upload = [&](DeviceBuffer<__nv_bfloat16>& to, std::vector<float>& values, unsigned s) {
      values = random_floats(to.size(), s);
      std::vector<__nv_bfloat16> stored(values.size());
      for (std::size_t i = 0; i < values.size(); ++i) {
        stored[i] = __float2bfloat16(values[i]);
        values[i] = __bfloat162float(stored[i]);
      }
      SMEMLAB_CUDA_CHECK(cudaMemcpyAsync(to.data(), stored.data(), to.bytes(), cudaMemcpyHostToDevice, stream));
      SMEMLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
    };
    upload(q_, qf_, seed);
    upload(k_, kf_, seed + 7);
    upload(v_, vf_, seed + 13);
    out_.poison(stream);
    lse_.poison(stream);
    workspace_.poison(stream);
  }
  void run(const LaunchContext& ctx) override { attention::run(variant_, args(workspace_.data()), ctx); }
  std::string check(cudaStream_t stream) override {
    const std::vector<__nv_bfloat16> got = download(out_, stream);
    std::vector<double> want(got.size()), lse(got.size() / kShape.head_dim);
    attention::reference(kShape, qf_, q_strides(), kf_, kv_strides(), vf_, kv_strides(), want, lse);
    double diff = 0.0, norm = 0.0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double e = __bfloat162float(got[i]) - want[i];
      diff += e * e;
      norm += want[i] * want[i];
    }
    const std::vector<float> got_lse = download(lse_, stream);
    for (std::size_t r = 0; r < lse.size(); ++r)
      if (!(std::abs(got_lse[r] - lse[r]) <= 1e-4 * std::max(1.0, std::abs(lse[r]))))
        return "log-sum-exp of row " + std::to_string(r) + " wrong";
    const double error = std::sqrt(diff / norm);
    return error <= attention::relative_tolerance(DType::bf16) ? std::string()
                                                                : "relative error " + std::to_string(error);
  }

 private:
  static constexpr attention::Shape kShape{.batch = 2, .q_heads = 4, .kv_heads = 2, .q_len = 77, .kv_len = 90,
                                           .head_dim = 64, .causal = true, .scale = 0.25F};
  static attention::Strides q_strides() { return attention::dense_strides(4, 77, 64); }
  static attention::Strides kv_strides() { return attention::dense_strides(2, 90, 64); }
  attention::Args args(void* workspace) {
    return {.type = DType::bf16, .shape = kShape, .q = q_.data(), .q_strides = q_strides(), .k = k_.data(),
            .k_strides = kv_strides(), .v = v_.data(), .v_strides = kv_strides(), .o = out_.data(),
            .o_strides = q_strides(), .lse = lse_.data(), .workspace = workspace,
            .workspace_size = workspace_.size()};
  }
  const attention::AttentionVariant& variant_;
  DeviceBuffer<__nv_bfloat16> q_{2 * 4 * 77 * 64};
  DeviceBuffer<__nv_bfloat16> k_{2 * 2 * 90 * 64};
  DeviceBuffer<__nv_bfloat16> v_{2 * 2 * 90 * 64};
  DeviceBuffer<__nv_bfloat16> out_{2 * 4 * 77 * 64};
  DeviceBuffer<float> lse_{2 * 4 * 77};
  DeviceBuffer<std::byte> workspace_;
  std::vector<float> qf_, kf_, vf_;
};

constexpr int kRows = 97;
constexpr int kCols = 130;

class TransposeCall : public Call {
 public:
  explicit TransposeCall(const transpose::TransposeVariant& v) : variant_(v) {}
  void fill(unsigned seed, cudaStream_t stream) override {
    host_ = upload_random(in_, seed, stream);
    out_.poison(stream);
  }
  void run(const LaunchContext& ctx) override {
    const int ld_out = variant_.launch.copies ? kCols : kRows;
    transpose::run<float>(variant_, {kRows, kCols, in_.data(), kCols, out_.data(), ld_out}, ctx);
  }
  std::string check(cudaStream_t stream) override {
    const std::vector<float> got = download(out_, stream);
    int wrong = 0;
    for (int r = 0; r < kRows; ++r)
      for (int c = 0; c < kCols; ++c) {
        const std::size_t at = variant_.launch.copies ? static_cast<std::size_t>(r) * kCols + c
                                                      : static_cast<std::size_t>(c) * kRows + r;
        wrong += std::memcmp(&got[at], &host_[static_cast<std::size_t>(r) * kCols + c], sizeof(float)) != 0;
      }
    return wrong == 0 ? std::string() : std::to_string(wrong) + " elements wrong";
  }

 private:
  const transpose::TransposeVariant& variant_;
  DeviceBuffer<float> in_{static_cast<std::size_t>(kRows) * kCols};
  DeviceBuffer<float> out_{static_cast<std::size_t>(kRows) * kCols};
  std::vector<float> host_;
};

// Every GPU variant of every family, as family/name.
std::vector<std::string> gpu_variants() {
  std::vector<std::string> out;
  for (const auto& v : matmul::variants()) out.push_back(v.info.id());
  for (const auto& v : tensor_matmul::variants()) out.push_back(v.info.id());
  for (const auto& v : reduce::variants())
    if (reduce::ops<float>(v).device != nullptr) out.push_back(v.info.id());
  for (const auto& v : scan::variants()) out.push_back(v.info.id());
  for (const auto& v : histogram::variants()) out.push_back(v.info.id());
  for (const auto& v : transpose::variants()) out.push_back(v.info.id());
  for (const auto& v : attention::variants()) out.push_back(v.info.id());
  return out;
}

// The call of a variant, or null with `why` set where this GPU cannot run it.
std::unique_ptr<Call> make_call(const std::string& id, std::string& why) {
  const std::string family = id.substr(0, id.find('/'));
  const std::string name = id.substr(id.find('/') + 1);
  if (family == "matmul") return std::make_unique<MatmulCall>(matmul::find(name));
  if (family == "tensor-matmul") {
    const auto& v = tensor_matmul::find(name);
    why = tensor_matmul::device_supported() ? v.info.why_unavailable() : "no tensor-core support";
    return why.empty() ? std::make_unique<TensorCall>(v) : nullptr;
  }
  if (family == "reduction") return std::make_unique<ReduceCall>(reduce::find(name));
  if (family == "scan") return std::make_unique<ScanCall>(scan::find(name));
  if (family == "histogram") {
    const auto& v = histogram::find(name);
    why = v.info.why_unavailable();
    return why.empty() ? std::make_unique<HistogramCall>(v) : nullptr;
  }
  if (family == "attention") return std::make_unique<AttentionCall>(attention::find(name));
  return std::make_unique<TransposeCall>(transpose::find(name));
}

bool finishes_on_host(const std::string& id) {
  return id == "reduction/global_memory" || id == "reduction/shared_static" || id == "reduction/shared_dynamic";
}

class Contract : public testing::TestWithParam<std::string> {};

// Captured once, replayed three times on new inputs written into the same buffers.
TEST_P(Contract, ReplaysFromACudaGraphWithNewInputs) {
  SMEMLAB_REQUIRE_GPU();
  const std::string& id = GetParam();
  std::string why;
  const std::unique_ptr<Call> call = make_call(id, why);
  if (call == nullptr) GTEST_SKIP() << why;
  const Stream stream;
  const CublasHandle cublas;
  call->fill(1, stream.get());
  SMEMLAB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  SMEMLAB_CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal));
  if (finishes_on_host(id)) {
    try {
      call->run({stream.get(), cublas.get()});
      ADD_FAILURE() << "a host-finished variant was captured";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("single_pass"), std::string::npos) << e.what();
    }
    cudaGraph_t empty = nullptr;
    EXPECT_EQ(cudaStreamEndCapture(stream.get(), &empty), cudaSuccess) << "the refusal queued nothing";
    if (empty != nullptr) cudaGraphDestroy(empty);
    return;
  }
  call->run({stream.get(), cublas.get()});
  cudaGraph_t graph = nullptr;
  SMEMLAB_CUDA_CHECK(cudaStreamEndCapture(stream.get(), &graph));
  cudaGraphExec_t exec = nullptr;
  SMEMLAB_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (unsigned replay = 0; replay < 3; ++replay) {
    call->fill(100 + replay, stream.get());
    SMEMLAB_CUDA_CHECK(cudaGraphLaunch(exec, stream.get()));
    EXPECT_EQ(call->check(stream.get()), "") << "replay " << replay;
  }
  SMEMLAB_CUDA_CHECK(cudaGraphExecDestroy(exec));
  SMEMLAB_CUDA_CHECK(cudaGraphDestroy(graph));
}

INSTANTIATE_TEST_SUITE_P(EveryGpuVariant, Contract, testing::ValuesIn(gpu_variants()), [](const auto& info) {
  std::string name = info.param;
  std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return name;
});

// 8 threads start together; each calls every variant of every family twice, on its own stream,
// workspace and cuBLAS handle (a handle holds the stream it was last given: one per thread).
TEST(ContractThreads, EightThreadsCallEveryVariantAtOnce) {
  SMEMLAB_REQUIRE_GPU();
  constexpr int kThreads = 8;
  const std::vector<std::string> ids = gpu_variants();
  std::vector<std::vector<std::string>> failures(kThreads);
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      bool arrived = false;
      try {
        const Stream stream;
        const CublasHandle cublas;
        std::vector<std::unique_ptr<Call>> calls;
        for (const auto& id : ids) {
          std::string why;
          calls.push_back(make_call(id, why));
        }
        arrived = true;
        start.arrive_and_wait();
        for (unsigned round = 0; round < 2; ++round)
          for (std::size_t i = 0; i < ids.size(); ++i) {
            if (calls[i] == nullptr) continue;
            calls[i]->fill(1000 * static_cast<unsigned>(t) + round, stream.get());
            calls[i]->run({stream.get(), cublas.get()});
            const std::string wrong = calls[i]->check(stream.get());
            if (!wrong.empty()) failures[t].push_back(ids[i] + ": " + wrong);
          }
      } catch (const std::exception& e) {
        if (!arrived) start.count_down();  // the others must not wait for this thread
        failures[t].push_back(std::string("threw: ") + e.what());
      }
    });
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t)
    for (const auto& f : failures[t]) ADD_FAILURE() << "thread " << t << ": " << f;
}

// Every device in turn, each variant called on each: the one-time state of a call (shared-memory
// allowances, occupancy counts, resident clusters) is kept per device, so the second device is
// set up as the first was. Needs two GPUs.
TEST(ContractDevices, EveryVariantRunsOnEveryDevice) {
  SMEMLAB_REQUIRE_GPU();
  int devices = 0;
  SMEMLAB_CUDA_CHECK(cudaGetDeviceCount(&devices));
  if (devices < 2) GTEST_SKIP() << "needs two CUDA devices, found " << devices;
  for (int device = 0; device < devices; ++device) {
    SMEMLAB_CUDA_CHECK(cudaSetDevice(device));
    const Stream stream;
    const CublasHandle cublas;
    for (const auto& id : gpu_variants()) {
      std::string why;
      const std::unique_ptr<Call> call = make_call(id, why);
      if (call == nullptr) continue;
      call->fill(7, stream.get());
      call->run({stream.get(), cublas.get()});
      EXPECT_EQ(call->check(stream.get()), "") << id << " on device " << device;
    }
  }
  SMEMLAB_CUDA_CHECK(cudaSetDevice(0));
}

}  // namespace
