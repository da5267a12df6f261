#pragma once
// The benchmark families; registry.cpp lists them in order.
#include "bench/bench.hpp"

namespace smemlab {

const BenchFamily& matmul_family();
// The tuning sweep of the autotuned matmul: every compiled tile configuration x raster group
// x split-K slices, as the autotuned variant could launch them. Not part of a default run.
const BenchFamily& matmul_tiles_family();
// Tensor-core GEMM (bf16, half, tf32 inputs; float C) against cuBLAS GemmEx.
const BenchFamily& tensor_matmul_family();
// The tuning sweep of the default tensor-core call: every kernel it can choose, K whole and in
// ranges. Not part of a default run.
const BenchFamily& tensor_matmul_tiles_family();
const BenchFamily& reduction_family();
const BenchFamily& transpose_family();
// Prefix sums (int32 and float, inclusive and exclusive) against cub::DeviceScan.
const BenchFamily& scan_family();
// Counts per bin (bytes into 256 bins; floats into 1,024 to 65,536) against cub::DeviceHistogram.
const BenchFamily& histogram_family();
// Fused attention forward (bf16, half) against the unfused cuBLAS path.
const BenchFamily& attention_family();
// Attention for decoding: 1 and 16 query tokens over a long kv cache, in GB/s of K and V read.
// Not part of a default run.
const BenchFamily& attention_decode_family();
const BenchFamily& banks_family();

// "2^K" for powers of two, the decimal number otherwise: how the reduction sizes are written.
[[nodiscard]] std::string count_label(std::int64_t n);

// `smemlab sum`: every reduction variant that runs `type` on `count` copies of `value`, beside the
// exact sum of the stored values (the “big eats small” of the tutorial “Shared Memory”, as a
// table).
[[nodiscard]] std::string sum_of_copies(double value, std::int64_t count, DType type,
                                        const DeviceInfo& device);

}  // namespace smemlab
