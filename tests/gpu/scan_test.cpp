// Every scan variant, int32 and float, inclusive and exclusive, in place and out of place, from
// aligned and misaligned starts, on sizes around every tile and level boundary the kernels use,
// element by element against the CPU (integers exactly, modulo 2^32; floats against the
// compensated prefix); the float scans bitwise the same from run to run on a workspace of
// garbage; and a scan of more than 2^32 elements.
#include "smemlab/scan.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "bench/device_memory.hpp"
#include "smemlab/device_buffer.hpp"
#include "support/gpu.hpp"

using namespace smemlab;

namespace {

// Tiles: 512 (01), 1,024 (02, 03), 4,096 (04), 6,144 (06), 8,192 (05); a second level of tiles
// from 512 x 512 on (a third, past 512^3, comes in the test of more than 2^32 elements).
const std::vector<std::size_t> kSizes{
    0,    1,    2,    31,     32,     33,     511,           512,     513,
    1023, 1024, 1025, 4095,   4096,   4097,   6143,          6144,    6145,
    8191, 8192, 8193, 262143, 262144, 262145, 8192 * 33 + 5, 1000003, (1U << 22) + 1};

template <class T>
std::vector<T> random_values(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::vector<T> v(n);
  if constexpr (std::is_same_v<T, float>) {
    std::uniform_real_distribution<float> real(-1.0F, 1.0F);
    for (auto& x : v) x = real(gen);
  } else {
    std::uniform_int_distribution<std::int32_t> whole(INT32_MIN, INT32_MAX);  // sums wrap
    for (auto& x : v) x = whole(gen);
  }
  return v;
}

// Runs a variant on `data` placed `offset` elements past an aligned allocation, out of place
// (a poisoned output elsewhere) or in place; checks an out-of-place input is left unchanged.
template <class T>
std::vector<T> run_variant(const scan::ScanVariant& v, const std::vector<T>& data, scan::Kind kind,
                           std::size_t offset, bool in_place) {
  const std::size_t n = data.size();
  DeviceBuffer<T> in_buffer(n + offset + 1);
  DeviceBuffer<T> out_buffer(in_place ? 0 : n + offset + 1);
  in_buffer.poison(nullptr);
  if (!in_place) out_buffer.poison(nullptr);
  T* const in = in_buffer.data() + offset;
  T* const out = in_place ? in : out_buffer.data() + offset;
  if (n > 0) SMEMLAB_CUDA_CHECK(cudaMemcpy(in, data.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  DeviceBuffer<unsigned char> workspace(scan::workspace_bytes<T>(v, n));
  SMEMLAB_CUDA_CHECK(cudaMemset(workspace.data(), 0xFF, workspace.bytes()));  // scratch: any content
  scan::run<T>(v, {in, out, n, kind, workspace.data()}, {});
  SMEMLAB_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<T> result(n);
  if (n > 0) SMEMLAB_CUDA_CHECK(cudaMemcpy(result.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
  if (!in_place && n > 0) {
    std::vector<T> after(n);
    SMEMLAB_CUDA_CHECK(cudaMemcpy(after.data(), in, n * sizeof(T), cudaMemcpyDeviceToHost));
    EXPECT_EQ(std::memcmp(after.data(), data.data(), n * sizeof(T)), 0) << "the input was modified";
  }
  // Nothing written past the end: the element after it keeps its poison.
  std::vector<T> past(1);
  SMEMLAB_CUDA_CHECK(cudaMemcpy(past.data(), out + n, sizeof(T), cudaMemcpyDeviceToHost));
  std::vector<T> poison(1);
  std::memset(poison.data(), 0xFF, sizeof(T));
  EXPECT_EQ(std::memcmp(past.data(), poison.data(), sizeof(T)), 0) << "written past the end";
  return result;
}

class ScanVariant : public testing::TestWithParam<std::tuple<std::string, std::string>> {
 protected:
  template <class T>
  void check_every_case() {
    const auto& v = scan::find(std::get<0>(GetParam()));
    for (const std::size_t n : kSizes) {
      const auto data = random_values<T>(n, static_cast<unsigned>(n + 1));
      for (const scan::Kind kind : {scan::Kind::inclusive, scan::Kind::exclusive}) {
        for (const std::size_t offset : {std::size_t{0}, std::size_t{1}}) {
          for (const bool in_place : {false, true}) {
            SCOPED_TRACE(testing::Message()
                         << "n=" << n << (kind == scan::Kind::exclusive ? " exclusive" : " inclusive")
                         << " offset=" << offset << (in_place ? " in place" : ""));
            const auto got = run_variant(v, data, kind, offset, in_place);
            const auto c = scan::check_scan<T>(data, got, kind);
            EXPECT_TRUE(c.verified) << "first wrong element " << c.first_bad << " of " << n
                                    << ", largest error " << c.max_error << " units";
          }
        }
      }
    }
  }
};

TEST_P(ScanVariant, MatchesTheCpuOnEveryCase) {
  SMEMLAB_REQUIRE_GPU();
  if (std::get<1>(GetParam()) == "float") {
    check_every_case<float>();
  } else {
    check_every_case<std::int32_t>();
  }
}

// Bitwise the same float scan on every call of every variant, whatever the workspace holds on
// entry: 0xFF bytes, or a smaller scan's leftovers.
TEST(Scan, FloatScansAreTheSameBitsOnEveryRun) {
  SMEMLAB_REQUIRE_GPU();
  const std::size_t n = 3'000'017;
  const auto data = random_values<float>(n, 5);
  DeviceBuffer<float> in(n);
  DeviceBuffer<float> out(n);
  in.upload(data, nullptr);
  std::vector<float> first(n);
  std::vector<float> again(n);
  for (const auto& v : scan::variants()) {
    if (v.info.reference) continue;  // CUB promises no order
    SCOPED_TRACE(std::string(v.info.name));
    DeviceBuffer<unsigned char> workspace(scan::workspace_bytes<float>(v, n));
    SMEMLAB_CUDA_CHECK(cudaMemset(workspace.data(), 0xFF, workspace.bytes()));
    scan::run<float>(v, {in.data(), out.data(), n, scan::Kind::inclusive, workspace.data()}, {});
    out.download(first, nullptr);
    for (int i = 0; i < 10; ++i) {
      if (i % 2 == 0) {
        SMEMLAB_CUDA_CHECK(cudaMemset(workspace.data(), 0xFF, workspace.bytes()));
      } else {
        scan::run<float>(v, {in.data(), out.data(), n / 7, scan::Kind::exclusive, workspace.data()}, {});
      }
      out.poison(nullptr);
      scan::run<float>(v, {in.data(), out.data(), n, scan::Kind::inclusive, workspace.data()}, {});
      out.download(again, nullptr);
      ASSERT_EQ(std::memcmp(first.data(), again.data(), n * sizeof(float)), 0) << "run " << i;
    }
  }
}

std::vector<std::tuple<std::string, std::string>> variant_types() {
  std::vector<std::tuple<std::string, std::string>> out;
  for (const auto& v : scan::variants())
    for (const DType t : v.info.dtypes) out.emplace_back(v.info.name, dtype_name(t));
  return out;
}

INSTANTIATE_TEST_SUITE_P(Scan, ScanVariant, testing::ValuesIn(variant_types()), [](const auto& info) {
  return std::get<0>(info.param) + "_" + std::get<1>(info.param);
});

// More than 2^32 elements (64-bit offsets everywhere), in place: all ones, so element i of the
// inclusive scan is i + 1 modulo 2^32; checked in windows around 2^31, 2^32 and the end.
TEST(Scan, PastTwoToThe32Elements) {
  SMEMLAB_REQUIRE_GPU();
  const std::size_t n = (std::size_t{1} << 32) + 8193 * 3;
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  SMEMLAB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < n * sizeof(std::int32_t) + (std::size_t{2} << 30))
    GTEST_SKIP() << "needs 18 GB of device memory";
  DeviceBuffer<std::int32_t> data(n);
  for (const auto& v : scan::variants()) {
    SCOPED_TRACE(std::string(v.info.name));
    fill_value(data.data(), n, 1, nullptr);
    DeviceBuffer<unsigned char> workspace(scan::workspace_bytes<std::int32_t>(v, n));
    SMEMLAB_CUDA_CHECK(cudaMemset(workspace.data(), 0xFF, workspace.bytes()));
    scan::run<std::int32_t>(v, {data.data(), data.data(), n, scan::Kind::inclusive, workspace.data()}, {});
    SMEMLAB_CUDA_CHECK(cudaDeviceSynchronize());
    for (const std::size_t start :
         {(std::size_t{1} << 31) - 5000, (std::size_t{1} << 32) - 5000, n - 20000}) {
      std::vector<std::int32_t> window(20000);
      SMEMLAB_CUDA_CHECK(cudaMemcpy(window.data(), data.data() + start, window.size() * sizeof(std::int32_t),
                                    cudaMemcpyDeviceToHost));
      for (std::size_t k = 0; k < window.size(); ++k)
        ASSERT_EQ(static_cast<std::uint32_t>(window[k]), static_cast<std::uint32_t>(start + k + 1))
            << "element " << start + k;
    }
  }
}

}  // namespace
