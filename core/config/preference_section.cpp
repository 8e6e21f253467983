// The "preference" section: TRL 1.16's names and defaults for DPO, ORPO and SimPO (CPOConfig with loss_type
// "simpo"), so that the keys of a TRL script or a LLaMA-Factory recipe's pref_* values read as they are.
#include "core/config/preference_section.h"

#include <algorithm>
#include <limits>

#include "core/config/issue_kinds.h"

namespace fts::config_detail {

namespace {

const char* kSection = "preference";  // (named apart from other sections' helpers: unity builds)

std::string sectionKey(const std::string& name) { return std::string(kSection) + "." + name; }

// DPO's loss types (TRL 1.16's list).
const std::vector<std::string> kDpoLossTypes = {"sigmoid",  "hinge",    "ipo",       "robust", "exo_pair",
                                                "nca_pair", "bco_pair", "sppo_hard", "aot",    "aot_unpaired",
                                                "apo_zero", "apo_down", "discopop",  "sft",    "sigmoid_norm"};

// The keys each objective reads (beta: all three).
const std::vector<std::string>& keysOf(const std::string& objective) {
    static const std::vector<std::string> dpo = {
        "beta",         "disable_dropout", "loss_type",       "loss_weights",      "label_smoothing",
        "discopop_tau", "rpo_alpha",       "truncation_mode", "max_prompt_length", "precompute_ref_log_probs",
        "ref_model"};
    static const std::vector<std::string> simpo = {"beta", "disable_dropout", "simpo_gamma", "cpo_alpha",
                                                   "label_smoothing"};
    static const std::vector<std::string> orpo = {"beta", "disable_dropout"};
    static const std::vector<std::string> kto = {"beta",
                                                 "disable_dropout",
                                                 "loss_type",
                                                 "desirable_weight",
                                                 "undesirable_weight",
                                                 "precompute_ref_log_probs",
                                                 "ref_model"};
    return objective == "dpo" ? dpo : objective == "simpo" ? simpo : objective == "kto" ? kto : orpo;
}

// TRL keys with no counterpart here: refused by name rather than ignored.
const std::vector<std::pair<std::string, std::string>> kRefused = {
    {"ld_alpha", "LD-DPO's length weighting is not built"},
    {"use_weighting", "WPO's weighting is not built"},
    {"f_divergence_type", "only the reverse KL of standard DPO is built"},
    {"sync_ref_model", "TR-DPO's reference updates are not built"},
    {"alpha", "AlphaPO's reward shape is not built"},
    {"padding_free", "preference pairs are padded, as TRL 1.16 does"},
    {"max_completion_length", "removed in TRL 1.16; data.max_length bounds prompt + completion"},
};

}  // namespace

bool isPreferenceObjective(const std::string& objective) {
    return objective == "dpo" || objective == "orpo" || objective == "simpo" || objective == "kto";
}

namespace {

// The section's keys as the objective reads them: a key of another objective is warned about and skipped.
struct PreferenceKeys {
    const json& v;
    const std::string& objective;
    const std::vector<std::string>& mine;  // keysOf(objective)
    IssueList& issues;

