// Shared machinery of the Hugging Face architectures: parameter specs (HF name, shape, init rule), the
// LanguageModel base that owns the parameters, the model_type registry, and layers several architectures use.
// Invariant: parameters() holds exactly one leaf tensor per spec, in spec (= HF state_dict) order, and forward()
// reads parameters() on every call (no cached handles), so a tensor replaced there (moved, resharded) takes effect.
// Adding an architecture: write <arch>.h/.cpp with a builder `std::unique_ptr<HfModel> build<Arch>(...)`
// that fills specs in the constructor and implements forward/loss, then add one line to the
// registry in model_factory.cpp.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/arch/decoder_arch.h"
#include "core/arch/hf_config.h"
#include "core/model/language_model.h"

namespace fts {

enum class ParamInit { Normal, Zeros, Ones };
// What the weight of a spec is, for LoRA target matching: nn.Linear (out, in), HF Conv1D (in, out), or other.
enum class LayerKind { Other, Linear, Conv1D };

struct LoraLayer;  // lora.h
struct LoraOptions;
struct Quant4Weight;  // quant4bit.h

struct ParamSpec {
    std::string name;  // HF state_dict name
    std::vector<int64_t> shape;
    ParamInit init = ParamInit::Normal;
    double stddev = 0.0;                 // ParamInit::Normal: N(0, stddev^2)
    std::string shapeFrom;               // the config keys behind the shape, for errors: "vocab_size x n_embd"
    std::vector<std::string> aliases;    // other names the tensor may carry in a checkpoint (base-model layout)
    bool initIfMissing = false;          // a task head a base checkpoint lacks: initialised fresh (with a load warning)
    LayerKind layer = LayerKind::Other;  // set on the ".weight" spec of Linear / Conv1D layers
    bool outputHead = false;             // the output layer PEFT's "all-linear" leaves out (lm_head, classifier)
    // When a checkpoint has the tensor under none of its names: the pieces it may hold it in instead (stacked
    // experts, one tensor per expert and projection); saveHfModel writes it so too, as transformers does.
    std::vector<StoredPiece> pieces;
    // A mixture of experts' expert tensor (LoRA's target_parameters): (experts, out, in), or (experts, in, out) when
    // expertsTransposed (gpt-oss).
    bool expertTensor = false, expertsTransposed = false;
    bool routerWeight = false;  // a mixture of experts' router weight (a 2-D parameter LoRA may adapt, as PEFT)
    bool mxfp4 = false;         // may be saved in MXFP4 (<name>_blocks, <name>_scales): dequantized on load (mxfp4.h)
};

class HfModel : public LanguageModel {
public:
    const ModelInfo& info() const override { return m_info; }
    std::vector<NamedTensor>& parameters() override { return m_params; }
    void setTraining(bool training) override { m_training = training; }
    bool setAdaptersEnabled(bool on) override {
        m_adaptersOff = !on;
        return !m_lora.empty();
    }
    void setActivationCheckpointing(bool on) override { m_activationCheckpointing = on; }
    bool activationCheckpointing() const { return m_activationCheckpointing; }
    bool isTraining() const { return m_training; }
    std::vector<std::pair<size_t, size_t>> blockParameterRanges() const override { return m_blockRanges; }
    void setBlockRunner(BlockRunner runner) override { m_blockRunner = std::move(runner); }
    void setDeferOutputHead(bool on) override {
        m_deferHead = on;
        m_lastHead.reset();
    }
    std::optional<OutputHead> deferredOutputHead() const override { return m_deferHead ? m_lastHead : std::nullopt; }

    const std::vector<ParamSpec>& parameterSpecs() const { return m_specs; }
    // Checkpoint tensors transformers drops without a warning (non-persistent buffers, tied duplicates).
    virtual bool isIgnoredCheckpointTensor(const std::string& name) const;
    // Takes one tensor per spec (same order; shapes already checked), makes them trainable leaves, binds them.
    // partitioned: the tensors are ZeRO stage 3 parts (ModelLoadOptions::partition), not of the specs' shapes.
    void setParameters(std::vector<torch::Tensor> tensors, bool partitioned = false);
    ModelInfo& mutableInfo() { return m_info; }

    // LoRA (lora.h): adapters by base-weight index (null where none); forward adds them in linearAt/conv1dAt.
    void setLora(std::vector<std::shared_ptr<LoraLayer>> byParam, std::shared_ptr<LoraOptions> options);
    const std::vector<std::shared_ptr<LoraLayer>>& loraByParam() const { return m_lora; }
    const std::shared_ptr<LoraOptions>& loraOptions() const { return m_loraOptions; }

