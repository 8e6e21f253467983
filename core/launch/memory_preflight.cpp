// The memory check before a run (see memory_preflight.h).
#include "core/launch/memory_preflight.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "core/util/byte_size.h"
#include "core/util/child_process.h"
#include "core/util/error.h"

namespace fts {

namespace {

// nvidia-smi's free memory per GPU; empty when it is not there or fails.
std::vector<std::pair<int, int64_t>> queryGpuFreeMemory() {
    try {
        const CapturedRun r =
            runCaptured({"nvidia-smi", "--query-gpu=index,memory.free", "--format=csv,noheader,nounits"});
        return r.ok() ? parseGpuFreeMemory(r.out) : std::vector<std::pair<int, int64_t>>();
    } catch (const Error&) {
        return {};
    }
}

}  // namespace

std::vector<std::pair<int, int64_t>> parseGpuFreeMemory(const std::string& csv) {
    std::vector<std::pair<int, int64_t>> out;
    std::istringstream lines(csv);
    std::string line;
    while (std::getline(lines, line)) {
        const size_t comma = line.find(',');
        if (comma == std::string::npos) continue;
        try {
            out.emplace_back(std::stoi(line.substr(0, comma)), std::stoll(line.substr(comma + 1)) << 20);  // MiB
        } catch (const std::exception&) {
        }
    }
    return out;
}

MemoryCheck checkRunMemory(const TrainConfig& cfg, int worldSize, const std::vector<int>& gpus) {
    MemoryCheck c;
    const int world = std::max(1, worldSize);
    const std::string& spec = cfg.training.device;
    // "auto" trains on CUDA when there is a GPU (the trainer's chooseDevice): judged as CUDA when nvidia-smi lists one.
    std::vector<std::pair<int, int64_t>> free;
    bool cuda = spec.rfind("cuda", 0) == 0;
    const char* cap = std::getenv("FTS_DEVICE_MEMORY");
    if (!(cap && *cap) && (cuda || spec == "auto")) {
        free = queryGpuFreeMemory();
        cuda = cuda || !free.empty();
    }
    c.device = cuda ? "cuda" : "cpu";
    if (cap && *cap) {
        c.available = parseByteSize(cap, "FTS_DEVICE_MEMORY");
        c.source = "FTS_DEVICE_MEMORY";
        c.judged = true;
    } else if (cuda) {
        // The physical GPUs the ranks will use: the plan's (CUDA_VISIBLE_DEVICES it sets), else the ones a
        // CUDA_VISIBLE_DEVICES of the caller lists (numeric ids; UUIDs are not mapped: not judged), else
        // training.device's index or 0..world-1, as nvidia-smi numbers them.
        std::vector<int> ids = gpus;
        if (ids.empty()) {
            std::vector<int> visible;
            bool mapped = true;
            if (const char* env = std::getenv("CUDA_VISIBLE_DEVICES"); env && *env) {
                std::stringstream list(env);
                std::string item;
                while (std::getline(list, item, ',')) try {
                        size_t used = 0;
                        visible.push_back(std::stoi(item, &used));
                        if (used != item.size()) mapped = false;
                    } catch (const std::exception&) {
                        mapped = false;
                    }
                if (!mapped) return c;  // GPU UUIDs or MIG names: not judged
            }
            const size_t colon = spec.find(':');
            std::vector<int> logical;
            if (colon != std::string::npos)
                logical.push_back(std::atoi(spec.c_str() + colon + 1));
            else
                for (int i = 0; i < world; ++i) logical.push_back(i);
            for (int l : logical) {
                ids.push_back(visible.empty() ? l : visible[size_t(l) % visible.size()]);
            }
        }
        int64_t least = -1;
        std::string names;
        for (int id : ids)
            for (const auto& [index, bytes] : free)
                if (index == id) {
                    least = least < 0 ? bytes : std::min(least, bytes);
                    names += (names.empty() ? "" : ",") + std::to_string(id);
                }
        if (least < 0) return c;  // no nvidia-smi, or it does not list these GPUs: not judged
        c.device = "cuda:" + names;
        c.available = least;
        c.source = "nvidia-smi memory.free";
        c.judged = true;
    } else {
        c.available = hostAvailableBytes() / world;
        c.source = world > 1 ? "MemAvailable / " + std::to_string(world) + " ranks" : "MemAvailable";
        c.judged = c.available > 0;
    }
    EstimateOptions o;
    o.worldSize = world;
    if (cuda) o.device = EstimateDevice::Cuda;
    if (c.judged) o.deviceCapacity = c.available;
    c.estimate = estimateMemory(cfg, o);
    c.fits = !c.judged || c.estimate.fits;
    return c;
}

std::string describeMemoryRefusal(const MemoryCheck& c, const std::string& configPath) {
    const MemoryEstimate& e = c.estimate;
    std::ostringstream out;
    out << "error: " << configPath << ": the memory estimate does not fit: " << formatBytes(e.perRank.total)
        << " per rank (peak at " << e.perRank.phase << ") but " << c.device << " has " << formatBytes(c.available)
        << " free (" << c.source << ")";
    std::vector<const Suggestion*> fitting, all;
    for (const auto& s : e.suggestions) {
        all.push_back(&s);
        if (s.fits && s.change != "combined") fitting.push_back(&s);  // "all of the above" needs the list above
    }
    // The cheapest first: recomputation costs compute, a smaller micro-batch some throughput, a higher stage
    // communication, offload the step's speed, LoRA changes what is trained.
    auto cost = [](const Suggestion* s) {
        static const char* order[] = {"activation_checkpointing", "micro_batch", "zero_stage",
                                      "offload_optimizer",        "lora",        "combined"};
        for (int i = 0; i < 6; ++i)
            if (s->change == order[i]) return i;
        return 6;
    };
    std::stable_sort(fitting.begin(), fitting.end(),
                     [&](const Suggestion* a, const Suggestion* b) { return cost(a) < cost(b); });
    if (!fitting.empty()) {
        out << "\n  changes that fit, each estimated alone (the cheapest first):";
        for (const Suggestion* s : fitting) out << "\n    " << s->description << ": " << formatBytes(s->perRank.total);
    } else {
        out << "\n  no single change fits; each estimated alone:";
        for (const Suggestion* s : all)
            out << "\n    " << s->description << ": " << formatBytes(s->perRank.total) << (s->fits ? " (fits)" : "");
    }
    out << "\n  `fts estimate " << configPath << "` shows every term; --force starts the run anyway";
    return out.str();
}

}  // namespace fts
