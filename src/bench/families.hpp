#pragma once
// The benchmark families; registry.cpp lists them in order.
#include "bench/bench.hpp"

namespace smemlab {

class MatmulFamily final : public BenchFamily {
 public:
  MatmulFamily();
  [[nodiscard]] std::vector<VariantInfo> variants() const override;
  [[nodiscard]] std::size_t device_bytes(const Shape& shape, DType type) const override;
  [[nodiscard]] std::vector<BenchRow> run(const Shape& shape, DType type,
                                          std::span<const std::string_view> variants,
                                          const BenchContext& ctx) const override;
};

// The tuning sweep of the autotuned matmul: every compiled tile configuration x raster group
// x split-K slices, as the autotuned variant could launch them. Not part of a default run.
class MatmulTilesFamily final : public BenchFamily {
 public:
  MatmulTilesFamily();
  [[nodiscard]] std::vector<VariantInfo> variants() const override;
  [[nodiscard]] std::size_t device_bytes(const Shape& shape, DType type) const override;
  [[nodiscard]] std::vector<BenchRow> run(const Shape& shape, DType type,
                                          std::span<const std::string_view> variants,
                                          const BenchContext& ctx) const override;
};

class ReductionFamily final : public BenchFamily {
 public:
  ReductionFamily();
  [[nodiscard]] std::vector<VariantInfo> variants() const override;
  [[nodiscard]] std::size_t device_bytes(const Shape& shape, DType type) const override;
  [[nodiscard]] std::vector<BenchRow> run(const Shape& shape, DType type,
                                          std::span<const std::string_view> variants,
                                          const BenchContext& ctx) const override;
};

// "2^K" for powers of two, the decimal number otherwise: how the reduction sizes are written.
[[nodiscard]] std::string count_label(std::int64_t n);

// `smemlab sum`: every reduction variant that runs `type` on `count` copies of `value`, beside
// the exact sum of the stored values (seed 001's "big eats small" as a table).
[[nodiscard]] std::string sum_of_copies(double value, std::int64_t count, DType type,
                                        const DeviceInfo& device);

class TransposeFamily final : public BenchFamily {
 public:
  TransposeFamily();
  [[nodiscard]] std::vector<VariantInfo> variants() const override;
  [[nodiscard]] std::size_t device_bytes(const Shape& shape, DType type) const override;
  [[nodiscard]] std::vector<BenchRow> run(const Shape& shape, DType type,
                                          std::span<const std::string_view> variants,
                                          const BenchContext& ctx) const override;
};

class BanksFamily final : public BenchFamily {
 public:
  BanksFamily();
  [[nodiscard]] std::vector<VariantInfo> variants() const override;
  [[nodiscard]] std::size_t device_bytes(const Shape& shape, DType type) const override;
  [[nodiscard]] std::vector<BenchRow> run(const Shape& shape, DType type,
                                          std::span<const std::string_view> variants,
                                          const BenchContext& ctx) const override;
};

}  // namespace smemlab
