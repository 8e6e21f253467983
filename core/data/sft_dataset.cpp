// SFT dataset construction: records -> messages -> rendered segments -> ids/labels -> truncation ->
// split -> shuffle -> packing. Each rendered segment is tokenized on its own (segment boundaries
// sit at the template's special-token markers), so a label span is exactly the tokens of the
// assistant's text and its end-of-turn marker.
#include "core/data/sft_dataset.h"

#include "core/data/python_json.h"

#include "core/data/record_reader.h"
#include "core/data/seeded_shuffle.h"
#include "core/data/sft_layout.h"
#include "core/data/tokenizer.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"

#include <algorithm>
#include <cmath>
#include <thread>

namespace fts {

using nlohmann::json;

const std::string& requireString(const json& obj, const char* key, const std::string& where) {
    auto it = obj.find(key);
    if (it == obj.end()) throw FormatError(where + "missing field '" + key + "'");
    if (!it->is_string())
        throw FormatError(where + "field '" + key + "' must be a string, found " + std::string(it->type_name()));
    return it->get_ref<const std::string&>();
}

namespace {

std::string formatName(SampleFormat f) {
    switch (f) {
        case SampleFormat::Auto:
            return "auto";
        case SampleFormat::Text:
            return "text";
        case SampleFormat::Alpaca:
            return "alpaca";
        case SampleFormat::ShareGpt:
            return "sharegpt";
        case SampleFormat::Messages:
            return "messages";
    }
    return "?";
}

struct Builder {
    const SftOptions& opt;
    const Tokenizer& tok;
    ChatTemplateKind kind;
    SftStats& stats;
    std::vector<int64_t> lengths;  // untruncated token counts of kept samples

    // The outcome of one record, computed without touching shared state (runs on worker threads).
    struct Outcome {
        std::optional<SftSample> sample;  // empty: dropped or bad
        std::string error;                // non-empty: bad row
        std::vector<RenderedSegment> segments;
        SampleFormat resolved = SampleFormat::Auto;
        int64_t untruncated = 0;
        bool dropped = false;
    };

    Outcome process(const Record& rec, bool wantSegments) const {
        Outcome out;
        try {
            out.sample = sample(rec, out);
        } catch (const FormatError& e) {
            out.sample.reset();
            out.error = e.what();
        }
        if (!wantSegments) out.segments.clear();
        return out;
    }

    std::optional<SftSample> sample(const Record& rec, Outcome& o) const {
        SampleFields fields = opt.fields;
        fields.text = opt.textField;
        std::vector<ChatMessage> messages = recordMessages(rec.value, opt.format, fields, &o.resolved);
        SftSample s;
        s.line = rec.line;
        std::vector<RenderedSegment>& segments = o.segments;
        if (o.resolved == SampleFormat::Text) {
            segments.push_back({messages.at(0).content, true});
            tok.encodeAppend(messages[0].content, s.inputIds, true);
            if (auto eos = tok.eosTokenId(); eos && (s.inputIds.empty() || s.inputIds.back() != *eos))
                s.inputIds.push_back(*eos);
            s.labels = s.inputIds;
        } else {
            segments = renderChat(kind, messages);
            for (const RenderedSegment& seg : segments) {
                const size_t before = s.inputIds.size();
                tok.encodeAppend(seg.text, s.inputIds, false);
                if (seg.trainable && (kind == ChatTemplateKind::Alpaca || kind == ChatTemplateKind::None))
                    if (auto eos = tok.eosTokenId()) s.inputIds.push_back(*eos);
                const bool learn = seg.trainable || opt.trainOnPrompt;
                for (size_t i = before; i < s.inputIds.size(); ++i)
                    s.labels.push_back(learn ? s.inputIds[i] : kIgnoreLabel);
            }
        }
        o.untruncated = static_cast<int64_t>(s.inputIds.size());
        if (o.untruncated > opt.maxLength) {
            s.inputIds.resize(opt.maxLength);
            s.labels.resize(opt.maxLength);
            s.truncated = true;
        }
        // The first label is never predicted (no token before it); a sample needs a later one.
        const bool learnable = std::any_of(s.labels.begin() + (s.labels.empty() ? 0 : 1), s.labels.end(),
                                           [](int32_t l) { return l != kIgnoreLabel; });
        if (!learnable) {
            o.dropped = true;
            return std::nullopt;
        }
        return s;
    }

    void bad(const BadRow& row) {
        ++stats.badRows;
        if (static_cast<int64_t>(stats.badRowMessages.size()) < opt.maxBadRowsShown)
            stats.badRowMessages.push_back(row.message);
        if (opt.badRows == BadRowPolicy::Stop)
            throw FormatError(row.message + " (data.on_bad_row is \"stop\"; set it to \"skip\" to skip bad rows)");
    }

