// The ZeRO placement rule, once, without LibTorch: for a stage, a precision, LoRA and the offload devices, where the
// parameters, gradients and optimizer state rest between uses, what is partitioned over the ranks, and the dtype the
// parameters are held in. core/zero/zero_plan.h (the engine's plan) and core/config/memory_estimate.cpp (the
// estimate) both ask it, so the estimate cannot drift from what the engine does.
#pragma once
#include "core/config/train_config.h"

namespace fts {

enum class StatePlacement { Device, Host, Nvme };
const char* statePlacementName(StatePlacement p);  // "device", "host", "nvme"

enum class ParamDtype { Float32, BFloat16, Float16 };
const char* paramDtypeName(ParamDtype dtype);  // "float32", "bfloat16", "float16"

struct ZeroPlacement {
    int stage = 0;
    bool fp16 = false, bf16 = false;
    bool lora = false;  // model.lora: the base is frozen, the adapters train
    OffloadDevice offloadOptimizer = OffloadDevice::None;
    OffloadDevice offloadParam = OffloadDevice::None;

    // From the resolved DeepSpeed block (training.bf16 "auto" decided) and whether model.lora is set.
    static ZeroPlacement of(const DeepSpeedConfig& ds, bool lora);

    // The dtype of the model's parameters on the device: fp16 runs keep fp16 parameters (fp32 masters in the
    // engine); bf16 runs under ZeRO 1-3, and LoRA's frozen base under bf16 at any stage, keep bf16 parameters (fp32
    // masters in the partition; float32 adapters); full bf16 fine-tunes at stage 0 and fp32 runs keep fp32.
    ParamDtype modelDtype() const;

    // Where the trainable parameters rest between uses: offload_param's device at stage 3 (this rank's shard).
    StatePlacement parameters() const;
    // Gradients are reduced on the training device at every stage (partitioned from stage 2).
    StatePlacement gradients() const { return StatePlacement::Device; }
    // The fp32 masters and the AdamW moments: offload_optimizer's device at stages 1-3.
    StatePlacement optimizerState() const;

    bool partitionsOptimizerState() const { return stage >= 1; }
    bool partitionsGradients() const { return stage >= 2; }
    bool partitionsParameters() const { return stage == 3; }  // with LoRA: the frozen base
    // Stage 3 without LoRA: every tensor is cut to this rank's part as it is read, so no rank holds the whole model.
    bool partitionsOnLoad() const { return stage == 3 && !lora; }
    // The stage the trainable parameters' optimizer runs at: LoRA's adapters at stage 3 run in a stage-2 optimizer
    // beside the partitioned frozen base.
    int trainableStage() const { return stage == 3 && lora ? 2 : stage; }
};

}  // namespace fts
