// model.quantization: BitsAndBytesConfig's names as transformers writes them (to_dict, config.json's
// quantization_config), so that a block copied from a model folder or a training script reads as it is.
#include "core/config/quantization_section.h"

#include <algorithm>

namespace fts::config_detail {

namespace {

const char* kKey = "model.quantization";

std::string key(const std::string& name) { return std::string(kKey) + "." + name; }

// "torch.bfloat16", "bfloat16", "bf16" -> "bfloat16"; empty when not a compute dtype bitsandbytes takes.
std::string computeDtypeName(std::string s) {
    if (s.rfind("torch.", 0) == 0) s = s.substr(6);
    if (s == "bfloat16" || s == "bf16") return "bfloat16";
    if (s == "float16" || s == "fp16" || s == "half") return "float16";
    if (s == "float32" || s == "fp32" || s == "float") return "float32";
    return {};
}

}  // namespace

void parseQuantization(const json& v, IssueList& issues, QuantizationSection& out) {
    if (!v.is_object()) {
        issues.error(kKey,
                     "expected an object with BitsAndBytesConfig's keys ({\"load_in_4bit\": true, "
                     "\"bnb_4bit_quant_type\": \"nf4\", ...}), got " +
                         describeValue(v));
        return;
    }
    if (const json* m = findField(v, "quant_method"))
        if (auto s = readString(issues, *m, key("quant_method")); s && *s != "bitsandbytes")
            issues.error(key("quant_method"), "only \"bitsandbytes\" (its 4-bit NF4/FP4 format) is supported, got \"" +
                                                  *s + "\" (GPTQ, AWQ and other methods are not)");
    auto flag = [&](const char* name, const char* privateName) -> std::optional<bool> {
        const json* f = findField(v, name);
        if (!f) f = findField(v, privateName);  // to_dict() writes the private names too
        if (!f) return std::nullopt;
        return readBool(issues, *f, key(f == findField(v, name) ? name : privateName));
    };
    const std::optional<bool> in4 = flag("load_in_4bit", "_load_in_4bit");
    const std::optional<bool> in8 = flag("load_in_8bit", "_load_in_8bit");
    if (in8.value_or(false))
        issues.error(key("load_in_8bit"),
                     "8-bit base weights (LLM.int8) are not supported; use \"load_in_4bit\": true (QLoRA's NF4)");
    out.enabled = in4.value_or(false);
    if (!in4)
        issues.error(key("load_in_4bit"), "missing; expected true (the base weights held 4-bit under LoRA)");
    else if (!*in4 && !in8.value_or(false))
        issues.warning(key("load_in_4bit"), "false: the model loads unquantized and the other keys have no effect");
    if (const json* f = findField(v, "bnb_4bit_quant_type"))
        if (auto s = readString(issues, *f, key("bnb_4bit_quant_type"))) {
            if (*s == "nf4" || *s == "fp4")
                out.quantType = *s;
            else
                issues.error(key("bnb_4bit_quant_type"), "expected \"nf4\" or \"fp4\", got \"" + *s + "\"");
        }
    if (const json* f = findField(v, "bnb_4bit_use_double_quant"))
        if (auto b = readBool(issues, *f, key("bnb_4bit_use_double_quant"))) out.doubleQuant = *b;
    if (const json* f = findField(v, "bnb_4bit_compute_dtype"); f && !f->is_null())
        if (auto s = readString(issues, *f, key("bnb_4bit_compute_dtype"))) {
            const std::string name = computeDtypeName(*s);
            if (name.empty())
                issues.error(key("bnb_4bit_compute_dtype"),
                             "expected \"bfloat16\", \"float16\" or \"float32\", got \"" + *s + "\"");
            else
                out.computeDtype = name;
        }
    if (const json* f = findField(v, "bnb_4bit_quant_storage"); f && !f->is_null())
        if (auto s = readString(issues, *f, key("bnb_4bit_quant_storage")); s && *s != "uint8" && *s != "torch.uint8")
            issues.error(key("bnb_4bit_quant_storage"),
                         "only \"uint8\" (bitsandbytes' default: two 4-bit codes per byte) is supported, got \"" + *s +
                             "\"; other storage dtypes serve FSDP, which Finetune Studio does not use");
    if (const json* f = findField(v, "llm_int8_skip_modules"); f && !f->is_null()) {
        if (!f->is_array() || !std::all_of(f->begin(), f->end(), [](const json& e) { return e.is_string(); }))
            issues.error(key("llm_int8_skip_modules"), "expected a list of module names, got " + describeValue(*f));
        else
            for (const auto& e : *f) out.skipModules.push_back(e.get<std::string>());
    }
    // LLM.int8's own settings: harmless at their defaults (to_dict writes them), said when set otherwise.
    struct Int8Key {
        const char* name;
        json fallback;
    };
    for (const Int8Key& k : {Int8Key{"llm_int8_threshold", 6.0}, Int8Key{"llm_int8_has_fp16_weight", false},
                             Int8Key{"llm_int8_enable_fp32_cpu_offload", false}})
        if (const json* f = findField(v, k.name); f && !f->is_null() && *f != k.fallback)
            issues.warning(key(k.name), "applies to 8-bit weights only: no effect on 4-bit ones");
    warnUnknownKeys(
        issues, v, kKey,
        {"quant_method", "load_in_4bit", "_load_in_4bit", "load_in_8bit", "_load_in_8bit", "bnb_4bit_quant_type",
         "bnb_4bit_use_double_quant", "bnb_4bit_compute_dtype", "bnb_4bit_quant_storage", "llm_int8_skip_modules",
         "llm_int8_threshold", "llm_int8_has_fp16_weight", "llm_int8_enable_fp32_cpu_offload"});
}

void checkQuantizationFits(const TrainConfig& cfg, IssueList& issues) {
    if (!cfg.model.quantization.enabled) return;
    if (!cfg.model.lora.enabled)
        issues.error(kKey,
                     "4-bit base weights are frozen: they train only with LoRA adapters beside them (QLoRA); add "
                     "model.lora, or remove model.quantization for a full fine-tune");
    if (cfg.deepspeed.zeroStage == 3)
        issues.error("deepspeed.zero_optimization.stage",
                     "stage 3 partitions the model's parameters, which 4-bit weights (model.quantization) do not "
                     "allow in this version; use stage 0-2 (the adapters are small, the 4-bit base stays on every "
                     "rank)");
}

json quantizationToJson(const QuantizationSection& q) {
    json j = {{"quant_method", "bitsandbytes"},           {"load_in_4bit", q.enabled},
              {"bnb_4bit_quant_type", q.quantType},       {"bnb_4bit_use_double_quant", q.doubleQuant},
              {"bnb_4bit_compute_dtype", q.computeDtype}, {"bnb_4bit_quant_storage", "uint8"}};
    if (!q.skipModules.empty()) j["llm_int8_skip_modules"] = q.skipModules;
    return j;
}

}  // namespace fts::config_detail

namespace fts {

std::optional<QuantizationSection> readQuantizationSection(const nlohmann::json& modelSection) {
    if (!modelSection.is_object()) return std::nullopt;
    const auto it = modelSection.find("quantization");
    if (it == modelSection.end() || !it->is_object()) return std::nullopt;
    config_detail::IssueList ignored;
    QuantizationSection q;
    config_detail::parseQuantization(*it, ignored, q);
    if (!q.enabled) return std::nullopt;
    return q;
}

}  // namespace fts