    // Reads a whole file in batches; each batch is tokenized on up to opt.threads threads (record i
    // of a batch on thread i % threads) and applied in file order, so results do not depend on the
    // thread count. Calls onSample for each kept sample (with its segments when wanted); onSample
    // returning false stops reading.
    template <class F>
    void readFile(const std::filesystem::path& file, bool wantSegments, F onSample) {
        RecordReader reader(file);
        const int threads =
            opt.threads > 0 ? opt.threads : std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 8);
        constexpr size_t kBatch = 4096;
        std::vector<Record> records;
        std::vector<BadRow> readErrors;  // parallel to records; line 0 = none
        std::vector<Outcome> outcomes;
        bool more = true;
        while (more) {
            records.clear();
            readErrors.clear();
            while (records.size() < kBatch) {
                Record rec;
                BadRow row;
                const auto status = reader.next(rec, row);
                if (status == RecordReader::Status::End) {
                    more = false;
                    break;
                }
                if (status == RecordReader::Status::Bad) {
                    rec.line = row.line;
                    rec.value = nullptr;
                    readErrors.push_back(row);
                } else {
                    readErrors.push_back(BadRow{});
                }
                records.push_back(std::move(rec));
            }
            outcomes.assign(records.size(), Outcome{});
            auto work = [&](size_t t, size_t stride) {
                for (size_t i = t; i < records.size(); i += stride)
                    if (readErrors[i].line == 0) outcomes[i] = process(records[i], wantSegments);
            };
            const size_t n = std::min<size_t>(static_cast<size_t>(threads), std::max<size_t>(records.size() / 64, 1));
            if (n <= 1) {
                work(0, 1);
            } else {
                std::vector<std::thread> pool;
                for (size_t t = 0; t < n; ++t) pool.emplace_back(work, t, n);
                for (auto& th : pool) th.join();
            }
            for (size_t i = 0; i < records.size(); ++i) {
                ++stats.records;
                if (readErrors[i].line != 0) {
                    bad(readErrors[i]);
                    continue;
                }
                Outcome& o = outcomes[i];
                if (!o.error.empty()) {
                    bad({records[i].line, file.string() + ":" + std::to_string(records[i].line) + ": " + o.error});
                    continue;
                }
                if (stats.format.empty()) stats.format = formatName(o.resolved);
                if (o.untruncated > opt.maxLength) ++stats.truncated;
                if (o.dropped) {
                    ++stats.dropped;
                    continue;
                }
                lengths.push_back(o.untruncated);
                ++stats.samples;
                if (!onSample(std::move(*o.sample), o.segments)) return;
            }
        }
    }
};

ChatTemplateKind resolveTemplate(const SftOptions& opt) { return resolveChatTemplate(opt.chatTemplate, opt.modelDir); }

void finishStats(SftStats& stats, std::vector<int64_t> lengths) {
    if (lengths.empty()) return;
    std::sort(lengths.begin(), lengths.end());
    double sum = 0;
    for (int64_t l : lengths) sum += static_cast<double>(l);
    stats.meanTokens = sum / static_cast<double>(lengths.size());
    // Nearest-rank percentiles.
    auto pct = [&](double p) {
        const auto rank = static_cast<size_t>(std::ceil(p * static_cast<double>(lengths.size())));
        return static_cast<double>(lengths[std::clamp<size_t>(rank, 1, lengths.size()) - 1]);
    };
    stats.p50Tokens = pct(0.50);
    stats.p95Tokens = pct(0.95);
    stats.maxTokens = lengths.back();
}

}  // namespace

SampleFormat sampleFormatFromName(const std::string& name) {
    if (name == "auto") return SampleFormat::Auto;
    // "lm" is the config's plain-text pre-training format; previewed sample by sample it is the text format.
    if (name == "text" || name == "lm") return SampleFormat::Text;
    if (name == "alpaca") return SampleFormat::Alpaca;
    if (name == "sharegpt") return SampleFormat::ShareGpt;
    if (name == "messages" || name == "openai") return SampleFormat::Messages;
    throw FormatError("data.format: unknown format '" + name + "' (expected auto, text, alpaca, sharegpt or messages)");
}

std::string SampleFields::describe() const {
    return nlohmann::json::array({text, instruction, input, output, system, messages, role, content}).dump();
}

