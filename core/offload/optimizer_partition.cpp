// OptimizerPartition (see optimizer_partition.h). Offloaded steps go through kernels/cpu/cpu_adam (DeepSpeed's
// CPU-Adam arithmetic) sub-group by sub-group. A gradient or parameter on a CUDA device crosses through host staging
// tensors of its own dtype (pinned when pin_memory is on), so the copy over PCIe moves 2 bytes per element in
// bf16/fp16. NVMe layout: sub-group g occupies one aligned slot of the swap file holding [master | exp_avg | exp_avg_sq]
// (each padded to kSwapAlign); a host buffer holds one slot.
#include "core/offload/optimizer_partition.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <deque>

#include "core/util/error.h"
#include "core/model/kernel_dtype.h"
#include "kernels/cpu/cpu_adam.h"

namespace fts {

SwapIoOptions swapIoOptions(const AioConfig& aio) {
    SwapIoOptions io;
    io.blockSize = aio.blockSize;
    io.queueDepth = int(aio.queueDepth);
    io.threads = int(aio.intraOpParallelism);
    io.singleSubmit = aio.singleSubmit;
    io.overlapEvents = aio.overlapEvents;
    return io;
}

namespace {

kernels::DType kernelType(torch::ScalarType t, const char* what) {
    if (const std::optional<kernels::DType> k = kernelDType(t)) return *k;
    throw Error(std::string("optimizer offload: ") + what + " of dtype " + c10::toString(t) + " is not supported");
}

kernels::CpuAdamHyper hyper(const OptimizerConfig& cfg, double lr, int64_t step, double gradScale) {
    kernels::CpuAdamHyper h;
    h.lr = lr;
    h.beta1 = cfg.beta1;
    h.beta2 = cfg.beta2;
    h.eps = cfg.eps;
    h.weightDecay = cfg.weightDecay;
    h.adamWMode = cfg.adamWMode;
    h.step = step;
    h.gradScale = float(gradScale);
    return h;
}

int cpuThreads(int configured) { return configured > 0 ? configured : at::get_num_threads(); }

// A CPU tensor of `n` elements of `t` for staging device data (pinned when asked and training on CUDA).
torch::Tensor hostStaging(int64_t n, torch::ScalarType t, bool pin) {
    return torch::empty({n}, torch::TensorOptions().dtype(t).device(torch::kCPU).pinned_memory(pin));
}

}  // namespace

// ---- NVMe ------------------------------------------------------------------------------------------------------

struct OptimizerPartition::Swap {
    std::filesystem::path dir;
    bool createdDir = false;
    int64_t groupElems = 0;  // elements per sub-group (the last may be shorter)
    int64_t groups = 0;
    int64_t segElems = 0;   // elements per padded segment (master, exp_avg, exp_avg_sq)
    int64_t slotBytes = 0;  // one sub-group in the file and in a buffer
    std::unique_ptr<SwapFile> file;
    std::vector<AlignedHostBuffer> buffers;

