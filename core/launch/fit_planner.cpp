// The plan: enumerate the variants, estimate each, probe the most promising that fit, propose the fastest measured.
#include "core/launch/fit_planner.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <numeric>

#include "core/config/memory_estimate.h"
#include "core/launch/memory_preflight.h"
#include "core/util/byte_size.h"
#include "core/util/error.h"

namespace fts {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

const char* offloadShortName(OffloadDevice d) { return d == OffloadDevice::Cpu ? "cpu" : "nvme"; }

std::string plannedValueText(const json* v) { return v ? v->dump() : "absent"; }

// The value a plan writes at `path` (object members), creating parents; the change is recorded when it differs.
void setPlannedKey(json& doc, const std::vector<std::string>& path, const json& value,
                   std::vector<PlanKeyChange>& changes) {
    json* at = &doc;
    std::string key;
    for (size_t i = 0; i + 1 < path.size(); ++i) {
        key += (key.empty() ? "" : ".") + path[i];
        if (!at->contains(path[i]) || !(*at)[path[i]].is_object()) (*at)[path[i]] = json::object();
        at = &(*at)[path[i]];
    }
    key += (key.empty() ? "" : ".") + path.back();
    const json* old = at->contains(path.back()) ? &(*at)[path.back()] : nullptr;
    if (old && *old == value) return;
    changes.push_back({key, plannedValueText(old), value.dump()});
    (*at)[path.back()] = value;
}

const json* memberAt(const json& doc, std::initializer_list<const char*> path) {
    const json* at = &doc;
    for (const char* k : path) {
        if (!at->is_object() || !at->contains(k)) return nullptr;
        at = &(*at)[k];
    }
    return at;
}

bool givenNumber(const json* v) { return v && v->is_number(); }  // not absent, null or "auto"

// The offload block (offload_optimizer / offload_param) set to `device`, its other fields kept. NVMe takes the
// nvme_path of either block when this one has none.
void setOffload(json& doc, const char* block, OffloadDevice device, std::vector<PlanKeyChange>& changes) {
    const json* existing = memberAt(doc, {"deepspeed", "zero_optimization", block});
    if (device == OffloadDevice::None && (!existing || !existing->is_object())) return;
    setPlannedKey(doc, {"deepspeed", "zero_optimization", block, "device"}, offloadDeviceName(device), changes);
    if (device == OffloadDevice::Nvme && !memberAt(doc, {"deepspeed", "zero_optimization", block, "nvme_path"})) {
        for (const char* other : {"offload_optimizer", "offload_param"})
            if (const json* p = memberAt(doc, {"deepspeed", "zero_optimization", other, "nvme_path"})) {
                setPlannedKey(doc, {"deepspeed", "zero_optimization", block, "nvme_path"}, *p, changes);
                break;
            }
    }
}

// Relative speed the ranking expects of a variant (only the order matters; the probes measure).
double predictedSpeed(const PlanKnobs& k, int world, int64_t sequence, bool cuda) {
    double s = 1;
    if (k.activationCheckpointing) s *= 0.75;  // the forward runs again in the backward
    if (k.offloadOptimizer == OffloadDevice::Cpu) s *= 0.45;
    if (k.offloadOptimizer == OffloadDevice::Nvme) s *= 0.25;
    if (k.offloadParam == OffloadDevice::Cpu) s *= 0.6;
    if (k.offloadParam == OffloadDevice::Nvme) s *= 0.4;
    if (world > 1) s *= std::array{1.0, 0.99, 0.97, 0.85}[k.stage];
    // a larger micro-batch keeps the device busier (on a GPU much more than on a CPU)
    const double tokens = double(k.microBatch) * double(std::max<int64_t>(1, sequence));
    s *= tokens / (tokens + (cuda ? 2048.0 : 64.0));
    if (k.chunkedLoss) s *= 0.99;
    return s;
}

std::vector<int64_t> divisorsOf(int64_t n) {
    std::vector<int64_t> out;
    for (int64_t d = 1; d <= n; ++d)
        if (n % d == 0) out.push_back(d);
    return out;
}

struct Estimated {
    int64_t total = 0, peak = 0;
};

Estimated estimateOf(const json& doc, const fs::path& baseDir, int world, bool cuda) {
    const ConfigParseResult parsed = parseTrainConfig(doc, baseDir, world);
    if (!parsed.ok()) throw ConfigError(parsed.errorText());
    EstimateOptions eo;
    eo.worldSize = world;
    eo.suggest = false;
    eo.device = cuda ? EstimateDevice::Cuda : EstimateDevice::Cpu;
    const MemoryEstimate e = estimateMemory(*parsed.config, eo);
    return {e.perRank.total, e.device == EstimateDevice::Cuda ? e.perRank.allocatorPeak : e.perRank.total};
}

}  // namespace

