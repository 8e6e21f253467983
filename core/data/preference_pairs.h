// Preference pairs (a prompt, a chosen and a rejected completion) as users have them: TRL's prompt / chosen /
// rejected (plain text or conversational, the prompt explicit or implicit in both completions), LLaMA-Factory's
// ranking datasets (Alpaca: instruction / input / chosen / rejected; ShareGPT: conversations + chosen / rejected
// messages); tokenized as TRL 1.16 tokenizes them: DPOTrainer's way (prompt and prompt + completion tokenized
// apart, the completion from where they diverge, EOS text after plain-text completions; a prompt filling
// max_length drops the pair, keep_start / keep_end cut each sequence) or CPOTrainer / ORPOTrainer's (BOS and EOS
// ids added, the completion cut so that prompt + completion fit; the prompt never cut).
// Invariant: the same files, tokenizer, options and seed give the same sequences; a bad row is counted with its
// line and never crashes (options.badRows decides whether the build stops).
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/data/record_reader.h"
#include "core/data/sft_dataset.h"

namespace fts {

class Tokenizer;

enum class PairLayout { Auto, Trl, Alpaca, ShareGpt };
enum class PairTokenization { Dpo, Cpo };  // TRL's DPOTrainer; CPOTrainer and ORPOTrainer

// "auto", "trl", "alpaca", "sharegpt"; else FormatError.
PairLayout pairLayoutFromName(const std::string& name);
std::string pairLayoutName(PairLayout layout);

struct PreferenceOptions {
    SftOptions files;  // train/eval paths, fields (with prompt/chosen/rejected names), template, max_length, split,
                       // seed, shuffle, bad rows; format and packing are not read
    PairLayout layout = PairLayout::Auto;
    PairTokenization tokenization = PairTokenization::Dpo;
    bool keepEnd = false;                    // Dpo: truncation_mode "keep_end" (else keep_start)
    std::optional<int64_t> maxPromptLength;  // Dpo, older TRL: the prompt keeps its last N tokens
    std::string promptField = "prompt", chosenField = "chosen", rejectedField = "rejected";
};

// One side of a pair as the model reads it: the prompt's tokens then the completion's.
struct PairSequence {
    std::vector<int32_t> ids;
    int64_t promptLength = 0;  // the first promptLength ids are the prompt (no loss)
    int64_t completionTokens() const { return int64_t(ids.size()) - promptLength; }
};

struct PreferencePair {
    PairSequence chosen, rejected;
    int64_t line = 0;
};

struct PreferenceStats {
    int64_t records = 0, pairs = 0, badRows = 0;
    std::vector<std::string> badRowMessages;  // the first maxBadRowsShown, "<file>:<line>: ..."
    int64_t promptTooLong = 0;                // dropped: the prompt alone fills max_length (TRL drops them too)
    int64_t truncated = 0;                    // sequences cut to max_length
    int64_t tokens = 0;                       // training tokens, both sides
    double meanTokens = 0;                    // per sequence
    int64_t maxTokens = 0;
    bool conversational = false;  // rendered with a chat template
    std::string layout, chatTemplate;
};
nlohmann::json preferenceStatsToJson(const PreferenceStats& s);

struct PreferenceData {
    std::vector<PreferencePair> train, eval;
    PreferenceStats stats;
};

// Reads every record of `file` for a build (this file's and unpaired_examples'): counts it in stats.records and gives
// each good one to `take` with its "<file>:<line>: " prefix; a FormatError from `take`, or a record the reader cannot
// parse, is a bad row (countBadRow).
void readPreferenceRecords(const std::filesystem::path& file, const PreferenceOptions& options, PreferenceStats& stats,
                           const std::function<void(const Record& record, const std::string& where)>& take);
// A bad row: counted, its message kept among the first maxBadRowsShown; FormatError under BadRowPolicy::Stop.
void countBadRow(const PreferenceOptions& options, PreferenceStats& stats, const std::string& message);

// Reads, renders, tokenizes, truncates, splits and shuffles. Throws FormatError (naming file:line) when badRows is
// Stop and a row is bad, or when no training pair remains.
PreferenceData buildPreferenceData(const PreferenceOptions& options, const Tokenizer& tokenizer);

// The pieces of one record under `layout` (Auto: decided by its keys), before tokenization: plain text (prompt may
// be implicit: split off the completions' common prefix as TRL's extract_prompt does) or messages. FormatError
// "<what>" for a record that is neither.
struct PairPieces {
    bool conversational = false;
    std::string prompt, chosen, rejected;                              // plain text
    std::vector<ChatMessage> promptTurns, chosenTurns, rejectedTurns;  // conversational
    PairLayout layout = PairLayout::Trl;
};
PairPieces recordPair(const nlohmann::json& record, const PreferenceOptions& options);

// The ids TRL's DPOTrainer (and KTOTrainer) give a prompt and prompt + one completion (the chosen side, or the
// rejected): plain text with the tokenizer's special tokens and the EOS text after the completion unless it ends
// with it; messages rendered with the chat template, no special tokens (the EOS id after templates whose replies end
// with it). The completion starts where the two diverge (commonPrefixLength).
struct DpoTokens {
    std::vector<int32_t> prompt, full;
};
DpoTokens dpoTokens(const PairPieces& pieces, bool chosenSide, const Tokenizer& tokenizer, ChatTemplateKind kind);
size_t commonPrefixLength(const std::vector<int32_t>& a, const std::vector<int32_t>& b);

}  // namespace fts