namespace {

// JSON text of a tool field: parsed keeping its key order (the template prints the keys as written).
nlohmann::ordered_json parseToolJson(const std::string& text, const std::string& where) {
    try {
        return parseOrderedJson(text);
    } catch (const nlohmann::json::exception&) {
        throw FormatError(where + "expected JSON text, got " + (text.size() > 60 ? text.substr(0, 60) + "..." : text));
    }
}

// Values the data reader parsed itself (not kept as text) lose their key order: nlohmann's json sorts keys.
nlohmann::ordered_json ordered(const json& v) { return parseOrderedJson(v.dump()); }

ToolCall toolCallFrom(const nlohmann::ordered_json& call, const std::string& where) {
    const nlohmann::ordered_json& c =
        call.contains("function") && call["function"].is_object() ? call["function"] : call;
    if (!c.is_object() || !c.contains("name") || !c["name"].is_string())
        throw FormatError(where + "a function call needs a \"name\" (and \"arguments\"), got " + call.dump());
    ToolCall t;
    t.name = c["name"].get<std::string>();
    const nlohmann::ordered_json args = c.contains("arguments") ? c["arguments"] : nlohmann::ordered_json::object();
    t.argumentsJson = pythonJsonDumps(args);
    if (args.is_string()) {
        t.argumentsIsText = true;
        t.argumentsText = args.get<std::string>();
    }
    return t;
}

std::vector<ToolCall> toolCallsFromOrdered(const nlohmann::ordered_json& v, const std::string& where) {
    std::vector<ToolCall> out;
    if (v.is_array()) {
        for (const auto& c : v) out.push_back(toolCallFrom(c, where));
    } else {
        out.push_back(toolCallFrom(v, where));
    }
    if (out.empty()) throw FormatError(where + "no function call in it");
    return out;
}

// ShareGPT's function_call value: {"name", "arguments"} or a list of them, as JSON text.
std::vector<ToolCall> toolCallsFromText(const std::string& text, const std::string& where) {
    return toolCallsFromOrdered(parseToolJson(text, where + "function_call: "), where + "function_call: ");
}

std::vector<ToolCall> toolCallsFrom(const json& v, const std::string& where) {
    return toolCallsFromOrdered(v.is_string() ? parseToolJson(v.get<std::string>(), where) : ordered(v), where);
}

// The record's "tools": a list of function definitions (JSON text, LLaMA-Factory's way, or a JSON list), each as
// the template prints it, one per line. Bare definitions ({"name", "description", "parameters"}) are wrapped as
// {"type": "function", "function": ...}, the form transformers' apply_chat_template(tools=...) takes.
std::string toolDefinitions(const json& field) {
    const nlohmann::ordered_json list =
        field.is_string() ? parseToolJson(field.get<std::string>(), "tools: ") : ordered(field);
    if (!list.is_array()) throw FormatError("tools: expected a list of function definitions, got " + list.dump());
    std::string out;
    for (const auto& tool : list) {
        if (!tool.is_object()) throw FormatError("tools: each definition must be an object, got " + tool.dump());
        nlohmann::ordered_json t = tool;
        if (!tool.contains("type")) t = nlohmann::ordered_json{{"type", "function"}, {"function", tool}};
        if (!out.empty()) out += '\n';
        out += pythonJsonDumps(t);
    }
    return out;
}

}  // namespace

std::vector<ChatMessage> recordMessages(const json& record, SampleFormat format, const std::string& textField,
                                        SampleFormat* resolved) {
    SampleFields fields;
    fields.text = textField;
    return recordMessages(record, format, fields, resolved);
}

