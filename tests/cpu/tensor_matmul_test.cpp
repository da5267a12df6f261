// The tensor-core family's host side: argument checks, tolerances and the autotuned choice.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "smemlab/shape.hpp"
#include "smemlab/tensor_matmul.hpp"
#include "tensor_matmul/partial_sums.hpp"
#include "tensor_matmul/tuning.hpp"

using namespace smemlab;

namespace {

tensor_matmul::GemmArgs dense(DType type, int m, int n, int k, const void* storage) {
  return {.input = type, .m = m, .n = n, .k = k, .a = storage, .lda = k, .b = storage, .ldb = n,
          .c = static_cast<float*>(const_cast<void*>(storage)), .ldc = n};
}

alignas(16) float storage[4];

TEST(TensorMatmulArgs, RejectNonTensorInputsAndShortLeadingDimensions) {
  EXPECT_NO_THROW(tensor_matmul::validate(dense(DType::bf16, 64, 64, 64, storage)));
  EXPECT_THROW(tensor_matmul::validate(dense(DType::f32, 64, 64, 64, storage)), std::invalid_argument);
  auto args = dense(DType::f16, 64, 64, 64, storage);
  args.ldb = 63;
  EXPECT_THROW(tensor_matmul::validate(args), std::invalid_argument);
}

// A type the variant does not take is refused before anything is launched.
TEST(TensorMatmulArgs, RejectATypeTheVariantDoesNotTake) {
  EXPECT_THROW(tensor_matmul::gemm(tensor_matmul::find("swapped"), dense(DType::bf16, 64, 64, 64, storage), {}),
               std::invalid_argument);
}

TEST(TensorMatmulArgs, WorkspaceForUnalignedRowsAndTf32Transposes) {
  EXPECT_EQ(tensor_matmul::workspace_bytes(dense(DType::bf16, 64, 64, 64, storage)), 0U);
  // 63 bf16 is 126 bytes: A's rows are not 16-byte aligned.
  EXPECT_GT(tensor_matmul::workspace_bytes(dense(DType::bf16, 64, 64, 63, storage)), 0U);
  // 4 bf16 is 8 bytes.
  EXPECT_GT(tensor_matmul::workspace_bytes(dense(DType::bf16, 64, 4, 4, storage)), 0U);
  // tf32: room for B's transpose (N rows of K padded to 32 floats) even when aligned, plus A's
  // copy when A is not.
  // Each plus up to 255 bytes to reach a 256-byte boundary in whatever workspace is given.
  EXPECT_EQ(tensor_matmul::workspace_bytes(dense(DType::tf32, 64, 4, 4, storage)), 4U * 32 * 4 + 255);
  EXPECT_EQ(tensor_matmul::workspace_bytes(dense(DType::tf32, 64, 64, 64, storage)), 64U * 64 * 4 + 255);
  EXPECT_GT(tensor_matmul::workspace_bytes(dense(DType::tf32, 64, 64, 63, storage)), 64U * 64 * 4);
  // A misaligned pointer with aligned leading dimensions.
  const auto* misaligned = reinterpret_cast<const char*>(storage) + 2;
  EXPECT_GT(tensor_matmul::workspace_bytes(dense(DType::bf16, 64, 64, 64, misaligned)), 0U);
}

TEST(TensorMatmulArgs, RefuseAWorkspaceTooSmall) {
  auto args = dense(DType::bf16, 64, 64, 63, storage);
  args.workspace = storage;
  args.workspace_size = tensor_matmul::workspace_bytes(args) - 1;
  EXPECT_THROW(tensor_matmul::validate(args), std::invalid_argument);
  args.workspace_size += 1;
  EXPECT_NO_THROW(tensor_matmul::validate(args));
}

TEST(TensorMatmulTolerance, FollowsTheInputPrecision) {
  // bf16 and half products are exact in float: only the summation's error, as SGEMM's order.
  EXPECT_LT(tensor_matmul::relative_tolerance(DType::bf16, 4096), 1e-4);
  EXPECT_EQ(tensor_matmul::relative_tolerance(DType::bf16, 4096), tensor_matmul::relative_tolerance(DType::f16, 4096));
  // tf32 cuts each input to 10 fraction bits: about 1e-3, whatever K.
  EXPECT_GT(tensor_matmul::relative_tolerance(DType::tf32, 16), 5e-3);
  EXPECT_LT(tensor_matmul::relative_tolerance(DType::tf32, 16), 1e-2);
}

TEST(DTypes, ParseEveryNameTheyPrint) {
  for (const DType t : kAllDTypes) EXPECT_EQ(parse_dtype(dtype_name(t)), t);
  EXPECT_FALSE(parse_dtype("fp8").has_value());
  EXPECT_EQ(dtype_bytes(DType::bf16), 2U);
  EXPECT_EQ(dtype_bytes(DType::tf32), 4U);
}

}  // namespace

