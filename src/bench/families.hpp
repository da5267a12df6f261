#pragma once
// The benchmark families; families.cpp lists them in order.
#include <functional>

#include "smemlab/bench.hpp"
#include "smemlab/matmul.hpp"

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

// The matmul tile sweep: canonical(), dtypes and device_bytes as matmul's.
class MatmulTilesFamily final : public BenchFamily {
 public:
  [[nodiscard]] std::string_view name() const override { return "matmul-tiles"; }
  [[nodiscard]] bool in_default_run() const override { return false; }
  [[nodiscard]] std::vector<VariantInfo> variants() const override;
  [[nodiscard]] std::vector<std::string> default_sizes() const override;
  [[nodiscard]] Shape canonical(const Shape& shape) const override { return matmul_.canonical(shape); }
  [[nodiscard]] std::size_t device_bytes(const Shape& shape, std::string_view dtype) const override {
    return matmul_.device_bytes(shape, dtype);
  }
  [[nodiscard]] std::vector<BenchRow> run(const Shape& shape, std::string_view dtype,
                                          std::span<const std::string_view> variants,
                                          const BenchContext& ctx) const override;

 private:
  MatmulFamily matmul_;
};

// A GEMM launch to verify and time: a registered variant or a tile configuration.
struct GemmCandidate {
  using Launch = std::function<void(const matmul::GemmArgs&, const LaunchContext&)>;
  std::string name;
  Launch launch;
};

// Verifies every candidate (cuBLAS first, as the reference) at one shape, then times it.
[[nodiscard]] std::vector<BenchRow> run_gemm_candidates(std::string_view family, const Shape& shape,
                                                        std::span<const GemmCandidate> candidates,
                                                        const BenchContext& ctx);

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