    const json* wanted(const char* name) const {
        const json* f = findField(v, name);
        if (!f || f->is_null()) return nullptr;
        if (std::find(mine.begin(), mine.end(), name) == mine.end()) {
            issues.warning(sectionKey(name), "ignored: training.objective \"" + objective + "\" does not use it");
            return nullptr;
        }
        return f;
    }
};

constexpr double kMax = std::numeric_limits<double>::max();

// loss_type (one name or a list; KTO takes one of its own), loss_weights (one per type), and rpo_alpha (the "sft"
// term's weight, DPOConfig's name before TRL 1.16).
void parseLossTypes(const PreferenceKeys& keys, PreferenceSection& out) {
    IssueList& issues = keys.issues;
    const std::string& objective = keys.objective;
    static const std::vector<std::string> kKtoLossTypes = {"kto", "apo_zero_unpaired"};
    const std::vector<std::string>& lossTypes = objective == "kto" ? kKtoLossTypes : kDpoLossTypes;
    auto wanted = [&](const char* name) { return keys.wanted(name); };
    if (const json* f = wanted("loss_type")) {
        std::vector<std::string> names;
        if (f->is_string()) {
            names.push_back(f->get<std::string>());
        } else if (f->is_array() && !f->empty()) {
            for (size_t i = 0; i < f->size(); ++i)
                if (auto s = readString(issues, (*f)[i], sectionKey("loss_type") + "[" + std::to_string(i) + "]"))
                    names.push_back(*s);
        } else {
            issues.error(sectionKey("loss_type"),
                         expectedMessage("a loss type name or a non-empty list of them", describeValue(*f)));
        }
        bool ok = !names.empty();
        for (const std::string& n : names)
            if (std::find(lossTypes.begin(), lossTypes.end(), n) == lossTypes.end()) {
                ok = false;
                issues.error(sectionKey("loss_type"),
                             "expected one of " + joinNames(lossTypes) + ", got \"" + n + "\"");
            }
        if (ok && objective == "kto" && names.size() != 1) {
            ok = false;
            issues.error(sectionKey("loss_type"), "KTO takes one loss type, \"kto\" or \"apo_zero_unpaired\"");
        }
        if (ok) out.lossTypes = names;
    }
    if (const json* f = wanted("loss_weights")) {
        if (!f->is_array()) {
            issues.error(sectionKey("loss_weights"),
                         expectedMessage("a list of numbers, one per loss type", describeValue(*f)));
        } else {
            out.lossWeights.clear();
            for (size_t i = 0; i < f->size(); ++i)
                if (auto n = readNumber(issues, (*f)[i], sectionKey("loss_weights") + "[" + std::to_string(i) + "]",
                                        0.0, kMax, "a number >= 0"))
                    out.lossWeights.push_back(*n);
        }
    }
    if (const json* f = wanted("rpo_alpha"))  // DPOConfig's rpo_alpha before TRL 1.16: the "sft" term's weight
        if (auto n = readNumber(issues, *f, sectionKey("rpo_alpha"), 0.0, kMax, "a number >= 0")) {
            if (std::find(out.lossTypes.begin(), out.lossTypes.end(), "sft") != out.lossTypes.end())
                issues.error(sectionKey("rpo_alpha"),
                             "given together with \"sft\" in preference.loss_type; remove one");
            else if (*n > 0) {
                if (out.lossWeights.empty()) out.lossWeights.assign(out.lossTypes.size(), 1.0);
                out.lossTypes.push_back("sft");
                out.lossWeights.push_back(*n);
            }
        }
    if (!out.lossWeights.empty() && out.lossWeights.size() != out.lossTypes.size())
        issues.error(sectionKey("loss_weights"), "has " + std::to_string(out.lossWeights.size()) + " weight(s) for " +
                                                     std::to_string(out.lossTypes.size()) +
                                                     " loss type(s); expected one per entry of preference.loss_type");
}

// label_smoothing: DPO's robust and exo_pair read it (TRL's rules for its range); elsewhere it has no effect.
void checkLabelSmoothing(const std::string& objective, const PreferenceSection& out, IssueList& issues) {
    if (objective != "dpo") return;
    const bool needsSmoothing =
        std::find(out.lossTypes.begin(), out.lossTypes.end(), "exo_pair") != out.lossTypes.end();
    const bool robust = std::find(out.lossTypes.begin(), out.lossTypes.end(), "robust") != out.lossTypes.end();
    if (needsSmoothing && out.labelSmoothing <= 0)
        issues.error(sectionKey("label_smoothing"),
                     "loss type \"exo_pair\" needs a label_smoothing above 0 (TRL's rule)");
    if (robust && out.labelSmoothing >= 0.5)
        issues.error(sectionKey("label_smoothing"), "loss type \"robust\" needs a label_smoothing in [0, 0.5)");
    const bool used = needsSmoothing || robust;
    if (!used && out.labelSmoothing > 0)
        issues.warning(sectionKey("label_smoothing"),
                       "no effect on these loss types (TRL 1.16 applies it to robust and exo_pair only)");
}

}  // namespace

void parsePreference(const json& v, const std::string& objective, const std::filesystem::path& baseDir,
                     IssueList& issues, PreferenceSection& out) {
    if (!v.is_object()) {
        issues.error(kSection, expectedMessage("an object {...}", describeValue(v)));
        return;
    }
    if (!isPreferenceObjective(objective)) {
        issues.warning(kSection, "ignored: training.objective is \"" + objective +
                                     "\"; the section sets \"dpo\", \"orpo\", \"simpo\" and \"kto\"");
        return;
    }
    const std::vector<std::string>& mine = keysOf(objective);
    const PreferenceKeys keys{v, objective, mine, issues};
    auto wanted = [&](const char* name) { return keys.wanted(name); };
    if (const json* f = wanted("beta"))
        if (auto n = readNumber(issues, *f, sectionKey("beta"), 0.0, kMax, "a number > 0")) {
            if (*n > 0)
                out.beta = *n;
            else
                issues.error(sectionKey("beta"), expectedMessage("a number > 0", describeValue(*f)));
        }
    parseLossTypes(keys, out);
    if (const json* f = wanted("label_smoothing"))
        if (auto n = readNumber(issues, *f, sectionKey("label_smoothing"), 0.0, 0.5, "a number in [0, 0.5]"))
            out.labelSmoothing = *n;
    checkLabelSmoothing(objective, out, issues);
    for (const auto& [name, field] :
         {std::pair{"desirable_weight", &out.desirableWeight}, std::pair{"undesirable_weight", &out.undesirableWeight}})
        if (const json* f = wanted(name))
            if (auto n = readNumber(issues, *f, sectionKey(name), 0.0, kMax, "a number >= 0")) *field = *n;
    if (const json* f = wanted("simpo_gamma"))
        if (auto n = readNumber(issues, *f, sectionKey("simpo_gamma"), -kMax, kMax, "a number")) out.simpoGamma = *n;
    if (const json* f = wanted("cpo_alpha"))
        if (auto n = readNumber(issues, *f, sectionKey("cpo_alpha"), 0.0, kMax, "a number >= 0")) out.cpoAlpha = *n;
    if (const json* f = wanted("discopop_tau"))
        if (auto n = readNumber(issues, *f, sectionKey("discopop_tau"), 0.0, kMax, "a number > 0")) {
            if (*n > 0)
                out.discopopTau = *n;
            else
                issues.error(sectionKey("discopop_tau"), expectedMessage("a number > 0", describeValue(*f)));
        }
    if (const json* f = wanted("truncation_mode"))
        if (auto s = readString(issues, *f, sectionKey("truncation_mode"))) {
            if (*s == "keep_start" || *s == "keep_end")
                out.truncationMode = *s;
            else
                issues.error(sectionKey("truncation_mode"),
                             expectedMessage("\"keep_start\" or \"keep_end\"", describeValue(*f)));
        }
    if (const json* f = wanted("max_prompt_length"))
        if (auto n = readInt(issues, *f, sectionKey("max_prompt_length"), 1, std::numeric_limits<int64_t>::max(),
                             "a positive integer"))
            out.maxPromptLength = *n;
    if (const json* f = wanted("disable_dropout"))
        if (auto b = readBool(issues, *f, sectionKey("disable_dropout"))) out.disableDropout = *b;
    if (const json* f = wanted("precompute_ref_log_probs"))
        if (auto b = readBool(issues, *f, sectionKey("precompute_ref_log_probs"))) out.precomputeRefLogProbs = *b;
    if (const json* f = wanted("ref_model"))
        if (auto s = readString(issues, *f, sectionKey("ref_model"))) out.refModel = resolvePath(*s, baseDir);
    for (const auto& [name, why] : kRefused)
        if (const json* f = findField(v, name.c_str()); f && !f->is_null() && !(f->is_boolean() && !f->get<bool>()))
            issues.error(sectionKey(name), why);
    std::vector<std::string> known = mine;
    for (const char* k :
         {"beta", "disable_dropout", "loss_type", "loss_weights", "label_smoothing", "discopop_tau", "rpo_alpha",
          "truncation_mode", "max_prompt_length", "precompute_ref_log_probs", "ref_model", "simpo_gamma", "cpo_alpha"})
        known.push_back(k);
    for (const auto& r : kRefused) known.push_back(r.first);
    warnUnknownKeys(issues, v, kSection, known);
}

void checkPreferenceFits(const json& doc, TrainConfig& cfg, IssueList& issues) {
    const std::string& objective = cfg.training.objective;
    DataSection& d = cfg.data;
    const json* data = findField(doc, "data");
    const bool formatWritten = data && data->is_object() && findField(*data, "format");
    const json* columns = data && data->is_object() ? findField(*data, "columns") : nullptr;
    auto columnWritten = [&](const char* role) { return columns && columns->is_object() && findField(*columns, role); };
    if (!isPreferenceObjective(objective)) {
        for (const char* role : {"prompt", "chosen", "rejected"})
            if (columnWritten(role))
                issues.warning(std::string("data.columns.") + role,
                               "ignored: a preference column, read when training.objective is dpo, orpo, simpo or "
                               "kto");
        if (d.format == "trl")
            issues.error("data.format",
                         "\"trl\" holds preference pairs: it needs training.objective \"dpo\", "
                         "\"orpo\" or \"simpo\"");
        return;
    }
    if (!formatWritten) d.format = "auto";  // pairs are found by their columns
    if (d.format == "lm" || d.format == "classification" || d.format == "text" || d.format == "messages")
        issues.error("data.format", "training.objective \"" + objective +
                                        "\" trains on chosen/rejected pairs; expected one of auto, trl, alpaca, "
                                        "sharegpt, got \"" +
                                        d.format + "\"");
    if (d.packing)
        issues.error("data.packing",
                     "preference pairs are not packed (each pair is scored whole); set \"packing\": "
                     "false");
    if (columnWritten("output"))
        issues.warning("data.columns.output",
                       "ignored: preference rows hold their completions in chosen / rejected "
                       "(or completion) fields; rename those with data.columns");
    if (data && data->is_object() && findField(*data, "text_field"))
        issues.warning("data.text_field",
                       "ignored: preference rows are read by their prompt / chosen / rejected "
                       "(KTO: prompt / completion / label) fields");
    if (const json* model = findField(doc, "model"); model && model->is_object() && findField(*model, "chunked_loss"))
        issues.warning("model.chunked_loss",
                       "ignored: the preference objectives take the log-probs from the whole logits");
    if (objective == "dpo" && cfg.preference.discopopTau != PreferenceSection().discopopTau &&
        std::find(cfg.preference.lossTypes.begin(), cfg.preference.lossTypes.end(), "discopop") ==
            cfg.preference.lossTypes.end())
        issues.warning("preference.discopop_tau", "no effect: preference.loss_type has no \"discopop\"");
    if (data && data->is_object() && findField(*data, "cache_dir"))
        issues.warning("data.cache_dir",
                       "ignored: preference data are tokenized as the run loads them (no token cache)");
    if (d.trainOnPrompt)
        issues.warning("data.train_on_prompt",
                       "ignored: preference losses score the completions only (ORPO's NLL term covers the prompt "
                       "too, as TRL's does)");
    const PreferenceSection& p = cfg.preference;
    const bool reference = objective == "dpo" || objective == "kto";
    if (reference && p.refModel.empty() && !cfg.model.lora.initFrom.empty() && !p.precomputeRefLogProbs)
        issues.error("preference.precompute_ref_log_probs",
                     "with model.lora.init_from the reference is that adapter before training (TRL keeps a copy "
                     "named \"ref\"); set true to compute its log-probs once before the first step, or give "
                     "preference.ref_model");
    if (reference && !p.precomputeRefLogProbs && cfg.deepspeed.zeroStage == 3)
        issues.error("preference.precompute_ref_log_probs",
                     "ZeRO stage 3 needs the reference's log-probs precomputed (true) in this version: neither a "
                     "frozen copy nor a second pass inside a partitioned step is built there");
    if (reference && p.refModel.empty() && !cfg.model.lora.enabled && !p.precomputeRefLogProbs &&
        cfg.model.init == "random")
        issues.error("preference.precompute_ref_log_probs",
                     "the reference is the model's random initialisation, which cannot be loaded again; set true "
                     "(or give preference.ref_model)");
    if (objective == "kto" && p.lossTypes == std::vector<std::string>{"kto"} && cfg.deepspeed.microBatchPerGpu < 2)
        issues.error("deepspeed.train_micro_batch_size_per_gpu",
                     "KTO's KL estimate pairs each example with another of its micro-batch: expected 2 or more, got " +
                         std::to_string(cfg.deepspeed.microBatchPerGpu));
    if (reference && !p.refModel.empty() && cfg.model.lora.enabled)
        issues.warning("preference.ref_model",
                       "used as the reference instead of the base with the adapters disabled (its own copy is held)");
}

json preferenceToJson(const std::string& objective, const PreferenceSection& p) {
    json out = {{"beta", p.beta}, {"disable_dropout", p.disableDropout}};
    if (objective == "dpo") {
        out["loss_type"] = p.lossTypes.size() == 1 ? json(p.lossTypes[0]) : json(p.lossTypes);
        if (!p.lossWeights.empty()) out["loss_weights"] = p.lossWeights;
        out["label_smoothing"] = p.labelSmoothing;
        if (std::find(p.lossTypes.begin(), p.lossTypes.end(), "discopop") != p.lossTypes.end())
            out["discopop_tau"] = p.discopopTau;
        out["truncation_mode"] = p.truncationMode;
        if (p.maxPromptLength) out["max_prompt_length"] = *p.maxPromptLength;
        out["precompute_ref_log_probs"] = p.precomputeRefLogProbs;
        if (!p.refModel.empty()) out["ref_model"] = p.refModel.generic_string();
    } else if (objective == "kto") {
        out["loss_type"] = p.lossTypes.empty() ? "kto" : p.lossTypes[0];
        out["desirable_weight"] = p.desirableWeight;
        out["undesirable_weight"] = p.undesirableWeight;
        out["precompute_ref_log_probs"] = p.precomputeRefLogProbs;
        if (!p.refModel.empty()) out["ref_model"] = p.refModel.generic_string();
    } else if (objective == "simpo") {
        out["simpo_gamma"] = p.simpoGamma;
        out["cpo_alpha"] = p.cpoAlpha;
        out["label_smoothing"] = p.labelSmoothing;
    }
    return out;
}

}  // namespace fts::config_detail
