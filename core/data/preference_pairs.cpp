// Preference pairs: reading the layouts, TRL 1.16's two tokenizations, the split (see preference_pairs.h).
#include "core/data/preference_pairs.h"

#include <algorithm>

#include "core/data/record_reader.h"
#include "core/data/sft_layout.h"
#include "core/data/tokenizer.h"
#include "core/util/error.h"

namespace fts {

using nlohmann::json;

namespace {

// A list of {role, content} messages (TRL's conversational rows) or one {from, value} / {role, content} object
// (LLaMA-Factory's ShareGPT chosen / rejected), as ChatMessages.
std::vector<ChatMessage> turns(const json& value, const std::string& key, const SampleFields& fields) {
    if (value.is_array()) {
        if (value.empty()) throw FormatError("field '" + key + "' is an empty list of messages");
        const bool share = value[0].is_object() && value[0].contains("from");
        SampleFields f = fields;
        f.messages = "turns";
        return recordMessages(json{{"turns", value}}, share ? SampleFormat::ShareGpt : SampleFormat::Messages, f);
    }
    if (value.is_object()) return turns(json::array({value}), key, fields);
    throw FormatError("field '" + key + "' must be a string, a message or a list of messages, found " +
                      std::string(value.type_name()));
}

// TRL's extract_prompt for strings: the completions' common prefix, one space backed off when the prefix ends
// right after one (so " blue" / " green" keep their space).
void splitImplicitPrompt(PairPieces& p) {
    const std::string& c = p.chosen;
    const std::string& r = p.rejected;
    size_t i = 0;
    while (i < c.size() && i < r.size() && c[i] == r[i]) ++i;
    if (i > 0 && c[i - 1] == ' ') --i;
    p.prompt = c.substr(0, i);
    p.chosen = c.substr(i);
    p.rejected = r.substr(i);
}

// The same for messages: the common leading turns.
void splitImplicitTurns(PairPieces& p) {
    size_t i = 0;
    auto same = [](const ChatMessage& a, const ChatMessage& b) { return a.role == b.role && a.content == b.content; };
    while (i < p.chosenTurns.size() && i < p.rejectedTurns.size() && same(p.chosenTurns[i], p.rejectedTurns[i])) ++i;
    p.promptTurns.assign(p.chosenTurns.begin(), p.chosenTurns.begin() + std::ptrdiff_t(i));
    p.chosenTurns.erase(p.chosenTurns.begin(), p.chosenTurns.begin() + std::ptrdiff_t(i));
    p.rejectedTurns.erase(p.rejectedTurns.begin(), p.rejectedTurns.begin() + std::ptrdiff_t(i));
}

size_t commonPrefix(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
    size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    return i;
}

std::string joined(const std::vector<RenderedSegment>& segments) {
    std::string out;
    for (const RenderedSegment& s : segments) out += s.text;
    return out;
}

std::vector<ChatMessage> concat(const std::vector<ChatMessage>& a, const std::vector<ChatMessage>& b) {
    std::vector<ChatMessage> out = a;
    out.insert(out.end(), b.begin(), b.end());
    return out;
}

// Templates whose replies end with the tokenizer's EOS id rather than text (chat_template.h).
bool endsRepliesWithEosId(ChatTemplateKind kind) {
    return kind == ChatTemplateKind::Alpaca || kind == ChatTemplateKind::None;
}

struct Tokenized {
    PairSequence chosen, rejected;
    bool promptTooLong = false;
    int64_t truncated = 0;
};

// DPOTrainer (TRL 1.16 dpo_trainer.py _prepare_dataset + DataCollatorForPreference): prompt and prompt + completion
// tokenized apart, the completion from where they diverge; each sequence cut to max_length from the kept end.
Tokenized tokenizeDpo(const PairPieces& p, const PreferenceOptions& o, const Tokenizer& tok, ChatTemplateKind kind) {
    const DpoTokens chosenSide = dpoTokens(p, true, tok, kind), rejectedSide = dpoTokens(p, false, tok, kind);
    const std::vector<int32_t>& prompt = chosenSide.prompt;
    const std::vector<int32_t>& withChosen = chosenSide.full;
    const std::vector<int32_t>& withRejected = rejectedSide.full;
    const size_t promptLen =
        std::min({prompt.size(), commonPrefix(prompt, withChosen), commonPrefix(prompt, withRejected)});
    Tokenized out;
    auto side = [&](const std::vector<int32_t>& full) {
        PairSequence s;
        size_t begin = 0;
        if (o.maxPromptLength && promptLen > size_t(*o.maxPromptLength))
            begin = promptLen - size_t(*o.maxPromptLength);  // older TRL: the prompt's end is kept
        s.ids.assign(full.begin() + std::ptrdiff_t(begin), full.end());
        s.promptLength = int64_t(promptLen - begin);
        return s;
    };
    out.chosen = side(withChosen);
    out.rejected = side(withRejected);
    const int64_t maxLength = o.files.maxLength;
    if (!o.keepEnd && out.chosen.promptLength >= maxLength) {
        out.promptTooLong = true;
        return out;
    }
    for (PairSequence* s : {&out.chosen, &out.rejected}) {
        if (int64_t(s->ids.size()) <= maxLength) continue;
        ++out.truncated;
        if (o.keepEnd) {
            const int64_t cut = int64_t(s->ids.size()) - maxLength;
            s->ids.erase(s->ids.begin(), s->ids.begin() + cut);
            s->promptLength = std::max<int64_t>(0, s->promptLength - cut);
        } else {
            s->ids.resize(size_t(maxLength));
        }
    }
    return out;
}

// CPOTrainer / ORPOTrainer (TRL 1.16 experimental cpo_trainer.py tokenize_row): conversational pieces rendered to
// text first, each answer tokenized after the prompt (a merged last prompt token moves to the answer), BOS before
// the prompt and EOS after the answer when not there, the answer cut so that prompt + answer fit max_length.
Tokenized tokenizeCpo(const PairPieces& p, const PreferenceOptions& o, const Tokenizer& tok, ChatTemplateKind kind) {
    std::string prompt = p.prompt, chosen = p.chosen, rejected = p.rejected;
    if (p.conversational) {
        prompt = renderGenerationPrompt(kind, p.promptTurns);
        const std::string withChosen = joined(renderChat(kind, concat(p.promptTurns, p.chosenTurns)));
        const std::string withRejected = joined(renderChat(kind, concat(p.promptTurns, p.rejectedTurns)));
        size_t n = 0;  // the prompt as the common text prefix of the three
        while (n < prompt.size() && n < withChosen.size() && n < withRejected.size() && prompt[n] == withChosen[n] &&
               prompt[n] == withRejected[n])
            ++n;
        prompt.resize(n);
        chosen = withChosen.substr(n);
        rejected = withRejected.substr(n);
    }
    const std::vector<int32_t> promptIds = tok.encode(prompt, false);
    auto answer = [&](const std::string& text) {
        const std::vector<int32_t> full = tok.encode(prompt + text, false);
        size_t start = std::min(promptIds.size(), full.size());
        if (start > 0 && (start < promptIds.size() ||
                          !std::equal(promptIds.begin(), promptIds.begin() + std::ptrdiff_t(start), full.begin())))
            start -= 1;
        PairSequence s;
        s.ids = full;
        s.promptLength = int64_t(start);
        return s;
    };
    Tokenized out;
    out.chosen = answer(chosen);
    out.rejected = answer(rejected);
    for (PairSequence* s : {&out.chosen, &out.rejected}) {
        const std::optional<int32_t> bos = tok.bosTokenId(), eos = tok.eosTokenId();
        if (bos && (s->promptLength == 0 || s->ids[0] != *bos)) {
            s->ids.insert(s->ids.begin(), *bos);
            s->promptLength += 1;
        }
        if (eos && (s->completionTokens() == 0 || s->ids.back() != *eos)) s->ids.push_back(*eos);
        const int64_t maxLength = o.files.maxLength;
        if (int64_t(s->ids.size()) > maxLength) {
            ++out.truncated;
            s->ids.resize(size_t(std::max(s->promptLength, maxLength)));
        }
    }
    return out;
}

}  // namespace

PairLayout pairLayoutFromName(const std::string& name) {
    if (name == "auto") return PairLayout::Auto;
    if (name == "trl") return PairLayout::Trl;
    if (name == "alpaca") return PairLayout::Alpaca;
    if (name == "sharegpt") return PairLayout::ShareGpt;
    throw FormatError("unknown preference data layout \"" + name + "\" (expected auto, trl, alpaca or sharegpt)");
}

std::string pairLayoutName(PairLayout layout) {
    switch (layout) {
        case PairLayout::Trl:
            return "trl";
        case PairLayout::Alpaca:
            return "alpaca";
        case PairLayout::ShareGpt:
            return "sharegpt";
        case PairLayout::Auto:
            break;
    }
    return "auto";
}

DpoTokens dpoTokens(const PairPieces& p, bool chosenSide, const Tokenizer& tok, ChatTemplateKind kind) {
    DpoTokens out;
    if (p.conversational) {
        out.prompt = tok.encode(renderGenerationPrompt(kind, p.promptTurns), false);
        out.full = tok.encode(
            joined(renderChat(kind, concat(p.promptTurns, chosenSide ? p.chosenTurns : p.rejectedTurns))), false);
        if (endsRepliesWithEosId(kind) && tok.eosTokenId()) out.full.push_back(*tok.eosTokenId());
        return out;
    }
    // plain text: the EOS text after a completion that does not end with it
    const std::string eos = tok.eosTokenId() ? tok.idToToken(*tok.eosTokenId()) : std::string();
    const std::string& completion = chosenSide ? p.chosen : p.rejected;
    const bool endsWithEos = !eos.empty() && completion.size() >= eos.size() &&
                             completion.compare(completion.size() - eos.size(), eos.size(), eos) == 0;
    out.prompt = tok.encode(p.prompt, true);
    out.full = tok.encode(p.prompt + completion + (eos.empty() || endsWithEos ? std::string() : eos), true);
    return out;
}

size_t commonPrefixLength(const std::vector<int32_t>& a, const std::vector<int32_t>& b) { return commonPrefix(a, b); }

PairPieces recordPair(const json& record, const PreferenceOptions& o) {
    const SampleFields& f = o.files.fields;
    PairLayout layout = o.layout;
    const std::string conversations = f.messages.empty() ? "conversations" : f.messages;
    if (!record.contains(o.chosenField) || !record.contains(o.rejectedField))
        throw FormatError("missing field '" +
                          std::string(record.contains(o.chosenField) ? o.rejectedField : o.chosenField) +
                          "' (a preference row needs '" + o.chosenField + "' and '" + o.rejectedField + "')");
    if (layout == PairLayout::Auto)
        layout = record.contains(conversations)   ? PairLayout::ShareGpt
                 : record.contains(f.instruction) ? PairLayout::Alpaca
                                                  : PairLayout::Trl;
    PairPieces p;
    p.layout = layout;
    const json& chosen = record[o.chosenField];
    const json& rejected = record[o.rejectedField];
    switch (layout) {
        case PairLayout::Trl: {
            const json* prompt = record.contains(o.promptField) ? &record[o.promptField] : nullptr;
            if (chosen.is_string() && rejected.is_string()) {
                p.chosen = chosen.get<std::string>();
                p.rejected = rejected.get<std::string>();
                if (prompt) {
                    if (!prompt->is_string())
                        throw FormatError("field '" + o.promptField + "' must be a string like '" + o.chosenField +
                                          "', found " + prompt->type_name());
                    p.prompt = prompt->get<std::string>();
                } else {
                    splitImplicitPrompt(p);
                }
            } else {
                p.conversational = true;
                p.chosenTurns = turns(chosen, o.chosenField, f);
                p.rejectedTurns = turns(rejected, o.rejectedField, f);
                if (prompt)
                    p.promptTurns = turns(*prompt, o.promptField, f);
                else
                    splitImplicitTurns(p);
            }
            break;
        }
        case PairLayout::Alpaca: {  // LLaMA-Factory: instruction + "\n" + input as the user turn
            p.conversational = true;
            if (record.contains(f.system) && record[f.system].is_string() &&
                !record[f.system].get<std::string>().empty())
                p.promptTurns.push_back({"system", record[f.system].get<std::string>(), {}});
            if (auto h = record.find("history"); h != record.end() && h->is_array())
                for (const json& pair : *h) {
                    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string())
                        throw FormatError("field 'history' must be a list of [query, response] string pairs");
                    p.promptTurns.push_back({"user", pair[0].get<std::string>(), {}});
                    p.promptTurns.push_back({"assistant", pair[1].get<std::string>(), {}});
                }
            std::string query = requireString(record, f.instruction.c_str(), "");
            if (auto in = record.find(f.input);
                in != record.end() && in->is_string() && !in->get<std::string>().empty())
                query += "\n" + in->get<std::string>();
            p.promptTurns.push_back({"user", query, {}});
            if (!chosen.is_string() || !rejected.is_string())
                throw FormatError("fields '" + o.chosenField + "' and '" + o.rejectedField +
                                  "' must be strings in the alpaca layout");
            p.chosenTurns = {{"assistant", chosen.get<std::string>(), {}}};
            p.rejectedTurns = {{"assistant", rejected.get<std::string>(), {}}};
            break;
        }
        case PairLayout::ShareGpt: {
            p.conversational = true;
            SampleFields sf = f;
            sf.messages = conversations;
            p.promptTurns = recordMessages(record, SampleFormat::ShareGpt, sf);
            p.chosenTurns = turns(chosen, o.chosenField, f);
            p.rejectedTurns = turns(rejected, o.rejectedField, f);
            break;
        }
        case PairLayout::Auto:
            break;
    }
    if (p.conversational) {
        if (p.promptTurns.empty()) throw FormatError("the pair has no prompt (chosen and rejected share no turn)");
        for (const auto* side : {&p.chosenTurns, &p.rejectedTurns})
            if (side->empty() || side->back().role != "assistant")
                throw FormatError("a completion must end with an assistant message");
    }
    if ((p.conversational ? p.chosenTurns.back().content : p.chosen).empty() ||
        (p.conversational ? p.rejectedTurns.back().content : p.rejected).empty())
        throw FormatError("an empty completion ('" + std::string(p.chosen.empty() ? o.chosenField : o.rejectedField) +
                          "')");
    return p;
}

