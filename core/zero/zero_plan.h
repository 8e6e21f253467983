// The one owner of ZeRO and offload policy: built once from the resolved DeepSpeed block, whether the run trains
// LoRA adapters, and the world (this rank, the ranks, the run's key), it answers every question the rest of the
// engine asks about the stage. Which dtype the model loads in and whether the forward runs under bf16 autocast;
// where parameters, gradients and optimizer state rest (device, host, NVMe) and what is partitioned; whether the
// model is cut to this rank's part while it loads; the checkpoint layout and which layouts resume each other;
// whether the loop can generate samples. core/train asks the plan and never reads zero_optimization; core/offload
// receives the placements the plan makes and does not know the stages.
//
// The plan does not re-check the config: the config parser refuses what cannot run (offload_optimizer at stage 0,
// offload_param below stage 3, a partial offload ratio; core/config/offload_block.cpp), with the key's path, once.
// docs/design.md draws the plan and a step.
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/config/train_config.h"
#include "core/config/zero_placement.h"
#include "core/offload/optimizer_partition.h"
#include "core/offload/param_shard_store.h"

namespace fts {

// The ranks a plan is made for. runKey names the run's NVMe swap folders (<nvme_path>/<runKey>/rank<r>/).
struct ZeroWorld {
    int rank = 0;
    int size = 1;
    std::string runKey = "run";
};

// How checkpoints store the optimizer state: stage 0 one replicated file, stages 1 and 2 one flat partition
// (interchangeable), stage 3 every tensor partitioned (and no model.safetensors without LoRA).
enum class CheckpointLayout { Replicated, FlatPartition, TensorPartition };
const char* checkpointLayoutName(CheckpointLayout layout);  // "replicated", "flat_partition", "tensor_partition"

class ZeroPlan {
public:
    // ds: the resolved block (training.bf16 "auto" already decided); lora: model.lora is set.
    ZeroPlan(const DeepSpeedConfig& ds, bool lora, ZeroWorld world);

    int stage() const { return m_placement.stage; }
    bool lora() const { return m_placement.lora; }
    // The placement rule the estimate shares (zero_placement.h); the answers below are its.
    const ZeroPlacement& placement() const { return m_placement; }
    const ZeroWorld& world() const { return m_world; }
    const DeepSpeedConfig& deepspeed() const { return m_ds; }

    // ---- precision ----
    // The dtype of the model's parameters on the device: fp16 runs keep fp16 parameters (fp32 masters in the
    // engine); bf16 runs under ZeRO 1-3, and LoRA's frozen base under bf16 at any stage, keep bf16 parameters (fp32
    // masters in the partition; float32 adapters); full bf16 fine-tunes at stage 0 and fp32 runs keep fp32.
    ParamDtype modelDtype() const { return m_placement.modelDtype(); }
    bool bf16Autocast() const { return m_ds.bf16; }  // the forward (and eval, samples) under bf16 autocast
    bool lossScaling() const { return m_ds.fp16.enabled; }

    // ---- placements and partitions ----
    // Where the trainable parameters rest between uses (stage 3: this rank's shard; offload_param).
    StatePlacement parameters() const { return m_placement.parameters(); }
    // Gradients are reduced on the training device at every stage (partitioned from stage 2).
    StatePlacement gradients() const { return m_placement.gradients(); }
    // The fp32 masters and the AdamW moments (offload_optimizer, stages 1-3).
    StatePlacement optimizerState() const { return m_placement.optimizerState(); }
    bool partitionsOptimizerState() const { return m_placement.partitionsOptimizerState(); }
    bool partitionsGradients() const { return m_placement.partitionsGradients(); }
    bool partitionsParameters() const { return m_placement.partitionsParameters(); }  // with LoRA: the frozen base
    // Stage 3 without LoRA: every tensor is cut to this rank's part as it is read (stage3RankPart, step_engine.h),
    // so no rank holds the whole model. Otherwise the model loads whole and rank 0's weights are broadcast.
    bool partitionsOnLoad() const { return m_placement.partitionsOnLoad(); }
    // With partitionsOnLoad(): the hook the model loader calls with each tensor as read (ModelLoadOptions::
    // partition); it returns this rank's part and records the tensor's full shape in fullShapes[index]. Null
    // otherwise.
    using LoadPartition = std::function<torch::Tensor(size_t index, const torch::Tensor& full)>;
    LoadPartition loadPartition(std::vector<std::vector<int64_t>>& fullShapes) const;
    // The offload settings as the optimizer partition and the stage-3 parameter store take them.
    PartitionPlacement optimizerPlacement() const;
    ParamStorePlacement parameterPlacement() const;

    // ---- checkpoints ----
    CheckpointLayout checkpointLayout() const { return layoutOfStage(stage()); }
    static CheckpointLayout layoutOfStage(int stage);
    // A checkpoint made at ZeRO stage `madeWith` resumes under this plan when the layouts agree; FormatError naming
    // `where` (its trainer_state.json) and the stages that would resume it otherwise.
    void checkResumable(int madeWith, const std::string& where) const;
    // Each rank writes its own optimizer shard (stages 1-3); stage 0's state is written once by rank 0.
    bool shardedCheckpoints() const { return stage() > 0; }
    // Stage 3 without LoRA: the checkpoint holds no model.safetensors; the weights are the ranks' master shards
    // (consolidated by exportZero3Checkpoint, zero3_export.h).
    bool checkpointHoldsModel() const { return !partitionsOnLoad(); }

    // ---- the loop ----
    // training.sample_prompts: not at stage 3 (the config parser warns), where no rank holds whole weights.
    bool runsSamples() const { return stage() != 3; }
    // What the run should be told about its settings once it knows its device (log lines at info level).
    std::vector<std::string> notes(bool cudaDevice) const;
    // One line: "ZeRO stage 2 (optimizer state and gradients partitioned over 4 ranks), bf16 parameters, optimizer
    // state in host memory".
    std::string summary() const;

private:
    DeepSpeedConfig m_ds;
    ZeroWorld m_world;
    ZeroPlacement m_placement;
};

// File name of rank r's optimizer shard inside a checkpoint folder (sharded layouts).
std::string optimizerShardName(int rank);

}  // namespace fts