std::vector<ChatMessage> recordMessages(const json& record, SampleFormat format, const SampleFields& f,
                                        SampleFormat* resolved) {
    const std::string& textField = f.text;
    if (format == SampleFormat::Auto) {
        if (f.messages.empty() ? record.contains("messages") : record.contains(f.messages)) {
            // A renamed list is "messages" when its turns carry the messages role key, else ShareGPT.
            const json& list = record[f.messages.empty() ? "messages" : f.messages];
            const std::string roleKey = f.role.empty() ? "role" : f.role;
            format = f.messages.empty() ||
                             (list.is_array() && !list.empty() && list[0].is_object() && list[0].contains(roleKey))
                         ? SampleFormat::Messages
                         : SampleFormat::ShareGpt;
        } else if (f.messages.empty() && record.contains("conversations")) {
            format = SampleFormat::ShareGpt;
        } else if (record.contains(f.instruction)) {
            format = SampleFormat::Alpaca;
        } else if (record.contains(textField)) {
            format = SampleFormat::Text;
        } else {
            throw FormatError("no field '" +
                              (f.messages.empty() ? std::string("messages', 'conversations") : f.messages) + "', '" +
                              f.instruction + "' or '" + textField + "' (cannot tell the sample format)");
        }
    }
    if (resolved) *resolved = format;
    std::vector<ChatMessage> out;
    switch (format) {
        case SampleFormat::Text:
            out.push_back({"text", requireString(record, textField.c_str(), "")});
            break;
        case SampleFormat::Alpaca: {
            if (record.contains(f.system) && record[f.system].is_string())
                out.push_back({"system", record[f.system].get<std::string>()});
            out.push_back({"user", requireString(record, f.instruction.c_str(), "")});
            if (record.contains(f.input) && !record[f.input].is_null()) {
                const std::string& input = requireString(record, f.input.c_str(), "");
                if (!input.empty()) out.push_back({"input", input});
            }
            out.push_back({"assistant", requireString(record, f.output.c_str(), "")});
            break;
        }
        case SampleFormat::ShareGpt:
        case SampleFormat::Messages: {
            const bool share = format == SampleFormat::ShareGpt;
            const std::string listKey = !f.messages.empty() ? f.messages : share ? "conversations" : "messages";
            const std::string roleKey = !f.role.empty() ? f.role : share ? "from" : "role";
            const std::string contentKey = !f.content.empty() ? f.content : share ? "value" : "content";
            auto it = record.find(listKey);
            if (it == record.end()) throw FormatError("missing field '" + listKey + "'");
            if (!it->is_array()) throw FormatError("field '" + listKey + "' must be an array");
            // A system prompt beside the list (LLaMA-Factory's "system" column) opens the conversation.
            if (share && record.contains(f.system) && record[f.system].is_string() &&
                !record[f.system].get<std::string>().empty())
                out.push_back({"system", record[f.system].get<std::string>()});
            for (size_t i = 0; i < it->size(); ++i) {
                const json& m = (*it)[i];
                const std::string where = listKey + "[" + std::to_string(i) + "]: ";
                if (!m.is_object()) throw FormatError(where + "expected an object");
                std::string role = requireString(m, roleKey.c_str(), where);
                const bool hasCalls = !share && m.contains("tool_calls") && !m["tool_calls"].is_null();
                const std::string content = hasCalls && m.contains(contentKey) && m[contentKey].is_null()
                                                ? std::string()
                                                : requireString(m, contentKey.c_str(), where);
                if (share) {
                    if (role == "human" || role == "user") {
                        role = "user";
                    } else if (role == "gpt" || role == "assistant" || role == "chatgpt" || role == "bing") {
                        role = "assistant";
                    } else if (role == "function_call") {  // LLaMA-Factory: the assistant calls a function
                        out.push_back({"assistant", "", toolCallsFromText(content, where)});
                        continue;
                    } else if (role == "observation") {  // ... and the function's result comes back
                        role = "tool";
                    } else if (role != "system") {
                        throw FormatError(where + "unknown speaker '" + role +
                                          "' (expected human, gpt, system, function_call or observation)");
                    }
                } else if (role != "system" && role != "user" && role != "assistant" && role != "tool") {
                    throw FormatError(where + "unknown role '" + role + "' (expected system, user, assistant or tool)");
                }
                ChatMessage msg{role, content, {}};
                if (hasCalls) {
                    if (role != "assistant")
                        throw FormatError(where + "tool_calls on a " + role +
                                          " message (only assistant messages call tools)");
                    msg.toolCalls = toolCallsFrom(m["tool_calls"], where + "tool_calls: ");
                }
                out.push_back(std::move(msg));
            }
            if (out.empty()) throw FormatError("field '" + listKey + "' is empty");
            if (auto tools = record.find("tools"); tools != record.end() && !tools->is_null())
                if (std::string list = toolDefinitions(*tools); !list.empty())
                    out.insert(out.begin(), {"tools", list, {}});
            break;
        }
        case SampleFormat::Auto:
            break;
    }
    return out;
}

std::vector<int32_t> SftSequences::sampleBoundaries(int64_t i) const {
    std::vector<int32_t> cu;
    const int64_t begin = offsets[i], end = offsets[i + 1];
    for (int64_t k = begin; k < end; ++k)
        if (positionIds[k] == 0) cu.push_back(static_cast<int32_t>(k - begin));
    cu.push_back(static_cast<int32_t>(end - begin));
    return cu;
}

void SftSequences::append(const SftSample& s) {
    inputIds.insert(inputIds.end(), s.inputIds.begin(), s.inputIds.end());
    labels.insert(labels.end(), s.labels.begin(), s.labels.end());
    for (size_t k = 0; k < s.inputIds.size(); ++k) positionIds.push_back(static_cast<int32_t>(k));
    offsets.push_back(static_cast<int64_t>(inputIds.size()));
}