    // 4-bit base weights (quant4bit.h) by parameter index, null where the weight is a plain tensor. A quantized
    // weight's entry in parameters() is a placeholder of its shape on the meta device (no memory); linearAt and
    // conv1dAt run the layer through quant4Linear in computeDtype, and the model's own dtype outside it.
    void setQuant4(std::vector<std::shared_ptr<Quant4Weight>> byParam, torch::Dtype computeDtype);
    const std::vector<std::shared_ptr<Quant4Weight>>& quant4ByParam() const { return m_quant4; }
    bool quantized(size_t index) const { return index < m_quant4.size() && m_quant4[index] != nullptr; }
    // Where parameter `index` lives (a quantized weight: where its 4-bit tensors are).
    torch::Device parameterDevice(size_t index) const;
    // Puts a plain tensor in place of parameter `index` (a merged, dequantized weight), dropping its 4-bit form.
    void replaceParameter(size_t index, torch::Tensor tensor);

protected:
    const torch::Tensor& param(size_t index) const { return m_params[index].tensor; }
    // The layer whose weight is parameters()[weightIndex], plus its LoRA adapter when one is attached.
    // linearAt: nn.Linear, weight (out, in); conv1dAt: HF Conv1D, weight (in, out). bias may be undefined.
    torch::Tensor linearAt(size_t weightIndex, const torch::Tensor& x, const torch::Tensor& bias) const;
    // A tensor used whole (a mixture of experts' expert tensor) with its LoRA delta added when it has an adapter and
    // adapters are on (PEFT's ParamWrapper), in the tensor's dtype.
    torch::Tensor adaptedTensor(size_t index) const;
    torch::Tensor conv1dAt(size_t weightIndex, const torch::Tensor& x, const torch::Tensor& bias) const;
    // The LM output layer: logits of x, or with setDeferOutputHead(true) x itself with the layer kept for the
    // loss. weightIndex: the weight's index in parameters() when it is its own (LoRA may sit on it); tied heads
    // pass the embedding as `weight` and no index.
    torch::Tensor outputLayer(std::optional<size_t> weightIndex, const torch::Tensor& x, const torch::Tensor& weight,
                              const torch::Tensor& bias);
    // block(h), or checkpointedBlock over parameters [firstParam, firstParam + count) when activation
    // checkpointing is on, or the ZeRO stage 3 runner when one is set. `block` must capture by value: it runs
    // again during backward.
    torch::Tensor runBlock(const std::function<torch::Tensor(const torch::Tensor&)>& block, const torch::Tensor& h,
                           size_t firstParam, size_t count) const;

    ModelInfo m_info;
    std::vector<ParamSpec> m_specs;
    std::vector<NamedTensor> m_params;
    bool m_training = true;
    bool m_adaptersOff = false;  // setAdaptersEnabled(false): linearAt / conv1dAt skip the LoRA deltas
    bool m_activationCheckpointing = false;
    std::vector<std::shared_ptr<LoraLayer>> m_lora;
    std::shared_ptr<LoraOptions> m_loraOptions;
    std::vector<std::shared_ptr<Quant4Weight>> m_quant4;
    torch::Dtype m_quantComputeDtype = torch::kFloat32;
    std::vector<std::pair<size_t, size_t>> m_blockRanges;  // (first parameter, count) of each block, forward order
    BlockRunner m_blockRunner;
    bool m_deferHead = false;
    std::optional<OutputHead> m_lastHead;
};

// model_type -> builder. Throws FormatError naming config.json's "model_type" and the supported types.
std::unique_ptr<HfModel> buildModelFromConfig(const HfConfig& config, const ModelLoadOptions& opts);
std::vector<std::string> supportedModelTypes();

// ---- layers shared by architectures (layers.cpp) ----------------------------------------------------------

// transformers' ACT2FN entries that matter here.
enum class Activation {
    GeluTanh,
    GeluErf,
    QuickGelu,
    Relu,
    Relu2,
    Relu6,
    LeakyRelu,
    Silu,
    Mish,
    Tanh,
    Sigmoid,
    Identity
};
// Parses the activation name at `key`; FormatError naming the key and listing supported names otherwise.
Activation parseActivation(const HfConfig& config, std::string_view key, const std::string& fallback);
torch::Tensor applyActivation(Activation act, const torch::Tensor& x);

// The most negative finite value of `dtype` (the "masked" value of additive attention biases).
double lowestOf(torch::ScalarType dtype);
// The dtype matmuls produce for parameters like `param`: the autocast dtype when autocast is on for its device.
torch::ScalarType computeDtype(const torch::Tensor& param);

// (B, T) int64 position ids checked for use with packedCausalBias (attention_bias.h): shape (B, T) equal to inputIds', values >= 0
// and < maxPositions (when maxPositions > 0). Throws fts::Error naming `who` otherwise.
torch::Tensor checkedPositionIds(const torch::Tensor& positionIds, const torch::Tensor& inputIds, int64_t maxPositions,
                                 const std::string& who);

// Multi-head attention through at::scaled_dot_product_attention. q (B, H, T, D); k, v (B, H, T, D), or (B, K, T, D)
// with K dividing H for grouped-query attention (query head j reads kv head j / (H / K), as repeat_kv lays them
// out); bias from attention_bias.h or undefined (then is_causal). upcast: run in float32 with autocast off
// (reorder_and_upcast_attn). Without a bias, grouped heads go to the kernel as they are (enable_gqa, as
// transformers' sdpa path does then); with one, they are repeated first.
torch::Tensor causalSelfAttention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                                  const torch::Tensor& bias, double dropout, double scale, bool upcast);

// Causal LM loss as transformers computes it: logits[:, :-1] vs labels[:, 1:], cross entropy, ignore -100,
// mean over the counted tokens. Reduced-precision logits are upcast to float32 first.
torch::Tensor causalLmLoss(const torch::Tensor& logits, const torch::Tensor& labels);

}  // namespace fts
