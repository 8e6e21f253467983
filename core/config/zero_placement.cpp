// The ZeRO placement rule (see zero_placement.h).
#include "core/config/zero_placement.h"

namespace fts {

const char* statePlacementName(StatePlacement p) {
    switch (p) {
        case StatePlacement::Host:
            return "host";
        case StatePlacement::Nvme:
            return "nvme";
        case StatePlacement::Device:
            break;
    }
    return "device";
}

const char* paramDtypeName(ParamDtype dtype) {
    switch (dtype) {
        case ParamDtype::BFloat16:
            return "bfloat16";
        case ParamDtype::Float16:
            return "float16";
        case ParamDtype::Float32:
            break;
    }
    return "float32";
}

ZeroPlacement ZeroPlacement::of(const DeepSpeedConfig& ds, bool lora) {
    return ZeroPlacement{.stage = ds.zeroStage,
                         .fp16 = ds.fp16.enabled,
                         .bf16 = ds.bf16,
                         .lora = lora,
                         .offloadOptimizer = ds.zero.offloadOptimizer.device,
                         .offloadParam = ds.zero.offloadParam.device};
}

ParamDtype ZeroPlacement::modelDtype() const {
    if (fp16) return ParamDtype::Float16;
    // LoRA: the base is frozen, so it needs no float32 master at any stage (the adapters are float32 parameters of
    // their own); bf16 holds it in bfloat16 at stage 0 too, as DeepSpeed's bf16 engine and PEFT over a model loaded
    // with torch_dtype=bfloat16 hold it.
    if (bf16 && (stage > 0 || lora)) return ParamDtype::BFloat16;
    return ParamDtype::Float32;
}

namespace {

StatePlacement placementOf(OffloadDevice d) {
    switch (d) {
        case OffloadDevice::Cpu:
            return StatePlacement::Host;
        case OffloadDevice::Nvme:
            return StatePlacement::Nvme;
        case OffloadDevice::None:
            break;
    }
    return StatePlacement::Device;
}

}  // namespace

StatePlacement ZeroPlacement::parameters() const {
    return stage == 3 ? placementOf(offloadParam) : StatePlacement::Device;
}

StatePlacement ZeroPlacement::optimizerState() const {
    return stage >= 1 ? placementOf(offloadOptimizer) : StatePlacement::Device;
}

}  // namespace fts