    int64_t groupSize(int64_t g, int64_t total) const { return std::min(groupElems, total - g * groupElems); }
    ~Swap() {
        file.reset();  // removes the swap file
        std::error_code ec;
        if (createdDir) {
            std::filesystem::remove(dir, ec);                // rank<r>, when empty
            std::filesystem::remove(dir.parent_path(), ec);  // the run's folder, when no other rank uses it
        }
    }
};

OptimizerPartition::OptimizerPartition(const torch::Tensor& initial, const OptimizerConfig& cfg,
                                       const PartitionPlacement& placement)
    : m_place(placement), m_cfg(cfg), m_device(initial.device()), m_elements(initial.numel()) {
    torch::NoGradGuard ng;
    if (m_place.subGroupElems < 1) throw ConfigError("deepspeed.zero_optimization.sub_group_size: expected > 0");
    const torch::Tensor flat = initial.detach().reshape({-1});
    switch (m_place.where) {
        case StatePlacement::Device:
            m_master = flat.to(torch::kFloat32, false, true).requires_grad_(true);
            m_adam = std::make_unique<AdamW>(std::vector<torch::Tensor>{m_master}, cfg);
            return;
        case StatePlacement::Host: {
            const bool pin = m_place.pinMemory && m_device.is_cuda();
            const auto opts = torch::TensorOptions().dtype(torch::kFloat32).device(torch::kCPU).pinned_memory(pin);
            m_master = torch::empty({m_elements}, opts);
            m_master.copy_(flat);
            m_expAvg = torch::zeros({m_elements}, opts);
            m_expAvgSq = torch::zeros({m_elements}, opts);
            return;
        }
        case StatePlacement::Nvme:
            break;
    }
    // NVMe: the folder, the file (size reserved), the buffers, then every sub-group written once.
    auto s = std::make_unique<Swap>();
    s->dir = m_place.swapDir;
    const std::string key = "deepspeed.zero_optimization.offload_optimizer.nvme_path";
    const std::filesystem::path root = s->dir.parent_path().parent_path();
    std::error_code ec;
    if (!std::filesystem::is_directory(root, ec))
        throw ConfigError(key + ": " + root.string() +
                          " does not exist or is not a folder; expected a folder on a local SSD");
    // <nvme_path>/<run>/rank<r> is this run's by its name (a folder left by a killed start of the same run is reused
    // and removed at the end like a fresh one).
    s->createdDir = true;
    std::filesystem::create_directories(s->dir, ec);
    if (ec) throw ConfigError(key + ": cannot create " + s->dir.string() + ": " + ec.message());
    // The unit swapped is a sub-group, at most kSwapGroupElements: the update is elementwise, so the unit only sets
    // the host buffers' size (buffer_count of them, 3 segments each). DeepSpeed keeps buffer_count buffers of a
    // whole sub-group (16 GB pinned at its default sub_group_size of 1e9).
    s->groupElems = std::min({m_place.subGroupElems, kSwapGroupElements, std::max<int64_t>(1, m_elements)});
    s->groups = m_elements == 0 ? 0 : (m_elements + s->groupElems - 1) / s->groupElems;
    s->segElems = alignUp(s->groupElems * 4, kSwapAlign) / 4;
    s->slotBytes = 3 * s->segElems * 4;
    const int64_t fileBytes = s->groups * s->slotBytes;
    const auto space = std::filesystem::space(root, ec);
    if (!ec && int64_t(space.available) < fileBytes)
        throw ConfigError(key + ": " + root.string() + " has " + std::to_string(space.available) +
                          " bytes free but this "
                          "rank's optimizer state needs " +
                          std::to_string(fileBytes) + " bytes");
    try {
        s->file = std::make_unique<SwapFile>(s->dir / "optimizer_states.swp", fileBytes, m_place.io);
    } catch (const IoError& e) {
        throw ConfigError(key + ": " + e.what());
    }
    const int buffers = int(std::min<int64_t>(std::max(1, m_place.bufferCount), std::max<int64_t>(1, s->groups)));
    for (int b = 0; b < buffers; ++b) s->buffers.emplace_back(s->slotBytes);
    m_swap = std::move(s);
    const torch::Tensor hostInit = flat.to(torch::kCPU, torch::kFloat32).contiguous();
    const float* init = hostInit.data_ptr<float>();
    forEachSwapGroup(/*readFirst=*/false, /*writeBack=*/true, [&](int64_t g, float* master, float* m, float* v) {
        const int64_t n = m_swap->groupSize(g, m_elements);
        std::copy(init + g * m_swap->groupElems, init + g * m_swap->groupElems + n, master);
        std::fill(m, m + m_swap->segElems, 0.0f);
        std::fill(v, v + m_swap->segElems, 0.0f);
    });
}

OptimizerPartition::~OptimizerPartition() = default;

torch::Tensor& OptimizerPartition::deviceMaster() {
    if (offloaded()) throw Error("optimizer partition: the master is offloaded");
    return m_master;
}

const torch::Tensor& OptimizerPartition::deviceMaster() const {
    if (offloaded()) throw Error("optimizer partition: the master is offloaded");
    return m_master;
}

void OptimizerPartition::stepDevice(double lr) {
    if (offloaded()) throw Error("optimizer partition: stepDevice() on an offloaded partition");
    m_adam->step(lr);
    m_step = m_adam->stepCount();
}

// Runs fn on every sub-group's [master | exp_avg | exp_avg_sq] in a host buffer, in order: reads ahead into free
// buffers (pipeline_read), writes each group back after fn when writeBack (overlapped with the next groups when
// pipeline_write). Without readFirst the buffers start with whatever they hold (fn overwrites them).
void OptimizerPartition::forEachSwapGroup(bool readFirst, bool writeBack,
                                          const std::function<void(int64_t, float*, float*, float*)>& fn) const {
    Swap& s = *m_swap;
    struct Slot {
        int64_t group = -1;
        SwapFile::Ticket read = 0, write = 0;
    };
    std::vector<Slot> slots(s.buffers.size());
    std::deque<size_t> writing;  // slots with a write in flight, oldest first
    auto freeSlot = [&]() -> size_t {
        for (size_t i = 0; i < slots.size(); ++i)
            if (slots[i].group < 0 && slots[i].write == 0) return i;
        // None free: the oldest write back must finish first.
        const size_t i = writing.front();
        writing.pop_front();
        s.file->wait(slots[i].write);
        slots[i].write = 0;
        return i;
    };
    auto startRead = [&](int64_t g) {
        const size_t i = freeSlot();
        slots[i].group = g;
        if (readFirst) slots[i].read = s.file->read(g * s.slotBytes, s.buffers[i].data(), s.slotBytes);
    };
    try {
        int64_t nextRead = 0;
        for (int64_t g = 0; g < s.groups; ++g) {
            if (nextRead == g) startRead(nextRead++);
            size_t i = 0;
            while (slots[i].group != g) ++i;
            if (slots[i].read) s.file->wait(slots[i].read);
            slots[i].read = 0;
            // Prefetch: fill every other free buffer with the next groups before computing this one.
            if (m_place.pipelineRead)
                while (nextRead < s.groups && nextRead <= g + int64_t(slots.size()) - 1) {
                    bool any = false;
                    for (auto& sl : slots) any = any || (sl.group < 0 && sl.write == 0);
                    if (!any) break;
                    startRead(nextRead++);
                }
            float* base = static_cast<float*>(s.buffers[i].data());
            fn(g, base, base + s.segElems, base + 2 * s.segElems);
            slots[i].group = -1;
            if (writeBack) {
                slots[i].write = s.file->write(g * s.slotBytes, s.buffers[i].data(), s.slotBytes);
                if (m_place.pipelineWrite) {
                    writing.push_back(i);
                } else {
                    s.file->wait(slots[i].write);
                    slots[i].write = 0;
                }
            }
        }
        for (size_t i : writing) s.file->wait(slots[i].write);
    } catch (...) {
        s.file->waitAll();  // no buffer may be freed with I/O in flight
        throw;
    }
}

void OptimizerPartition::stepOffloaded(const torch::Tensor& grad, double gradScale, double lr,
                                       const torch::Tensor& paramOut) {
    if (!paramOut.defined()) return stepOffloaded(grad, gradScale, lr, static_cast<ParamSink*>(nullptr));
    if (paramOut.is_cpu() && !paramOut.is_contiguous())
        throw Error("optimizer partition: the parameter copy must be contiguous");
    TensorSink sink(paramOut);
    stepOffloaded(grad, gradScale, lr, &sink);
}

void OptimizerPartition::stepOffloaded(const torch::Tensor& grad, double gradScale, double lr, ParamSink* out) {
    if (!offloaded()) throw Error("optimizer partition: stepOffloaded() on a device partition");
    torch::NoGradGuard ng;
    if (grad.numel() != m_elements || (out && out->elements() != m_elements))
        throw Error("optimizer partition: gradient or parameter copy of the wrong size");
    ++m_step;
    const kernels::CpuAdamScalars scalars =
        kernels::cpuAdamScalars(hyper(m_cfg, lr, m_step, gradScale));  // once per step
    const kernels::DType gType = kernelType(grad.scalar_type(), "a gradient");
    const kernels::DType outType = out ? kernelType(out->dtype(), "a parameter") : kernels::DType::Float32;
    const bool pin = m_place.pinMemory && m_device.is_cuda();
    const int threads = cpuThreads(m_place.cpuThreads);
    const torch::Tensor g = grad.reshape({-1});
    if (g.is_cpu() && !g.is_contiguous()) throw Error("optimizer partition: the gradient must be contiguous");
    // Host placement on a CUDA device: sub-groups pass the staging buffers in pieces of at most kSwapGroupElements.
    const int64_t sub = m_swap               ? m_swap->groupElems
                        : m_device.is_cuda() ? std::min(m_place.subGroupElems, kSwapGroupElements)
                                             : m_place.subGroupElems;
    auto stepGroup = [&](int64_t offset, int64_t n, float* master, float* m, float* v) {
        torch::Tensor gHost = g.narrow(0, offset, n);
        if (!gHost.is_cpu()) {
            if (!m_gradStage.defined() || m_gradStage.scalar_type() != g.scalar_type())
                m_gradStage = hostStaging(std::min(sub, m_elements), g.scalar_type(), pin);
            gHost = m_gradStage.narrow(0, 0, n);
            gHost.copy_(g.narrow(0, offset, n));
        }
        // The sink may take less than a sub-group per span (the NVMe parameter store: one write buffer): the
        // update is elementwise, so the sub-group is stepped in pieces of what the sink takes.
        const int64_t piece = out ? std::max<int64_t>(1, std::min(n, out->maxSpan())) : std::max<int64_t>(1, n);
        for (int64_t p = 0; p < n; p += piece) {
            const int64_t len = std::min(piece, n - p);
            torch::Tensor target, oHost;
            if (out) {
                target = out->span(offset + p, len);
                oHost = target;
                if (!oHost.is_cpu()) {
                    if (!m_outStage.defined() || m_outStage.scalar_type() != out->dtype())
                        m_outStage = hostStaging(std::min(sub, m_elements), out->dtype(), pin);
                    oHost = m_outStage.narrow(0, 0, len);
                }
            }
            kernels::CpuAdamBuffers b;
            b.master = master + p;
            b.expAvg = m + p;
            b.expAvgSq = v + p;
            b.grad = static_cast<char*>(gHost.data_ptr()) + p * int64_t(gHost.element_size());
            b.gradType = gType;
            b.paramOut = oHost.defined() ? oHost.data_ptr() : nullptr;
            b.outType = outType;
            b.numel = len;
            kernels::cpuAdamStep(b, scalars, threads, kernels::bestCpuIsa());
            if (out) {
                if (!target.is_cpu()) target.copy_(oHost);  // blocking: the staging buffer is reused next
                out->commit(offset + p, len);
            }
        }
    };
    if (m_place.where == StatePlacement::Host) {
        for (int64_t off = 0; off < m_elements; off += sub) {
            const int64_t n = std::min(sub, m_elements - off);
            stepGroup(off, n, m_master.data_ptr<float>() + off, m_expAvg.data_ptr<float>() + off,
                      m_expAvgSq.data_ptr<float>() + off);
        }
    } else {
        forEachSwapGroup(true, true, [&](int64_t gi, float* master, float* m, float* v) {
            stepGroup(gi * sub, m_swap->groupSize(gi, m_elements), master, m, v);
        });
    }
    if (out) out->finish();
}

void OptimizerPartition::copyMasterTo(const torch::Tensor& paramOut) {
    TensorSink sink(paramOut);
    copyMasterTo(sink);
}

void OptimizerPartition::copyMasterTo(ParamSink& out) {
    torch::NoGradGuard ng;
    if (out.elements() != m_elements) throw Error("optimizer partition: parameter copy of the wrong size");
    auto put = [&](int64_t offset, const torch::Tensor& values) {  // in pieces the sink takes
        const int64_t piece = std::max<int64_t>(1, std::min(values.numel(), out.maxSpan()));
        for (int64_t p = 0; p < values.numel(); p += piece) {
            const int64_t len = std::min(piece, values.numel() - p);
            out.span(offset + p, len).copy_(values.narrow(0, p, len));
            out.commit(offset + p, len);
        }
    };
    if (m_place.where == StatePlacement::Nvme) {
        forEachSwapGroup(true, false, [&](int64_t g, float* master, float*, float*) {
            const int64_t n = m_swap->groupSize(g, m_elements);
            put(g * m_swap->groupElems, torch::from_blob(master, {n}, torch::kFloat32));
        });
    } else {
        const int64_t sub = std::max<int64_t>(1, m_place.subGroupElems);
        for (int64_t off = 0; off < m_elements; off += sub)
            put(off, m_master.narrow(0, off, std::min(sub, m_elements - off)));
    }
    out.finish();
}

std::vector<std::pair<std::string, torch::Tensor>> OptimizerPartition::stateTensors() const {
    switch (m_place.where) {
        case StatePlacement::Device: {
            std::vector<std::pair<std::string, torch::Tensor>> out{{"master", m_master}};
            for (auto& t : m_adam->stateTensors()) out.push_back(t);
            return out;
        }
        case StatePlacement::Host:
            return {{"master", m_master}, {"exp_avg.0", m_expAvg}, {"exp_avg_sq.0", m_expAvgSq}};
        case StatePlacement::Nvme:
            break;
    }
    // Read back into host tensors (the checkpoint writer needs them whole).
    torch::Tensor master = torch::empty({m_elements}, torch::kFloat32), m = torch::empty_like(master),
                  v = torch::empty_like(master);
    forEachSwapGroup(true, false, [&](int64_t g, float* bm, float* bexp, float* bsq) {
        const int64_t off = g * m_swap->groupElems, n = m_swap->groupSize(g, m_elements);
        std::copy(bm, bm + n, master.data_ptr<float>() + off);
        std::copy(bexp, bexp + n, m.data_ptr<float>() + off);
        std::copy(bsq, bsq + n, v.data_ptr<float>() + off);
    });
    return {{"master", master}, {"exp_avg.0", m}, {"exp_avg_sq.0", v}};
}

void OptimizerPartition::loadState(const std::vector<std::pair<std::string, torch::Tensor>>& tensors, int64_t step,
                                   const std::string& partition, const std::string& what) {
    torch::NoGradGuard ng;
    torch::Tensor master, m, v;
    for (const auto& [name, t] : tensors) {
        if (t.numel() != m_elements)
            throw FormatError(what + ": tensor '" + name + "' has " + std::to_string(t.numel()) +
                              " elements, expected " + std::to_string(m_elements) + " (" + partition + ")");
        if (name == "master")
            master = t;
        else if (name == "exp_avg.0")
            m = t;
        else if (name == "exp_avg_sq.0")
            v = t;
        else
            throw FormatError(what + ": unexpected tensor '" + name + "' in an optimizer partition");
    }
    if (!master.defined()) throw FormatError(what + ": tensor 'master' is missing");
    if (!m.defined() || !v.defined()) throw FormatError(what + ": tensors 'exp_avg.0' and 'exp_avg_sq.0' are required");
    m_step = step;
    switch (m_place.where) {
        case StatePlacement::Device:
            m_master.detach().copy_(master.reshape({-1}));
            try {
                m_adam->loadState({{"exp_avg.0", m.reshape({-1})}, {"exp_avg_sq.0", v.reshape({-1})}}, step);
            } catch (const Error& e) {
                throw FormatError(what + ": " + e.what());
            }
            return;
        case StatePlacement::Host:
            m_master.copy_(master.reshape({-1}));
            m_expAvg.copy_(m.reshape({-1}));
            m_expAvgSq.copy_(v.reshape({-1}));
            return;
        case StatePlacement::Nvme:
            break;
    }
    const torch::Tensor hm = master.reshape({-1}).to(torch::kCPU, torch::kFloat32).contiguous(),
                        he = m.reshape({-1}).to(torch::kCPU, torch::kFloat32).contiguous(),
                        hv = v.reshape({-1}).to(torch::kCPU, torch::kFloat32).contiguous();
    forEachSwapGroup(false, true, [&](int64_t g, float* bm, float* bexp, float* bsq) {
        const int64_t off = g * m_swap->groupElems, n = m_swap->groupSize(g, m_elements);
        std::copy(hm.data_ptr<float>() + off, hm.data_ptr<float>() + off + n, bm);
        std::copy(he.data_ptr<float>() + off, he.data_ptr<float>() + off + n, bexp);
        std::copy(hv.data_ptr<float>() + off, hv.data_ptr<float>() + off + n, bsq);
    });
}

PartitionBytes OptimizerPartition::bytes() const {
    PartitionBytes b;
    switch (m_place.where) {
        case StatePlacement::Device:
            b.device = m_master.nbytes() + m_adam->stateBytes();
            break;
        case StatePlacement::Host:
            b.host = m_master.nbytes() + m_expAvg.nbytes() + m_expAvgSq.nbytes();
            break;
        case StatePlacement::Nvme:
            b.nvme = m_swap->file->size();
            for (const auto& buf : m_swap->buffers) b.host += buf.bytes();
            break;
    }
    // CUDA training stages a piece of gradient and of parameter through host memory (from the first step).
    if (m_gradStage.defined()) b.host += m_gradStage.nbytes();
    if (m_outStage.defined()) b.host += m_outStage.nbytes();
    return b;
}

int64_t OptimizerPartition::swapBytesRead() const { return m_swap ? m_swap->file->bytesRead() : 0; }
int64_t OptimizerPartition::swapBytesWritten() const { return m_swap ? m_swap->file->bytesWritten() : 0; }
double OptimizerPartition::swapWaitSeconds() const { return m_swap ? m_swap->file->waitSeconds() : 0.0; }

}  // namespace fts
