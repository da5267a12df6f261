// 01 — the CPU loop of the tutorial “Shared Memory” with a float accumulator. Demonstrates "big
// eats small": once the running sum is large, each small addend is rounded away. For 100,000,000
// copies of 1.23 the sum stops growing at 2^25 = 33554432, where the spacing of floats (4) exceeds
// twice 1.23.
#include "reduce/variants.hpp"

namespace smemlab::reduce::detail {
namespace {

float cpu_float_sum(const float* in, std::size_t n) {
  float sum = 0.0F;
  for (std::size_t i = 0; i < n; ++i) sum += in[i];
  return sum;
}

constexpr const Tutorial* kTutorials[] = {&tutorials::kSharedMemory};

}  // namespace

ReduceVariant cpu_float_variant() {
  return {{.family = "reduction",
           .name = "cpu_float",
           .description = "CPU loop, float accumulator (float input only)",
           .technique = "big eats small: a float running sum loses small addends",
           .tutorials = kTutorials,
           .smem = SmemKind::none,
           .why_no_model = "runs on the CPU"},
          {.f32 = {.host = cpu_float_sum}, .f64 = {}}};
}

}  // namespace smemlab::reduce::detail
