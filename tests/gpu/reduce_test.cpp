// Every reduction variant, float and double, against the compensated CPU sum on sizes around every
// power-of-two boundary the kernels use, from aligned and misaligned starts; exactness on
// integer-valued inputs (any lost or doubled element shows); the 100,000,000 x 1.23 of the tutorial
// “Shared Memory”.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "support/gpu.hpp"
#include "smemlab/device_buffer.hpp"
#include "bench/device_memory.hpp"
#include "smemlab/reduce.hpp"

using namespace smemlab;

namespace {

const std::vector<std::size_t> kSizes{0, 1, 2, 31, 32, 33, 1023, 1024, 1025, 1000003, 1U << 24};

// Runs a variant (device or host) on host data placed at `offset` elements past a 256-byte
// aligned device allocation; checks the input is left as it was.
template <class T>
T run_variant(const reduce::ReduceVariant& v, const std::vector<T>& data, std::size_t offset) {
  const auto& o = reduce::ops<T>(v);
  if (o.host != nullptr) return o.host(data.data(), data.size());
  const std::size_t n = data.size();
  DeviceBuffer<T> buffer(n + offset + 1);
  buffer.poison(nullptr);
  T* const in = buffer.data() + offset;
  if (n > 0)
    SMEMLAB_CUDA_CHECK(cudaMemcpy(in, data.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  DeviceBuffer<unsigned char> workspace(reduce::workspace_bytes<T>(v, n));
  SMEMLAB_CUDA_CHECK(cudaMemset(workspace.data(), 0xFF, workspace.bytes()));  // scratch: any content
  DeviceBuffer<T> out(1);
  out.poison(nullptr);
  reduce::sum<T>(v, {in, n, out.data(), workspace.data()}, {});
  SMEMLAB_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<T> result(1);
  out.download(result, nullptr);
  std::vector<T> after(n);
  if (n > 0)
    SMEMLAB_CUDA_CHECK(cudaMemcpy(after.data(), in, n * sizeof(T), cudaMemcpyDeviceToHost));
  EXPECT_EQ(std::memcmp(after.data(), data.data(), n * sizeof(T)), 0) << "the input was modified";
  return result[0];
}

template <class T>
std::vector<T> random_values(std::size_t n, unsigned seed, bool integers) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> whole(-8, 8);
  std::vector<T> v(n);
  for (auto& x : v) x = integers ? static_cast<T>(whole(gen)) : static_cast<T>(real(gen));
  return v;
}

class ReduceVariant : public testing::TestWithParam<std::tuple<std::string, std::string>> {
 protected:
  template <class T>
  void check_random_inputs() {
    const auto& v = reduce::find(std::get<0>(GetParam()));
    for (const std::size_t n : kSizes) {
      for (const std::size_t offset : {std::size_t{0}, std::size_t{1}}) {
        SCOPED_TRACE(testing::Message() << "n=" << n << " offset=" << offset);
        const auto data = random_values<T>(n, static_cast<unsigned>(n + 17 * offset), false);
        const T got = run_variant(v, data, offset);
        const auto ref = reduce::reference_sum(data.data(), n);
        if (n == 0) {
          EXPECT_EQ(got, T(0));
          continue;
        }
        const double error = std::abs(static_cast<double>(got) - ref.sum) / ref.abs_sum;
        EXPECT_TRUE(std::isfinite(static_cast<double>(got)));
        EXPECT_LE(error, reduce::tolerance<T>(n)) << "sum " << got << " reference " << ref.sum;
      }
    }
  }

  // Integers of both signs with small partial sums add exactly in any order: the result must be
  // the exact sum, so a single element lost or counted twice fails, at any n.
  template <class T>
  void check_exact_on_integers() {
    const auto& v = reduce::find(std::get<0>(GetParam()));
    for (const std::size_t n : {std::size_t{1000003}, (std::size_t{1} << 24) + 3}) {
      for (const std::size_t offset : {std::size_t{0}, std::size_t{3}}) {
        SCOPED_TRACE(testing::Message() << "n=" << n << " offset=" << offset);
        const auto data = random_values<T>(n, 99, true);
        double exact = 0.0;
        for (const T x : data) exact += static_cast<double>(x);
        EXPECT_EQ(static_cast<double>(run_variant(v, data, offset)), exact);
      }
    }
  }
};

TEST_P(ReduceVariant, MatchesTheReferenceOnRandomInputs) {
  SMEMLAB_REQUIRE_GPU();
  if (std::get<1>(GetParam()) == "float") {
    check_random_inputs<float>();
  } else {
    check_random_inputs<double>();
  }
}

TEST_P(ReduceVariant, IsExactOnIntegerValuedInputs) {
  SMEMLAB_REQUIRE_GPU();
  if (std::get<1>(GetParam()) == "float") {
    check_exact_on_integers<float>();
  } else {
    check_exact_on_integers<double>();
  }
}

// Every (variant, type) that exists: cpu_float has no double version.
std::vector<std::tuple<std::string, std::string>> variant_types() {
  std::vector<std::tuple<std::string, std::string>> out;
  for (const auto& v : reduce::variants()) {
    if (v.launch.f32.exists()) out.emplace_back(v.info.name, "float");
    if (v.launch.f64.exists()) out.emplace_back(v.info.name, "double");
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Reduce, ReduceVariant, testing::ValuesIn(variant_types()),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + std::get<1>(info.param);
                         });

// The tutorial “Shared Memory”: 100,000,000 copies of 1.23 in float. The float loop stops at 2^25 =
// 33554432; every GPU variant must land within 1e-5 of the true sum.
TEST(Reduce, BigEatsSmall) {
  SMEMLAB_REQUIRE_GPU();
  const std::size_t n = 100'000'000;
  const std::vector<float> data(n, 1.23F);
  const double exact = static_cast<double>(1.23F) * static_cast<double>(n);
  for (const auto& v : reduce::variants()) {
    SCOPED_TRACE(std::string(v.info.name));
    const float got = run_variant(v, data, 0);
    if (v.info.name == "cpu_float") {
      EXPECT_EQ(got, 33554432.0F);
    } else {
      EXPECT_LE(std::abs(static_cast<double>(got) - exact) / exact, 1e-5) << "sum " << got;
    }
  }
}

// Bitwise the same sum on every call, whatever the workspace holds on entry: each call is given
// it full of 0xFF bytes, and of another size's leftovers.
TEST(Reduce, SinglePassIsDeterministicOnAWorkspaceOfGarbage) {
  SMEMLAB_REQUIRE_GPU();
  const auto& v = reduce::find("single_pass");
  const std::size_t n = 3'000'017;
  const auto data = random_values<float>(n, 5, false);
  DeviceBuffer<float> in(n);
  in.upload(data, nullptr);
  DeviceBuffer<unsigned char> workspace(reduce::workspace_bytes<float>(v, n));
  DeviceBuffer<float> out(1);
  std::vector<float> first(1);
  std::vector<float> again(1);
  SMEMLAB_CUDA_CHECK(cudaMemset(workspace.data(), 0xFF, workspace.bytes()));
  reduce::sum<float>(v, {in.data(), n, out.data(), workspace.data()}, {});
  out.download(first, nullptr);
  EXPECT_NEAR(first[0], reduce::reference_sum(data.data(), n).sum, 1e-3 * reduce::reference_sum(data.data(), n).abs_sum);
  for (int i = 0; i < 20; ++i) {
    if (i % 2 == 0) {
      SMEMLAB_CUDA_CHECK(cudaMemset(workspace.data(), 0xFF, workspace.bytes()));
    } else {  // a smaller sum's leftovers in the same buffer
      reduce::sum<float>(v, {in.data(), n / 7, out.data(), workspace.data()}, {});
    }
    reduce::sum<float>(v, {in.data(), n, out.data(), workspace.data()}, {});
    out.download(again, nullptr);
    ASSERT_EQ(std::memcmp(first.data(), again.data(), sizeof(float)), 0) << "run " << i;
  }
}

}  // namespace
