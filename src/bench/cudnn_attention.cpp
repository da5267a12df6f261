// cuDNN's fused attention through its graph API (see cudnn_attention.hpp). The graph is the
// one cuDNN's flash-attention engine matches: S = Q K^T (K read transposed through its
// strides), S x scale, under a causal mask S where the key's index exceeds the row's (q_len =
// kv_len here, so top-left and bottom-right alignment agree) and -infinity elsewhere, the row
// maximum M and the sum Z of exp(S - M), the log-sum-exp M + log Z as an output, P = exp(S - M)
// / Z and O = P V. Intermediate tensors are virtual: the engine keeps them on chip.
#include "bench/cudnn_attention.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

#if SMEMLAB_HAVE_CUDNN
#include <cudnn.h>
#endif

namespace smemlab {

#if SMEMLAB_HAVE_CUDNN
namespace {

// The tensors the caller binds, by unique id; virtual ones take ids from kFirstVirtual on.
enum Uid : std::int64_t { kQ = 1, kK, kV, kO, kStats, kScale, kNegativeInfinity, kFirstVirtual = 100 };

[[noreturn]] void fail(cudnnStatus_t status, const char* what) {
  std::array<char, 1024> message{};
  cudnnGetLastErrorString(message.data(), message.size());
  throw std::runtime_error(
      fmt::format("cuDNN: {} failed: {} ({})", what, cudnnGetErrorString(status), message.data()));
}
void check(cudnnStatus_t status, const char* what) {
  if (status != CUDNN_STATUS_SUCCESS) fail(status, what);
}

// A backend descriptor, destroyed with its owner.
class Descriptor {
 public:
  explicit Descriptor(cudnnBackendDescriptorType_t type) {
    check(cudnnBackendCreateDescriptor(type, &d_), "creating a descriptor");
  }
  ~Descriptor() {
    if (d_ != nullptr) cudnnBackendDestroyDescriptor(d_);
  }
  Descriptor(Descriptor&& other) noexcept : d_(other.d_) { other.d_ = nullptr; }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  Descriptor& operator=(Descriptor&&) = delete;

  [[nodiscard]] cudnnBackendDescriptor_t get() const { return d_; }
  template <class T>
  Descriptor& set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, const T* values,
                  std::int64_t count = 1) {
    check(cudnnBackendSetAttribute(d_, name, type, count, values), "setting an attribute");
    return *this;
  }
  Descriptor& set(cudnnBackendAttributeName_t name, const Descriptor& other) {
    cudnnBackendDescriptor_t raw = other.get();
    return set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, &raw);
  }
  Descriptor& finalize(const char* what) {
    check(cudnnBackendFinalize(d_), what);
    return *this;
  }

 private:
  cudnnBackendDescriptor_t d_ = nullptr;
};

}  // namespace

struct CudnnAttention::Plan {
  cudnnHandle_t handle = nullptr;
  std::deque<Descriptor> keep;  // every descriptor the plan refers to (a deque: they never move)
  std::unique_ptr<Descriptor> plan;
  void* workspace = nullptr;
  std::int64_t workspace_bytes = 0;
  float scale = 0.0F;
  float negative_infinity = -std::numeric_limits<float>::infinity();
  std::int64_t next_virtual = kFirstVirtual;
  // The last call's variant pack, the pointers it was built for and the handle's stream: the
  // benchmark calls with the same tensors on the same stream every time, so the pack is built
  // once. (The default stream is a null stream, hence the optional.)
  std::unique_ptr<Descriptor> pack;
  std::array<void*, 7> packed_pointers{};
  std::optional<cudaStream_t> stream;

  ~Plan() {
    if (workspace != nullptr) cudaFree(workspace);
    pack.reset();
    plan.reset();
    keep.clear();
    if (handle != nullptr) cudnnDestroy(handle);
  }

  // `d`, kept for the plan's life (the deque never moves it).
  const Descriptor& kept(Descriptor d) {
    keep.push_back(std::move(d));
    return keep.back();
  }