namespace {

// The choice by waves on an H200's 132 SMs: large tiles once there are about a wave of them,
// small tiles where large ones would leave most SMs idle.
TEST(TensorMatmulChoice, FillsTheSmsBeforeGrowingTheTile) {
  EXPECT_EQ(tensor_matmul::choose_tiles(8192, 8192, 8192, 132).config, "128x256");
  EXPECT_EQ(tensor_matmul::choose_tiles(2048, 2048, 2048, 132).config, "128x256");
  EXPECT_EQ(tensor_matmul::choose_tiles(4097, 4097, 4097, 132).config, "128x256");
  EXPECT_EQ(tensor_matmul::choose_tiles(1024, 1024, 1024, 132).config, "64x64");
  EXPECT_EQ(tensor_matmul::choose_tiles(512, 512, 512, 132).config, "64x64");
  EXPECT_EQ(tensor_matmul::choose_tiles(1, 1, 1, 132).config, "64x64");
}

// The clusters step pairs tiles where each of an H200's 66 clusters walks 5 pairs of 128 x 256
// tiles or more (330 pairs), and runs single blocks below.
TEST(TensorMatmulClusters, PairTilesOnlyWhereEachClusterWalksEnoughPairs) {
  EXPECT_EQ(tensor_matmul::cluster_rows(8192, 8192, 66), 2);                // 1024 pairs
  EXPECT_EQ(tensor_matmul::cluster_rows(5120, 5120, 66), 2);                // 400
  EXPECT_EQ(tensor_matmul::cluster_rows(8192, 4096, 66), 2);                // 512
  EXPECT_EQ(tensor_matmul::cluster_rows(256 * 22, 256 * 15, 66), 2);        // 330
  EXPECT_EQ(tensor_matmul::cluster_rows(256 * 22, 256 * 15 - 256, 66), 1);  // 308
  EXPECT_EQ(tensor_matmul::cluster_rows(4096, 4096, 66), 1);                // 256
  EXPECT_EQ(tensor_matmul::cluster_rows(8192, 1024, 66), 1);                // 128
  EXPECT_EQ(tensor_matmul::cluster_rows(1, 1, 66), 1);
  EXPECT_EQ(tensor_matmul::cluster_rows(4096, 4096, 20), 2);  // a smaller GPU: fewer clusters to fill
  EXPECT_THROW((void)tensor_matmul::cluster_rows(4096, 4096, 0), std::invalid_argument);
}

}  // namespace

namespace {

const tensor_matmul::TensorTuning& h100() { return tensor_matmul::tensor_tuning(9, 0, 132); }

}  // namespace

TEST(TensorChooser, EveryKernelHasMeasuredRatesAndNoOtherDoes) {
  for (const auto& device : tensor_matmul::tensor_tunings()) {
    const auto shapes = tensor_matmul::kernel_shapes();
    const auto rated_as_another =
        std::count_if(shapes.begin(), shapes.end(), [](const auto& s) { return !s.rated_as.empty(); });
    ASSERT_EQ(device.kernels.size() + static_cast<std::size_t>(rated_as_another), shapes.size());
    for (const auto& shape : shapes) {
      const std::string_view rated = shape.rated_as.empty() ? shape.name : shape.rated_as;
      const auto rate = std::find_if(device.kernels.begin(), device.kernels.end(),
                                     [&](const auto& r) { return r.kernel == rated; });
      ASSERT_NE(rate, device.kernels.end()) << shape.name;
      if (shape.swapped) {
        EXPECT_EQ(rate->two_byte, 0.0) << shape.name << ": tf32 only";
      } else {
        EXPECT_GT(rate->two_byte, 0.0) << shape.name;
      }
      EXPECT_GT(rate->tf32, 0.0);
      EXPECT_GE(rate->item_ns, 0.0);
      EXPECT_GT(rate->stream, 0.0);
      EXPECT_LE(rate->stream, 1.0);
    }
    EXPECT_GT(device.dram_bytes_per_ns, 0.0);
    EXPECT_GT(device.l2_bytes_per_ns, 0.0);
    EXPECT_GT(device.partial_bytes_per_ns, 0.0);
  }
}