std::string PlanKnobs::label() const {
    std::string s = "stage " + std::to_string(stage);
    if (offloadOptimizer != OffloadDevice::None)
        s += ", offload optimizer " + std::string(offloadShortName(offloadOptimizer));
    if (offloadParam != OffloadDevice::None) s += ", offload param " + std::string(offloadShortName(offloadParam));
    s += ", micro-batch " + std::to_string(microBatch) + " x " + std::to_string(accumulation);
    if (activationCheckpointing) s += ", checkpointing";
    s += chunkedLoss ? ", chunked loss" : ", whole logits";
    return s;
}

std::string PlanKnobs::tag() const {
    std::string s = "s" + std::to_string(stage);
    if (offloadOptimizer != OffloadDevice::None) s += "-oo" + std::string(offloadShortName(offloadOptimizer));
    if (offloadParam != OffloadDevice::None) s += "-op" + std::string(offloadShortName(offloadParam));
    s += "-mb" + std::to_string(microBatch) + "x" + std::to_string(accumulation);
    if (activationCheckpointing) s += "-ac";
    if (chunkedLoss) s += "-cl";
    return s;
}

PlanKnobs knobsOf(const TrainConfig& c) {
    PlanKnobs k;
    k.stage = c.deepspeed.zeroStage;
    k.offloadOptimizer = c.deepspeed.zero.offloadOptimizer.device;
    k.offloadParam = c.deepspeed.zero.offloadParam.device;
    k.activationCheckpointing = c.model.activationCheckpointing;
    k.microBatch = c.deepspeed.microBatchPerGpu;
    k.accumulation = c.deepspeed.gradientAccumulationSteps;
    k.chunkedLoss = c.model.chunkedLoss;
    return k;
}

json toJson(const PlanKnobs& k) {
    return {{"zero_stage", k.stage},
            {"offload_optimizer", offloadDeviceName(k.offloadOptimizer)},
            {"offload_param", offloadDeviceName(k.offloadParam)},
            {"activation_checkpointing", k.activationCheckpointing},
            {"train_micro_batch_size_per_gpu", k.microBatch},
            {"gradient_accumulation_steps", k.accumulation},
            {"chunked_loss", k.chunkedLoss},
            {"label", k.label()}};
}

