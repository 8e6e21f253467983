// `fts estimate CONFIG [--json] [--nproc N | --num_gpus N] [--device-memory BYTES] [...]`: each rank's peak
// memory for a training config, broken into terms, with suggestions when it does not fit (core/config/memory_estimate.h).
#include <iostream>

#include "app/cli/commands.h"
#include "core/config/memory_estimate.h"
#include "core/config/train_config.h"
#include "core/util/byte_size.h"
#include "core/util/error.h"

namespace fts::cli {

void addEstimateCommand(CLI::App& app) {
    auto* cmd = app.add_subcommand("estimate", "Estimate each rank's peak memory for a training config");
    struct Args {
        std::filesystem::path config;
        bool json = false;
        int nproc = 0, numGpus = 0;
        std::string deviceMemory, device, offload;
        int zeroStage = -1;
        int64_t microBatch = 0, runtimeBytes = -1;
        int lora = 0;
        std::string checkpointing;
        std::string chunkedLoss;
    };
    auto a = std::make_shared<Args>();
    cmd->add_option("config", a->config, "Training config (JSON with a deepspeed block)")->required();
    cmd->add_flag("--json", a->json, "Print the estimate as JSON");
    cmd->add_option("--nproc", a->nproc, "Ranks (data parallel; default 1)");
    cmd->add_option("--num_gpus,--num-gpus", a->numGpus, "Ranks, one per GPU (implies --device cuda)");
    cmd->add_option("--device", a->device, "cpu or cuda (default: from training.device; auto = cpu)");
    cmd->add_option(
        "--device-memory", a->deviceMemory,
        "Memory one rank may use, e.g. 80GiB (default on cpu: the host's memory / ranks; on cuda: not judged)");
    cmd->add_option("--zero-stage", a->zeroStage, "Estimate as if zero_optimization.stage were this (0-3)");
    cmd->add_option("--micro-batch", a->microBatch, "Estimate as if train_micro_batch_size_per_gpu were this");
    cmd->add_option("--activation-checkpointing", a->checkpointing,
                    "on or off (default: model.activation_checkpointing)");
    cmd->add_option("--chunked-loss", a->chunkedLoss, "on or off (default: model.chunked_loss, on)");
    cmd->add_option("--offload-optimizer", a->offload,
                    "none, cpu or nvme (default: zero_optimization.offload_optimizer)");
    cmd->add_option("--lora", a->lora, "Estimate as if LoRA with this rank trained every linear layer of the blocks");
    cmd->add_option("--runtime-bytes", a->runtimeBytes,
                    "The per-process fixed cost (default: the measured LibTorch baseline)");
    cmd->callback([a] {
        if (a->nproc > 0 && a->numGpus > 0 && a->nproc != a->numGpus)
            throw ConfigError("--nproc " + std::to_string(a->nproc) + " and --num_gpus " + std::to_string(a->numGpus) +
                              " contradict each other");
        const int world = std::max({1, a->nproc, a->numGpus});
        const TrainConfig config = loadTrainConfig(a->config, world);
        EstimateOptions o;
        o.worldSize = world;
        if (a->numGpus > 0) o.device = EstimateDevice::Cuda;
        if (!a->device.empty()) {
            if (a->device == "cpu")
                o.device = EstimateDevice::Cpu;
            else if (a->device.rfind("cuda", 0) == 0)
                o.device = EstimateDevice::Cuda;
            else
                throw ConfigError("--device: expected cpu or cuda, got \"" + a->device + "\"");
        }
        if (a->zeroStage >= 0) o.zeroStage = a->zeroStage;
        if (a->microBatch > 0) o.microBatch = a->microBatch;
        if (!a->checkpointing.empty()) {
            if (a->checkpointing != "on" && a->checkpointing != "off")
                throw ConfigError("--activation-checkpointing: expected on or off, got \"" + a->checkpointing + "\"");
            o.activationCheckpointing = a->checkpointing == "on";
        }
        if (!a->chunkedLoss.empty()) {
            if (a->chunkedLoss != "on" && a->chunkedLoss != "off")
                throw ConfigError("--chunked-loss: expected on or off, got \"" + a->chunkedLoss + "\"");
            o.chunkedLoss = a->chunkedLoss == "on";
        }
        if (!a->offload.empty()) {
            if (a->offload != "none" && a->offload != "cpu" && a->offload != "nvme")
                throw ConfigError("--offload-optimizer: expected none, cpu or nvme, got \"" + a->offload + "\"");
            o.offloadOptimizer = a->offload;
        }
        if (a->lora > 0) o.loraRank = a->lora;
        if (a->runtimeBytes >= 0) o.runtimeBytes = a->runtimeBytes;
        const bool cuda = o.device.value_or(config.training.device.rfind("cuda", 0) == 0
                                                ? EstimateDevice::Cuda
                                                : EstimateDevice::Cpu) == EstimateDevice::Cuda;
        if (!a->deviceMemory.empty())
            o.deviceCapacity = parseByteSize(a->deviceMemory, "--device-memory");
        else if (!cuda)
            o.deviceCapacity = hostMemoryBytes() / world;  // CPU ranks share the host's memory
        const MemoryEstimate e = estimateMemory(config, o);
        if (a->json)
            std::cout << toJson(e).dump(2) << "\n";
        else
            std::cout << formatEstimate(e);
    });
}

}  // namespace fts::cli