TEST(TensorChooser, RangesOfKAreNeverEmpty) {
  for (const int k : {1, 63, 64, 65, 4096, 65536, 100000})
    for (const int splits : {1, 2, 3, 7, 64, 1000}) {
      const auto r = tensor_matmul::detail::k_ranges(k, 64, splits);
      const int steps = (k + 63) / 64;
      EXPECT_LE(r.count, splits);
      EXPECT_GE(r.count * r.steps_per_range, steps) << k << " " << splits;
      EXPECT_LT((r.count - 1) * r.steps_per_range, steps) << k << " " << splits;
    }
}

// A 128-byte box row that starts off a 128-byte line touches two: rows 2,000 bytes apart start
// on a line one time in 8; rows of 32 bytes at most fit inside one.
TEST(TensorChooser, CountsTheLinesABoxRowTouches) {
  EXPECT_DOUBLE_EQ(tensor_matmul::lines_per_box_row(4096, 0, 128), 1.0);
  EXPECT_DOUBLE_EQ(tensor_matmul::lines_per_box_row(4096, 16, 128), 2.0);
  EXPECT_DOUBLE_EQ(tensor_matmul::lines_per_box_row(2000, 0, 128), 1.875);
  EXPECT_DOUBLE_EQ(tensor_matmul::lines_per_box_row(8000, 0, 128), 1.5);
  EXPECT_DOUBLE_EQ(tensor_matmul::lines_per_box_row(32, 0, 32), 1.0);
  const auto dense = tensor_matmul::dense_box_rows(3000, 1000, DType::bf16);
  EXPECT_DOUBLE_EQ(dense.a, 1.875);  // 2,000-byte rows of A
  EXPECT_DOUBLE_EQ(dense.b, 1.875);  // 6,000-byte rows of B
  // A call's operands as stored: rows not 16-byte aligned are copied onto lines first.
  alignas(256) static std::byte memory[256];
  tensor_matmul::GemmArgs g{.input = DType::bf16, .m = 64, .n = 64, .k = 64, .a = memory + 16, .lda = 64,
                            .b = memory, .ldb = 63};
  const auto stored = tensor_matmul::box_rows_of(g);
  EXPECT_DOUBLE_EQ(stored.a, 2.0);  // every row 16 bytes into a line
  EXPECT_DOUBLE_EQ(stored.b, 1.0);
  // 2000 x 3000 x 1000: both operands off lines make the tiles that stream B twice per pair of
  // blocks slower than 11's pairs, which read it once (measured: 46.6 against 38.8 us, H100).
  const auto off_lines =
      tensor_matmul::rank_kernels(2000, 3000, 1000, DType::bf16, true, true, h100(), false, false, dense);
  EXPECT_EQ(off_lines.front().choice.kernel, "clusters128x256");
}

// Operands stored transposed: the small tiles read them as stored, an element at a time, which
// pays for a small product and not for a large one; the TMA tiles read them as stored too, but
// repack rows that are not 16-byte aligned first.
TEST(TensorChooser, WeighsHowEachKernelReadsOperandsStoredTransposed) {
  // 47 x 11785 x 9073 with Bᵀ (K odd: rows not aligned): gathering 214 MB of Bᵀ an element at a
  // time measured slower than copying it first (360 against 250 us, H100).
  const auto large = tensor_matmul::rank_kernels(47, 11785, 9073, DType::bf16, false, true, h100(), false, true,
                                                 {1.0, 1.0, false, false});
  EXPECT_FALSE(tensor_matmul::kernel_shape(large.front().choice.kernel).in_place) << large.front().choice.kernel;
  // 49 x 255 x 72 with Aᵀ (M of 49: rows not aligned): a kernel that reads Aᵀ as stored.
  const tensor_matmul::BoxRows unaligned_a{1.0, 1.0, false, true};
  const auto small =
      tensor_matmul::rank_kernels(49, 255, 72, DType::bf16, true, true, h100(), true, false, unaligned_a).front();
  EXPECT_TRUE(small.choice.kernel == tensor_matmul::kCudaCoreDot ||
              tensor_matmul::reads_stored_at(tensor_matmul::kernel_shape(small.choice.kernel), DType::bf16))
      << small.choice.kernel;
  // The wgmma tiles read an aligned Aᵀ as stored, in bf16 and not in tf32, and repack an
  // unaligned one first.
  const auto& wgmma = tensor_matmul::kernel_shape("wgmma128x128");
  EXPECT_TRUE(tensor_matmul::reads_stored_at(wgmma, DType::bf16));
  EXPECT_FALSE(tensor_matmul::reads_stored_at(wgmma, DType::tf32));
  const auto at = [&](tensor_matmul::BoxRows rows) {
    return tensor_matmul::estimate({"wgmma128x128", 1}, 4096, 4096, 4096, DType::bf16, true, h100(), true, false, rows);
  };
  EXPECT_DOUBLE_EQ(at({}).extra_ns, tensor_matmul::estimate({"wgmma128x128", 1}, 4096, 4096, 4096, DType::bf16,
                                                            true, h100())
                                        .extra_ns);
  EXPECT_GT(at(unaligned_a).extra_ns, at({}).extra_ns + h100().launch_ns);
}

