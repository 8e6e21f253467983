// The offload keys of the deepspeed block (see offload_block.h). DeepSpeed's pydantic models forbid unknown keys in
// offload_optimizer / offload_param (errors here too); its aio reader ignores them (warnings here).
#include "core/config/offload_block.h"

#include <limits>
#include <utility>
#include <vector>

namespace fts::config_detail {
namespace {

constexpr int64_t kMaxElems = std::numeric_limits<int64_t>::max() / 64;

// Reads "device": none / cpu / nvme (DeepSpeed's OffloadDeviceEnum; null is none).
std::optional<OffloadDevice> readDevice(IssueList& issues, const json& o, const std::string& path) {
    const json* f = findField(o, "device");
    if (!f || f->is_null()) return OffloadDevice::None;
    auto s = readString(issues, *f, joinKey(path, "device"));
    if (!s) return std::nullopt;
    if (*s == "none") return OffloadDevice::None;
    if (*s == "cpu") return OffloadDevice::Cpu;
    if (*s == "nvme") return OffloadDevice::Nvme;
    issues.error(joinKey(path, "device"), "expected \"none\", \"cpu\" or \"nvme\", got " + describeValue(*f));
    return std::nullopt;
}

void rejectUnknown(IssueList& issues, const json& o, const std::string& path, const std::vector<std::string>& known) {
    for (auto it = o.begin(); it != o.end(); ++it) {
        bool ok = false;
        for (const auto& k : known) ok = ok || k == it.key();
        if (!ok)
            issues.error(joinKey(path, it.key()), "unknown key (DeepSpeed rejects it; expected one of " +
                                                      joinNames(known) + ")" + didYouMean(it.key(), known));
    }
}

void readNvmePath(IssueList& issues, const json& o, const std::string& path, OffloadDevice device,
                  const std::filesystem::path& baseDir, std::filesystem::path& out) {
    if (const json* f = findField(o, "nvme_path"); f && !f->is_null())
        if (auto s = readString(issues, *f, joinKey(path, "nvme_path"))) out = resolvePath(*s, baseDir);
    if (device == OffloadDevice::Nvme && out.empty())
        issues.error(joinKey(path, "nvme_path"),
                     "\"nvme_path\" cannot be empty when device is \"nvme\": expected "
                     "the folder (on a local SSD) for the swap files");
}

void parseOffloadOptimizer(const json& v, const std::string& path, int stage, const std::filesystem::path& baseDir,
                           IssueList& issues, OffloadOptimizerConfig& out) {
    if (v.is_null()) return;
    if (!expectObject(issues, v, path)) return;
    rejectUnknown(issues, v, path,
                  {"device", "nvme_path", "buffer_count", "pin_memory", "pipeline_read", "pipeline_write", "fast_init",
                   "ratio", "super_offload", "cpuadam_cores_perc", "pipeline"});
    if (auto d = readDevice(issues, v, path)) out.device = *d;
    readNvmePath(issues, v, path, out.device, baseDir, out.nvmePath);
    if (auto f = findField(v, "buffer_count", true))
        if (auto n = readInt(issues, *f, joinKey(path, "buffer_count"), 0, 1 << 20, "an integer >= 0"))
            out.bufferCount = *n;
    if (out.device == OffloadDevice::Nvme && out.bufferCount < 1)
        issues.error(joinKey(path, "buffer_count"),
                     "0 host buffers cannot swap anything: expected >= 1 (each holds one "
                     "sub-group's fp32 master and Adam moments)");
    if (auto f = findField(v, "pin_memory", true))
        if (auto b = readBool(issues, *f, joinKey(path, "pin_memory"))) out.pinMemory = *b;
    if (auto f = findField(v, "pipeline_read", true))
        if (auto b = readBool(issues, *f, joinKey(path, "pipeline_read"))) out.pipelineRead = *b;
    if (auto f = findField(v, "pipeline_write", true))
        if (auto b = readBool(issues, *f, joinKey(path, "pipeline_write"))) out.pipelineWrite = *b;
    if (findField(v, "pipeline"))
        issues.warning(joinKey(path, "pipeline"),
                       "not a DeepSpeed input (it derives it from pipeline_read and "
                       "pipeline_write); ignored");
    if (auto f = findField(v, "fast_init", true))
        if (auto b = readBool(issues, *f, joinKey(path, "fast_init")); b && *b)
            issues.warning(joinKey(path, "fast_init"),
                           "no effect: Finetune Studio always initializes the swap files "
                           "in one pass, as fast_init does");
    if (auto f = findField(v, "ratio", true))
        if (auto r = readNumber(issues, *f, joinKey(path, "ratio"), 0.0, 1.0, "a fraction from 0 to 1")) out.ratio = *r;
    if (out.ratio < 1.0) {
        if (stage != 3)
            issues.error(joinKey(path, "ratio"), "Partial offloading only supported for ZeRO Stage 3 (stage is " +
                                                     std::to_string(stage) + "); expected 1.0");
        else
            issues.warning(joinKey(path, "ratio"),
                           "partial offload is not implemented: the whole optimizer state of "
                           "the partition is offloaded (ratio 1.0)");
    }
    if (auto f = findField(v, "super_offload", true))
        if (auto b = readBool(issues, *f, joinKey(path, "super_offload")); b && *b)
            issues.warning(joinKey(path, "super_offload"),
                           "not implemented (Superchip offload): ordinary offload runs");
    if (findField(v, "cpuadam_cores_perc"))
        issues.warning(joinKey(path, "cpuadam_cores_perc"),
                       "only used with super_offload; CPU-Adam runs on the "
                       "training process's threads (OMP_NUM_THREADS)");
    if (out.enabled() && stage == 0)
        issues.error(joinKey(path, "device"),
                     "optimizer offload needs ZeRO stage 1, 2 or 3 (zero_optimization.stage is "
                     "0): the optimizer state is partitioned first, then offloaded");
}

void parseOffloadParam(const json& v, const std::string& path, int stage, const std::filesystem::path& baseDir,
                       IssueList& issues, OffloadParamConfig& out) {
    if (v.is_null()) return;
    if (!expectObject(issues, v, path)) return;
    rejectUnknown(issues, v, path, {"device", "nvme_path", "buffer_count", "buffer_size", "max_in_cpu", "pin_memory"});
    if (auto d = readDevice(issues, v, path)) out.device = *d;
    readNvmePath(issues, v, path, out.device, baseDir, out.nvmePath);
    if (auto f = findField(v, "buffer_count", true))
        if (auto n = readInt(issues, *f, joinKey(path, "buffer_count"), 0, 1 << 20, "an integer >= 0"))
            out.bufferCount = *n;
    if (auto f = findField(v, "buffer_size", true))
        if (auto n = readInt(issues, *f, joinKey(path, "buffer_size"), 0, kMaxElems, "a number of elements >= 0"))
            out.bufferSize = *n;
    if (auto f = findField(v, "max_in_cpu", true))
        if (auto n = readInt(issues, *f, joinKey(path, "max_in_cpu"), 0, kMaxElems, "a number of elements >= 0"))
            out.maxInCpu = *n;
    if (auto f = findField(v, "pin_memory", true))
        if (auto b = readBool(issues, *f, joinKey(path, "pin_memory"))) out.pinMemory = *b;
    if (!out.enabled()) return;
    if (out.device == OffloadDevice::Cpu)
        for (const char* k : {"buffer_count", "buffer_size", "max_in_cpu"})
            if (const json* f = findField(v, k, true); f && !f->is_null())
                issues.warning(joinKey(path, k),
                               "no effect with device \"cpu\": the parameter shards rest in host memory "
                               "whole; the buffers and max_in_cpu apply to \"nvme\"");
    if (stage != 3)
        issues.error(joinKey(path, "device"),
                     "parameter offload is valid only with ZeRO stage 3 (zero_optimization.stage "
                     "is " +
                         std::to_string(stage) + "); use offload_optimizer at stages 1-2");
    else if (out.device == OffloadDevice::Nvme && out.bufferCount < 1)
        issues.error(joinKey(path, "buffer_count"),
                     "expected at least 1 with device \"nvme\" (the buffers that read "
                     "parameters ahead)");
}

}  // namespace

void parseZeroOffload(const json& zero, const std::string& path, int stage, const std::filesystem::path& baseDir,
                      IssueList& issues, ZeroConfig& out) {
    if (auto f = findField(zero, "sub_group_size", true))
        if (auto n = readInt(issues, *f, joinKey(path, "sub_group_size"), 1, kMaxElems,
                             "a number of elements > 0 (the optimizer steps its partition in pieces of this size)"))
            out.subGroupSize = *n;
    const json* opt = findField(zero, "offload_optimizer");
    const json* par = findField(zero, "offload_param");
    if (opt)
        parseOffloadOptimizer(*opt, joinKey(path, "offload_optimizer"), stage, baseDir, issues, out.offloadOptimizer);
    if (par) parseOffloadParam(*par, joinKey(path, "offload_param"), stage, baseDir, issues, out.offloadParam);
    // Deprecated booleans (DeepSpeed maps them onto the new keys unless those are given).
    if (const json* f = findField(zero, "cpu_offload"); f && !f->is_null()) {
        if (auto b = readBool(issues, *f, joinKey(path, "cpu_offload"))) {
            issues.warning(joinKey(path, "cpu_offload"),
                           "deprecated; write \"offload_optimizer\": {\"device\": \"cpu\"}");
            if (*b && !opt) {
                out.offloadOptimizer.device = OffloadDevice::Cpu;
                if (stage == 0)
                    issues.error(joinKey(path, "cpu_offload"), "optimizer offload needs ZeRO stage 1, 2 or 3");
            }
        }
    }
    if (const json* f = findField(zero, "cpu_offload_param"); f && !f->is_null()) {
        if (auto b = readBool(issues, *f, joinKey(path, "cpu_offload_param"))) {
            issues.warning(joinKey(path, "cpu_offload_param"),
                           "deprecated; write \"offload_param\": {\"device\": \"cpu\"}");
            if (*b && !par) {
                out.offloadParam.device = OffloadDevice::Cpu;
                if (stage != 3)
                    issues.error(joinKey(path, "cpu_offload_param"),
                                 "parameter offload is valid only with ZeRO stage 3");
            }
        }
    }
    if (const json* f = findField(zero, "cpu_offload_use_pin_memory"); f && !f->is_null())
        issues.warning(joinKey(path, "cpu_offload_use_pin_memory"),
                       "deprecated and ignored (DeepSpeed 0.19.8 ignores it too); set offload_optimizer.pin_memory / "
                       "offload_param.pin_memory");
}

void warnUnusedZeroKeys(const json& zero, const std::string& path, IssueList& issues) {
    // DeepSpeed 0.19.8's defaults (DeepSpeedZeroConfig); a key at its default describes what this engine does.
    static const std::vector<std::pair<std::string, json>> kUnused = {
        {"use_multi_rank_bucket_allreduce", true},
        {"allgather_partitions", true},
        {"compute_grad_norm", true},
        {"load_from_fp32_weights", true},
        {"elastic_checkpoint", false},
        {"zenflow", nullptr},
        {"model_persistence_threshold", nullptr},
        {"stage3_model_persistence_threshold", nullptr},
        {"max_reuse_distance", nullptr},
        {"stage3_max_reuse_distance", nullptr},
        {"gather_16bit_weights_on_model_save", nullptr},
        {"stage3_gather_16bit_weights_on_model_save", nullptr},
        {"stage3_gather_fp16_weights_on_model_save", nullptr},
        {"module_granularity_threshold", 0},
        {"stage3_module_granularity_threshold", 0},
        {"use_all_reduce_for_fetch_params", false},
        {"stage3_use_all_reduce_for_fetch_params", false},
        {"allgather_sequential", false},
        {"stage3_allgather_sequential", false},
        {"ignore_unused_parameters", true},
        {"legacy_stage1", false},
        {"round_robin_gradients", false},
        {"parameter_alignment", false},
        {"zero_hpz_partition_size", 1},
        {"zero_quantized_weights", false},
        {"zero_quantized_nontrainable_weights", false},
        {"zero_quantized_gradients", false},
        {"memory_efficient_linear", true},
        {"pipeline_loading_checkpoint", false},
        {"override_module_apply", true},
        {"log_trace_cache_warnings", false},
        {"enable_sanity_checks", false},
        {"save_muon_momentum_buffer_in_memory", false},
        {"leaf_module", nullptr},
    };
    for (const auto& [key, def] : kUnused) {
        const json* v = findField(zero, key.c_str());
        if (!v || v->is_null() || isAuto(*v)) continue;
        if (!def.is_null() && *v == def) continue;
        std::string why = "accepted but not used by Finetune Studio";
        if (key.find("16bit_weights_on_model_save") != std::string::npos ||
            key.find("fp16_weights_on_model_save") != std::string::npos)
            why +=
                ": the export (training.output_dir/final, fts export) always consolidates the stage-3 shards into "
                "whole weights";
        else if (!def.is_null())
            why += " (this engine behaves as DeepSpeed's default " + def.dump() + ")";
        issues.warning(joinKey(path, key), why);
    }
}

void parseAio(const json& block, IssueList& issues, AioConfig& out) {
    const json* v = findField(block, "aio");
    if (!v || v->is_null()) return;
    const std::string path = "deepspeed.aio";
    if (!expectObject(issues, *v, path)) return;
    const json& o = *v;
    if (auto f = findField(o, "block_size", true))
        if (auto n = readInt(issues, *f, joinKey(path, "block_size"), 1, int64_t(1) << 30, "a number of bytes > 0")) {
            if (*n % 4096 != 0)
                issues.error(joinKey(path, "block_size"),
                             "O_DIRECT I/O needs whole 4096-byte blocks: expected a multiple "
                             "of 4096, got " +
                                 std::to_string(*n));
            else
                out.blockSize = *n;
        }
    if (auto f = findField(o, "queue_depth", true))
        if (auto n = readInt(issues, *f, joinKey(path, "queue_depth"), 1, 4096, "an integer from 1 to 4096"))
            out.queueDepth = *n;
    for (const char* k : {"intra_op_parallelism", "thread_count"})
        if (auto f = findField(o, k, true))
            if (auto n = readInt(issues, *f, joinKey(path, k), 1, 64, "an integer from 1 to 64"))
                out.intraOpParallelism = *n;
    if (findField(o, "thread_count"))
        issues.warning(joinKey(path, "thread_count"),
                       "older name of intra_op_parallelism (DeepSpeed 0.19.8 reads only "
                       "intra_op_parallelism); used as the number of I/O threads");
    if (auto f = findField(o, "single_submit", true))
        if (auto b = readBool(issues, *f, joinKey(path, "single_submit"))) out.singleSubmit = *b;
    if (auto f = findField(o, "overlap_events", true))
        if (auto b = readBool(issues, *f, joinKey(path, "overlap_events"))) out.overlapEvents = *b;
    if (auto f = findField(o, "use_gds", true))
        if (auto b = readBool(issues, *f, joinKey(path, "use_gds")); b && *b)
            issues.warning(joinKey(path, "use_gds"),
                           "GPUDirect Storage is not implemented: swaps go through host memory");
    warnUnknownKeys(issues, o, path,
                    {"block_size", "queue_depth", "intra_op_parallelism", "thread_count", "single_submit",
                     "overlap_events", "use_gds"},
                    "DeepSpeed ignores unknown aio keys");
}

json offloadOptimizerToJson(const OffloadOptimizerConfig& o) {
    json j = {{"device", offloadDeviceName(o.device)}, {"pin_memory", o.pinMemory},
              {"buffer_count", o.bufferCount},         {"pipeline_read", o.pipelineRead},
              {"pipeline_write", o.pipelineWrite},     {"ratio", o.ratio}};
    if (!o.nvmePath.empty()) j["nvme_path"] = o.nvmePath.string();
    return j;
}

json offloadParamToJson(const OffloadParamConfig& o) {
    json j = {{"device", offloadDeviceName(o.device)},
              {"pin_memory", o.pinMemory},
              {"buffer_count", o.bufferCount},
              {"buffer_size", o.bufferSize},
              {"max_in_cpu", o.maxInCpu}};
    if (!o.nvmePath.empty()) j["nvme_path"] = o.nvmePath.string();
    return j;
}

json aioToJson(const AioConfig& a) {
    return {{"block_size", a.blockSize},
            {"queue_depth", a.queueDepth},
            {"intra_op_parallelism", a.intraOpParallelism},
            {"single_submit", a.singleSubmit},
            {"overlap_events", a.overlapEvents}};
}

}  // namespace fts::config_detail
