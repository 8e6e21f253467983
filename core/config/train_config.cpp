// Parsing and validation of the training config (see train_config.h, docs/config.md): Finetune Studio's
// sections model / data / training here, the DeepSpeed block in deepspeed_block.cpp. Invariant: a
// ConfigParseResult holds a config only when no error was recorded; every issue names its key path.
#include "core/arch/hf_config.h"
#include "core/config/train_config.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>

#include "core/config/config_reader.h"
#include "core/config/deepspeed_block.h"
#include "core/config/hf_cache.h"
#include "core/config/message_templates.h"
#include "core/config/model_shape.h"
#include "core/config/preference_section.h"
#include "core/config/quantization_section.h"
#include "core/config/trainer_arguments.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"
#include "core/util/user_regex.h"

namespace fts {
namespace fs = std::filesystem;
using namespace config_detail;

namespace {

constexpr int64_t kMaxInt = std::numeric_limits<int64_t>::max();

// A required section: records "missing" and returns nullptr when absent, a type error when not an object.
const json* section(const json& doc, const char* name, const char* whatItHolds, IssueList& issues) {
    const json* v = findField(doc, name);
    if (!v) {
        issues.error(name, fillTemplate(msg::kSectionMissing, {whatItHolds}));
        return nullptr;
    }
    return expectObject(issues, *v, name) ? v : nullptr;
}

void readPathField(const json& o, const char* key, const std::string& sectionName, const fs::path& baseDir,
                   IssueList& issues, fs::path& out, const char* missingMessage) {
    const std::string path = joinKey(sectionName, key);
    const json* v = findField(o, key);
    if (!v || (v->is_null() && !missingMessage)) {
        if (missingMessage) issues.error(path, missingMessage);
        return;
    }
    if (auto s = readString(issues, *v, path)) out = resolvePath(*s, baseDir);
}

// model.lora (PEFT's LoraConfig keys). With init_from, the adapter's adapter_config.json defines r, lora_alpha,
// target_modules and use_rslora, so giving them here too is an error.
// Whether a model folder's config.json has a bitsandbytes quantization_config (saved 4-bit by transformers +
// bitsandbytes; hf_config.h: savedFourBit).
bool folderHoldsQuantizedWeights(const fs::path& modelDir) {
    std::error_code ec;
    const fs::path file = modelDir / "config.json";
    if (modelDir.empty() || !fs::is_regular_file(file, ec)) return false;
    try {
        const json c = parseJson(readFile(file));
        return savedFourBit(c);
    } catch (const std::exception&) {
        return false;  // the model's own checks say what is wrong with it
    }
}

void parseLora(const json& v, const fs::path& baseDir, ModelSection& m, IssueList& issues) {
    if (!expectObject(issues, v, "model.lora")) return;
    LoraSection& l = m.lora;
    l.enabled = true;
    readPathField(v, "init_from", "model.lora", baseDir, issues, l.initFrom, nullptr);
    if (!l.initFrom.empty()) {
        for (const char* key : {"r", "lora_alpha", "target_modules", "target_parameters", "use_rslora"})
            if (findField(v, key)) issues.error(joinKey("model.lora", key), std::string(msg::kLoraKeyWithInitFrom));
        std::error_code ec;
        if (!fs::is_regular_file(l.initFrom / "adapter_config.json", ec))
            issues.error("model.lora.init_from", fillTemplate(msg::kLoraInitFromNotAdapter, {l.initFrom.string()}));
    }
    if (const json* f = findField(v, "r"))
        if (auto n = readInt(issues, *f, "model.lora.r", 1, kMaxInt, "a positive integer (the adapter rank)")) l.r = *n;
    if (const json* f = findField(v, "lora_alpha"))
        if (auto n = readNumber(issues, *f, "model.lora.lora_alpha", 0.0, std::numeric_limits<double>::max(),
                                "a number > 0")) {
            if (*n > 0)
                l.alpha = *n;
            else
                issues.error("model.lora.lora_alpha", "expected a number > 0, got " + describeValue(*f));
        }
    if (const json* f = findField(v, "lora_dropout"))
        if (auto n = readNumber(issues, *f, "model.lora.lora_dropout", 0.0, 1.0, "a probability in [0, 1)")) {
            if (*n < 1.0)
                l.dropout = *n;
            else
                issues.error("model.lora.lora_dropout", "expected a probability in [0, 1), got " + describeValue(*f));
        }
    if (const json* f = findField(v, "target_parameters"); f && !f->is_null()) {
        if (!f->is_array())
            issues.error("model.lora.target_parameters",
                         "expected a list of parameter names (e.g. "
                         "\"mlp.experts.gate_up_proj\"), got " +
                             describeValue(*f));
        for (size_t i = 0; f->is_array() && i < f->size(); ++i) {
            const json& n = (*f)[i];
            if (n.is_string() && !n.get<std::string>().empty())
                l.targetParameters.push_back(n.get<std::string>());
            else
                issues.error("model.lora.target_parameters[" + std::to_string(i) + "]",
                             "expected a parameter name (e.g. \"mlp.experts.gate_up_proj\"), got " + describeValue(n));
        }
    }
    if (const json* f = findField(v, "target_modules"); f && !f->is_null()) {
        if (f->is_array() && f->empty() && !l.targetParameters.empty()) {
            l.noTargetModules = true;  // PEFT: target_modules=[] with target_parameters adapts the parameters alone
        } else if (f->is_string()) {
            l.targetIsRegex = true;
            l.targetRegex = f->get<std::string>();
            try {
                compileUserRegex(l.targetRegex);
            } catch (const std::exception& e) {  // std::regex_error, or one of compileUserRegex's limits
                issues.error("model.lora.target_modules", fillTemplate(msg::kBadRegex, {l.targetRegex, e.what()}));
            }
        } else if (f->is_array() && !f->empty()) {
            for (size_t i = 0; i < f->size(); ++i) {
                const json& n = (*f)[i];
                if (n.is_string() && !n.get<std::string>().empty())
                    l.targetModules.push_back(n.get<std::string>());
                else
                    issues.error("model.lora.target_modules[" + std::to_string(i) + "]",
                                 "expected a module name (e.g. \"q_proj\"), got " + describeValue(n));
            }
        } else {
            issues.error("model.lora.target_modules",
                         "expected a non-empty list of module names (matched exactly or as "
                         "the last dotted parts) or a regular expression string, got " +
                             describeValue(*f));
        }
    }
    if (const json* f = findField(v, "bias"))
        if (auto s = readString(issues, *f, "model.lora.bias")) {
            l.bias = *s;
            if (*s != "none")
                issues.error("model.lora.bias", fillTemplate(msg::kLoraBiasUnsupported, {describeValue(*f)}));
        }
    if (const json* f = findField(v, "use_rslora"))
        if (auto b = readBool(issues, *f, "model.lora.use_rslora")) l.useRslora = *b;
    if (const json* f = findField(v, "merge_on_export"))
        if (auto b = readBool(issues, *f, "model.lora.merge_on_export")) l.mergeOnExport = *b;
    if (m.init == "random") issues.error("model.lora", std::string(msg::kLoraOverRandomInit));
    warnUnknownKeys(issues, v, "model.lora",
                    {"r", "lora_alpha", "lora_dropout", "target_modules", "target_parameters", "bias", "use_rslora",
                     "init_from", "merge_on_export"});
}

void parseModel(const json& doc, const fs::path& baseDir, IssueList& issues, ModelSection& m) {
    const json* o = section(doc, "model", "\"path\" (the Hugging Face model folder)", issues);
    if (!o) return;
    readPathField(*o, "path", "model", baseDir, issues, m.path,
                  "missing; expected the Hugging Face model folder (config.json, plus weights unless init is "
                  "\"random\")");
    // "org/name[@revision]" that is not a folder: the model as cached by huggingface_hub (HF_HUB_CACHE, HF_HOME).
    if (const json* v = findField(*o, "path"); v && v->is_string() && !m.path.empty()) {
        std::error_code ec;
        const std::string raw = v->get<std::string>();
        if (!fs::exists(m.path, ec) && looksLikeHfModelId(raw)) {
            try {
                m.path = resolveHfCachedModel(raw);
            } catch (const IoError& e) {  // neither a folder nor cached: say every place that was searched
                issues.error("model.path", fillTemplate(msg::kModelPathNeither, {raw, m.path.string(), e.what()}));
            }
        }
    }
    if (const json* v = findField(*o, "init")) {
        if (auto s = readString(issues, *v, "model.init")) {
            if (*s == "pretrained" || *s == "random")
                m.init = *s;
            else
                issues.error("model.init", "expected \"pretrained\" or \"random\", got " + describeValue(*v));
        }
    }
    readPathField(*o, "tokenizer", "model", baseDir, issues, m.tokenizer, nullptr);
    if (m.tokenizer.empty() && !m.path.empty()) m.tokenizer = m.path / "tokenizer.json";
    if (const json* v = findField(*o, "activation_checkpointing"))
        if (auto b = readBool(issues, *v, "model.activation_checkpointing")) m.activationCheckpointing = *b;
    if (const json* v = findField(*o, "chunked_loss"))
        if (auto b = readBool(issues, *v, "model.chunked_loss")) m.chunkedLoss = *b;
    if (const json* v = findField(*o, "lora"); v && !v->is_null()) parseLora(*v, baseDir, m, issues);
    // BitsAndBytesConfig (QLoRA): the base held 4-bit under the adapters (quantization_section.h).
    if (const json* v = findField(*o, "quantization"); v && !v->is_null())
        parseQuantization(*v, issues, m.quantization);
    // A 4-bit base (quantized as it loads, or a folder saved quantized): the run's export is the adapter, as PEFT
    // and LLaMA-Factory save a QLoRA run; a merged model (the whole base dequantized: 59 GB in float32 for a 14B
    // model) is written when merge_on_export says so or by `fts export --merge`.
    const json* lora = findField(*o, "lora");
    if (m.lora.enabled && !(lora && lora->is_object() && findField(*lora, "merge_on_export")) &&
        (m.quantization.enabled || folderHoldsQuantizedWeights(m.path)))
        m.lora.mergeOnExport = false;
    warnUnknownKeys(issues, *o, "model",
                    {"path", "init", "tokenizer", "activation_checkpointing", "chunked_loss", "lora", "quantization"});
}

void parseData(const json& doc, const fs::path& baseDir, IssueList& issues, DataSection& d) {
    const json* o = section(doc, "data", "\"train\" (the training text: .txt or .jsonl)", issues);
    if (!o) return;
    readPathField(*o, "train", "data", baseDir, issues, d.train,
                  "missing; expected the training data file (.txt or .jsonl)");
    readPathField(*o, "eval", "data", baseDir, issues, d.eval, nullptr);
    if (const json* v = findField(*o, "text_field"))
        if (auto s = readString(issues, *v, "data.text_field")) d.textField = *s;
    if (const json* v = findField(*o, "eval_fraction"))
        if (auto n = readNumber(issues, *v, "data.eval_fraction", 0.0, 1.0, "a number in [0, 1)")) {
            if (*n < 1.0)
                d.evalFraction = *n;
            else
                issues.error("data.eval_fraction", "expected a number in [0, 1), got " + describeValue(*v));
        }
    if (const json* v = findField(*o, "max_length"))
        if (auto n =
                readInt(issues, *v, "data.max_length", 2, kMaxInt, "an integer >= 2 (tokens per training sequence)"))
            d.maxLength = *n;
    auto oneOf = [&](const char* key, const std::vector<std::string>& allowed, std::string& out) {
        const json* v = findField(*o, key);
        if (!v) return false;
        auto s = readString(issues, *v, joinKey("data", key));
        if (!s) return false;
        if (std::find(allowed.begin(), allowed.end(), *s) == allowed.end()) {
            issues.error(joinKey("data", key), "expected one of " + joinNames(allowed) + ", got " + describeValue(*v));
            return false;
        }
        out = *s;
        return true;
    };
    // With a preference objective (training.objective) the default format is "auto": pairs are found by their columns.
    if (const json* t = findField(doc, "training"); !findField(*o, "format") && t && t->is_object())
        if (const json* objective = findField(*t, "objective");
            objective && objective->is_string() && isPreferenceObjective(objective->get<std::string>()))
            d.format = "auto";
    oneOf("format", {"lm", "auto", "text", "alpaca", "sharegpt", "messages", "classification", "trl"}, d.format);
    oneOf("template",
          {"auto", "chatml", "qwen", "qwen3", "qwen2.5", "qwen2", "llama3", "mistral", "llama2", "alpaca", "none"},
          d.chatTemplate);
    if (oneOf("on_bad_row", {"skip", "continue", "stop"}, d.onBadRow) && d.onBadRow == "continue") d.onBadRow = "skip";
    auto boolField = [&](const char* key, bool& out) {
        if (const json* v = findField(*o, key))
            if (auto b = readBool(issues, *v, joinKey("data", key))) out = *b;
    };
    boolField("train_on_prompt", d.trainOnPrompt);
    boolField("packing", d.packing);
    boolField("shuffle", d.shuffle);
    if (const json* v = findField(*o, "seed"); v && !v->is_null()) {
        if (v->is_number_unsigned())
            d.seed = v->get<uint64_t>();
        else if (auto n =
                     readInt(issues, *v, "data.seed", 0, kMaxInt, "a non-negative integer (default: training.seed)"))
            d.seed = static_cast<uint64_t>(*n);
    }
    if (const json* v = findField(*o, "columns"); v && expectObject(issues, *v, "data.columns")) {
        const std::vector<std::string> known =
            d.classification() ? std::vector<std::string>{"text", "text_pair", "label"}
                               : std::vector<std::string>{"instruction", "input",   "output", "system", "messages",
                                                          "role",        "content", "prompt", "chosen", "rejected"};
        for (const auto& [key, value] : v->items()) {
            const std::string path = "data.columns." + key;
            if (std::find(known.begin(), known.end(), key) == known.end()) {
                issues.error(path, "unknown column role for data.format \"" + d.format + "\"" + didYouMean(key, known) +
                                       "; expected one of " + joinNames(known) +
                                       (d.classification() ? "" : " (the text field is data.text_field)"));
                continue;
            }
            if (auto name = readString(issues, value, path)) d.columns[key] = *name;
        }
    }
    readPathField(*o, "cache_dir", "data", baseDir, issues, d.cacheDir, nullptr);
    if (d.cacheDir.empty()) {
        const char* xdg = std::getenv("XDG_CACHE_HOME");
        d.cacheDir = (xdg && *xdg) ? fs::path(xdg) / "finetune-studio" / "token_cache"
                                   : resolvePath("~/.cache/finetune-studio/token_cache", baseDir);
    }
    if (findField(*o, "eval_fraction") && !d.eval.empty())
        issues.warning("data.eval_fraction", "ignored: data.eval gives the evaluation data, so nothing is held out");
    if (findField(*o, "cache_dir") && !d.instructionFormat())
        issues.warning("data.cache_dir", "ignored: only the instruction formats cache their tokens (data.format is \"" +
                                             d.format + "\")");
    if (d.format == "lm")
        for (const char* key : {"template", "train_on_prompt", "packing", "shuffle", "columns", "on_bad_row"})
            if (findField(*o, key))
                issues.warning(joinKey("data", key),
                               "applies to the instruction formats only; data.format is \"lm\" "
                               "(documents concatenated into blocks), so it is ignored");
    if (d.classification()) {
        for (const char* key : {"template", "train_on_prompt", "shuffle"})
            if (findField(*o, key))
                issues.warning(joinKey("data", key),
                               std::string("does not apply to data.format \"classification\" (") +
                                   (std::string(key) == "shuffle" ? "rows are drawn in a seeded random order each epoch"
                                                                  : "rows are not rendered with a chat template") +
                                   "), so it is ignored");
        if (d.packing) issues.error("data.packing", std::string(msg::kClassificationPacking));
        if (findField(*o, "text_field") && d.columns.count("text"))
            issues.warning("data.text_field", std::string(msg::kTextFieldIgnored));
        // One file column cannot be two roles (the text cannot be its own label).
        std::map<std::string, std::string> roleOf;
        const std::string text = d.columns.count("text") ? d.columns.at("text") : d.textField;
        const std::string pair = d.columns.count("text_pair") ? d.columns.at("text_pair") : "text_pair";
        const std::string label = d.columns.count("label") ? d.columns.at("label") : "label";
        for (const auto& [role, column] :
             {std::pair<std::string, std::string>{"text", text}, {"text_pair", pair}, {"label", label}})
            if (auto [it, fresh] = roleOf.emplace(column, role); !fresh)
                issues.error("data.columns." + role, fillTemplate(msg::kColumnTwoRoles, {column, it->second}));
    }
    warnUnknownKeys(issues, *o, "data",
                    {"train", "eval", "text_field", "eval_fraction", "max_length", "format", "columns", "template",
                     "train_on_prompt", "packing", "shuffle", "seed", "on_bad_row", "cache_dir"});
}

bool validDevice(const std::string& s) {
    if (s == "auto" || s == "cpu" || s == "cuda") return true;
    if (s.rfind("cuda:", 0) != 0 || s.size() == 5 || s.size() > 9) return false;
    for (size_t i = 5; i < s.size(); ++i)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

// training.profile: true / false, or {"wait": steps before, "active": steps profiled}.
void parseProfile(const json& v, IssueList& issues, ProfileSettings& p) {
    if (v.is_boolean() || v.is_null()) {
        p.enabled = v.is_boolean() && v.get<bool>();
        return;
    }
    if (!v.is_object()) {
        issues.error("training.profile",
                     "expected true, false or {\"wait\": steps before the profile, \"active\": steps profiled}, got " +
                         describeValue(v));
        return;
    }
    p.enabled = true;
    if (const json* f = findField(v, "wait"))
        if (auto n = readInt(issues, *f, "training.profile.wait", 0, kMaxInt, "a non-negative integer")) p.wait = *n;
    if (const json* f = findField(v, "active"))
        if (auto n = readInt(issues, *f, "training.profile.active", 1, 1000, "an integer from 1 to 1000"))
            p.active = *n;
    warnUnknownKeys(issues, v, "training.profile", {"wait", "active"});
}

void parseTraining(const json& doc, const fs::path& baseDir, IssueList& issues, TrainingSection& t) {
    const json* o = section(doc, "training", "\"output_dir\" and \"max_steps\" or \"epochs\"", issues);
    if (!o) return;
    auto intField = [&](const char* key, int64_t minValue, const char* what, int64_t& out) {
        if (const json* v = findField(*o, key))
            if (auto n = readInt(issues, *v, joinKey("training", key), minValue, kMaxInt, what)) out = *n;
    };
    bool stepsOk = true, epochsOk = true;
    if (const json* v = findField(*o, "max_steps")) {
        auto n = readInt(issues, *v, "training.max_steps", 0, kMaxInt, "a non-negative integer (0 = use epochs)");
        stepsOk = n.has_value();
        if (n) t.maxSteps = *n;
    }
    if (const json* v = findField(*o, "epochs")) {
        auto n = readNumber(issues, *v, "training.epochs", 0.0, std::numeric_limits<double>::max(), "a number >= 0");
        epochsOk = n.has_value();
        if (n) t.epochs = *n;
    }
    if (stepsOk && epochsOk && t.maxSteps == 0 && t.epochs <= 0.0)
        issues.error("training.max_steps", std::string(msg::kNothingToTrain));
    intField("eval_interval", 0, "a non-negative integer (0 = only at the end)", t.evalInterval);
    intField("eval_batches", 0, "a non-negative integer (0 = the whole eval split)", t.evalBatches);
    intField("save_interval", 0, "a non-negative integer (0 = only at the end)", t.saveInterval);
    intField("log_interval", 1, "a positive integer", t.logInterval);
    intField("keep_checkpoints", 0, "a non-negative integer (0 = keep all)", t.keepCheckpoints);
    readPathField(*o, "output_dir", "training", baseDir, issues, t.outputDir,
                  "missing; expected the folder for checkpoints and exports");
    if (const json* v = findField(*o, "seed")) {
        if (v->is_number_unsigned())
            t.seed = v->get<uint64_t>();
        else if (auto n = readInt(issues, *v, "training.seed", 0, kMaxInt, "a non-negative integer"))
            t.seed = static_cast<uint64_t>(*n);
    }
    if (const json* v = findField(*o, "run_name"))
        if (auto s = readString(issues, *v, "training.run_name")) t.runName = *s;
    if (const json* v = findField(*o, "device")) {
        if (auto s = readString(issues, *v, "training.device")) {
            if (validDevice(*s))
                t.device = *s;
            else
                issues.error(
                    "training.device",
                    "expected \"auto\", \"cpu\", \"cuda\" or \"cuda:N\" (N a device index), got " + describeValue(*v));
        }
    }
    if (const json* v = findField(*o, "sample_prompts")) {
        if (!v->is_array() || v->empty() || v->size() > 16)
            issues.error("training.sample_prompts",
                         "expected a list of 1 to 16 prompts (strings), got " + describeValue(*v));
        else
            for (size_t i = 0; i < v->size(); ++i) {
                const json& p = (*v)[i];
                if (!p.is_string() || p.get<std::string>().empty() || p.get<std::string>().size() > 4096)
                    issues.error("training.sample_prompts[" + std::to_string(i) + "]",
                                 "expected a non-empty prompt of at most 4096 bytes, got " + describeValue(p));
                else
                    t.samplePrompts.push_back(p.get<std::string>());
            }
    }
    if (const json* v = findField(*o, "sample_interval"))
        if (auto n = readInt(issues, *v, "training.sample_interval", 0, kMaxInt,
                             "a non-negative integer (0 = only at the end)"))
            t.sampleInterval = *n;
    intField("sample_max_new_tokens", 1, "a positive integer", t.sampleMaxNewTokens);
    if (t.samplePrompts.empty() && (findField(*o, "sample_interval") || findField(*o, "sample_max_new_tokens")))
        issues.warning(findField(*o, "sample_interval") ? "training.sample_interval" : "training.sample_max_new_tokens",
                       "no effect without training.sample_prompts");
    if (const json* v = findField(*o, "objective"))
        if (auto s = readString(issues, *v, "training.objective")) {
            if (*s == "sft" || isPreferenceObjective(*s))
                t.objective = *s;
            else
                issues.error(
                    "training.objective",
                    expectedMessage(fillTemplate(msg::kOneOf, {"sft, dpo, orpo, simpo, kto"}), describeValue(*v)));
        }
    if (const json* v = findField(*o, "profile")) parseProfile(*v, issues, t.profile);
    parseTrainerArguments(*o, issues, t.trainer);
    std::vector<std::string> known = {"objective",        "profile",        "max_steps",       "epochs",
                                      "eval_interval",    "eval_batches",   "save_interval",   "log_interval",
                                      "output_dir",       "seed",           "run_name",        "device",
                                      "keep_checkpoints", "sample_prompts", "sample_interval", "sample_max_new_tokens"};
    known.insert(known.end(), trainerArgumentKeys().begin(), trainerArgumentKeys().end());
    warnUnknownKeys(issues, *o, "training", known);
}

// Duplicate keys: DeepSpeed refuses them (dict_raise_error_on_duplicate_keys); nlohmann would keep the last.
struct DuplicateKeyFinder {
    struct Frame {
        bool isObject;
        std::vector<std::string> keys;
        std::string currentKey;
    };
    std::vector<Frame> stack;
    IssueList* issues;

    std::string pathOf(const std::string& key) const {
        std::string p;
        for (size_t i = 0; i + 1 < stack.size(); ++i)
            if (stack[i].isObject) p = joinKey(p, stack[i].currentKey);
        return joinKey(p, key);
    }
    bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
        switch (event) {
            case json::parse_event_t::object_start:
                stack.push_back({true, {}, {}});
                break;
            case json::parse_event_t::array_start:
                stack.push_back({false, {}, {}});
                break;
            case json::parse_event_t::object_end:
            case json::parse_event_t::array_end:
                if (!stack.empty()) stack.pop_back();
                break;
            case json::parse_event_t::key: {
                if (stack.empty() || !parsed.is_string()) break;
                Frame& f = stack.back();
                const std::string key = parsed.get<std::string>();
                for (const auto& k : f.keys)
                    if (k == key) {
                        issues->error(pathOf(key), "duplicate key \"" + key +
                                                       "\" (DeepSpeed rejects duplicate keys; the last value would "
                                                       "silently win); expected each key once per object");
                        break;
                    }
                f.keys.push_back(key);
                f.currentKey = key;
                break;
            }
            case json::parse_event_t::value:
                break;
        }
        return true;
    }
};

// Where a JSON syntax error is: the start of the token nlohmann stopped at. e.byte is 1-based and points
// at the last character read (past the end for "unexpected end of input"); the character that ends an
// invalid literal (often a newline) is skipped so the position lands on the literal itself.
size_t syntaxErrorOffset(const std::string& text, size_t byte) {
    if (byte == 0) return 0;
    size_t i = byte - 1;
    if (i >= text.size()) return text.size();
    auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    auto isWordChar = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' || c == '_';
    };
    while (i > 0 && isSpace(text[i])) --i;
    if (text[i] == '"') {  // a string token: back to its opening quote
        size_t j = i;
        while (j > 0) {
            --j;
            if (text[j] == '"') {
                size_t backslashes = 0;
                for (size_t k = j; k > 0 && text[k - 1] == '\\'; --k) ++backslashes;
                if (backslashes % 2 == 0) return j;
            }
        }
        return i;
    }
    if (isWordChar(text[i]))
        while (i > 0 && isWordChar(text[i - 1])) --i;
    return i;
}

ConfigParseResult finish(TrainConfig&& cfg, IssueList& issues) {
    ConfigParseResult r;
    const bool errors = issues.hasErrors();
    r.issues = issues.take();
    if (!errors) r.config = std::move(cfg);
    return r;
}

ConfigParseResult parseDocument(const json& doc, const fs::path& baseDir, int worldSize, IssueList& issues) {
    TrainConfig cfg;
    cfg.raw = doc;
    if (!doc.is_object()) {
        issues.error("",
                     "expected the config to be a JSON object with sections \"model\", \"data\", \"training\" "
                     "and \"deepspeed\", got " +
                         describeValue(doc));
        return finish(std::move(cfg), issues);
    }
    // "sweep" (core/config/sweep.h) expands into queued runs; fts train refuses a config that has one
    warnUnknownKeys(issues, doc, "", {"model", "data", "training", "preference", "deepspeed", "sweep"});
    parseModel(doc, baseDir, issues, cfg.model);
    parseData(doc, baseDir, issues, cfg.data);
    parseTraining(doc, baseDir, issues, cfg.training);
    if (cfg.training.objective == "kto") cfg.preference.lossTypes = {"kto"};  // KTOConfig's default loss type
    if (const json* v = findField(doc, "preference"); v && !v->is_null())
        parsePreference(*v, cfg.training.objective, baseDir, issues, cfg.preference);
    if (const json* ds = findField(doc, "deepspeed")) {
        // The Trainer's arguments fill the block's "auto" values first (trainer_arguments.h).
        const fs::path modelPath = cfg.model.path;
        auto hiddenSize = [&](std::string& why) -> std::optional<int64_t> {
            if (modelPath.empty()) {
                why = "model.path is not set";
                return std::nullopt;
            }
            try {
                return readModelShape(modelPath).hiddenSize;
            } catch (const std::exception& e) {
                why = e.what();
                return std::nullopt;
            }
        };
        const int64_t maxSteps = cfg.training.maxSteps;
        TrainerFill fill = fillTrainerAutos(*ds, cfg.training.trainer, worldSize, maxSteps, hiddenSize, issues);
        cfg.deepspeed = parseDeepSpeedBlock(fill.block, worldSize, maxSteps, issues, baseDir);
        applyTrainerArguments(*ds, cfg.training.trainer, fill, maxSteps, issues, cfg.deepspeed);
        checkQuantizationFits(cfg, issues);
        if (cfg.model.chunkedLoss && !modelPath.empty() && std::filesystem::exists(modelPath / "config.json")) {
            try {  // a model that soft-caps its logits (Gemma 2) cannot take the chunked loss (core/model/decoder)
                if (readModelShape(modelPath).finalSoftcap)
                    issues.warning("model.chunked_loss",
                                   "not used for this model: it soft-caps its logits (final_logit_softcapping), so the "
                                   "loss takes the whole logits");
            } catch (const std::exception&) {  // the model's own errors are reported where the model is read
            }
        }
        if (!cfg.training.samplePrompts.empty() && cfg.deepspeed.zeroStage == 3)
            issues.warning("training.sample_prompts",
                           "not generated under ZeRO stage 3 in this version (the parameters are partitioned across "
                           "the ranks): the run records no samples; try the export with fts generate");
    } else {
        issues.error("deepspeed",
                     "missing; expected the DeepSpeed config object (at least "
                     "train_micro_batch_size_per_gpu or train_batch_size)");
    }
    checkPreferenceFits(doc, cfg, issues);
    return finish(std::move(cfg), issues);
}

}  // namespace