TEST(TensorChooser, RanksEveryCandidateAndSplitsOnlyWhereTilesAreFew) {
  const auto ranked = tensor_matmul::rank_kernels(4096, 4096, 4096, DType::bf16, true, true, h100());
  ASSERT_FALSE(ranked.empty());
  for (std::size_t i = 1; i < ranked.size(); ++i) EXPECT_LE(ranked[i - 1].ns, ranked[i].ns);
  // A large square: a Hopper kernel, K whole.
  const std::string_view first = ranked.front().choice.kernel;
  EXPECT_TRUE(first.starts_with("wgmma") || first.starts_with("clusters") || first.starts_with("streamk"));
  EXPECT_EQ(ranked.front().choice.splits, 1);
  // 14's tiles of C's transpose are tf32's only, and they save B's transpose.
  for (const auto& e : ranked)
    if (e.choice.kernel != tensor_matmul::kCudaCoreDot)
      EXPECT_FALSE(tensor_matmul::kernel_shape(e.choice.kernel).swapped) << e.choice.kernel;
  const auto tf32 = [](std::string_view kernel) {
    return tensor_matmul::estimate({kernel, 1}, 4096, 4096, 4096, DType::tf32, true, h100());
  };
  EXPECT_LT(tf32("swapped128x128").extra_ns, tf32("wgmma128x128").extra_ns);
  // Two tiles of 128 x 256 over a long K: K in ranges.
  const auto long_k = tensor_matmul::rank_kernels(256, 256, 65536, DType::bf16, true, true, h100()).front();
  EXPECT_GT(long_k.choice.splits, 1);
  EXPECT_GT(long_k.items, 32);  // more work items than the two tiles by far
  // Without wgmma: the mma.sync kernels and the CUDA cores' only, those that read unaligned rows
  // in place among them.
  bool weighs_in_place = false;
  for (const auto& e : tensor_matmul::rank_kernels(2000, 3000, 1000, DType::tf32, false, false, h100())) {
    EXPECT_TRUE(e.choice.kernel.starts_with("mma") || e.choice.kernel.starts_with("inplace") ||
                e.choice.kernel.starts_with("smallk") || e.choice.kernel == tensor_matmul::kCudaCoreDot)
        << e.choice.kernel;
    weighs_in_place = weighs_in_place || e.choice.kernel.starts_with("inplace");
  }
  EXPECT_TRUE(weighs_in_place);
  // Aligned operands: no in-place kernel, which would be the mma kernel of its tile.
  for (const auto& e : tensor_matmul::rank_kernels(2000, 3000, 1024, DType::bf16, true, true, h100()))
    EXPECT_FALSE(e.choice.kernel.starts_with("inplace")) << e.choice.kernel;
  // A product too small to fill a wave pays for its launch and its fixed time, not its waves.
  const auto tiny = tensor_matmul::rank_kernels(1, 1, 1, DType::bf16, true, true, h100()).front();
  EXPECT_EQ(tiny.items, 1);
  EXPECT_LT(tiny.ns, ranked.front().ns / 10);
}