json applyPlanKnobs(const json& document, const PlanKnobs& k, const fs::path& baseDir, int world,
                    std::vector<PlanKeyChange>* changesOut) {
    const ConfigParseResult before = parseTrainConfig(document, baseDir, world);
    if (!before.ok()) throw ConfigError(before.errorText());
    const PlanKnobs current = knobsOf(*before.config);
    json doc = document;
    std::vector<PlanKeyChange> changes;
    if (k.stage != current.stage) setPlannedKey(doc, {"deepspeed", "zero_optimization", "stage"}, k.stage, changes);
    if (k.offloadOptimizer != current.offloadOptimizer)
        setOffload(doc, "offload_optimizer", k.offloadOptimizer, changes);
    if (k.offloadParam != current.offloadParam) setOffload(doc, "offload_param", k.offloadParam, changes);
    if (k.activationCheckpointing != current.activationCheckpointing)
        setPlannedKey(doc, {"model", "activation_checkpointing"}, k.activationCheckpointing, changes);
    if (k.chunkedLoss != current.chunkedLoss) setPlannedKey(doc, {"model", "chunked_loss"}, k.chunkedLoss, changes);
    // micro-batch and accumulation where the document gives them: DeepSpeed's keys, the Trainer's, or both
    auto setBatch = [&](const char* dsKey, const char* trainerKey, int64_t value, int64_t now) {
        if (value == now) return;
        bool written = false;
        if (givenNumber(memberAt(doc, {"deepspeed", dsKey}))) {
            setPlannedKey(doc, {"deepspeed", dsKey}, value, changes);
            written = true;
        }
        if (givenNumber(memberAt(doc, {"training", trainerKey}))) {
            setPlannedKey(doc, {"training", trainerKey}, value, changes);
            written = true;
        }
        if (!written) setPlannedKey(doc, {"deepspeed", dsKey}, value, changes);
    };
    setBatch("train_micro_batch_size_per_gpu", "per_device_train_batch_size", k.microBatch, current.microBatch);
    setBatch("gradient_accumulation_steps", "gradient_accumulation_steps", k.accumulation, current.accumulation);

    const ConfigParseResult after = parseTrainConfig(doc, baseDir, world);
    if (!after.ok()) throw ConfigError("the planned variant (" + k.label() + ") is refused: " + after.errorText());
    if (!(knobsOf(*after.config) == k))
        throw ConfigError("the planned variant (" + k.label() +
                          ") could not be written into this config: it reads back as " +
                          knobsOf(*after.config).label());
    if (after.config->deepspeed.trainBatchSize != before.config->deepspeed.trainBatchSize)
        throw ConfigError("deepspeed.train_batch_size: the planned variant would change it from " +
                          std::to_string(before.config->deepspeed.trainBatchSize) + " to " +
                          std::to_string(after.config->deepspeed.trainBatchSize));
    if (changesOut) *changesOut = std::move(changes);
    return doc;
}

namespace {

// What every phase of planFit reads: the config as loaded and resolved, the ranks, the device kind, the memory a
// rank may use, and where progress goes.
struct PlanContext {
    const PlanOptions& o;
    int world;
    TrainConfig cfg;
    fs::path baseDir;
    json resolved;
    bool cuda = false;
    bool nvmeKnown = false;  // the config names an nvme_path: NVMe offload is a variant
    int64_t usable = 0;      // the capacity less the margin kept free
    std::chrono::steady_clock::time_point t0;

    void say(const std::string& line) const {
        if (o.progress) o.progress(line);
    }
    double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }
    Estimated estimate(const json& doc, const PlanKnobs& k) const {
        return estimateOf(applyPlanKnobs(doc, k, baseDir, world), baseDir, world, cuda);
    }
};

// What a rank may use: --capacity, else the device's free memory (an error where it is unknown).
void findCapacity(PlanResult& r, const MemoryCheck& check, const PlanOptions& o) {
    if (o.capacity > 0) {
        r.capacity = o.capacity;
        r.capacitySource = "--capacity";
        return;
    }
    if (!check.judged)
        throw ConfigError("the free memory of " + check.device +
                          " is unknown here (no nvidia-smi); give the memory one rank may use (--capacity 24GiB)");
    r.capacity = check.available;
    r.capacitySource = check.device + ": " + check.source;
}