nlohmann::json preferenceStatsToJson(const PreferenceStats& s) {
    json bad = json::array();
    for (const auto& m : s.badRowMessages) bad.push_back(m);
    return {{"records", s.records},
            {"pairs", s.pairs},
            {"bad_rows", s.badRows},
            {"bad_row_messages", bad},
            {"prompt_too_long", s.promptTooLong},
            {"truncated", s.truncated},
            {"tokens", s.tokens},
            {"mean_tokens", s.meanTokens},
            {"max_tokens", s.maxTokens},
            {"conversational", s.conversational},
            {"layout", s.layout},
            {"template", s.chatTemplate}};
}

namespace {
// data.on_bad_row "stop": what ends the build (not a bad row of its own when it passes through a reader callback).
struct StopAtBadRow : FormatError {
    using FormatError::FormatError;
};
}  // namespace

void countBadRow(const PreferenceOptions& o, PreferenceStats& st, const std::string& message) {
    ++st.badRows;
    if (int64_t(st.badRowMessages.size()) < o.files.maxBadRowsShown) st.badRowMessages.push_back(message);
    if (o.files.badRows == BadRowPolicy::Stop)
        throw StopAtBadRow(message + " (data.on_bad_row is \"stop\"; set it to \"skip\" to skip bad rows)");
}

