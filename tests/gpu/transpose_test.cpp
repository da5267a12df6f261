// Every transpose variant, float and double, on thin, odd and tile-sized shapes, with tight and
// padded leading dimensions. A transpose moves bits, so the check is exact. The input's padding
// holds NaN and the output's padding a sentinel that must survive; the output starts poisoned.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "support/gpu.hpp"
#include "smemlab/cublas.hpp"
#include "smemlab/device_buffer.hpp"
#include "smemlab/transpose.hpp"

using namespace smemlab;

namespace {

// With pads 0 and 4, the last three (and 32x32) take the 16-byte paths of tuned and copy, float
// and double (rows that stay 16-byte aligned): whole tiles only, and edge tiles both ways.
const std::vector<std::pair<int, int>> kShapes{{1, 1},       {1, 1000},    {1000, 1},  {31, 33},
                                               {33, 31},     {32, 32},     {1000, 1001}, {4097, 1025},
                                               {128, 256},   {200, 132},   {1028, 4100}};

template <class T>
void check_variant(const transpose::TransposeVariant& v, int rows, int cols, int pad) {
  SCOPED_TRACE(testing::Message() << rows << "x" << cols << " pad " << pad);
  const int ld_in = cols + pad;
  const int ld_out = rows + 2 * pad;
  std::mt19937 gen(static_cast<unsigned>(rows * 31 + cols));
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<T> in(static_cast<std::size_t>(rows) * ld_in, static_cast<T>(std::nan("")));
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) in[static_cast<std::size_t>(r) * ld_in + c] = static_cast<T>(dist(gen));
  const T sentinel = static_cast<T>(4321.5);
  std::vector<T> out(static_cast<std::size_t>(cols) * ld_out, sentinel);
  if (!v.launch.copies)  // the part a transpose must write starts as NaN
    for (int c = 0; c < cols; ++c)
      for (int r = 0; r < rows; ++r) out[static_cast<std::size_t>(c) * ld_out + r] = static_cast<T>(std::nan(""));

  DeviceBuffer<T> d_in(in.size());
  DeviceBuffer<T> d_out(out.size());
  d_in.upload(in, nullptr);
  d_out.upload(out, nullptr);
  if (v.launch.copies) d_out.poison(nullptr);
  const CublasHandle cublas;
  transpose::run<T>(v, {rows, cols, d_in.data(), ld_in, d_out.data(), ld_out}, {nullptr, cublas.get()});
  SMEMLAB_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<T> got(out.size());
  d_out.download(got, nullptr);

  std::size_t wrong = 0;
  std::size_t clobbered = 0;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const T& want = in[static_cast<std::size_t>(r) * ld_in + c];
      const std::size_t at = v.launch.copies ? static_cast<std::size_t>(r) * cols + c
                                             : static_cast<std::size_t>(c) * ld_out + r;
      wrong += std::memcmp(&want, &got[at], sizeof(T)) != 0;
    }
  }
  if (!v.launch.copies)
    for (int c = 0; c < cols; ++c)
      for (int r = rows; r < ld_out; ++r)
        clobbered += std::memcmp(&got[static_cast<std::size_t>(c) * ld_out + r], &sentinel, sizeof(T)) != 0;
  EXPECT_EQ(wrong, 0U) << "elements not transposed exactly";
  EXPECT_EQ(clobbered, 0U) << "elements of the output's padding were written";
}

class TransposeVariant : public testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(TransposeVariant, IsExactOnEveryShape) {
  SMEMLAB_REQUIRE_GPU();
  const auto& v = transpose::find(std::get<0>(GetParam()));
  for (const auto& [rows, cols] : kShapes) {
    for (const int pad : {0, 3, 4}) {  // 4 keeps leading dimensions multiples of 4
      if (std::get<1>(GetParam()) == "float") {
        check_variant<float>(v, rows, cols, pad);
      } else {
        check_variant<double>(v, rows, cols, pad);
      }
    }
  }
}

std::vector<std::string> variant_names() {
  std::vector<std::string> out;
  for (const auto& v : transpose::variants()) out.emplace_back(v.info.name);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Transpose, TransposeVariant,
                         testing::Combine(testing::ValuesIn(variant_names()),
                                          testing::Values("float", "double")),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + std::get<1>(info.param);
                         });

}  // namespace
