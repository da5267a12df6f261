// The aligned copies of unaligned operands (repack.hpp): one pass over the operand
// (core/copy_rows.cu).
#include "tensor_matmul/repack.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "core/copy_rows.hpp"
#include "core/occupancy.hpp"
#include "tensor_matmul/partial_sums.hpp"
#include "tensor_matmul/tensor_map.hpp"
#include "tensor_matmul/tuning.hpp"
#include "tensor_matmul/variants.hpp"
#include "smemlab/error.hpp"
#include "smemlab/transpose.hpp"

namespace smemlab::tensor_matmul {
namespace detail {
namespace {

std::size_t round_up(std::size_t x, std::size_t to) { return (x + to - 1) / to * to; }

// Where an operand's aligned copy lives and its leading dimension; `bytes` 0 when the
// operand is aligned and used in place.
struct Repack {
  int ld = 0;
  std::size_t bytes = 0;
};

// The copy's rows start on 128-byte boundaries (line_aligned_ld).
Repack repack_of(const void* p, int rows, int cols, int ld, DType type) {
  if (rows_16b_aligned(p, ld, type)) return {ld, 0};
  const int aligned_ld = smemlab::detail::line_aligned_ld(cols, dtype_bytes(type));
  return {aligned_ld, round_up(static_cast<std::size_t>(rows) * aligned_ld * dtype_bytes(type), 256)};
}

// B's transpose (N x K), rows starting on 128-byte boundaries.
Repack transposed_of(const GemmArgs& g) {
  const int ld = smemlab::detail::line_aligned_ld(g.k, dtype_bytes(g.input));
  return {ld, round_up(static_cast<std::size_t>(g.n) * ld * dtype_bytes(g.input), 256)};
}

}  // namespace

AlignedOperands::AlignedOperands(const GemmArgs& args, const LaunchContext& ctx, BOperand b_operand,
                                 AOperand a_operand)
    : args_(args), stream_(ctx.stream) {
  // An operand stored transposed is read as stored by the kernels that read its transpose;
  // every other one was copied row-major before (with_row_major_operands).
  const bool b_as_stored = args.transpose_b && b_operand == BOperand::transposed;
  const bool a_as_stored = a_operand == AOperand::transposed;
  if ((args.transpose_a != a_as_stored) || (args.transpose_b && !b_as_stored))
    throw std::logic_error("gemm: an operand's storage does not match how the kernel reads it");
  const Repack a = a_as_stored ? repack_of(args.a, args.k, args.m, args.lda, args.input)
                               : repack_of(args.a, args.m, args.k, args.lda, args.input);
  const Repack b = b_as_stored                           ? repack_of(args.b, args.n, args.k, args.ldb, args.input)
                   : b_operand == BOperand::transposed ? transposed_of(args)
                                                         : repack_of(args.b, args.k, args.n, args.ldb, args.input);
  if (a.bytes + b.bytes == 0) return;
  char* scratch = workspace_start(args);
  if (scratch != nullptr) workspace_used_ = a.bytes + b.bytes;
  if (scratch == nullptr) {
    SMEMLAB_CUDA_CHECK(cudaMallocAsync(&owned_, a.bytes + b.bytes, ctx.stream));
    scratch = static_cast<char*>(owned_);
  }
  if (a.bytes > 0) {
    smemlab::detail::copy_rows(args.a, args.lda, scratch, a.ld, a_as_stored ? args.k : args.m,
                               a_as_stored ? args.m : args.k, dtype_bytes(args.input), ctx.stream);
    args_.a = scratch;
    args_.lda = a.ld;
  }
  if (b_as_stored) {
    if (b.bytes > 0) {
      smemlab::detail::copy_rows(args.b, args.ldb, scratch + a.bytes, b.ld, args.n, args.k, dtype_bytes(args.input),
                                 ctx.stream);
      args_.b = scratch + a.bytes;
      args_.ldb = b.ld;
    }
  } else if (b_operand == BOperand::transposed) {
    if (args.input != DType::tf32) throw std::invalid_argument("gemm: B is transposed for tf32 inputs only");
    auto* out = reinterpret_cast<float*>(scratch + a.bytes);
    transpose::run(transpose::find("tuned"),
                   transpose::Args<float>{args.k, args.n, static_cast<const float*>(args.b), args.ldb, out, b.ld}, ctx);
    args_.b = out;
    args_.ldb = b.ld;
  } else if (b.bytes > 0) {
    smemlab::detail::copy_rows(args.b, args.ldb, scratch + a.bytes, b.ld, args.k, args.n, dtype_bytes(args.input),
                               ctx.stream);
    args_.b = scratch + a.bytes;
    args_.ldb = b.ld;
  }
}

bool rows_16b_aligned(const void* p, int ld, DType type) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && static_cast<std::size_t>(ld) * dtype_bytes(type) % 16 == 0;
}

char* workspace_start(const GemmArgs& args) {
  if (args.workspace == nullptr) return nullptr;
  const auto at = reinterpret_cast<std::uintptr_t>(args.workspace);
  return static_cast<char*>(args.workspace) + (round_up(at, kWorkspaceAlignment) - at);
}

AlignedOperands::~AlignedOperands() {
  if (owned_ != nullptr) (void)cudaFreeAsync(owned_, stream_);  // nothing to report from a destructor
}

}  // namespace detail

