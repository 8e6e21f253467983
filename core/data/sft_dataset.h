// Instruction / chat fine-tuning data: records from any RecordReader file, interpreted as plain text,
// Alpaca (instruction/input/output), ShareGPT (conversations from/value) or OpenAI messages
// (role/content), rendered with a chat template, tokenized with labels -100 on everything but the
// assistant replies, truncated to max_length, optionally packed, split train/eval and shuffled with
// a seed. Invariants: the same files, tokenizer, options and seed give the same sequences on every
// platform; a bad row is counted with its line and never crashes (options.badRows decides whether
// the build stops); memory holds the tokenized samples, never the raw files.
//
// Packing contract for the model: a packed sequence holds several samples back to back; its
// position_ids restart at 0 at every sample start, and a token may attend only to earlier tokens of
// its own sample. sampleBoundaries() gives the cu_seqlens-style offsets (from position_ids == 0),
// which a varlen / block-diagonal causal attention consumes; without such attention, disable packing.
#pragma once
#include "core/data/chat_template.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fts {

class Tokenizer;

enum class SampleFormat { Auto, Text, Alpaca, ShareGpt, Messages };
enum class BadRowPolicy { Skip, Stop };

// "auto", "text" (also "lm", the config's pre-training format, for previews), "alpaca", "sharegpt",
// "messages" (also "openai"); else FormatError.
SampleFormat sampleFormatFromName(const std::string& name);

// Field names of a record (data.columns): which keys hold the pieces of each format.
struct SampleFields {
    std::string text = "text";
    std::string instruction = "instruction", input = "input", output = "output", system = "system";
    std::string messages;  // the conversation list; empty: "messages" (messages format) / "conversations" (sharegpt)
    std::string role;      // empty: "role" (messages) / "from" (sharegpt)
    std::string content;   // empty: "content" (messages) / "value" (sharegpt)

    std::string describe() const;  // for the cache key: every name, in a fixed order
};

struct SftOptions {
    std::filesystem::path trainPath;
    std::filesystem::path evalPath;  // empty: hold out evalFraction of the training samples
    SampleFormat format = SampleFormat::Auto;
    std::string textField = "text";     // the text format's field (SampleFields::text is ignored; this wins)
    SampleFields fields;                // names of the other fields
    std::string chatTemplate = "auto";  // auto: from modelDir (tokenizer_config.json / config.json), else chatml
    std::filesystem::path modelDir;     // for auto template detection; may be empty
    int64_t maxLength = 512;
    bool packing = true;
    bool trainOnPrompt = false;  // true: labels on every token (plain text always trains on all)
    double evalFraction = 0.0;
    uint64_t seed = 42;
    bool shuffle = true;
    BadRowPolicy badRows = BadRowPolicy::Skip;
    int64_t maxBadRowsShown = 5;
    int threads = 0;  // tokenizing threads; 0 = hardware threads, at most 8 (same result for any count)
};

// The label of a token that no loss is computed on (prompt, padding): transformers' ignore index.
inline constexpr int32_t kIgnoreLabel = -100;

// One tokenized sample before packing.
struct SftSample {
    std::vector<int32_t> inputIds;
    std::vector<int32_t> labels;  // -100 where no loss
    int64_t line = 0;
    bool truncated = false;
};

// Sequences stored back to back: sequence i is [offsets[i], offsets[i+1]) of the three arrays.
struct SftSequences {
    std::vector<int32_t> inputIds, labels, positionIds;
    std::vector<int64_t> offsets{0};

    int64_t size() const { return static_cast<int64_t>(offsets.size()) - 1; }
    int64_t length(int64_t i) const { return offsets[i + 1] - offsets[i]; }
    // cu_seqlens of sequence i: 0, end of sample 1, ..., length(i).
    std::vector<int32_t> sampleBoundaries(int64_t i) const;
    void append(const SftSample& s);  // as a sequence of its own (position ids 0..n-1)
};

struct SftStats {
    int64_t records = 0;  // records read (good and bad)
    int64_t samples = 0;  // samples kept
    int64_t badRows = 0;
    std::vector<std::string> badRowMessages;  // the first maxBadRowsShown, "<file>:<line>: ..."
    int64_t truncated = 0;                    // samples cut to maxLength
    int64_t dropped = 0;                      // samples with no trainable token left after truncation
    int64_t trainTokens = 0, trainTrainableTokens = 0;
    double meanTokens = 0, p50Tokens = 0, p95Tokens = 0;
    int64_t maxTokens = 0;
    std::string chatTemplate;  // the template used
    std::string format;        // the format used (resolved from auto)
};

// The statistics as JSON, one name per field for every reader: the token cache stores them, the run's start event
// carries them (data summary). "template" is the chat template used (the config's data.template); caches written
// before this name read back from "chat_template".
nlohmann::json sftStatsToJson(const SftStats& s);
SftStats sftStatsFromJson(const nlohmann::json& j);  // nlohmann::json::exception when a field is missing

struct SftData {
    SftSequences train, eval;
    SftStats stats;
};

// Reads, renders, tokenizes, truncates, splits, shuffles and (optionally) packs. Throws FormatError
// (naming file:line) when badRows is Stop and a row is bad, or when no training sample remains.
SftData buildSftData(const SftOptions& options, const Tokenizer& tokenizer);

// The string field `key` of a record; FormatError "<where>missing field 'key'" or "... must be a string, found T".
const std::string& requireString(const nlohmann::json& record, const char* key, const std::string& where);

// The pieces of one record: the messages it maps to under `format` (Auto: decided per record by its
// keys: messages, conversations, instruction, then the text field). Throws FormatError "<what>".
std::vector<ChatMessage> recordMessages(const nlohmann::json& record, SampleFormat format, const std::string& textField,
                                        SampleFormat* resolved = nullptr);
// The same with renamed fields (fields.text is the text field).
std::vector<ChatMessage> recordMessages(const nlohmann::json& record, SampleFormat format, const SampleFields& fields,
                                        SampleFormat* resolved = nullptr);

// For the GUI: the first n samples rendered, with the spans that get no loss marked.
struct PreviewSample {
    int64_t line = 0;
    std::vector<RenderedSegment> segments;  // trainable = loss is computed on this span
    int64_t tokens = 0;
    bool truncated = false;
};
struct DataPreview {
    std::vector<PreviewSample> samples;
    SftStats stats;  // over the whole training file
};
DataPreview previewSftData(const SftOptions& options, const Tokenizer& tokenizer, int n);
// Segments as one string with the masked (no-loss) spans wrapped in markers, e.g. "[[" "]]".
std::string markMaskedSpans(const std::vector<RenderedSegment>& segments, const std::string& open = "[[",
                            const std::string& close = "]]");

}  // namespace fts