// The variants: the config as given, then every placement (stage and offloads that mean something here) with and
// without activation checkpointing, each micro-batch dividing the batch per rank, chunked loss on and off (kept as
// it is for a preference objective). What is left out is said in r.notes.
std::vector<PlanKnobs> planVariants(const PlanContext& p, PlanResult& r) {
    struct Placement {
        int stage;
        OffloadDevice oo, op;
    };
    std::vector<Placement> placements;
    for (int s = 0; s <= 3; ++s) {
        if (p.world > 1 || s == 0) placements.push_back({s, OffloadDevice::None, OffloadDevice::None});
        if (!p.cuda || s == 0) continue;
        placements.push_back({s, OffloadDevice::Cpu, OffloadDevice::None});
        if (s == 3) placements.push_back({s, OffloadDevice::Cpu, OffloadDevice::Cpu});
        if (p.nvmeKnown && s >= 2) placements.push_back({s, OffloadDevice::Nvme, OffloadDevice::None});
        if (p.nvmeKnown && s == 3) placements.push_back({s, OffloadDevice::Nvme, OffloadDevice::Nvme});
    }
    if (!p.cuda)
        r.notes.push_back("offload variants left out: on a CPU device the offloaded states stay in the same memory");
    else if (!p.nvmeKnown)
        r.notes.push_back("NVMe offload left out: the config names no nvme_path (zero_optimization.offload_optimizer)");
    if (p.world == 1) r.notes.push_back("ZeRO stages 1-3 without offload left out: on one rank they partition nothing");
    const bool preference = p.cfg.training.preferenceObjective();
    if (preference) r.notes.push_back("chunked loss kept as it is: a preference objective reads the whole logits");
    const int64_t perRank = p.cfg.deepspeed.trainBatchSize / p.world;
    std::vector<PlanKnobs> all;
    auto add = [&](const PlanKnobs& k) {
        if (std::find(all.begin(), all.end(), k) == all.end()) all.push_back(k);
    };
    add(r.current);  // the config as given is always a candidate
    for (const Placement& pl : placements)
        for (bool ac : {false, true})
            for (int64_t m : divisorsOf(perRank))
                for (bool cl : {true, false}) {
                    if (preference && cl != r.current.chunkedLoss) continue;
                    add({pl.stage, pl.oo, pl.op, ac, m, perRank / m, cl});
                }
    return all;
}

// Every variant estimated, then ranked: valid first, fitting first, the fastest predicted, the smallest.
void estimateVariants(const PlanContext& p, const std::vector<PlanKnobs>& variants, PlanResult& r) {
    for (const PlanKnobs& k : variants) {
        PlanCandidate c;
        c.knobs = k;
        try {
            const Estimated e = p.estimate(p.resolved, k);
            c.estimate = e.total;
            c.estimatePeak = e.peak;
            c.fitsByEstimate = e.total <= p.usable;
            c.predicted = predictedSpeed(k, p.world, p.cfg.data.maxLength, p.cuda);
        } catch (const Error& e) {
            c.invalid = e.what();
        }
        r.candidates.push_back(std::move(c));
    }
    std::stable_sort(r.candidates.begin(), r.candidates.end(), [](const PlanCandidate& a, const PlanCandidate& b) {
        if (a.invalid.empty() != b.invalid.empty()) return a.invalid.empty();
        if (a.fitsByEstimate != b.fitsByEstimate) return a.fitsByEstimate;
        if (a.predicted != b.predicted) return a.predicted > b.predicted;
        return a.estimate < b.estimate;
    });
}