void readPreferenceRecords(const std::filesystem::path& file, const PreferenceOptions& o, PreferenceStats& st,
                           const std::function<void(const Record&, const std::string&)>& take) {
    RecordReader reader(file);
    Record rec;
    BadRow row;
    for (;;) {
        const RecordReader::Status status = reader.next(rec, row);
        if (status == RecordReader::Status::End) break;
        ++st.records;
        if (status == RecordReader::Status::Bad) {
            countBadRow(o, st, row.message);
            continue;
        }
        const std::string where = file.string() + ":" + std::to_string(rec.line) + ": ";
        try {
            take(rec, where);
        } catch (const StopAtBadRow&) {
            throw;
        } catch (const FormatError& e) {
            countBadRow(o, st, where + e.what());
        }
    }
}

PreferenceData buildPreferenceData(const PreferenceOptions& o, const Tokenizer& tok) {
    if (o.files.maxLength < 2) throw FormatError("data.max_length must be at least 2");
    const ChatTemplateKind kind = resolveChatTemplate(o.files.chatTemplate, o.files.modelDir);
    PreferenceData out;
    PreferenceStats& st = out.stats;
    st.chatTemplate = chatTemplateName(kind);
    std::vector<PairLayout> layouts;
    auto readFile = [&](const std::filesystem::path& file, std::vector<PreferencePair>& into) {
        readPreferenceRecords(file, o, st, [&](const Record& rec, const std::string&) {
            const PairPieces p = recordPair(rec.value, o);
            st.conversational = st.conversational || p.conversational;
            if (std::find(layouts.begin(), layouts.end(), p.layout) == layouts.end()) layouts.push_back(p.layout);
            Tokenized t =
                o.tokenization == PairTokenization::Dpo ? tokenizeDpo(p, o, tok, kind) : tokenizeCpo(p, o, tok, kind);
            if (t.promptTooLong) {  // TRL drops these (keep_start leaves no completion token)
                ++st.promptTooLong;
                throw FormatError("the prompt alone is " + std::to_string(t.chosen.promptLength) +
                                  " tokens, data.max_length " + std::to_string(o.files.maxLength) +
                                  " leaves no completion token (raise max_length, or set "
                                  "preference.max_prompt_length)");
            }
            if (t.chosen.completionTokens() <= 0 || t.rejected.completionTokens() <= 0)
                throw FormatError("no completion token left after tokenization and truncation");
            st.truncated += t.truncated;
            into.push_back({std::move(t.chosen), std::move(t.rejected), rec.line});
        });
    };
    std::vector<PreferencePair> all, evalFile;
    readFile(o.files.trainPath, all);
    if (!o.files.evalPath.empty()) readFile(o.files.evalPath, evalFile);
    const SftPlan plan = planSftSplit(o.files, int64_t(all.size()), int64_t(evalFile.size()));
    for (int64_t i : plan.train) out.train.push_back(all[size_t(i)]);
    if (o.files.evalPath.empty())
        for (int64_t i : plan.eval) out.eval.push_back(all[size_t(i)]);
    else
        out.eval = std::move(evalFile);
    if (out.train.empty())
        throw FormatError(o.files.trainPath.string() + ": no preference pair to train on (" +
                          std::to_string(st.records) + " record(s), " + std::to_string(st.badRows) + " bad)");
    st.pairs = int64_t(out.train.size() + out.eval.size());
    for (const auto* split : {&out.train, &out.eval})
        for (const PreferencePair& p : *split)
            for (const PairSequence* s : {&p.chosen, &p.rejected}) {
                st.tokens += int64_t(s->ids.size());
                st.maxTokens = std::max<int64_t>(st.maxTokens, int64_t(s->ids.size()));
            }
    st.meanTokens = st.pairs > 0 ? double(st.tokens) / double(2 * st.pairs) : 0.0;
    for (PairLayout l : layouts) st.layout += (st.layout.empty() ? "" : "+") + pairLayoutName(l);
    return out;
}

}  // namespace fts
