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
        case torch::kFloat32: return "float32";
        case torch::kBFloat16: return "bfloat16";
        case torch::kFloat16: return "float16";
        default: return c10::toString(t);
    }
}

std::vector<std::pair<std::string, torch::Tensor>> partitionTensors(const torch::Tensor& master, const AdamW& adam) {
    std::vector<std::pair<std::string, torch::Tensor>> out{{"master", master}};
    for (auto& [name, t] : adam.stateTensors()) out.emplace_back(name, t);
    return out;
}

void loadPartition(const std::vector<std::pair<std::string, torch::Tensor>>& tensors, int64_t elements,
                   const std::string& partition, torch::Tensor master, AdamW& adam, int64_t step, const std::string& what) {
    torch::NoGradGuard ng;
    std::vector<std::pair<std::string, torch::Tensor>> moments;
    bool haveMaster = false;
    for (const auto& [name, t] : tensors) {
        if (t.numel() != elements)
            throw FormatError(what + ": tensor '" + name + "' has " + std::to_string(t.numel()) + " elements, expected " +
                              std::to_string(elements) + " (" + partition + ")");
        if (name == "master") {
            master.detach().copy_(t);
            haveMaster = true;
        } else {
            moments.emplace_back(name, t);
        }
    }
    if (!haveMaster) throw FormatError(what + ": tensor 'master' is missing");
    try {
        adam.loadState(moments, step);
    } catch (const Error& e) {
        throw FormatError(what + ": " + e.what());
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
    auto master = torch::zeros({l.chunk}, torch::TensorOptions().dtype(torch::kFloat32).device(
                                                params.empty() ? torch::Device(torch::kCPU) : params[0].device()));
    const int64_t lo = l.offsetOf(rank), hi = lo + l.chunk;
    int64_t off = 0;
    for (const auto& p : params) {
        const int64_t a = std::max(off, lo), b = std::min(off + p.numel(), hi);
        if (a < b) master.narrow(0, a - lo, b - a).copy_(p.detach().reshape({-1}).narrow(0, a - off, b - a));
        off += p.numel();
    }
    return master.requires_grad_(true);  // a leaf whose .grad the optimizer reads
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
      m_master(initialMaster(m_params, m_layout, comm.rank())),
      m_adam({m_master}, cfg) {
    if (m_opt.stage != 1 && m_opt.stage != 2)
        throw ConfigError("deepspeed.zero_optimization.stage " + std::to_string(m_opt.stage) +
                          ": the ZeRO optimizer implements stages 1 and 2");
    if (m_opt.reduceBucketElems < 1 || m_opt.allgatherBucketElems < 1)
        throw ConfigError("deepspeed.zero_optimization: reduce_bucket_size and allgather_bucket_size must be >= 1");
    int64_t off = 0;
    for (const auto& p : m_params) {
        if (p.scalar_type() != m_dtype)
            throw ConfigError("ZeRO: every trainable parameter must have one dtype; found " + dtypeName(p.scalar_type()) +
                              " next to " + dtypeName(m_dtype));
        if (!p.device().is_cpu() && !p.device().is_cuda()) throw ConfigError("ZeRO: parameters on " + p.device().str());
        m_offsets.push_back(off);
        off += p.numel();
    }
    const auto opts = torch::TensorOptions().dtype(m_dtype).device(m_params.empty() ? torch::kCPU : m_params[0].device());
    torch::NoGradGuard ng;
    if (m_opt.stage == 1) {
        // Full gradients in one flat buffer: autograd accumulates into these views in place.
        m_flatGrad = torch::zeros({m_layout.padded()}, opts);
        for (size_t i = 0; i < m_params.size(); ++i)
            m_params[i].mutable_grad() = m_flatGrad.narrow(0, m_offsets[i], m_params[i].numel()).view(m_params[i].sizes());
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
            const int64_t a = std::max(begin, m_layout.offsetOf(q)), b = std::min(end, m_layout.offsetOf(q) + m_layout.chunk);
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

GradientStats prepareShardGradients(const torch::Tensor& shardGrad, torch::Tensor& master, Communicator& comm,
                                    double maxNorm, double lossScale) {
    torch::NoGradGuard ng;
    GradientStats st;
    torch::Tensor g = shardGrad.to(torch::kFloat32, /*non_blocking=*/false, /*copy=*/true);
    g.div_(double(comm.worldSize()) * lossScale);
    // Global norm: the shards' squared norms summed over the ranks (padding is zero); inf/nan anywhere spreads.
    // Summed in float64 a piece at a time: a float64 copy of the whole shard and its square would be 16 bytes per
    // element of transient memory, more than the optimizer state itself.
    constexpr int64_t kNormPiece = int64_t(1) << 20;
    torch::Tensor sq = torch::zeros({1}, g.options().dtype(torch::kFloat64));
    for (int64_t k = 0; k < g.numel(); k += kNormPiece) {
        const torch::Tensor piece = g.narrow(0, k, std::min(kNormPiece, g.numel() - k)).to(torch::kFloat64);
        sq.add_(piece.dot(piece));
    }
    comm.allReduce(sq);
    const double sumSq = sq.item<double>();
    st.norm = std::sqrt(sumSq);
    st.overflow = !std::isfinite(sumSq);
    if (st.overflow) {
        master.mutable_grad() = torch::Tensor();
        return st;
    }
    if (maxNorm > 0.0) {  // clip_grad_norm's rule
        const double coef = maxNorm / (st.norm + 1e-6);
        if (coef < 1.0) g.mul_(coef);
    }
    master.mutable_grad() = g;
    return st;
}

GradientStats ZeroOptimizer::prepareGradients(double maxNorm, double lossScale) {
    return prepareShardGradients(m_partGrad, m_master, m_comm, maxNorm, lossScale);
}

void ZeroOptimizer::step(double lr) {
    if (!m_master.grad().defined()) throw Error("ZeRO: step() without prepareGradients(), or after an overflow");
    m_adam.step(lr);
    m_master.mutable_grad() = torch::Tensor();  // the fp32 gradient lives only during the step
    gatherParams();
}

void ZeroOptimizer::gatherParams() {
    torch::NoGradGuard ng;
    const int world = m_layout.world;
    const int64_t chunk = m_layout.chunk;
    const int64_t per = std::max<int64_t>(1, m_opt.allgatherBucketElems / world);
    for (int64_t k = 0; k < chunk; k += per) {
        const int64_t len = std::min(per, chunk - k);
        torch::Tensor in = m_master.narrow(0, k, len).to(m_dtype).contiguous();
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
    m_master.mutable_grad() = torch::Tensor();
}

ModelStateBytes ZeroOptimizer::modelState() const {
    ModelStateBytes m;
    for (const auto& p : m_params) m.parameters[dtypeName(p.scalar_type())] += p.nbytes();
    const torch::Tensor& grads = m_opt.stage == 1 ? m_flatGrad : m_partGrad;
    m.gradients[dtypeName(grads.scalar_type())] += grads.nbytes();
    m.optimizer["float32"] += m_master.nbytes() + m_adam.stateBytes();
    if (m_bucketBuf.defined()) m.buckets += m_bucketBuf.nbytes();
    return m;
}

std::vector<std::pair<std::string, torch::Tensor>> ZeroOptimizer::shardTensors() const {
    return partitionTensors(m_master, m_adam);
}

void ZeroOptimizer::loadShard(const std::vector<std::pair<std::string, torch::Tensor>>& tensors, int64_t step,
                              const std::string& what) {
    loadPartition(tensors, m_layout.chunk,
                  "this rank's ZeRO partition of " + std::to_string(m_layout.numel) + " parameters over " +
                      std::to_string(m_layout.world) + " ranks",
                  m_master, m_adam, step, what);
    gatherParams();
}

}  // namespace fts