void buildSftSequences(const SftOptions& options, const Tokenizer& tokenizer, SampleStore& trainStore,
                       SampleStore& evalStore, SequenceWriter& train, SequenceWriter& eval, SftStats& stats) {
    if (options.maxLength < 2) throw FormatError("data.max_length must be at least 2");
    const ChatTemplateKind kind = resolveTemplate(options);
    stats.chatTemplate = chatTemplateName(kind);
    Builder b{options, tokenizer, kind, stats, {}};
    b.readFile(options.trainPath, false, [&](SftSample&& s, const std::vector<RenderedSegment>&) {
        trainStore.add(std::move(s));
        return true;
    });
    if (!options.evalPath.empty())
        b.readFile(options.evalPath, false, [&](SftSample&& s, const std::vector<RenderedSegment>&) {
            evalStore.add(std::move(s));
            return true;
        });
    const SftPlan plan = planSftSplit(options, trainStore.size(), evalStore.size());
    if (plan.train.empty())
        throw FormatError(options.trainPath.string() + ": no training sample (" + std::to_string(stats.badRows) +
                          " bad rows, " + std::to_string(stats.dropped) + " dropped)" +
                          (stats.badRowMessages.empty() ? "" : "; first: " + stats.badRowMessages[0]));
    const auto [tokens, trainable] = writeSequences(trainStore, plan.train, options.maxLength, options.packing, train);
    stats.trainTokens = tokens;
    stats.trainTrainableTokens = trainable;
    writeSequences(plan.evalFromTrainStore ? trainStore : evalStore, plan.eval, options.maxLength, options.packing,
                   eval);
    finishStats(stats, b.lengths);
}

SftData buildSftData(const SftOptions& options, const Tokenizer& tokenizer) {
    SftData data;
    MemorySampleStore trainStore, evalStore;
    MemorySequenceWriter train(data.train), eval(data.eval);
    buildSftSequences(options, tokenizer, trainStore, evalStore, train, eval, data.stats);
    return data;
}

DataPreview previewSftData(const SftOptions& options, const Tokenizer& tokenizer, int n) {
    DataPreview preview;
    const ChatTemplateKind kind = resolveTemplate(options);
    preview.stats.chatTemplate = chatTemplateName(kind);
    SftOptions opt = options;
    opt.badRows = BadRowPolicy::Skip;
    Builder b{opt, tokenizer, kind, preview.stats, {}};
    b.readFile(options.trainPath, true, [&](SftSample&& s, const std::vector<RenderedSegment>& segments) {
        if (static_cast<int>(preview.samples.size()) < n)
            preview.samples.push_back({s.line, segments, static_cast<int64_t>(s.inputIds.size()), s.truncated});
        return true;
    });
    finishStats(preview.stats, b.lengths);
    return preview;
}

std::string markMaskedSpans(const std::vector<RenderedSegment>& segments, const std::string& open,
                            const std::string& close) {
    std::string out;
    for (const RenderedSegment& s : segments) out += s.trainable ? s.text : open + s.text + close;
    return out;
}

nlohmann::json sftStatsToJson(const SftStats& s) {
    return {{"format", s.format},
            {"template", s.chatTemplate},
            {"records", s.records},
            {"samples", s.samples},
            {"bad_rows", s.badRows},
            {"bad_row_messages", s.badRowMessages},
            {"truncated", s.truncated},
            {"dropped", s.dropped},
            {"train_tokens", s.trainTokens},
            {"train_trainable_tokens", s.trainTrainableTokens},
            {"mean_tokens", s.meanTokens},
            {"p50_tokens", s.p50Tokens},
            {"p95_tokens", s.p95Tokens},
            {"max_tokens", s.maxTokens}};
}

SftStats sftStatsFromJson(const nlohmann::json& j) {
    SftStats s;
    s.records = j.at("records");
    s.samples = j.at("samples");
    s.badRows = j.at("bad_rows");
    s.badRowMessages = j.at("bad_row_messages").get<std::vector<std::string>>();
    s.truncated = j.at("truncated");
    s.dropped = j.at("dropped");
    s.trainTokens = j.at("train_tokens");
    s.trainTrainableTokens = j.at("train_trainable_tokens");
    s.meanTokens = j.at("mean_tokens");
    s.p50Tokens = j.at("p50_tokens");
    s.p95Tokens = j.at("p95_tokens");
    s.maxTokens = j.at("max_tokens");
    s.chatTemplate = j.contains("template") ? j.at("template") : j.at("chat_template");
    s.format = j.at("format");
    return s;
}

}  // namespace fts
