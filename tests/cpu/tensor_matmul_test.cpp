// The tensor-core family's host side: argument checks, tolerances and the autotuned choice.
#include <gtest/gtest.h>

#include <stdexcept>

#include "smemlab/tensor_matmul.hpp"
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

TEST(TensorMatmulArgs, WorkspaceForUnalignedRowsAndTf32Transposes) {
  EXPECT_EQ(tensor_matmul::workspace_bytes(dense(DType::bf16, 64, 64, 64, storage)), 0U);
  // 63 bf16 is 126 bytes: A's rows are not 16-byte aligned.
  EXPECT_GT(tensor_matmul::workspace_bytes(dense(DType::bf16, 64, 64, 63, storage)), 0U);
  // 4 bf16 is 8 bytes.
  EXPECT_GT(tensor_matmul::workspace_bytes(dense(DType::bf16, 64, 4, 4, storage)), 0U);
  // tf32: room for B's transpose (N rows of K padded to 32 floats) even when aligned, plus A's
  // copy when A is not.
  EXPECT_EQ(tensor_matmul::workspace_bytes(dense(DType::tf32, 64, 4, 4, storage)), 4U * 32 * 4 + 0);
  EXPECT_EQ(tensor_matmul::workspace_bytes(dense(DType::tf32, 64, 64, 64, storage)), 64U * 64 * 4);
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
