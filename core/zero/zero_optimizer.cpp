// ZeRO stages 1 and 2 over a flat partition (see zero_optimizer.h). Reduction of a bucket: for every rank q
// whose chunk the bucket's elements touch, the touched elements are concatenated (bucket order) and reduced
// (summed) to q, as DeepSpeed's average_tensor reduces each partition's slice to its owner.
#include "core/zero/zero_optimizer.h"

#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <algorithm>
#include <cmath>

#include "core/util/error.h"

namespace fts {

FlatLayout makeFlatLayout(int64_t numel, int world) {
    FlatLayout l;
    l.numel = numel;
    l.world = world;
    l.chunk = (numel + world - 1) / world;
    return l;
}

std::string dtypeName(torch::ScalarType t) {
    switch (t) {
        case torch::kFloat32:
            return "float32";
        case torch::kBFloat16:
            return "bfloat16";
        case torch::kFloat16:
            return "float16";
        default:
            return c10::toString(t);
    }
}

namespace {

int64_t totalNumel(const std::vector<torch::Tensor>& ts) {
    int64_t n = 0;
    for (const auto& t : ts) n += t.numel();
    return n;
}

torch::Tensor initialMaster(const std::vector<torch::Tensor>& params, const FlatLayout& l, int rank) {
    torch::NoGradGuard ng;
    auto master =
        torch::zeros({l.chunk}, torch::TensorOptions()
                                    .dtype(torch::kFloat32)
                                    .device(params.empty() ? torch::Device(torch::kCPU) : params[0].device()));
    const int64_t lo = l.offsetOf(rank), hi = lo + l.chunk;
    int64_t off = 0;
    for (const auto& p : params) {
        const int64_t a = std::max(off, lo), b = std::min(off + p.numel(), hi);
        if (a < b) master.narrow(0, a - lo, b - a).copy_(p.detach().reshape({-1}).narrow(0, a - off, b - a));
        off += p.numel();
    }
    return master;
}

struct GradReadyHook : torch::autograd::PostAccumulateGradHook {
    GradReadyHook(ZeroOptimizer* z, size_t i) : zero(z), index(i) {}
    void operator()(const torch::autograd::Variable&) override { zero->onGradReady(index); }
    ZeroOptimizer* zero;
    size_t index;
};

}  // namespace

ZeroOptimizer::ZeroOptimizer(std::vector<torch::Tensor> params, const OptimizerConfig& cfg, Communicator& comm,
                             const ZeroOptions& options)
    : m_params(std::move(params)),
      m_layout(makeFlatLayout(totalNumel(m_params), comm.worldSize())),
      m_comm(comm),
      m_opt(options),
      m_dtype(m_params.empty() ? torch::kFloat32 : m_params.front().scalar_type()),
      m_state(initialMaster(m_params, m_layout, comm.rank()), cfg, options.placement, m_dtype) {
    if (m_opt.stage != 1 && m_opt.stage != 2)
        throw ConfigError("deepspeed.zero_optimization.stage " + std::to_string(m_opt.stage) +
                          ": the ZeRO optimizer implements stages 1 and 2");
    if (m_opt.reduceBucketElems < 1 || m_opt.allgatherBucketElems < 1)
        throw ConfigError("deepspeed.zero_optimization: reduce_bucket_size and allgather_bucket_size must be >= 1");
    int64_t off = 0;
    for (const auto& p : m_params) {
        if (p.scalar_type() != m_dtype)
            throw ConfigError("ZeRO: every trainable parameter must have one dtype; found " +
                              dtypeName(p.scalar_type()) + " next to " + dtypeName(m_dtype));
        if (!p.device().is_cpu() && !p.device().is_cuda()) throw ConfigError("ZeRO: parameters on " + p.device().str());
        m_offsets.push_back(off);
        off += p.numel();
    }
    const auto opts =
        torch::TensorOptions().dtype(m_dtype).device(m_params.empty() ? torch::kCPU : m_params[0].device());
    torch::NoGradGuard ng;
    if (m_opt.stage == 1) {
        // Full gradients in one flat buffer: autograd accumulates into these views in place.
        m_flatGrad = torch::zeros({m_layout.padded()}, opts);
        for (size_t i = 0; i < m_params.size(); ++i)
            m_params[i].mutable_grad() =
                m_flatGrad.narrow(0, m_offsets[i], m_params[i].numel()).view(m_params[i].sizes());
        m_partGrad = m_flatGrad.narrow(0, m_layout.offsetOf(comm.rank()), m_layout.chunk);
    } else {
        m_partGrad = torch::zeros({m_layout.chunk}, opts);
        if (m_opt.contiguousGradients)
            m_bucketBuf = torch::empty({std::min(m_opt.reduceBucketElems, std::max<int64_t>(1, m_layout.numel))}, opts);
        for (size_t i = 0; i < m_params.size(); ++i) {
            m_params[i].mutable_grad() = torch::Tensor();
            torch::autograd::impl::set_post_acc_grad_hooks(m_params[i], std::make_unique<GradReadyHook>(this, i));
        }
    }
}

ZeroOptimizer::~ZeroOptimizer() {
    if (m_opt.stage == 2)
        for (auto& p : m_params) torch::autograd::impl::set_post_acc_grad_hooks(p, nullptr);
}

void ZeroOptimizer::beginMicroStep(bool lastMicroStep) {
    m_lastMicro = lastMicroStep;
    m_inBackward = true;
}

void ZeroOptimizer::onGradReady(size_t index) {
    torch::NoGradGuard ng;
    torch::Tensor& p = m_params[index];
    torch::Tensor g = p.grad();
    if (!g.defined()) return;
    const int64_t n = p.numel();
    if (m_bucketFill > 0 && m_bucketFill + n > m_opt.reduceBucketElems) flushBucket();
    if (m_bucketBuf.defined() && n <= m_bucketBuf.numel()) {  // contiguous_gradients: copy, free the gradient
        torch::Tensor dst = m_bucketBuf.narrow(0, m_bucketFill, n);
        dst.copy_(g.reshape({-1}));
        m_bucket.push_back({index, dst});
    } else {  // kept as is until the bucket is reduced (an oversized gradient is reduced on its own)
        m_bucket.push_back({index, g.reshape({-1})});
    }
    m_bucketFill += n;
    p.mutable_grad() = torch::Tensor();
    if (m_bucketFill >= m_opt.reduceBucketElems) flushBucket();
}

void ZeroOptimizer::flushBucket() {
    if (m_bucket.empty()) return;
    torch::NoGradGuard ng;
    const int me = m_comm.rank();
    if (!m_opt.reduceScatter) {  // DeepSpeed's reduce_scatter=false: all-reduce the bucket, keep this rank's part
        std::vector<torch::Tensor> all;
        for (const Segment& s : m_bucket) all.push_back(s.grad);
        torch::Tensor t = torch::cat(all);
        m_comm.allReduce(t);
        ++m_reductions;
        if (m_inBackward) ++m_reductionsInHooks;
        const int64_t lo = m_layout.offsetOf(me), hi = lo + m_layout.chunk;
        int64_t k = 0;
        for (const Segment& s : m_bucket) {
            const int64_t off = m_offsets[s.param], n = s.grad.numel();
            const int64_t a = std::max(off, lo), b = std::min(off + n, hi);
            if (a < b) m_partGrad.narrow(0, a - lo, b - a).add_(t.narrow(0, k + a - off, b - a));
            k += n;
        }
        m_bucket.clear();
        m_bucketFill = 0;
        return;
    }
    for (int q = 0; q < m_layout.world; ++q) {
        const int64_t lo = m_layout.offsetOf(q), hi = lo + m_layout.chunk;
        std::vector<torch::Tensor> pieces;
        std::vector<std::pair<int64_t, int64_t>> where;  // (offset in q's chunk, length)
        for (const Segment& s : m_bucket) {
            const int64_t off = m_offsets[s.param];
            const int64_t a = std::max(off, lo), b = std::min(off + s.grad.numel(), hi);
            if (a >= b) continue;
            pieces.push_back(s.grad.narrow(0, a - off, b - a));
            where.emplace_back(a - lo, b - a);
        }
        if (pieces.empty()) continue;  // the same on every rank: the layout and the bucket are
        torch::Tensor t = torch::cat(pieces);
        m_comm.reduce(t, q);
        ++m_reductions;
        if (m_inBackward) ++m_reductionsInHooks;
        if (q != me) continue;
        int64_t k = 0;
        for (const auto& [dst, len] : where) {
            m_partGrad.narrow(0, dst, len).add_(t.narrow(0, k, len));
            k += len;
        }
    }
    m_bucket.clear();
    m_bucketFill = 0;
}

void ZeroOptimizer::reduceFlatStage1() {
    // Buckets of reduce_bucket_size elements over the flat gradient, last first (backward's order); each bucket's
    // part in rank q's chunk is summed in place on q.
    torch::NoGradGuard ng;
    const int64_t total = m_layout.padded();
    for (int64_t end = total; end > 0;) {
        const int64_t begin = std::max<int64_t>(0, end - m_opt.reduceBucketElems);
        if (!m_opt.reduceScatter) {  // all-reduce the bucket (every rank then holds the sums)
            torch::Tensor part = m_flatGrad.narrow(0, begin, end - begin);
            m_comm.allReduce(part);
            ++m_reductions;
            end = begin;
            continue;
        }
        for (int q = 0; q < m_layout.world; ++q) {
            const int64_t a = std::max(begin, m_layout.offsetOf(q)),
                          b = std::min(end, m_layout.offsetOf(q) + m_layout.chunk);
            if (a >= b) continue;
            torch::Tensor part = m_flatGrad.narrow(0, a, b - a);
            m_comm.reduce(part, q);
            ++m_reductions;
        }
        end = begin;
    }
}

void ZeroOptimizer::endMicroStep() {
    m_inBackward = false;
    if (m_opt.stage == 2) {
        flushBucket();
    } else if (m_lastMicro) {
        reduceFlatStage1();
    }
}

namespace {

// The ranks' summed squared norm of `grad` / divisor: float64 a piece at a time (a float64 copy of the whole shard and
// its square would be 16 bytes per element of transient memory, more than the optimizer state itself); inf/nan on any
// rank spreads. Padding is zero.
double allReducedSquaredNorm(const torch::Tensor& grad, double divisor, Communicator& comm) {
    constexpr int64_t kNormPiece = int64_t(1) << 20;
    const torch::Tensor g = grad.reshape({-1});
    torch::Tensor sq = torch::zeros({1}, g.options().dtype(torch::kFloat64));
    for (int64_t k = 0; k < g.numel(); k += kNormPiece) {
        torch::Tensor piece = g.narrow(0, k, std::min(kNormPiece, g.numel() - k)).to(torch::kFloat64);
        if (divisor != 1.0) piece.div_(divisor);
        sq.add_(piece.dot(piece));
    }
    comm.allReduce(sq);
    return sq.item<double>();
}

// clip_grad_norm's rule: the factor that scales a gradient of global norm `norm` down to maxNorm (1 when it fits).
double clipCoefficient(double norm, double maxNorm) {
    if (maxNorm <= 0.0) return 1.0;
    const double coef = maxNorm / (norm + 1e-6);
    return coef < 1.0 ? coef : 1.0;
}

}  // namespace

GradientStats prepareShardGradients(const torch::Tensor& shardGrad, torch::Tensor& master, Communicator& comm,
                                    double maxNorm, double lossScale) {
    torch::NoGradGuard ng;
    GradientStats st;
    torch::Tensor g = shardGrad.to(torch::kFloat32, /*non_blocking=*/false, /*copy=*/true);
    g.div_(double(comm.worldSize()) * lossScale);
    const double sumSq = allReducedSquaredNorm(g, 1.0, comm);
    st.norm = std::sqrt(sumSq);
    st.overflow = !std::isfinite(sumSq);
    if (st.overflow) {
        master.mutable_grad() = torch::Tensor();
        return st;
    }
    const double coef = clipCoefficient(st.norm, maxNorm);
    if (coef < 1.0) g.mul_(coef);
    master.mutable_grad() = g;
    return st;
}

ShardGradientScale shardGradientScale(const torch::Tensor& shardGrad, Communicator& comm, double maxNorm,
                                      double lossScale) {
    torch::NoGradGuard ng;
    ShardGradientScale out;
    const double divisor = double(comm.worldSize()) * lossScale;
    const double sumSq = allReducedSquaredNorm(shardGrad, divisor, comm);
    out.stats.norm = std::sqrt(sumSq);
    out.stats.overflow = !std::isfinite(sumSq);
    out.scale = 1.0 / divisor;
    if (!out.stats.overflow) out.scale *= clipCoefficient(out.stats.norm, maxNorm);
    return out;
}

PartitionStep::PartitionStep(const torch::Tensor& initial, const OptimizerConfig& cfg,
                             const PartitionPlacement& placement, torch::ScalarType paramDtype, ParamSink* params)
    : m_part(initial, cfg, placement), m_dtype(paramDtype), m_sink(params) {
    if (m_sink || !m_part.offloaded()) return;
    torch::NoGradGuard ng;
    m_paramCopy = torch::empty({m_part.elements()}, initial.options().dtype(paramDtype));
    m_ownSink = std::make_unique<TensorSink>(m_paramCopy);
    m_sink = m_ownSink.get();
    m_part.copyMasterTo(*m_sink);
}

GradientStats PartitionStep::prepare(const torch::Tensor& shardGrad, Communicator& comm, double maxNorm,
                                     double lossScale) {
    if (!m_part.offloaded()) return prepareShardGradients(shardGrad, m_part.deviceMaster(), comm, maxNorm, lossScale);
    ShardGradientScale s = shardGradientScale(shardGrad, comm, maxNorm, lossScale);
    m_gradScale = s.scale;
    m_ready = !s.stats.overflow;
    return s.stats;
}

void PartitionStep::step(const torch::Tensor& shardGrad, double lr, const std::string& who) {
    if (!m_part.offloaded()) {
        torch::Tensor& master = m_part.deviceMaster();
        if (!master.grad().defined()) throw Error(who + ": step() without prepareGradients(), or after an overflow");
        m_part.stepDevice(lr);
        master.mutable_grad() = torch::Tensor();  // the fp32 gradient lives only during the step
        return;
    }
    if (!m_ready) throw Error(who + ": step() without prepareGradients(), or after an overflow");
    m_part.stepOffloaded(shardGrad, m_gradScale, lr, m_sink);
    m_ready = false;
}

void PartitionStep::clear() {
    m_ready = false;
    if (!m_part.offloaded()) m_part.deviceMaster().mutable_grad() = torch::Tensor();
}

torch::Tensor PartitionStep::paramSlice(int64_t offset, int64_t len) const {
    if (m_paramCopy.defined()) return m_paramCopy.narrow(0, offset, len);
    if (m_part.offloaded())
        throw Error("optimizer partition: paramSlice() of a partition that writes to its caller's store");
    return m_part.deviceMaster().narrow(0, offset, len).to(m_dtype).contiguous();
}

void PartitionStep::publishParams() {
    if (m_part.offloaded() || !m_sink) return;
    m_part.copyMasterTo(*m_sink);
}

void PartitionStep::load(const std::vector<std::pair<std::string, torch::Tensor>>& tensors, int64_t step,
                         const std::string& partition, const std::string& what) {
    m_part.loadState(tensors, step, partition, what);
    if (m_part.offloaded() && m_sink) m_part.copyMasterTo(*m_sink);
}

void PartitionStep::addBytes(ModelStateBytes& m) const {
    const PartitionBytes b = m_part.bytes();
    if (b.device > 0) m.optimizer["float32"] += b.device;
    if (m_paramCopy.defined()) m.parameters[dtypeName(m_dtype)] += m_paramCopy.nbytes();
    m.hostOffload += b.host;
    m.nvmeOffload += b.nvme;
    m.swapRead += m_part.swapBytesRead();
    m.swapWritten += m_part.swapBytesWritten();
    m.swapWaitSeconds += m_part.swapWaitSeconds();
}

GradientStats ZeroOptimizer::prepareGradients(double maxNorm, double lossScale) {
    return m_state.prepare(m_partGrad, m_comm, maxNorm, lossScale);
}

void ZeroOptimizer::step(double lr) {
    m_state.step(m_partGrad, lr, "ZeRO");
    gatherParams();
}

void ZeroOptimizer::gatherParams() {
    torch::NoGradGuard ng;
    const int world = m_layout.world;
    const int64_t chunk = m_layout.chunk;
    const int64_t per = std::max<int64_t>(1, m_opt.allgatherBucketElems / world);
    for (int64_t k = 0; k < chunk; k += per) {
        const int64_t len = std::min(per, chunk - k);
        torch::Tensor in = m_state.paramSlice(k, len);
        torch::Tensor out = torch::empty({len * world}, in.options());
        m_comm.allGather(out, in);
        for (int q = 0; q < world; ++q) writeIntoParams(out.narrow(0, q * len, len), m_layout.offsetOf(q) + k);
    }
}

void ZeroOptimizer::writeIntoParams(const torch::Tensor& src, int64_t flatOffset) {
    const int64_t end = flatOffset + src.numel();
    // first parameter ending after flatOffset
    size_t i = size_t(std::upper_bound(m_offsets.begin(), m_offsets.end(), flatOffset) - m_offsets.begin());
    i = i == 0 ? 0 : i - 1;
    for (; i < m_params.size() && m_offsets[i] < end; ++i) {
        const int64_t off = m_offsets[i], n = m_params[i].numel();
        const int64_t a = std::max(off, flatOffset), b = std::min(off + n, end);
        if (a >= b) continue;
        m_params[i].detach().view({-1}).narrow(0, a - off, b - a).copy_(src.narrow(0, a - flatOffset, b - a));
    }
}

void ZeroOptimizer::zeroGrad() {
    torch::NoGradGuard ng;
    if (m_opt.stage == 1) {
        m_flatGrad.zero_();
    } else {
        m_partGrad.zero_();
        for (auto& p : m_params) p.mutable_grad() = torch::Tensor();
        m_bucket.clear();
        m_bucketFill = 0;
    }
    m_state.clear();
}

ModelStateBytes ZeroOptimizer::modelState() const {
    ModelStateBytes m;
    for (const auto& p : m_params) m.parameters[dtypeName(p.scalar_type())] += p.nbytes();
    const torch::Tensor& grads = m_opt.stage == 1 ? m_flatGrad : m_partGrad;
    m.gradients[dtypeName(grads.scalar_type())] += grads.nbytes();
    m_state.addBytes(m);
    if (m_bucketBuf.defined()) m.buckets += m_bucketBuf.nbytes();
    return m;
}

std::vector<std::pair<std::string, torch::Tensor>> ZeroOptimizer::shardTensors() const {
    return m_state.partition().stateTensors();
}

void ZeroOptimizer::loadShard(const std::vector<std::pair<std::string, torch::Tensor>>& tensors, int64_t step,
                              const std::string& what) {
    m_state.load(tensors, step,
                 "this rank's ZeRO partition of " + std::to_string(m_layout.numel) + " parameters over " +
                     std::to_string(m_layout.world) + " ranks",
                 what);
    gatherParams();
}

}  // namespace fts