// Nothing fits: by how much (the smallest variant), and what would: more GPUs (ZeRO 3, micro-batch 1,
// checkpointing), NVMe offload where the config names no path, QLoRA where the model is not quantized yet.
void adviseWhenNothingFits(const PlanContext& p, PlanResult& r) {
    const PlanCandidate* smallest = nullptr;
    for (const PlanCandidate& c : r.candidates)
        if (c.invalid.empty() && (!smallest || c.estimate < smallest->estimate)) smallest = &c;
    if (!smallest) throw ConfigError("no variant of this config is valid: " + r.candidates.front().invalid);
    r.advice.push_back({.kind = PlanAdvice::Kind::NothingFits,
                        .bytes = smallest->estimate,
                        .usable = p.usable,
                        .candidate = size_t(smallest - r.candidates.data()),
                        .text = "nothing fits: the smallest estimate is " + formatBytes(smallest->estimate) +
                                " per rank (" + smallest->knobs.label() + "), over the " + formatBytes(p.usable) +
                                " a rank may use"});
    for (int w = p.world * 2; w <= p.world * 64; w *= 2) {
        EstimateOptions eo;
        eo.worldSize = w;
        eo.zeroStage = 3;
        eo.microBatch = 1;
        eo.activationCheckpointing = true;
        eo.suggest = false;
        eo.device = p.cuda ? EstimateDevice::Cuda : EstimateDevice::Cpu;
        const int64_t e = estimateMemory(p.cfg, eo).perRank.total;
        if (e <= p.usable) {
            r.advice.push_back({.kind = PlanAdvice::Kind::MoreGpus,
                                .bytes = e,
                                .usable = p.usable,
                                .ranks = w,
                                .text = "more GPUs: with " + std::to_string(w) +
                                        " ranks of this size, ZeRO stage 3 at micro-batch 1 with checkpointing "
                                        "needs " +
                                        formatBytes(e) + " per rank"});
            break;
        }
    }
    // A variant of the smallest with `doc`'s changes, as advice of `kind` if it estimates at all.
    auto adviseVariant = [&](PlanAdvice::Kind kind, const json& doc, const PlanKnobs& k, const std::string& what) {
        try {
            const Estimated e = p.estimate(doc, k);
            r.advice.push_back({.kind = kind,
                                .bytes = e.total,
                                .usable = p.usable,
                                .fits = e.total <= p.usable,
                                .text = std::string(e.total <= p.usable ? "fits" : "still over") + " " + what + ": " +
                                        formatBytes(e.total) + " per rank"});
        } catch (const Error&) {
        }
    };
    if (p.cuda && !p.nvmeKnown) {
        json doc = p.resolved;
        doc["deepspeed"]["zero_optimization"]["offload_optimizer"]["nvme_path"] = fs::temp_directory_path().string();
        PlanKnobs k = smallest->knobs;
        k.stage = 3;
        k.offloadOptimizer = k.offloadParam = OffloadDevice::Nvme;
        adviseVariant(PlanAdvice::Kind::NvmeOffload, doc, k,
                      "with NVMe offload (stage 3, zero_optimization.offload_optimizer and offload_param on \"nvme\" "
                      "with an nvme_path)");
    }
    if (!p.cfg.model.quantization.enabled) {
        json doc = p.resolved;
        if (!p.cfg.model.lora.enabled) doc["model"]["lora"] = {{"r", 16}, {"target_modules", "all-linear"}};
        doc["model"]["quantization"] = {{"load_in_4bit", true},
                                        {"bnb_4bit_quant_type", "nf4"},
                                        {"bnb_4bit_use_double_quant", true},
                                        {"bnb_4bit_compute_dtype", p.cuda ? "bfloat16" : "float32"}};
        doc["model"]["activation_checkpointing"] = true;
        PlanKnobs k = smallest->knobs;
        k.activationCheckpointing = true;
        adviseVariant(PlanAdvice::Kind::Qlora, doc, k,
                      "as QLoRA (model.quantization with load_in_4bit, LoRA adapters instead of a full fine-tune; it "
                      "trains differently)");
    }
}

// The variants that fit, probed in rank order (a short real run each) within --max-probes and the time box.
// Returns the probes made and their seconds.
std::pair<int, double> probeFitting(const PlanContext& p, const ProbeOptions& po, PlanResult& r) {
    const double budget = p.o.maxMinutes * 60;
    double probeSeconds = 0;
    int probes = 0;
    for (PlanCandidate& c : r.candidates) {
        if (!c.fitsByEstimate || probes >= p.o.maxProbes) break;
        if (probes > 0 && p.elapsed() + probeSeconds / probes > budget) {
            r.timeBoxReached = true;
            p.say("time box of " + std::to_string(int(std::lround(p.o.maxMinutes))) + " min reached after " +
                  std::to_string(probes) + " probes");
            break;
        }
        p.say("probe " + std::to_string(probes + 1) + ": " + c.knobs.label());
        c.probe = runProbe(applyPlanKnobs(p.resolved, c.knobs, p.baseDir, p.world), c.knobs.tag(),
                           p.cfg.training.runName + " (plan " + c.knobs.label() + ")", po);
        c.probes = 1;
        if (c.probe->failure.empty() && c.probe->peak > r.capacity)
            c.probe->failure = "measured peak " + formatBytes(c.probe->peak) + " exceeds the " +
                               formatBytes(r.capacity) + " a rank may use";
        probeSeconds += c.probe->seconds;
        ++probes;
        if (p.o.probed) p.o.probed(c);
    }
    return {probes, probeSeconds};
}

