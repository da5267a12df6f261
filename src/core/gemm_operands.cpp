#include "core/gemm_operands.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/copy_rows.hpp"
#include "smemlab/error.hpp"

namespace smemlab {

void validate_gemm_operands(const GemmOperands& g) {
  const auto fail = [](const std::string& message) { throw std::invalid_argument("gemm: " + message); };
  if (g.m < 1 || g.n < 1 || g.k < 1)
    fail(fmt::format("m, n and k must be at least 1 (got {}, {}, {})", g.m, g.n, g.k));
  const char* const transposed = " for an operand stored transposed";
  if (g.lda < (g.transpose_a ? g.m : g.k))
    fail(fmt::format("lda ({}) must be at least {} ({}){}", g.lda, g.transpose_a ? "m" : "k", g.transpose_a ? g.m : g.k,
                     g.transpose_a ? transposed : ""));
  if (g.ldb < (g.transpose_b ? g.k : g.n))
    fail(fmt::format("ldb ({}) must be at least {} ({}){}", g.ldb, g.transpose_b ? "k" : "n", g.transpose_b ? g.k : g.n,
                     g.transpose_b ? transposed : ""));
  if (g.ldc < g.n) fail(fmt::format("ldc ({}) must be at least n ({})", g.ldc, g.n));
  if (g.a == nullptr || g.b == nullptr || g.c == nullptr) fail("null matrix pointer");
}

namespace detail {
namespace {

constexpr std::size_t kAlignment = 256;

std::size_t round_up(std::size_t x, std::size_t to) { return (x + to - 1) / to * to; }

// A row-major copy of `rows` rows of `cols` elements.
std::size_t copy_bytes(int rows, int cols, std::size_t element_bytes) {
  return round_up(static_cast<std::size_t>(rows) * line_aligned_ld(cols, element_bytes) * element_bytes, kAlignment);
}

}  // namespace

void require_row_major(bool transpose_a, bool transpose_b, const char* kernel) {
  if (transpose_a || transpose_b)
    throw std::logic_error(std::string("gemm: ") + kernel + " reads row-major operands; one is stored transposed");
}

const void* copy_start_placeholder() {
  alignas(kAlignment) static constexpr char kStart[1] = {};
  return kStart;
}

std::size_t row_major_copy_bytes(const GemmOperands& g, std::size_t element_bytes) {
  const std::size_t copies = (g.transpose_a ? copy_bytes(g.m, g.k, element_bytes) : 0) +
                             (g.transpose_b ? copy_bytes(g.k, g.n, element_bytes) : 0);
  return copies > 0 ? copies + kAlignment - 1 : 0;  // the workspace's start aligned
}

RowMajorOperands::RowMajorOperands(const GemmOperands& g, std::size_t element_bytes, void* workspace,
                                   std::size_t workspace_size, cudaStream_t stream)
    : g_(g), rest_(workspace), rest_size_(workspace_size), stream_(stream) {
  const std::size_t bytes = row_major_copy_bytes(g, element_bytes);
  if (bytes == 0) return;
  char* scratch = nullptr;
  if (workspace != nullptr) {
    if (workspace_size < bytes) throw std::invalid_argument("gemm: workspace too small for the transposed copies");
    const auto at = reinterpret_cast<std::uintptr_t>(workspace);
    scratch = static_cast<char*>(workspace) + (round_up(at, kAlignment) - at);
    // The rest starts on the 256-byte boundary after the copies, each a multiple of 256 bytes.
    const std::size_t used = static_cast<std::size_t>(scratch - static_cast<char*>(workspace)) + bytes -
                             (kAlignment - 1);
    rest_ = static_cast<char*>(workspace) + used;
    rest_size_ = workspace_size - used;
  } else {
    SMEMLAB_CUDA_CHECK(cudaMallocAsync(&owned_, bytes, stream));  // on a 256-byte boundary, as cudaMalloc's
    scratch = static_cast<char*>(owned_);
  }
  try {
    copy_all(g, element_bytes, scratch, stream);
  } catch (...) {
    if (owned_ != nullptr) (void)cudaFreeAsync(owned_, stream);  // the destructor of a half-built object never runs
    throw;
  }
}

void RowMajorOperands::copy_all(const GemmOperands& g, std::size_t element_bytes, char* scratch, cudaStream_t stream) {
  // An operand of `rows` x `cols` from its stored transpose, into the next copy's place.
  const auto copy = [&](const void*& data, int& ld, bool& transposed, int rows, int cols) {
    const int copy_ld = line_aligned_ld(cols, element_bytes);
    copy_transposed(data, ld, scratch, copy_ld, cols, rows, element_bytes, stream);
    data = scratch;
    ld = copy_ld;
    transposed = false;
    scratch += copy_bytes(rows, cols, element_bytes);
  };
  if (g.transpose_a) copy(g_.a, g_.lda, g_.transpose_a, g.m, g.k);
  if (g.transpose_b) copy(g_.b, g_.ldb, g_.transpose_b, g.k, g.n);
}

RowMajorOperands::~RowMajorOperands() {
  if (owned_ != nullptr) (void)cudaFreeAsync(owned_, stream_);  // nothing to report from a destructor
}

}  // namespace detail
}  // namespace smemlab