TEST(TensorStreamK, SharesOnlyTheTilesOfAPartialWaveAfterWholeOnes) {
  using tensor_matmul::stream_k_plan;
  // Whole waves, or less than one: every tile whole.
  EXPECT_EQ(stream_k_plan(264, 64, 132).stream_tiles, 0);
  EXPECT_EQ(stream_k_plan(264, 64, 132).blocks, 132);
  EXPECT_EQ(stream_k_plan(100, 64, 132).stream_tiles, 0);
  EXPECT_EQ(stream_k_plan(100, 64, 132).blocks, 100);
  // 4096^3 in 128 x 256 tiles: 3.88 waves; the last 116 tiles' steps over every block.
  EXPECT_EQ(stream_k_plan(512, 64, 132).stream_tiles, 116);
  EXPECT_EQ(stream_k_plan(512, 64, 132).stream_blocks, 132);
  // A short K: each block at least 4 steps (60 tiles x 16 steps / 4 = 240, so every SM).
  EXPECT_EQ(stream_k_plan(192, 16, 132).stream_blocks, 132);
  EXPECT_EQ(stream_k_plan(133, 8, 132).stream_blocks, 2);
  // One tile left over: at most 4 pieces of it.
  EXPECT_EQ(stream_k_plan(133, 64, 132).stream_blocks, 4);
  EXPECT_EQ(stream_k_plan(133, 1, 132).stream_blocks, 1);
}

TEST(TensorStreamK, IsWeighedWhereTheLastWaveIsPartial) {
  const auto weighed = [](int m, int n, int k) {
    for (const auto& e : tensor_matmul::rank_kernels(m, n, k, DType::bf16, true, true, h100()))
      if (e.choice.kernel == "streamk128x256") return true;
    return false;
  };
  EXPECT_TRUE(weighed(4096, 4096, 4096));
  EXPECT_FALSE(weighed(128 * 132, 256, 4096));  // 132 tiles: one whole wave
  EXPECT_FALSE(weighed(2048, 2048, 4096));      // 128 tiles: less than one
  // 1.45 waves of 128 x 256 tiles over a long K: every SM busy to the end beats a second wave
  // half empty; over a short one, the shared tiles' sums and the extra launch cost more.
  const auto at = [](std::string_view kernel, int k) {
    return tensor_matmul::estimate({kernel, 1}, 2048, 3072, k, DType::bf16, true, h100());
  };
  EXPECT_LT(at("streamk128x256", 16384).ns, at("wgmma128x256", 16384).ns);
  EXPECT_GT(at("streamk128x256", 1024).ns, at("wgmma128x256", 1024).ns);
  EXPECT_NEAR(at("streamk128x256", 1024).waves, 192.0 / 132.0, 1e-9);
}

// Step 19's plan: enough threads that each loads about four elements of K, halved while the
// blocks would not fit on the SMs twice over; the rounds a block waits for follow.
TEST(TensorChooser, PlansTheDotKernelsThreadsByK) {
  const auto tiny = tensor_matmul::plan_dot(3, 1, 13, 132);
  EXPECT_EQ(tiny.blocks, 1);
  EXPECT_EQ(tiny.threads, 32);  // a warp at least
  EXPECT_EQ(tiny.rounds, 1);
  const auto long_k = tensor_matmul::plan_dot(1, 10, 11192, 132);
  EXPECT_EQ(long_k.blocks, 3);
  EXPECT_EQ(long_k.threads, 1024);
  EXPECT_EQ(long_k.rounds, 2 + 3);  // 11 elements a thread: two passes of four, then three
  const auto many = tensor_matmul::plan_dot(1000, 1000, 4096, 132);
  EXPECT_EQ(many.threads, 128);
  EXPECT_EQ(many.rounds, 8);
  // The FP32 call weighs it only where its blocks all run at once.
  EXPECT_TRUE(tensor_matmul::dot_blocks_fit_at_once(325, 27, 113, 132));  // 574 blocks of 32 threads
  EXPECT_FALSE(tensor_matmul::dot_blocks_fit_at_once(256, 256, 256, 132));  // 4,096 blocks of 128
  EXPECT_FALSE(tensor_matmul::dot_blocks_fit_at_once(1, 4096, 4096, 132));  // 1,024 blocks of 256
}