bool isTrainerScheduler(SchedulerType t) { return t >= SchedulerType::HfLinear; }

SchedulerConfig resolveScheduleForRun(SchedulerConfig s, int64_t totalSteps) {
    if (s.totalNumSteps <= 0) s.totalNumSteps = totalSteps;
    if (s.warmupRatio >= 0) {
        const auto w = int64_t(std::ceil(double(s.totalNumSteps) * s.warmupRatio));
        s.warmupNumSteps = isTrainerScheduler(s.type) ? w : std::max<int64_t>(1, w);
        s.warmupRatio = -1.0;
    }
    return s;
}

const char* offloadDeviceName(OffloadDevice d) {
    switch (d) {
        case OffloadDevice::Cpu:
            return "cpu";
        case OffloadDevice::Nvme:
            return "nvme";
        case OffloadDevice::None:
            break;
    }
    return "none";
}

std::string ConfigParseResult::errorText() const {
    std::string out;
    for (const auto& i : issues) {
        if (!i.isError) continue;
        if (!out.empty()) out += '\n';
        out += i.keyPath.empty() ? i.message : i.keyPath + ": " + i.message;
    }
    return out;
}

ConfigParseResult parseTrainConfig(const nlohmann::json& doc, const fs::path& baseDir, int worldSize) {
    IssueList issues;
    return parseDocument(doc, baseDir, worldSize, issues);
}