// A close second (within --confirm-within of the fastest): both run again (the second first), each judged on the
// mean of its two probes, if the time box leaves room.
void confirmCloseSecond(const PlanContext& p, const ProbeOptions& po, PlanResult& r, int probes, double probeSeconds) {
    std::vector<PlanCandidate*> measured;
    for (PlanCandidate& c : r.candidates)
        if (c.fitsMeasured()) measured.push_back(&c);
    std::sort(measured.begin(), measured.end(), [](const PlanCandidate* a, const PlanCandidate* b) {
        return a->probe->tokensPerS > b->probe->tokensPerS;
    });
    if (measured.size() < 2 || p.o.confirmWithin <= 0 ||
        measured[1]->probe->tokensPerS < (1 - p.o.confirmWithin) * measured[0]->probe->tokensPerS ||
        p.elapsed() + 2 * probeSeconds / std::max(1, probes) > p.o.maxMinutes * 60)
        return;
    for (PlanCandidate* c : {measured[1], measured[0]}) {
        p.say("probe again (a close second): " + c->knobs.label());
        const ProbeMeasurement again =
            runProbe(applyPlanKnobs(p.resolved, c->knobs, p.baseDir, p.world), c->knobs.tag() + "-again",
                     p.cfg.training.runName + " (plan " + c->knobs.label() + ")", po);
        if (!again.failure.empty()) {
            c->probe->failure = again.failure;
            continue;
        }
        c->probe->tokensPerS = (c->probe->tokensPerS + again.tokensPerS) / 2;
        c->probe->stepsPerS = (c->probe->stepsPerS + again.stepsPerS) / 2;
        c->probe->peak = std::max(c->probe->peak, again.peak);
        c->probe->seconds += again.seconds;
        c->probes = 2;
        if (p.o.probed) p.o.probed(*c);
    }
}

// The fastest measured variant that fits; with no probe allowed, the best predicted that fits by estimate; else
// advice saying why every probe failed.
void chooseVariant(PlanResult& r, int probes) {
    for (size_t i = 0; i < r.candidates.size(); ++i) {
        const PlanCandidate& c = r.candidates[i];
        if (c.fitsMeasured() && (!r.chosen || c.probe->tokensPerS > r.candidates[*r.chosen].probe->tokensPerS))
            r.chosen = i;
    }
    if (!r.chosen && probes == 0) {
        r.chosen = 0;
        r.chosenByEstimateOnly = true;
    }
    if (!r.chosen) {
        std::string why;
        for (const PlanCandidate& c : r.candidates)
            if (c.probe) why += "\n  " + c.knobs.label() + ": " + c.probe->failure;
        r.advice.push_back({.kind = PlanAdvice::Kind::ProbesFailed, .text = "every probe failed:" + why});
    }
}

}  // namespace