  // A tensor of dims and strides (four each); by_value: a host scalar passed at execution.
  const Descriptor& tensor(std::int64_t uid, cudnnDataType_t type, std::array<std::int64_t, 4> dims,
                           std::array<std::int64_t, 4> strides, bool is_virtual, bool by_value = false) {
    Descriptor t(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    const std::int64_t alignment = 16;
    t.set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, &type)
        .set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims.data(), 4)
        .set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides.data(), 4)
        .set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, &uid)
        .set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, &alignment)
        .set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, &is_virtual);
    if (by_value) t.set(CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, &by_value);
    t.finalize("a tensor");
    return kept(std::move(t));
  }
  // A virtual tensor like `dims` (dense, row-major).
  const Descriptor& virtual_tensor(cudnnDataType_t type, std::array<std::int64_t, 4> dims) {
    const std::array<std::int64_t, 4> strides = {dims[1] * dims[2] * dims[3], dims[2] * dims[3], dims[3], 1};
    return tensor(next_virtual++, type, dims, strides, true);
  }

  // y = mode(x[, b][, t]) elementwise (b and t may be null); axis: GEN_INDEX's dimension.
  const Descriptor& pointwise(cudnnPointwiseMode_t mode, const Descriptor& x, const Descriptor* b,
                              const Descriptor& y, const Descriptor* t = nullptr, std::int64_t axis = -1) {
    Descriptor pw(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    const cudnnDataType_t precision = CUDNN_DATA_FLOAT;
    pw.set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, &mode)
        .set(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, &precision);
    if (axis >= 0) pw.set(CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, &axis);
    pw.finalize("a pointwise descriptor");
    Descriptor op(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    op.set(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, kept(std::move(pw)))
        .set(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x)
        .set(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y);
    if (b != nullptr) op.set(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, *b);
    if (t != nullptr) op.set(CUDNN_ATTR_OPERATION_POINTWISE_TDESC, *t);
    op.finalize("a pointwise operation");
    return kept(std::move(op));
  }
  const Descriptor& reduction(cudnnReduceTensorOp_t mode, const Descriptor& x, const Descriptor& y) {
    Descriptor r(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
    const cudnnDataType_t precision = CUDNN_DATA_FLOAT;
    r.set(CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, &mode)
        .set(CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &precision)
        .finalize("a reduction descriptor");
    Descriptor op(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
    op.set(CUDNN_ATTR_OPERATION_REDUCTION_DESC, kept(std::move(r)))
        .set(CUDNN_ATTR_OPERATION_REDUCTION_XDESC, x)
        .set(CUDNN_ATTR_OPERATION_REDUCTION_YDESC, y)
        .finalize("a reduction");
    return kept(std::move(op));
  }
  const Descriptor& matmul(const Descriptor& a, const Descriptor& b, const Descriptor& c) {
    Descriptor m(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    const cudnnDataType_t precision = CUDNN_DATA_FLOAT;
    m.set(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &precision).finalize("a matmul descriptor");
    Descriptor op(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
    op.set(CUDNN_ATTR_OPERATION_MATMUL_DESC, kept(std::move(m)))
        .set(CUDNN_ATTR_OPERATION_MATMUL_ADESC, a)
        .set(CUDNN_ATTR_OPERATION_MATMUL_BDESC, b)
        .set(CUDNN_ATTR_OPERATION_MATMUL_CDESC, c)
        .finalize("a matmul");
    return kept(std::move(op));
  }
};

std::string CudnnAttention::why_unavailable() { return {}; }

CudnnAttention::CudnnAttention(const attention::Args& a) : plan_(std::make_unique<Plan>()) {
  const attention::Shape& s = a.shape;
  // What this graph does not express: the library's causal mask is aligned to the bottom right,
  // the graph's to the top left (the same where q_len = kv_len); rows without keys, which the
  // library defines as O = 0 and a log-sum-exp of -infinity.
  if (s.causal && s.q_len != s.kv_len)
    throw std::runtime_error("cuDNN's graph here aligns a causal mask to the top left: q_len must equal kv_len");
  if (s.q_len == 0 || s.kv_len == 0) throw std::runtime_error("no queries or no keys");
  if (a.lse == nullptr) throw std::runtime_error("the graph writes the log-sum-exps: lse must be given");
  Plan& p = *plan_;
  check(cudnnCreate(&p.handle), "cudnnCreate");
  const std::int64_t b = s.batch, hq = s.q_heads, hk = s.kv_heads, sq = s.q_len, sk = s.kv_len, d = s.head_dim;
  const cudnnDataType_t io = a.type == DType::f16 ? CUDNN_DATA_HALF : CUDNN_DATA_BFLOAT16;
  p.scale = s.scale;

  const Descriptor& q = p.tensor(kQ, io, {b, hq, sq, d}, {a.q_strides.batch, a.q_strides.head, a.q_strides.seq, 1},
                                 false);
  // K as [b, h, d, s]: its transpose, through the strides.
  const Descriptor& kt = p.tensor(kK, io, {b, hk, d, sk}, {a.k_strides.batch, a.k_strides.head, 1, a.k_strides.seq},
                                  false);
  const Descriptor& v = p.tensor(kV, io, {b, hk, sk, d}, {a.v_strides.batch, a.v_strides.head, a.v_strides.seq, 1},
                                 false);
  const Descriptor& o = p.tensor(kO, io, {b, hq, sq, d}, {a.o_strides.batch, a.o_strides.head, a.o_strides.seq, 1},
                                 false);
  const Descriptor& stats = p.tensor(kStats, CUDNN_DATA_FLOAT, {b, hq, sq, 1}, {hq * sq, sq, 1, 1}, false);
  const Descriptor& scale = p.tensor(kScale, CUDNN_DATA_FLOAT, {1, 1, 1, 1}, {1, 1, 1, 1}, false, true);

  const std::array<std::int64_t, 4> scores = {b, hq, sq, sk}, per_row = {b, hq, sq, 1};
  std::vector<cudnnBackendDescriptor_t> ops;
  const Descriptor& s_raw = p.virtual_tensor(CUDNN_DATA_FLOAT, scores);
  ops.push_back(p.matmul(q, kt, s_raw).get());
  const Descriptor& s_scaled = p.virtual_tensor(CUDNN_DATA_FLOAT, scores);
  ops.push_back(p.pointwise(CUDNN_POINTWISE_MUL, s_raw, &scale, s_scaled).get());
  const Descriptor* s_masked = &s_scaled;
  if (s.causal) {
    const Descriptor& row = p.virtual_tensor(CUDNN_DATA_INT32, scores);
    ops.push_back(p.pointwise(CUDNN_POINTWISE_GEN_INDEX, s_scaled, nullptr, row, nullptr, 2).get());
    const Descriptor& column = p.virtual_tensor(CUDNN_DATA_INT32, scores);
    ops.push_back(p.pointwise(CUDNN_POINTWISE_GEN_INDEX, s_scaled, nullptr, column, nullptr, 3).get());
    const Descriptor& visible = p.virtual_tensor(CUDNN_DATA_BOOLEAN, scores);
    ops.push_back(p.pointwise(CUDNN_POINTWISE_CMP_GE, row, &column, visible).get());
    const Descriptor& minus_infinity =
        p.tensor(kNegativeInfinity, CUDNN_DATA_FLOAT, {1, 1, 1, 1}, {1, 1, 1, 1}, false, true);
    const Descriptor& masked = p.virtual_tensor(CUDNN_DATA_FLOAT, scores);
    ops.push_back(p.pointwise(CUDNN_POINTWISE_BINARY_SELECT, s_scaled, &minus_infinity, masked, &visible).get());
    s_masked = &masked;
  }
  const Descriptor& row_max = p.virtual_tensor(CUDNN_DATA_FLOAT, per_row);
  ops.push_back(p.reduction(CUDNN_REDUCE_TENSOR_MAX, *s_masked, row_max).get());
  const Descriptor& shifted = p.virtual_tensor(CUDNN_DATA_FLOAT, scores);
  ops.push_back(p.pointwise(CUDNN_POINTWISE_SUB, *s_masked, &row_max, shifted).get());
  const Descriptor& exponentials = p.virtual_tensor(CUDNN_DATA_FLOAT, scores);
  ops.push_back(p.pointwise(CUDNN_POINTWISE_EXP, shifted, nullptr, exponentials).get());
  const Descriptor& row_sum = p.virtual_tensor(CUDNN_DATA_FLOAT, per_row);
  ops.push_back(p.reduction(CUDNN_REDUCE_TENSOR_ADD, exponentials, row_sum).get());
  const Descriptor& log_sum = p.virtual_tensor(CUDNN_DATA_FLOAT, per_row);
  ops.push_back(p.pointwise(CUDNN_POINTWISE_LOG, row_sum, nullptr, log_sum).get());
  ops.push_back(p.pointwise(CUDNN_POINTWISE_ADD, row_max, &log_sum, stats).get());
  const Descriptor& probabilities = p.virtual_tensor(io, scores);
  ops.push_back(p.pointwise(CUDNN_POINTWISE_DIV, exponentials, &row_sum, probabilities).get());
  ops.push_back(p.matmul(probabilities, v, o).get());

  Descriptor graph(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  graph.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, ops.data(),
            static_cast<std::int64_t>(ops.size()))
      .set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, &p.handle)
      .finalize("the operation graph");
  const Descriptor& graph_ref = p.kept(std::move(graph));

  Descriptor heuristics(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  const cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_A;
  heuristics.set(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph_ref)
      .set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, &mode)
      .finalize("the engine heuristics");
  std::int64_t count = 0;
  check(cudnnBackendGetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0,
                                 &count, nullptr),
        "counting engine configurations");
  std::vector<Descriptor> configs;
  configs.reserve(static_cast<std::size_t>(count));
  std::vector<cudnnBackendDescriptor_t> raw;
  for (std::int64_t i = 0; i < count; ++i) {
    configs.emplace_back(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    raw.push_back(configs.back().get());
  }
  check(cudnnBackendGetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                 count, &count, raw.data()),
        "reading engine configurations");
  cudnnStatus_t last = CUDNN_STATUS_NOT_SUPPORTED;
  for (std::int64_t i = 0; i < count && p.plan == nullptr; ++i) {
    auto candidate = std::make_unique<Descriptor>(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    candidate->set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, configs[static_cast<std::size_t>(i)]);
    last = cudnnBackendFinalize(candidate->get());
    if (last == CUDNN_STATUS_SUCCESS) {
      p.kept(std::move(configs[static_cast<std::size_t>(i)]));
      p.plan = std::move(candidate);
    }
  }
  if (p.plan == nullptr) fail(last, "finding an engine for the attention graph");
  check(cudnnBackendGetAttribute(p.plan->get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1,
                                 nullptr, &p.workspace_bytes),
        "reading the plan's workspace size");
  if (p.workspace_bytes > 0 && cudaMalloc(&p.workspace, static_cast<std::size_t>(p.workspace_bytes)) != cudaSuccess)
    throw std::runtime_error("cuDNN: cannot allocate the plan's workspace");
}

CudnnAttention::~CudnnAttention() = default;

void CudnnAttention::run(const attention::Args& a, cudaStream_t stream) {
  Plan& p = *plan_;
  if (p.stream != stream) {
    check(cudnnSetStream(p.handle, stream), "cudnnSetStream");
    p.stream = stream;
  }
  // The causal graph's seventh tensor is its -infinity; without a mask the slot stays null.
  const std::array<void*, 7> pointers = {const_cast<void*>(a.q), const_cast<void*>(a.k), const_cast<void*>(a.v),
                                         a.o, a.lse, &p.scale,
                                         a.shape.causal ? &p.negative_infinity : nullptr};
  if (p.pack == nullptr || pointers != p.packed_pointers) {
    static constexpr std::array<std::int64_t, 7> kUids = {kQ, kK, kV, kO, kStats, kScale, kNegativeInfinity};
    const std::int64_t count = a.shape.causal ? 7 : 6;
    auto pack = std::make_unique<Descriptor>(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    pack->set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, kUids.data(), count)
        .set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, pointers.data(), count)
        .set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, &p.workspace)
        .finalize("the variant pack");
    p.pack = std::move(pack);
    p.packed_pointers = pointers;
  }
  check(cudnnBackendExecute(p.handle, p.plan->get(), p.pack->get()), "executing the attention plan");
}

#else  // no cuDNN at configure time

struct CudnnAttention::Plan {};

std::string CudnnAttention::why_unavailable() { return "no cudnn row: cuDNN 9 was not found when smemlab was built"; }
CudnnAttention::CudnnAttention(const attention::Args& /*a*/) {
  throw std::logic_error("CudnnAttention: " + why_unavailable());
}
CudnnAttention::~CudnnAttention() = default;
void CudnnAttention::run(const attention::Args& /*a*/, cudaStream_t /*stream*/) {
  throw std::logic_error("CudnnAttention: " + why_unavailable());
}

#endif

}  // namespace smemlab