ConfigParseResult parseTrainConfigText(const std::string& text, const fs::path& baseDir, int worldSize,
                                       const json& overrides) {
    IssueList issues;
    json doc;
    try {
        DuplicateKeyFinder finder{{}, &issues};
        checkJsonLimits(text);
        doc = json::parse(text, std::ref(finder));
    } catch (const json::parse_error& e) {
        const size_t at = syntaxErrorOffset(text, e.byte);
        size_t line = 1, column = 1;
        for (size_t i = 0; i < at; ++i) {
            if (text[i] == '\n') {
                ++line;
                column = 1;
            } else {
                ++column;
            }
        }
        std::string detail = e.what();
        if (auto pos = detail.find(": "); pos != std::string::npos) detail = detail.substr(pos + 2);
        ConfigParseResult r;
        r.issues.push_back(
            {"",
             "JSON syntax error at line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + detail,
             true});
        return r;
    }
    if (overrides.is_object() && doc.is_object()) doc.merge_patch(overrides);
    return parseDocument(doc, baseDir, worldSize, issues);
}

ConfigParseResult parseTrainConfigFile(const fs::path& file, int worldSize, const json& overrides) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw IoError(file.string() + ": cannot open the training config for reading");
    std::ostringstream buf;
    buf << in.rdbuf();
    if (in.bad()) throw IoError(file.string() + ": reading the training config failed");
    std::error_code ec;
    fs::path abs = fs::absolute(file, ec);
    if (ec) abs = file;
    ConfigParseResult r = parseTrainConfigText(buf.str(), abs.parent_path(), worldSize, overrides);
    if (r.config) {
        r.config->sourceFile = abs.lexically_normal();
        if (r.config->training.runName.empty()) r.config->training.runName = file.stem().string();
    }
    return r;
}