PlanResult planFit(const PlanOptions& o) {
    const int world = std::max(1, o.worldSize);
    PlanContext p{
        .o = o, .world = world, .cfg = loadTrainConfig(o.configPath, world), .baseDir = o.configPath.parent_path()};
    p.t0 = std::chrono::steady_clock::now();
    p.resolved = configToResolvedJson(p.cfg);
    PlanResult r;
    r.worldSize = world;
    r.current = knobsOf(p.cfg);

    const MemoryCheck check = checkRunMemory(p.cfg, world, {});
    p.cuda = check.device == "cuda";
    findCapacity(r, check, o);
    p.usable = int64_t(double(r.capacity) * (1.0 - o.margin));
    p.nvmeKnown =
        !p.cfg.deepspeed.zero.offloadOptimizer.nvmePath.empty() || !p.cfg.deepspeed.zero.offloadParam.nvmePath.empty();

    const std::vector<PlanKnobs> variants = planVariants(p, r);
    p.say("estimating " + std::to_string(variants.size()) + " variants against " + formatBytes(r.capacity) +
          " per rank (" + r.capacitySource + ", " + std::to_string(int(std::lround(o.margin * 100))) + "% kept free)");
    estimateVariants(p, variants, r);
    if (std::none_of(r.candidates.begin(), r.candidates.end(),
                     [](const PlanCandidate& c) { return c.fitsByEstimate; })) {
        adviseWhenNothingFits(p, r);
        r.seconds = p.elapsed();
        return r;
    }

    ProbeOptions po = o.probe;
    const bool ownScratch = po.scratch.empty();
    if (ownScratch) po.scratch = fs::temp_directory_path() / ("fts-plan-" + std::to_string(::getpid()));
    fs::create_directories(po.scratch);
    const auto [probes, probeSeconds] = probeFitting(p, po, r);
    confirmCloseSecond(p, po, r, probes, probeSeconds);
    if (ownScratch) {
        std::error_code ec;
        fs::remove_all(po.scratch, ec);
    }
    chooseVariant(r, probes);
    r.seconds = p.elapsed();
    return r;
}

const char* planAdviceKindName(PlanAdvice::Kind kind) {
    switch (kind) {
        case PlanAdvice::Kind::NothingFits:
            return "nothing_fits";
        case PlanAdvice::Kind::MoreGpus:
            return "more_gpus";
        case PlanAdvice::Kind::NvmeOffload:
            return "nvme";
        case PlanAdvice::Kind::Qlora:
            return "qlora";
        case PlanAdvice::Kind::ProbesFailed:
            return "probes_failed";
    }
    return "other";
}

json toJson(const PlanResult& r) {
    json candidates = json::array();
    for (const PlanCandidate& c : r.candidates) {
        json j = toJson(c.knobs);
        if (!c.invalid.empty()) {
            j["invalid"] = c.invalid;
        } else {
            j["estimate_bytes"] = c.estimate;
            j["estimate_peak_bytes"] = c.estimatePeak;
            j["fits_by_estimate"] = c.fitsByEstimate;
            j["predicted_speed"] = c.predicted;
        }
        if (c.probe) {
            j["probe"] = {{"run_id", c.probe->runId}, {"seconds", c.probe->seconds}, {"probes", c.probes}};
            if (c.probe->failure.empty()) {
                j["probe"]["tokens_per_s"] = c.probe->tokensPerS;
                j["probe"]["steps_per_s"] = c.probe->stepsPerS;
                j["probe"]["peak_bytes"] = c.probe->peak;
            } else {
                j["probe"]["failure"] = c.probe->failure;
            }
        }
        candidates.push_back(std::move(j));
    }
    // each line as the CLI prints it, with its parts (the studio says it in the user's language)
    json advice = json::array();
    for (const PlanAdvice& a : r.advice) {
        json j = {{"kind", planAdviceKindName(a.kind)}, {"text", a.text}};
        if (a.bytes) j["bytes"] = a.bytes;
        if (a.usable) j["usable_bytes"] = a.usable;
        if (a.ranks) j["ranks"] = a.ranks;
        if (a.kind == PlanAdvice::Kind::NvmeOffload || a.kind == PlanAdvice::Kind::Qlora) j["fits"] = a.fits;
        if (a.candidate) j["candidate"] = *a.candidate;
        advice.push_back(std::move(j));
    }
    json out = {{"capacity_bytes", r.capacity},
                {"capacity_source", r.capacitySource},
                {"world_size", r.worldSize},
                {"current", toJson(r.current)},
                {"candidates", candidates},
                {"chosen", r.chosen ? json(*r.chosen) : json(nullptr)},
                {"chosen_by_estimate_only", r.chosenByEstimateOnly},
                {"time_box_reached", r.timeBoxReached},
                {"seconds", r.seconds},
                {"advice", advice},
                {"notes", r.notes}};
    return out;
}

}  // namespace fts