// The dot kernel where the outputs are few (one launch, a round or two of loads), not where
// they are many: each of its small blocks costs the SM that starts it.
TEST(TensorChooser, WeighsTheDotKernelWhereOutputsAreFew) {
  for (const DType type : {DType::bf16, DType::tf32}) {
    EXPECT_EQ(tensor_matmul::rank_kernels(3, 1, 156, type, false, true, h100()).front().choice.kernel,
              tensor_matmul::kCudaCoreDot);
    EXPECT_EQ(tensor_matmul::rank_kernels(24, 22, 964, type, true, true, h100()).front().choice.kernel,
              tensor_matmul::kCudaCoreDot);
    EXPECT_NE(tensor_matmul::rank_kernels(166, 7340, 11, type, false, true, h100()).front().choice.kernel,
              tensor_matmul::kCudaCoreDot);
    EXPECT_NE(tensor_matmul::rank_kernels(4096, 4096, 4096, type, true, true, h100()).front().choice.kernel,
              tensor_matmul::kCudaCoreDot);
  }
  // Many small blocks take longer than their rounds of loads.
  EXPECT_GT(tensor_matmul::dot_predicted_ns(166, 7340, 11, DType::bf16, false, false, 132),
            4.0 * tensor_matmul::dot_predicted_ns(3, 1, 156, DType::bf16, false, false, 132));
}

// The table the chooser reads is the fit committed beside it.
TEST(TensorChooser, RatesAreTheCommittedFit) {
  std::ifstream in(std::string(SMEMLAB_DOCS_DATA_DIR) + "/tensor-tuning-h100.json");
  ASSERT_TRUE(in) << "missing tensor-tuning-h100.json";
  const auto fit = nlohmann::json::parse(in);
  const auto& d = fit["device"];
  const auto& device = tensor_matmul::tensor_tuning(d["cc_major"], d["cc_minor"], d["sms"]);
  EXPECT_NEAR(device.launch_ns, fit["launch_ns"].get<double>(), 0.1);
  EXPECT_NEAR(device.dram_bytes_per_ns, fit["dram_bytes_per_ns"].get<double>(), 0.1);
  EXPECT_NEAR(device.l2_bytes_per_ns, fit["l2_bytes_per_ns"].get<double>(), 0.1);
  EXPECT_NEAR(device.partial_bytes_per_ns, fit["partial_bytes_per_ns"].get<double>(), 0.1);
  ASSERT_EQ(fit["rates"].size(), device.kernels.size());
  for (const auto& r : device.kernels) {
    const auto& measured = fit["rates"][std::string(r.kernel)];
    EXPECT_NEAR(r.two_byte, measured["two_byte"].get<double>(), 0.1) << r.kernel;
    EXPECT_NEAR(r.tf32, measured["tf32"].get<double>(), 0.1) << r.kernel;
    EXPECT_NEAR(r.item_ns, measured["item_ns"].get<double>(), 0.1) << r.kernel;
    EXPECT_NEAR(r.stream, measured["stream"].get<double>(), 1e-3) << r.kernel;
  }
}

// The chooser's model in C++ is the model the rates were fitted with: for every choice of the
// sweep, 16_auto.cpp predicts the time that scripts/tune_tensor.py recorded.
TEST(TensorChooser, PredictsWhatTheFitPredicted) {
  std::ifstream in(std::string(SMEMLAB_DOCS_DATA_DIR) + "/tensor-tuning-h100.json");
  ASSERT_TRUE(in) << "missing tensor-tuning-h100.json";
  const auto fit = nlohmann::json::parse(in);
  ASSERT_GT(fit["predicted_ns"].size(), 50U);
  for (const auto& [key, predicted] : fit["predicted_ns"].items()) {
    // "KERNEL/kSPLITS MxNxK TYPE"
    const auto slash = key.find("/k");
    const auto space = key.find(' ');
    const auto last = key.rfind(' ');
    const std::string kernel = key.substr(0, slash);
    const int splits = std::stoi(key.substr(slash + 2, space - slash - 2));
    const GemmShape g = gemm_shape(parse_shape(key.substr(space + 1, last - space - 1)));
    const auto type = parse_dtype(key.substr(last + 1));
    ASSERT_TRUE(type.has_value()) << key;
    const auto shapes = tensor_matmul::kernel_shapes();
    const auto shape = std::find_if(shapes.begin(), shapes.end(), [&](const auto& s) { return s.name == kernel; });
    ASSERT_NE(shape, shapes.end()) << key;
    const bool aligned = tensor_matmul::dense_rows_aligned(g.n, g.k, *type);  // the sweep's operands are dense
    const auto e = tensor_matmul::estimate({shape->name, splits}, g.m, g.n, g.k, *type, aligned, h100(), false, false,
                                           tensor_matmul::dense_box_rows(g.n, g.k, *type));
    EXPECT_NEAR(e.ns, predicted.get<double>(), 1e-6 * predicted.get<double>() + 1e-3) << key;
  }
}
