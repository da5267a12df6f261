#pragma once
// Matrix multiplication: C = alpha * A * B + beta * C in float, row-major with leading dimensions
// (the Matrix {width, height, stride} of “Matrix Multiplication Using Shared Memory”), any M, N, K
// >= 1.
#include <span>
#include <string_view>

#include "smemlab/launch.hpp"
#include "smemlab/variant.hpp"

namespace smemlab::matmul {

struct GemmArgs {
  int m = 0;  // rows of A and C
  int n = 0;  // columns of B and C
  int k = 0;  // columns of A, rows of B
  float alpha = 1.0F;
  const float* a = nullptr;
  int lda = 0;  // >= k
  const float* b = nullptr;
  int ldb = 0;  // >= n
  float beta = 0.0F;  // 0: C is written without being read, as in BLAS
  float* c = nullptr;
  int ldc = 0;  // >= n
};

// Throws std::invalid_argument naming the first violated condition.
void validate(const GemmArgs& args);

using Launch = void (*)(const GemmArgs&, const LaunchContext&);
using GemmVariant = Variant<Launch>;

// Registered variants in teaching order; the reference ("cublas") first.
[[nodiscard]] std::span<const GemmVariant> variants();
// Throws UsageError for an unknown name.
[[nodiscard]] const GemmVariant& find(std::string_view name);

// Validates the arguments, then launches the variant asynchronously on ctx.stream.
void gemm(const GemmVariant& variant, const GemmArgs& args, const LaunchContext& ctx);

// The autotuned variant (src/matmul/12_autotuned.cu) picks one of several compiled tile
// configurations per shape, from a table written from a tuning sweep on the device
// (scripts/tune-matmul.sh). These are its parts, for the sweep and for tests.
enum class ShapeClass { small, unaligned, square, tall, wide };
[[nodiscard]] std::string_view shape_class_name(ShapeClass shape);
// In this order: small: fewer 128x128 tiles of C than SMs; unaligned: B's rows cannot be
// copied 16 bytes at a time (4-byte copies change which tiles pay); tall: M >= 4N; wide:
// N >= 4M; else square.
[[nodiscard]] ShapeClass classify(int m, int n, int sms, bool b_rows_aligned);

struct TileChoice {
  std::string_view config;  // a name from tile_configs()
  int group = 0;            // raster group in block-rows; 0: row-major block order
  int slices = 1;           // split-K slices, at most; 1: no split
};
struct TuningEntry {
  int cc_major, cc_minor, sms;  // the device the sweep ran on
  ShapeClass shape;
  TileChoice choice;
};

[[nodiscard]] std::span<const std::string_view> tile_configs();
[[nodiscard]] std::span<const TuningEntry> tuning_table();
// The table's choice for a shape class on a device (compute capability, SMs); devices the
// table does not name take the entries of its first device.
[[nodiscard]] TileChoice choose_tiles(ShapeClass shape, int cc_major, int cc_minor, int sms);
// The same for these arguments on the current device, with split-K from the shape's waves
// (split_k_for_waves).
[[nodiscard]] TileChoice choose_tiles(const GemmArgs& args);
// Split-K slices for an m x n output of depth k with a configuration's block tile on `sms` SMs:
// when the output has fewer tiles than half the SMs (under half a wave), K is cut until there
// are about two blocks per SM, each slice keeping at least 1024 of K; otherwise 1.
[[nodiscard]] int split_k_for_waves(std::string_view config, int m, int n, int k, int sms);
// The split-K slices a choice launches with at depth k: fewer than asked where K is short.
[[nodiscard]] int split_k_slices(const TileChoice& choice, int k);
// Validates the arguments and the choice (UsageError for an unknown configuration), then
// launches. Split-K uses fewer slices than asked where K is short: each keeps >= 256 of K.
void gemm_tiles(const TileChoice& choice, const GemmArgs& args, const LaunchContext& ctx);

// Double-precision CPU reference of alpha * A * B + beta * C_in, written to out (ld ldo).
// c_in may be null when beta == 0. Uses every hardware thread.
void reference_gemm(int m, int n, int k, double alpha, const float* a, int lda, const float* b,
                    int ldb, double beta, const float* c_in, int ldc, double* out, int ldo);

// Largest accepted ||C - C_ref||_F / ||C_ref||_F for an FP32 product of depth k; see the
// definition for the error model behind it.
[[nodiscard]] double relative_tolerance(int k);

}  // namespace smemlab::matmul