TrainConfig loadTrainConfig(const fs::path& file, int worldSize, const json& overrides) {
    ConfigParseResult r = parseTrainConfigFile(file, worldSize, overrides);
    if (r.ok()) return std::move(*r.config);
    size_t errors = 0;
    for (const auto& i : r.issues) errors += i.isError ? 1 : 0;
    throw ConfigError(file.string() + ": the training config has " + std::to_string(errors) +
                      (errors == 1 ? " error" : " errors") + ":\n" + r.errorText());
}

nlohmann::json configToResolvedJson(const TrainConfig& c) {
    json model = {{"path", c.model.path.generic_string()},
                  {"init", c.model.init},
                  {"tokenizer", c.model.tokenizer.generic_string()},
                  {"activation_checkpointing", c.model.activationCheckpointing},
                  {"chunked_loss", c.model.chunkedLoss}};
    if (c.model.lora.enabled) {
        const LoraSection& l = c.model.lora;
        json lora = {{"lora_dropout", l.dropout}, {"bias", l.bias}, {"merge_on_export", l.mergeOnExport}};
        if (l.initFrom.empty()) {
            lora["r"] = l.r;
            lora["lora_alpha"] = l.alpha;
            lora["use_rslora"] = l.useRslora;
            if (l.targetIsRegex)
                lora["target_modules"] = l.targetRegex;
            else if (!l.targetModules.empty())
                lora["target_modules"] = l.targetModules;
            else if (l.noTargetModules)
                lora["target_modules"] = json::array();
            if (!l.targetParameters.empty()) lora["target_parameters"] = l.targetParameters;
        } else {
            lora["init_from"] = l.initFrom.generic_string();
        }
        model["lora"] = lora;
    }
    if (c.model.quantization.enabled) model["quantization"] = quantizationToJson(c.model.quantization);
    if (c.training.preferenceObjective()) model.erase("chunked_loss");
    const DataSection& d = c.data;
    json data = {{"train", d.train.generic_string()}, {"max_length", d.maxLength}, {"format", d.format}};
    // Only what the format uses (what it ignores is warned about when written).
    const bool pairs = c.training.preferenceObjective();  // read by their own fields, scored from whole logits
    if (!(d.classification() && d.columns.count("text")) && !pairs) data["text_field"] = d.textField;
    if (d.eval.empty()) data["eval_fraction"] = d.evalFraction;
    if (d.instructionFormat() && !c.training.preferenceObjective()) data["cache_dir"] = d.cacheDir.generic_string();
    if (d.classification()) {
        data["on_bad_row"] = d.onBadRow;
        if (!d.columns.empty()) data["columns"] = d.columns;
    }
    if (d.instructionFormat()) {
        data["template"] = d.chatTemplate;
        data["train_on_prompt"] = d.trainOnPrompt;
        data["packing"] = d.packing;
        data["shuffle"] = d.shuffle;
        data["on_bad_row"] = d.onBadRow;
        if (!d.columns.empty()) data["columns"] = d.columns;
    }
    if (d.seed) data["seed"] = *d.seed;
    if (!d.eval.empty()) data["eval"] = d.eval.generic_string();
    const TrainingSection& t = c.training;
    json training = {{"objective", t.objective},
                     {"max_steps", t.maxSteps},
                     {"epochs", t.epochs},
                     {"eval_interval", t.evalInterval},
                     {"eval_batches", t.evalBatches},
                     {"save_interval", t.saveInterval},
                     {"log_interval", t.logInterval},
                     {"output_dir", t.outputDir.generic_string()},
                     {"seed", t.seed},
                     {"device", t.device},
                     {"keep_checkpoints", t.keepCheckpoints}};
    if (!t.runName.empty()) training["run_name"] = t.runName;
    if (!t.samplePrompts.empty()) {
        training["sample_prompts"] = t.samplePrompts;
        training["sample_interval"] = t.sampleEvery();
        training["sample_max_new_tokens"] = t.sampleMaxNewTokens;
    }
    if (t.profile.enabled) training["profile"] = {{"wait", t.profile.wait}, {"active", t.profile.active}};
    trainerArgumentsToJson(t.trainer, training);
    json out = {{"model", model}, {"data", data}, {"training", training}, {"deepspeed", deepSpeedToJson(c.deepspeed)}};
    if (isPreferenceObjective(t.objective)) out["preference"] = preferenceToJson(t.objective, c.preference);
    return out;
}

}  // namespace fts
