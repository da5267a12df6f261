#pragma once
// The benchmark families; families.cpp lists them in order.
#include "smemlab/bench.hpp"

namespace smemlab {

class MatmulFamily final : public BenchFamily {
 public:
  [[nodiscard]] std::string_view name() const override { return "matmul"; }
  [[nodiscard]] std::vector<VariantInfo> variants() const override;
  [[nodiscard]] std::vector<std::string> default_sizes() const override;
  [[nodiscard]] Shape canonical(const Shape& shape) const override;
  [[nodiscard]] std::size_t device_bytes(const Shape& shape, std::string_view dtype) const override;
  [[nodiscard]] std::vector<BenchRow> run(const Shape& shape, std::string_view dtype,
                                          std::span<const std::string_view> variants,
                                          const BenchContext& ctx) const override;
};

}  // namespace smemlab

namespace smemlab {

class ReductionFamily final : public BenchFamily {
 public:
  [[nodiscard]] std::string_view name() const override { return "reduction"; }
  [[nodiscard]] std::vector<VariantInfo> variants() const override;
  [[nodiscard]] std::vector<std::string> default_sizes() const override;
  [[nodiscard]] std::vector<std::string_view> dtypes() const override { return {"float", "double"}; }
  [[nodiscard]] Shape canonical(const Shape& shape) const override;
  [[nodiscard]] std::size_t device_bytes(const Shape& shape, std::string_view dtype) const override;
  [[nodiscard]] std::vector<BenchRow> run(const Shape& shape, std::string_view dtype,
                                          std::span<const std::string_view> variants,
                                          const BenchContext& ctx) const override;
};

// "2^K" for powers of two, the decimal number otherwise: how the reduction sizes are written.
[[nodiscard]] std::string count_label(std::int64_t n);

}  // namespace smemlab

namespace smemlab {

class TransposeFamily final : public BenchFamily {
 public:
  [[nodiscard]] std::string_view name() const override { return "transpose"; }
  [[nodiscard]] std::vector<VariantInfo> variants() const override;
  [[nodiscard]] std::vector<std::string> default_sizes() const override;
  [[nodiscard]] std::vector<std::string_view> dtypes() const override { return {"float", "double"}; }
  [[nodiscard]] Shape canonical(const Shape& shape) const override;
  [[nodiscard]] std::size_t device_bytes(const Shape& shape, std::string_view dtype) const override;
  [[nodiscard]] std::vector<BenchRow> run(const Shape& shape, std::string_view dtype,
                                          std::span<const std::string_view> variants,
                                          const BenchContext& ctx) const override;
};

}  // namespace smemlab

namespace smemlab {

class BanksFamily final : public BenchFamily {
 public:
  [[nodiscard]] std::string_view name() const override { return "banks"; }
  [[nodiscard]] std::vector<VariantInfo> variants() const override;
  [[nodiscard]] std::vector<std::string> default_sizes() const override;
  [[nodiscard]] Shape canonical(const Shape& shape) const override;
  [[nodiscard]] std::size_t device_bytes(const Shape& shape, std::string_view dtype) const override;
  [[nodiscard]] std::vector<BenchRow> run(const Shape& shape, std::string_view dtype,
                                          std::span<const std::string_view> variants,
                                          const BenchContext& ctx) const override;
};

}  // namespace smemlab
