// ZeRO stage 3 (see zero3_optimizer.h). Gather of a parameter set: every rank contributes the concatenation of its
// chunks, one all-gather, and row q of the result holds rank q's chunks, so parameter p is the concatenation of
// its chunk in every row (padding cut). Reduction of a gradient bucket is the mirror image: row q of the input
// holds chunk q of every gradient, and one reduce-scatter leaves each rank the sums of its own chunks.
#include "core/zero/zero3_optimizer.h"

#include <ATen/autocast_mode.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <optional>

#include "core/model/activation_checkpoint.h"
#include "core/util/error.h"

namespace fts {

namespace {

int64_t numelOf(const std::vector<int64_t>& shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

int64_t shardElemsOf(const std::vector<torch::Tensor*>& slots, const std::vector<std::vector<int64_t>>& fullShapes,
                     int world) {
    int64_t s = 0;
    for (size_t i = 0; i < slots.size(); ++i)
        s += ((fullShapes.empty() ? slots[i]->numel() : numelOf(fullShapes[i])) + world - 1) / world;
    return s;
}

torch::Device deviceOf(const std::vector<torch::Tensor*>& slots) {
    return slots.empty() ? torch::Device(torch::kCPU) : slots[0]->device();
}

struct Zero3BlockHolder : torch::CustomClassHolder {
    Zero3Optimizer* zero = nullptr;
    size_t block = 0;
    Zero3Optimizer::BlockFn fn;
    ForwardReplay replay;  // dropout masks and autocast: the recompute runs as the forward did
};

// Forward: gather, run without a graph, free (only the block input is kept). Backward: gather again, recompute with
// the gathered parameters as fresh leaves, differentiate, hand their gradients to the reduce buckets, free.
struct Zero3BlockFunction : torch::autograd::Function<Zero3BlockFunction> {
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, c10::intrusive_ptr<Zero3BlockHolder> holder,
                                 const torch::Tensor& x, const torch::Tensor& anchor) {
        (void)anchor;  // requires grad, so that backward runs even when x does not
        ctx->save_for_backward({x});
        ctx->saved_data["block"] = c10::IValue::make_capsule(holder);
        holder->zero->fetchBlock(holder->block, false);
        torch::Tensor out;
        {
            torch::NoGradGuard noGrad;
            out = holder->fn(x);
        }
        holder->zero->releaseBlock(holder->block);
        return out;
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list gradOut) {
        auto holder = c10::static_intrusive_pointer_cast<Zero3BlockHolder>(ctx->saved_data["block"].toCapsule());
        Zero3Optimizer& z = *holder->zero;
        const auto saved = ctx->get_saved_variables();
        torch::Tensor x = saved[0].detach().requires_grad_(saved[0].requires_grad());
        z.fetchBlock(holder->block, true);
        if (z.frozen()) {  // the block's own parameters take no gradient; the leaves it uses (adapters, x) do
            torch::Tensor out = holder->replay.rerun(holder->fn, x);
            if (out.requires_grad()) torch::autograd::backward({out}, {gradOut[0]}, false, false);
            out = torch::Tensor();
            z.releaseBlock(holder->block);
            return {torch::Tensor(), x.requires_grad() ? x.grad() : torch::Tensor(), torch::Tensor()};
        }
        const std::vector<size_t>& params = z.blockParams(holder->block);
        std::vector<torch::Tensor> wrt;
        if (x.requires_grad()) wrt.push_back(x);
        for (size_t p : params) {
            z.slot(p) = z.slot(p).detach().requires_grad_(true);
            wrt.push_back(z.slot(p));
        }
        torch::Tensor out = holder->replay.rerun(holder->fn, x);
        std::vector<torch::Tensor> grads = torch::autograd::grad({out}, wrt, {gradOut[0]}, false, false, true);
        out = torch::Tensor();
        const size_t first = x.requires_grad() ? 1 : 0;
        for (size_t k = 0; k < params.size(); ++k) {
            z.addGradient(params[k], grads[first + k]);
            grads[first + k] = torch::Tensor();
            z.slot(params[k]) = z.slot(params[k]).detach();
        }
        z.releaseBlock(holder->block);
        return {torch::Tensor(), first ? grads[0] : torch::Tensor(), torch::Tensor()};
    }
};

}  // namespace

Zero3Optimizer::Zero3Optimizer(std::vector<torch::Tensor*> slots, std::vector<std::string> names,
                               std::vector<std::pair<size_t, size_t>> blocks, const OptimizerConfig& cfg,
                               Communicator& comm, const Zero3Options& options,
                               const std::vector<std::vector<int64_t>>& fullShapes)
    : m_slots(std::move(slots)),
      m_comm(comm),
      m_opt(options),
      m_dtype(m_slots.empty() ? torch::kFloat32 : m_slots.front()->scalar_type()),
      m_device(deviceOf(m_slots)),
      m_shardElems(shardElemsOf(m_slots, fullShapes, comm.worldSize())) {
    if (m_opt.reduceBucketElems < 1 || m_opt.allgatherBucketElems < 1 || m_opt.prefetchBucketElems < 0 ||
        m_opt.maxLiveElems < 0)
        throw ConfigError(
            "deepspeed.zero_optimization: reduce_bucket_size and allgather_bucket_size must be >= 1, "
            "stage3_max_live_parameters and stage3_prefetch_bucket_size >= 0");
    if (names.size() != m_slots.size() || (!fullShapes.empty() && fullShapes.size() != m_slots.size()))
        throw Error("ZeRO stage 3: one name (and full shape) per parameter expected");
    const int world = comm.worldSize(), me = comm.rank();
    torch::NoGradGuard ng;
    const auto opts = torch::TensorOptions().dtype(m_dtype).device(m_device);
    torch::Tensor shard = torch::zeros({m_shardElems}, opts);  // filled below, then handed to the store
    m_gradShard = torch::zeros({m_opt.frozen ? 0 : m_shardElems}, opts);
    int64_t off = 0;
    for (size_t i = 0; i < m_slots.size(); ++i) {
        torch::Tensor& t = *m_slots[i];
        if (t.scalar_type() != m_dtype)
            throw ConfigError("ZeRO stage 3: every parameter must have one dtype; '" + names[i] + "' is " +
                              dtypeName(t.scalar_type()) + " next to " + dtypeName(m_dtype));
        Zero3Param p;
        p.name = names[i];
        p.shape = fullShapes.empty() ? t.sizes().vec() : fullShapes[i];
        p.numel = numelOf(p.shape);
        p.chunk = (p.numel + world - 1) / world;
        p.offset = off;
        p.persistent = p.numel <= m_opt.persistenceThreshold;
        if (!fullShapes.empty() && !p.persistent) {  // the slot holds this rank's chunk already
            if (t.numel() != p.chunk)
                throw Error("ZeRO stage 3: '" + p.name + "' holds " + std::to_string(t.numel()) +
                            " elements, expected its chunk of " + std::to_string(p.chunk));
            shard.narrow(0, off, p.chunk).copy_(t.detach().reshape({-1}));
        } else {
            if (t.numel() != p.numel)
                throw Error("ZeRO stage 3: '" + p.name + "' holds " + std::to_string(t.numel()) +
                            " elements, expected " + std::to_string(p.numel));
            const int64_t lo = std::min(p.numel, me * p.chunk), len = std::min(p.chunk, p.numel - lo);
            if (len > 0) shard.narrow(0, off, len).copy_(t.detach().reshape({-1}).narrow(0, lo, len));
            if (p.persistent && !fullShapes.empty()) t = t.detach().view(p.shape);
        }
        off += p.chunk;
        m_params.push_back(std::move(p));
    }
    // The shard rests in the store (device, host or NVMe); an offloaded CPU step writes the updated values straight
    // into it, a device step publishes them after the update.
    size_t largest = 0;
    for (size_t i = 0; i < m_params.size(); ++i)
        if (m_params[i].chunk > m_params[largest].chunk) largest = i;
    m_store =
        std::make_unique<ParamShardStore>(shard, m_opt.paramPlacement, m_params.empty() ? 0 : m_params[largest].chunk,
                                          m_params.empty() ? std::string() : m_params[largest].name);
    if (!m_opt.frozen) m_state = std::make_unique<PartitionStep>(shard, cfg, m_opt.placement, m_dtype, m_store.get());
    shard = torch::Tensor();
    m_live.assign(m_slots.size(), 0);
    m_blockOf.assign(m_slots.size(), -1);
    for (size_t b = 0; b < blocks.size(); ++b) {
        const auto [first, count] = blocks[b];
        if (count == 0 || first + count > m_slots.size())
            throw Error("ZeRO stage 3: block " + std::to_string(b) + " covers parameters [" + std::to_string(first) +
                        ", " + std::to_string(first + count) + ") of " + std::to_string(m_slots.size()));
        std::vector<size_t> ps;
        for (size_t i = first; i < first + count; ++i) {
            if (m_blockOf[i] != -1) throw Error("ZeRO stage 3: parameter '" + m_params[i].name + "' is in two blocks");
            m_blockOf[i] = int(b);
            ps.push_back(i);
        }
        m_blockParams.push_back(std::move(ps));
    }
    for (size_t i = 0; i < m_slots.size(); ++i)
        if (m_blockOf[i] == -1) m_outside.push_back(i);
    int64_t largestRange = 0;  // what readAhead() asks for: a block's shard range
    for (const auto& ps : m_blockParams)
        largestRange = std::max(largestRange,
                                m_params[ps.back()].offset + m_params[ps.back()].chunk - m_params[ps.front()].offset);
    m_store->setReadAheadBound(int(std::min<size_t>(2, m_blockParams.size())), largestRange);
    m_store->setSpanBound(m_opt.placement.subGroupElems);
    // At rest: a placeholder for every partitioned parameter; persistent ones stay whole.
    for (size_t i = 0; i < m_slots.size(); ++i)
        *m_slots[i] = m_params[i].persistent ? m_slots[i]->detach() : placeholder();
}

Zero3Optimizer::~Zero3Optimizer() = default;

torch::Tensor Zero3Optimizer::rankPart(const torch::Tensor& full, int rank, int world, int64_t persistenceThreshold) {
    torch::NoGradGuard ng;
    const int64_t numel = full.numel();
    if (numel <= persistenceThreshold) return full.detach().clone();
    const int64_t chunk = (numel + world - 1) / world;
    const int64_t lo = std::min(numel, rank * chunk), len = std::min(chunk, numel - lo);
    torch::Tensor part = torch::zeros({chunk}, full.options().requires_grad(false));
    if (len > 0) part.narrow(0, 0, len).copy_(full.detach().reshape({-1}).narrow(0, lo, len));
    return part;
}

torch::Tensor Zero3Optimizer::placeholder() const {
    return torch::empty({0}, torch::TensorOptions().dtype(m_dtype).device(m_device));
}

int64_t Zero3Optimizer::blockElems(size_t block) const {
    int64_t n = 0;
    for (size_t p : m_blockParams[block])
        if (!m_params[p].persistent && !m_live[p]) n += m_params[p].numel;
    return n;
}

void Zero3Optimizer::gather(const std::vector<size_t>& params) {
    // This rank's chunks, read from the store in runs of adjacent chunks (one read per block when nothing in it is
    // live or persistent).
    std::vector<torch::Tensor> mine;
    int64_t total = 0;
    for (size_t k = 0; k < params.size();) {
        const int64_t from = m_params[params[k]].offset;
        int64_t len = 0;
        size_t j = k;
        while (j < params.size() && m_params[params[j]].offset == from + len) len += m_params[params[j++]].chunk;
        if (len > 0) mine.push_back(m_store->read(from, len));
        total += len;
        k = j;
    }
    if (total == 0) return;
    torch::NoGradGuard ng;
    torch::Tensor in = mine.size() == 1 ? mine.front() : torch::cat(mine);
    torch::Tensor out = torch::empty({total * m_comm.worldSize()}, in.options());
    m_comm.allGather(out, in);
    ++m_gathers;
    torch::Tensor rows = out.view({m_comm.worldSize(), total});  // row q: rank q's chunks
    int64_t pos = 0;
    for (size_t p : params) {
        const Zero3Param& z = m_params[p];
        torch::Tensor full = rows.narrow(1, pos, z.chunk).reshape({-1}).narrow(0, 0, z.numel).view(z.shape);
        pos += z.chunk;
        if (z.persistent) {
            m_slots[p]->detach().copy_(full);
        } else {
            *m_slots[p] = full.clone();
            m_live[p] = 1;
            m_liveElems += z.numel;
        }
    }
    m_peakLive = std::max(m_peakLive, m_liveElems);
}

void Zero3Optimizer::release(size_t p) {
    if (m_params[p].persistent || !m_live[p]) return;
    *m_slots[p] = placeholder();
    m_live[p] = 0;
    m_liveElems -= m_params[p].numel;
}

void Zero3Optimizer::releaseAll() {
    for (size_t p = 0; p < m_slots.size(); ++p) release(p);
}

void Zero3Optimizer::fetchBlock(size_t block, bool backward) {
    std::vector<size_t> need;
    int64_t needElems = 0;
    for (size_t p : m_blockParams[block])
        if (!m_params[p].persistent && !m_live[p]) need.push_back(p), needElems += m_params[p].numel;
    if (!need.empty()) {
        if (m_liveElems + needElems > m_opt.maxLiveElems)  // stage3_max_live_parameters: drop what was prefetched
            for (size_t b = 0; b < m_blockParams.size(); ++b)
                if (b != block)
                    for (size_t p : m_blockParams[b]) release(p);
        gather(need);
    }
    // Prefetch the blocks that run next (forward: the following ones; backward: the preceding ones), as long as
    // they fit stage3_prefetch_bucket_size and the live total stays within stage3_max_live_parameters.
    int64_t budget = m_opt.prefetchBucketElems;
    const int step = backward ? -1 : 1;
    for (int64_t b = int64_t(block) + step; b >= 0 && b < int64_t(m_blockParams.size()); b += step) {
        const int64_t e = blockElems(size_t(b));
        if (e == 0) continue;
        if (e > budget || m_liveElems + e > m_opt.maxLiveElems) break;
        std::vector<size_t> pre;
        for (size_t p : m_blockParams[size_t(b)])
            if (!m_params[p].persistent && !m_live[p]) pre.push_back(p);
        gather(pre);
        budget -= e;
    }
    readAhead(block, backward);
}

void Zero3Optimizer::readAhead(size_t block, bool backward) {
    const int most = m_store->readAheadRanges();  // as many as there are buffers for, at most two
    if (most == 0) return;
    const int step = backward ? -1 : 1;
    int ahead = 0;
    for (int64_t b = int64_t(block) + step; b >= 0 && b < int64_t(m_blockParams.size()); b += step) {
        if (blockElems(size_t(b)) == 0) continue;  // gathered already (or only persistent parameters)
        const std::vector<size_t>& ps = m_blockParams[size_t(b)];
        const Zero3Param& last = m_params[ps.back()];
        m_store->prefetch(m_params[ps.front()].offset, last.offset + last.chunk - m_params[ps.front()].offset);
        if (++ahead >= most) break;
    }
}

void Zero3Optimizer::releaseBlock(size_t block) {
    for (size_t p : m_blockParams[block]) release(p);
}

torch::Tensor Zero3Optimizer::runBlock(const BlockFn& block, const torch::Tensor& h, size_t first, size_t count) {
    const int b = first < m_blockOf.size() ? m_blockOf[first] : -1;
    if (b < 0 || m_blockParams[size_t(b)].front() != first || m_blockParams[size_t(b)].size() != count)
        throw Error("ZeRO stage 3: the model ran a block over parameters [" + std::to_string(first) + ", " +
                    std::to_string(first + count) + ") that its block list does not name");
    if (!torch::GradMode::is_enabled()) {
        fetchBlock(size_t(b), false);
        torch::Tensor out = block(h);
        releaseBlock(size_t(b));
        return out;
    }
    auto holder = c10::make_intrusive<Zero3BlockHolder>();
    holder->zero = this;
    holder->block = size_t(b);
    holder->fn = block;
    holder->replay = ForwardReplay::capture(h);
    torch::Tensor anchor = torch::empty({0}, h.options().dtype(torch::kFloat32)).requires_grad_(true);
    return Zero3BlockFunction::apply(holder, h, anchor);
}

void Zero3Optimizer::beginMicroStep(bool) {
    m_inMicroStep = true;
    std::vector<size_t> need;
    for (size_t p : m_outside)
        if (!m_params[p].persistent && !m_live[p]) need.push_back(p);
    gather(need);
    if (!m_opt.frozen)
        for (size_t p : m_outside) *m_slots[p] = m_slots[p]->detach().requires_grad_(true);  // fresh leaves
}

void Zero3Optimizer::endMicroStep() {
    for (size_t p : m_outside) {
        if (!m_opt.frozen) addGradient(p, m_slots[p]->grad());
        *m_slots[p] = m_slots[p]->detach();
        release(p);
    }
    flushBucket();
    releaseAll();
    m_inMicroStep = false;
}

void Zero3Optimizer::beginForwardOnly() {
    std::vector<size_t> need;
    for (size_t p : m_outside)
        if (!m_params[p].persistent && !m_live[p]) need.push_back(p);
    gather(need);
}

void Zero3Optimizer::endForwardOnly() { releaseAll(); }

void Zero3Optimizer::addGradient(size_t p, const torch::Tensor& grad) {
    torch::NoGradGuard ng;
    const int64_t n = m_params[p].numel;
    if (m_bucketFill > 0 && m_bucketFill + n > m_opt.reduceBucketElems) flushBucket();
    torch::Tensor g = grad.defined() ? grad.detach().reshape({-1}) : torch::zeros({n}, m_gradShard.options());
    m_bucket.emplace_back(p, g.to(m_dtype));
    m_bucketFill += n;
    if (m_bucketFill >= m_opt.reduceBucketElems) flushBucket();
}

void Zero3Optimizer::flushBucket() {
    if (m_bucket.empty()) return;
    torch::NoGradGuard ng;
    const int world = m_comm.worldSize();
    int64_t total = 0;
    for (const auto& [p, g] : m_bucket) total += m_params[p].chunk;
    torch::Tensor in = torch::zeros({world, total}, m_gradShard.options());  // row q: chunk q of every gradient
    int64_t pos = 0;
    for (const auto& [p, g] : m_bucket) {
        const Zero3Param& z = m_params[p];
        for (int q = 0; q < world; ++q) {
            const int64_t lo = std::min(z.numel, q * z.chunk), len = std::min(z.chunk, z.numel - lo);
            if (len > 0) in[q].narrow(0, pos, len).copy_(g.narrow(0, lo, len));
        }
        pos += z.chunk;
    }
    torch::Tensor flat = in.view({-1});
    torch::Tensor mine;
    if (m_opt.reduceScatter) {
        mine = torch::empty({total}, m_gradShard.options());
        m_comm.reduceScatter(mine, flat);
    } else {  // DeepSpeed's reduce_scatter=false: all-reduce, keep this rank's row
        m_comm.allReduce(flat);
        mine = in[m_comm.rank()];
    }
    ++m_reductions;
    pos = 0;
    for (const auto& [p, g] : m_bucket) {
        m_gradShard.narrow(0, m_params[p].offset, m_params[p].chunk).add_(mine.narrow(0, pos, m_params[p].chunk));
        pos += m_params[p].chunk;
    }
    m_bucket.clear();
    m_bucketFill = 0;
}

GradientStats Zero3Optimizer::prepareGradients(double maxNorm, double lossScale) {
    return m_state->prepare(m_gradShard, m_comm, maxNorm, lossScale);
}

void Zero3Optimizer::step(double lr) {
    m_state->step(m_gradShard, lr, "ZeRO stage 3");
    m_state->publishParams();
    refreshPersistent();
}

void Zero3Optimizer::refreshPersistent() {
    // Persistent parameters are whole on every rank: all-gathered from the updated shards, allgather_bucket_size
    // elements (all ranks together) at a time.
    std::vector<size_t> bucket;
    int64_t fill = 0;
    for (size_t p = 0; p < m_params.size(); ++p) {
        if (!m_params[p].persistent) continue;
        const int64_t e = m_params[p].chunk * m_comm.worldSize();
        if (!bucket.empty() && fill + e > m_opt.allgatherBucketElems) {
            gather(bucket);
            bucket.clear();
            fill = 0;
        }
        bucket.push_back(p);
        fill += e;
    }
    gather(bucket);
}

void Zero3Optimizer::zeroGrad() {
    torch::NoGradGuard ng;
    m_gradShard.zero_();
    m_bucket.clear();
    m_bucketFill = 0;
    m_state->clear();
}

ModelStateBytes Zero3Optimizer::modelState() const {
    ModelStateBytes m;
    const std::string dt = dtypeName(m_dtype);
    m.parameters[dt] += m_store->deviceBytes();
    m.hostOffload += m_store->hostBytes();
    m.swapRead += m_store->swapBytesRead();
    m.swapWritten += m_store->swapBytesWritten();
    m.swapWaitSeconds += m_store->swapWaitSeconds();
    m.nvmeOffload += m_store->nvmeBytes();
    for (size_t p = 0; p < m_params.size(); ++p)
        if (m_params[p].persistent) m.parameters[dt] += m_params[p].numel * int64_t(m_gradShard.element_size());
    m.gradients[dt] += m_gradShard.nbytes();
    if (m_state) m_state->addBytes(m);
    return m;
}

nlohmann::json Zero3Optimizer::partitionJson() const {
    nlohmann::json params = nlohmann::json::array();
    for (const Zero3Param& p : m_params)
        params.push_back(
            {{"name", p.name}, {"shape", p.shape}, {"numel", p.numel}, {"chunk", p.chunk}, {"offset", p.offset}});
    return {{"world_size", m_comm.worldSize()},
            {"shard_elements", m_shardElems},
            {"dtype", dtypeName(m_dtype)},
            {"params", params}};
}

std::vector<std::pair<std::string, torch::Tensor>> Zero3Optimizer::shardTensors() const {
    return m_state->partition().stateTensors();
}

void Zero3Optimizer::loadShard(const std::vector<std::pair<std::string, torch::Tensor>>& tensors, int64_t step,
                               const std::string& what) {
    m_state->load(tensors, step,
                  "this rank's ZeRO stage 3 shards of " + std::to_string(m_params.size()) + " parameters over " +
                      std::to_string(m_comm.worldSize()) + " ranks",
                  what);
    m_state->publishParams();
    refreshPersistent();
}

}  // namespace fts
