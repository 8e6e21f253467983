// KTO's unpaired examples: reading, unpairing, tokenization, the KL sequences (see unpaired_examples.h).
#include "core/data/unpaired_examples.h"

#include <algorithm>

#include "core/data/sft_layout.h"
#include "core/data/tokenizer.h"
#include "core/util/error.h"

namespace fts {

using nlohmann::json;

namespace {

// One example before tokenization: the completion rides in the pieces' chosen side.
struct Piece {
    PairPieces pieces;
    bool desirable = true;
    int64_t line = 0;
};

// The label of a row: a JSON boolean, or (CSV) "true" / "false" / 1 / 0.
bool labelOf(const json& v) {
    if (v.is_boolean()) return v.get<bool>();
    if (v.is_number_integer() && (v.get<int64_t>() == 0 || v.get<int64_t>() == 1)) return v.get<int64_t>() == 1;
    if (v.is_string()) {
        const std::string s = v.get<std::string>();
        if (s == "true" || s == "True" || s == "1") return true;
        if (s == "false" || s == "False" || s == "0") return false;
    }
    throw FormatError("field 'label' must be true or false, found " + v.dump());
}

// A prompt / completion / label row.
Piece unpairedRow(const json& record, const PreferenceOptions& o) {
    Piece out;
    const auto prompt = record.find(o.promptField);
    const auto completion = record.find("completion");
    if (prompt == record.end()) throw FormatError("missing field '" + o.promptField + "'");
    if (completion == record.end()) throw FormatError("missing field 'completion'");
    const auto label = record.find("label");
    if (label == record.end()) throw FormatError("missing field 'label' (true: desirable, false: undesirable)");
    out.desirable = labelOf(*label);
    PairPieces& p = out.pieces;
    if (prompt->is_string() && completion->is_string()) {
        p.prompt = prompt->get<std::string>();
        p.chosen = completion->get<std::string>();
        if (p.chosen.empty()) throw FormatError("an empty completion");
        return out;
    }
    // conversational: both as message lists (a row carries both chosen and rejected fields of recordPair's reading)
    json asPair = {{o.promptField, *prompt}, {o.chosenField, *completion}, {o.rejectedField, *completion}};
    PreferenceOptions trl = o;
    trl.layout = PairLayout::Trl;
    p = recordPair(asPair, trl);
    return out;
}

}  // namespace

UnpairedData buildUnpairedData(const PreferenceOptions& o, const Tokenizer& tok, int64_t klChunk) {
    if (o.files.maxLength < 2) throw FormatError("data.max_length must be at least 2");
    if (klChunk < 1) throw FormatError("KTO's KL sequences need a micro-batch of at least 1");
    const ChatTemplateKind kind = resolveChatTemplate(o.files.chatTemplate, o.files.modelDir);
    UnpairedData out;
    PreferenceStats& st = out.stats;
    st.chatTemplate = chatTemplateName(kind);
    struct Tokenized {
        PairSequence sequence;
        std::vector<int32_t> prompt, completion;  // untruncated, for the KL sequences
        bool desirable = true;
        int64_t line = 0;
    };
    auto readFile = [&](const std::filesystem::path& file, std::vector<Tokenized>& into) {
        std::vector<Piece> chosen, rejected;  // paired rows of the current chunk of 1000, unpaired at its end
        int64_t pairedRows = 0;
        // One example tokenized into `into`; what makes it a bad row, or "" when it is kept.
        auto take = [&](const Piece& piece) -> std::string {
            const DpoTokens t = dpoTokens(piece.pieces, true, tok, kind);
            const size_t promptLen = std::min(t.prompt.size(), commonPrefixLength(t.prompt, t.full));
            if (int64_t(promptLen) >= o.files.maxLength) {
                ++st.promptTooLong;
                return "the prompt alone is " + std::to_string(promptLen) + " tokens, data.max_length " +
                       std::to_string(o.files.maxLength) + " leaves no completion token";
            }
            if (promptLen == t.full.size()) return "no completion token left after tokenization";
            Tokenized x;
            x.prompt.assign(t.full.begin(), t.full.begin() + std::ptrdiff_t(promptLen));
            x.completion.assign(t.full.begin() + std::ptrdiff_t(promptLen), t.full.end());
            x.sequence.ids = t.full;
            x.sequence.promptLength = int64_t(promptLen);
            if (int64_t(x.sequence.ids.size()) > o.files.maxLength) {
                x.sequence.ids.resize(size_t(o.files.maxLength));
                ++st.truncated;
            }
            x.desirable = piece.desirable;
            x.line = piece.line;
            st.conversational = st.conversational || piece.pieces.conversational;
            into.push_back(std::move(x));
            return {};
        };
        auto flushPairs = [&] {  // TRL's unpair_preference_dataset: a chunk's chosen, then its rejected
            for (const auto* side : {&chosen, &rejected})
                for (const Piece& p : *side)
                    if (const std::string why = take(p); !why.empty())
                        countBadRow(o, st, file.string() + ":" + std::to_string(p.line) + ": " + why);
            chosen.clear();
            rejected.clear();
        };
        readPreferenceRecords(file, o, st, [&](const Record& rec, const std::string&) {
            if (rec.value.contains("label") || rec.value.contains("completion")) {
                Piece p = unpairedRow(rec.value, o);
                p.line = rec.line;
                if (const std::string why = take(p); !why.empty()) throw FormatError(why);
                return;
            }
            const PairPieces pair = recordPair(rec.value, o);
            Piece c{pair, true, rec.line}, r{pair, false, rec.line};
            r.pieces.chosen = pair.rejected;  // the rejected completion in the chosen side's place
            r.pieces.chosenTurns = pair.rejectedTurns;
            chosen.push_back(std::move(c));
            rejected.push_back(std::move(r));
            if (++pairedRows % 1000 == 0) flushPairs();
        });
        flushPairs();
    };
    std::vector<Tokenized> all, evalFile;
    readFile(o.files.trainPath, all);
    if (!o.files.evalPath.empty()) readFile(o.files.evalPath, evalFile);
    const SftPlan plan = planSftSplit(o.files, int64_t(all.size()), int64_t(evalFile.size()));
    std::vector<const Tokenized*> train, eval;
    for (int64_t i : plan.train) train.push_back(&all[size_t(i)]);
    if (o.files.evalPath.empty())
        for (int64_t i : plan.eval) eval.push_back(&all[size_t(i)]);
    else
        for (const Tokenized& x : evalFile) eval.push_back(&x);
    if (train.empty())
        throw FormatError(o.files.trainPath.string() + ": no KTO example to train on (" + std::to_string(st.records) +
                          " record(s), " + std::to_string(st.badRows) + " bad)");
    // Each example's KL sequence: its prompt, then the completion of the example before it in its chunk.
    auto build = [&](const std::vector<const Tokenized*>& split, std::vector<UnpairedExample>& into) {
        for (size_t begin = 0; begin < split.size(); begin += size_t(klChunk)) {
            const size_t end = std::min(split.size(), begin + size_t(klChunk));
            for (size_t i = begin; i < end; ++i) {
                const Tokenized& x = *split[i];
                const Tokenized& before = *split[i == begin ? end - 1 : i - 1];
                UnpairedExample e;
                e.sequence = x.sequence;
                e.kl.ids = x.prompt;
                e.kl.ids.insert(e.kl.ids.end(), before.completion.begin(), before.completion.end());
                e.kl.promptLength = int64_t(x.prompt.size());
                if (int64_t(e.kl.ids.size()) > o.files.maxLength) e.kl.ids.resize(size_t(o.files.maxLength));
                e.desirable = x.desirable;
                e.line = x.line;
                (x.desirable ? out.desirable : out.undesirable) += 1;
                into.push_back(std::move(e));
            }
        }
    };
    build(train, out.train);
    build(eval, out.eval);
    st.pairs = int64_t(out.train.size() + out.eval.size());
    for (const auto* split : {&out.train, &out.eval})
        for (const UnpairedExample& e : *split) {
            st.tokens += int64_t(e.sequence.ids.size());
            st.maxTokens = std::max<int64_t>(st.maxTokens, int64_t(e.sequence.ids.size()));
        }
    st.meanTokens = st.pairs > 0 ? double(st.tokens) / double(st.pairs) : 0.0;
    st.layout = "kto";
    return out;
}

}  // namespace fts