namespace {

// `args` as the kernels see them; the default call chooses on `call` (the arguments as gemm
// reads them).
std::size_t kernels_workspace_bytes(const GemmArgs& args, const GemmArgs& call);

// The scratch of the call as gemm gives it to the variants: `args`, with with_row_vector_a (and,
// for the default call's other form, with_column_vector_b) applied.
std::size_t workspace_bytes_as_read(const GemmArgs& args);

}  // namespace

std::size_t workspace_bytes(const GemmArgs& call) {
  // As gemm reads the call: A of one row as a row; B of one column as a row of B's transpose
  // where the variant reads B's transpose as stored.
  const GemmArgs args = smemlab::detail::with_row_vector_a(call, dtype_bytes(call.input));
  return std::max(workspace_bytes_as_read(args),
                  workspace_bytes_as_read(smemlab::detail::with_column_vector_b(args, dtype_bytes(args.input))));
}

namespace {

std::size_t workspace_bytes_as_read(const GemmArgs& args) {
  // The row-major copies first (with_row_major_operands), then what the kernels need on them.
  // The default call's tiles that read Aᵀ or Bᵀ as stored copy it only where its rows are not
  // aligned, and that copy (N rows of K) may take more than the row-major one (K rows of N).
  const std::size_t copies = smemlab::detail::row_major_copy_bytes(operands_of(args), dtype_bytes(args.input));
  const std::size_t b_as_stored =
      args.transpose_b ? detail::repack_of(args.b, args.n, args.k, args.ldb, args.input).bytes : 0;
  const std::size_t a_as_stored =
      args.transpose_a ? detail::repack_of(args.a, args.k, args.m, args.lda, args.input).bytes : 0;
  return copies + a_as_stored + b_as_stored +
         kernels_workspace_bytes(smemlab::detail::as_copied(args, dtype_bytes(args.input)), args);
}

std::size_t kernels_workspace_bytes(const GemmArgs& args, const GemmArgs& call) {
  const std::size_t b = detail::repack_of(args.b, args.k, args.n, args.ldb, args.input).bytes;
  const std::size_t copies = detail::repack_of(args.a, args.m, args.k, args.lda, args.input).bytes +
                             (args.input == DType::tf32 ? std::max(b, detail::transposed_of(args).bytes) : b);
  // After the copies: the partial sums of K's ranges, as many as the split-K step or the
  // default call's choice divides K into on this device (none where a cluster adds them).
  // The CUDA-core skinny kernel, which the call may choose on any device, keeps its ranges'
  // sums there too.
  // Step 18 and the default call's stream-K tiles keep their blocks' sums and flags in the same
  // place.
  int ranges = 1;
  std::size_t stream_k = 0;
  if (device_supported()) {
    const KernelChoice choice = choose_kernel(call);
    const bool hopper = detail::why_no_wgmma().empty();
    if (hopper) {
      const int sms = smemlab::detail::sm_count();
      ranges = split_k_ranges(args.m, args.n, args.k, args.input, sms);
      stream_k = detail::stream_k_workspace_bytes("streamk128x256", args.m, args.n, args.k, args.input, sms);
    }
    if (choice.kernel == kCudaCoreSkinny ||
        (hopper && choice.kernel != kCudaCoreDot && !kernel_shape(choice.kernel).thin))
      ranges = std::max(ranges, choice.splits);
  }
  const std::size_t scratch = copies + std::max(detail::partial_sums_bytes(args, ranges), stream_k);
  return scratch > 0 ? scratch + detail::kWorkspaceAlignment - 1 : 0;
}

}  // namespace

}  // namespace smemlab::tensor_matmul
