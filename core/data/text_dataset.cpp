// Readers and block building. The training file is read once: documents are tokenized into one
// growing token vector with their end offsets; the held-out documents are then copied out and the
// training documents compacted in place (in file order), so the peak memory is about the tokens once.
#include "core/data/text_dataset.h"

#include "core/data/seeded_shuffle.h"
#include "core/data/tokenizer.h"
#include "core/data/unicode_text.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>

namespace fts {
namespace {

using nlohmann::json;

constexpr uint64_t kDocumentSplitStream = 0x646F632D73706C74ull;  // "doc-splt": independent of epoch streams

std::string lowerExtension(const std::filesystem::path& file) {
    std::string ext = file.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext;
}

bool isBlank(const std::string& s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; });
}

struct TokenStream {
    std::vector<int32_t> tokens;
    std::vector<int64_t> ends;  // end offset of each document in tokens
};

int resolveThreads(int requested) {
    if (requested > 0) return requested;
    const unsigned hw = std::thread::hardware_concurrency();
    return static_cast<int>(std::clamp(hw, 1u, 8u));
}

// Tokenizes a batch of documents on `threads` threads (document i on thread i % threads) into
// per-document vectors; the first failing document (in file order) is rethrown with file:line.
void encodeBatch(const std::vector<TextDocument>& batch, const LmDataOptions& o, const Tokenizer& tok, int threads,
                 std::vector<std::vector<int32_t>>& ids, const std::filesystem::path& file) {
    ids.resize(batch.size());
    std::vector<size_t> firstFailure(static_cast<size_t>(threads), batch.size());
    std::vector<std::string> failure(static_cast<size_t>(threads));
    auto work = [&](int t) {
        for (size_t i = static_cast<size_t>(t); i < batch.size(); i += static_cast<size_t>(threads)) {
            ids[i].clear();
            try {
                tok.encodeAppend(batch[i].text, ids[i], o.addSpecialTokens);
            } catch (const Error& e) {
                firstFailure[t] = i;
                failure[t] = e.what();
                return;
            }
        }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(work, t);
    work(0);
    for (auto& th : pool) th.join();
    size_t worst = batch.size();
    std::string message;
    for (int t = 0; t < threads; ++t)
        if (firstFailure[t] < worst) {
            worst = firstFailure[t];
            message = failure[t];
        }
    if (worst < batch.size())
        throw FormatError(file.string() + ":" + std::to_string(batch[worst].line) + ": " + message);
}

void tokenizeFile(const std::filesystem::path& file, const LmDataOptions& o, const Tokenizer& tok, TokenStream& out,
                  DatasetStats& stats) {
    TextDocumentReader reader(file, o.textField);
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(file, ec);
    // About 4 bytes per token for English BPE; growth by doubling covers denser scripts.
    if (!ec) out.tokens.reserve(out.tokens.size() + bytes / 4);
    const std::optional<int32_t> eos = o.appendEos ? tok.eosTokenId() : std::nullopt;
    const int threads = resolveThreads(o.threads);
    constexpr size_t kBatchBytes = size_t(4) << 20;
    constexpr size_t kBatchDocs = 8192;

    std::vector<TextDocument> batch;
    std::vector<std::vector<int32_t>> ids;
    bool more = true;
    while (more) {
        batch.clear();
        size_t batchBytes = 0;
        TextDocument doc;
        while (batch.size() < kBatchDocs && batchBytes < kBatchBytes && (more = reader.next(doc))) {
            batchBytes += doc.text.size();
            batch.push_back(std::move(doc));
        }
        if (batch.empty()) break;
        encodeBatch(batch, o, tok, std::min<int>(threads, static_cast<int>(batch.size())), ids, file);
        for (size_t i = 0; i < batch.size(); ++i) {
            out.tokens.insert(out.tokens.end(), ids[i].begin(), ids[i].end());
            if (eos && (ids[i].empty() || ids[i].back() != *eos)) out.tokens.push_back(*eos);
            out.ends.push_back(static_cast<int64_t>(out.tokens.size()));
        }
    }
    stats.skippedEmpty += reader.skippedEmpty();
    stats.linesRead += reader.lines();
}

// Drops the tail shorter than one block; returns the number of tokens dropped.
int64_t cutBlocks(std::vector<int32_t>& tokens, int64_t blockLength) {
    const auto n = static_cast<int64_t>(tokens.size());
    const int64_t keep = n / blockLength * blockLength;
    tokens.resize(static_cast<size_t>(keep));
    if (tokens.capacity() > tokens.size() + tokens.size() / 4) tokens.shrink_to_fit();
    return n - keep;
}

}  // namespace

TextFileFormat textFileFormat(const std::filesystem::path& file) {
    const std::string ext = lowerExtension(file);
    if (ext == ".txt") return TextFileFormat::Txt;
    if (ext == ".jsonl") return TextFileFormat::Jsonl;
    throw FormatError(file.string() + ": unsupported dataset file extension '" + file.extension().string() +
                      "' (supported: .txt with one document per line, .jsonl with one JSON object per line)");
}

TextDocumentReader::TextDocumentReader(const std::filesystem::path& file, std::string textField)
    : m_file(file), m_textField(std::move(textField)), m_format(textFileFormat(file)) {
    std::error_code ec;
    if (std::filesystem::is_directory(file, ec)) throw IoError(file.string() + ": is a directory, not a dataset file");
    m_in.open(file, std::ios::binary);
    if (!m_in) throw IoError(file.string() + ": cannot open for reading");
}

bool TextDocumentReader::next(TextDocument& doc) {
    while (std::getline(m_in, m_buffer, '\n')) {
        ++m_line;
        if (m_line == 1 && m_buffer.compare(0, 3, "\xEF\xBB\xBF") == 0) m_buffer.erase(0, 3);
        if (!m_buffer.empty() && m_buffer.back() == '\r') m_buffer.pop_back();
        const std::string where = m_file.string() + ":" + std::to_string(m_line) + ": ";
        if (m_format == TextFileFormat::Txt) {
            if (m_buffer.empty()) {
                ++m_skippedEmpty;
                continue;
            }
            const size_t bad = unicode::findInvalidUtf8(m_buffer);
            if (bad != unicode::kValid)
                throw FormatError(where + "not valid UTF-8 (byte " + std::to_string(bad + 1) + " of the line)");
            doc.text.swap(m_buffer);
        } else {
            if (isBlank(m_buffer)) {
                ++m_skippedEmpty;
                continue;
            }
            json row;
            try {
                row = parseJson(m_buffer);
            } catch (const json::exception& e) {
                throw FormatError(where + "invalid JSON: " + e.what());
            }
            if (!row.is_object())
                throw FormatError(where + "expected a JSON object with a \"" + m_textField + "\" field, found " +
                                  row.type_name());
            auto it = row.find(m_textField);
            if (it == row.end()) {
                std::string keys;
                for (const auto& [k, v] : row.items()) keys += (keys.empty() ? "" : ", ") + k;
                throw FormatError(where + "missing field \"" + m_textField +
                                  "\" (the object has: " + (keys.empty() ? "no keys" : keys) + ")");
            }
            if (!it->is_string())
                throw FormatError(where + "field \"" + m_textField + "\" must be a string, found " + it->type_name());
            std::string& text = it->get_ref<std::string&>();
            if (text.empty()) {
                ++m_skippedEmpty;
                continue;
            }
            doc.text = std::move(text);
        }
        doc.line = m_line;
        ++m_documents;
        return true;
    }
    if (m_in.bad()) throw IoError(m_file.string() + ": read error after line " + std::to_string(m_line));
    if (m_documents == 0) {
        if (m_line == 0) throw FormatError(m_file.string() + ": the file is empty (no documents)");
        throw FormatError(m_file.string() + ": no documents: all " + std::to_string(m_line) + " line(s) are empty");
    }
    return false;
}

const int32_t* LmData::block(int64_t i) const {
    if (i < 0 || i >= numBlocks())
        throw Error("block " + std::to_string(i) + " is out of range (" + std::to_string(numBlocks()) + " blocks)");
    return tokens.data() + i * blockLength;
}

LmDataSplit buildLmData(const LmDataOptions& o, const Tokenizer& tok) {
    if (o.maxLength < 1) throw ConfigError("data.max_length: must be at least 1, found " + std::to_string(o.maxLength));
    if (!(o.evalFraction >= 0.0 && o.evalFraction < 1.0))
        throw ConfigError("data.eval_fraction: must be in [0, 1), found " + std::to_string(o.evalFraction));
    const int64_t L = o.maxLength;
    LmDataSplit split;
    DatasetStats& stats = split.stats;
    split.train.blockLength = L;
    split.eval.blockLength = L;

    TokenStream all;
    tokenizeFile(o.trainPath, o, tok, all, stats);
    const auto numDocs = static_cast<int64_t>(all.ends.size());
    const std::string trainName = o.trainPath.string();

    if (!o.evalPath.empty()) {
        TokenStream eval;
        tokenizeFile(o.evalPath, o, tok, eval, stats);
        split.train.tokens = std::move(all.tokens);
        split.train.numDocuments = numDocs;
        split.eval.tokens = std::move(eval.tokens);
        split.eval.numDocuments = static_cast<int64_t>(eval.ends.size());
    } else if (o.evalFraction == 0.0) {
        split.train.tokens = std::move(all.tokens);
        split.train.numDocuments = numDocs;
    } else {
        if (numDocs < 2)
            throw FormatError(trainName + ": " + std::to_string(numDocs) +
                              " document(s): at least 2 are needed to hold out an eval split; give data.eval or "
                              "more documents");
        auto docLength = [&](int64_t d) { return all.ends[d] - (d == 0 ? 0 : all.ends[d - 1]); };
        const int64_t wanted =
            std::clamp<int64_t>(std::llround(o.evalFraction * static_cast<double>(numDocs)), 1, numDocs - 1);
        std::vector<uint8_t> isEval(static_cast<size_t>(numDocs), 0);
        int64_t evalDocs = 0, evalTokens = 0;
        int64_t trainTokens = static_cast<int64_t>(all.tokens.size());
        for (int64_t d :
             seededPermutation<int64_t>(static_cast<size_t>(numDocs), deriveSeed(o.seed, kDocumentSplitStream))) {
            if (evalDocs >= wanted && evalTokens >= L) break;
            if (evalDocs >= numDocs - 1) break;
            const int64_t len = docLength(d);
            if (trainTokens - len < L) continue;  // training keeps at least one block
            isEval[d] = 1;
            ++evalDocs;
            evalTokens += len;
            trainTokens -= len;
        }
        if (evalTokens < L)
            throw Error(trainName + ": not enough data to hold out one eval block of max_length=" + std::to_string(L) +
                        " tokens: " + std::to_string(all.tokens.size()) + " tokens in " + std::to_string(numDocs) +
                        " documents, the held-out documents hold " + std::to_string(evalTokens) +
                        "; lower data.max_length, raise data.eval_fraction or give data.eval");
        // Eval documents out (file order), training documents compacted in place (file order).
        split.eval.tokens.reserve(static_cast<size_t>(evalTokens));
        size_t write = 0;
        for (int64_t d = 0; d < numDocs; ++d) {
            const auto begin = static_cast<size_t>(d == 0 ? 0 : all.ends[d - 1]);
            const auto end = static_cast<size_t>(all.ends[d]);
            if (isEval[d]) {
                split.eval.tokens.insert(split.eval.tokens.end(), all.tokens.begin() + begin, all.tokens.begin() + end);
            } else {
                if (write != begin)
                    std::memmove(all.tokens.data() + write, all.tokens.data() + begin, (end - begin) * sizeof(int32_t));
                write += end - begin;
            }
        }
        all.tokens.resize(write);
        split.train.tokens = std::move(all.tokens);
        split.train.numDocuments = numDocs - evalDocs;
        split.eval.numDocuments = evalDocs;
    }

    stats.trainDocuments = split.train.numDocuments;
    stats.evalDocuments = split.eval.numDocuments;
    stats.trainTokens = static_cast<int64_t>(split.train.tokens.size());
    stats.evalTokens = static_cast<int64_t>(split.eval.tokens.size());
    stats.trainTokensDropped = cutBlocks(split.train.tokens, L);
    stats.evalTokensDropped = cutBlocks(split.eval.tokens, L);
    if (split.train.numBlocks() == 0)
        throw Error(trainName + ": " + std::to_string(stats.trainTokens) +
                    " training tokens make no block of max_length=" + std::to_string(L) +
                    "; lower data.max_length or add data");
    if (!o.evalPath.empty() && split.eval.numBlocks() == 0)
        throw Error(o.evalPath.string() + ": " + std::to_string(stats.evalTokens) +
                    " eval tokens make no block of max_length=" + std::to_string(L) +
                    "; lower data.max_length or add eval data");
    return split;
}

}  // namespace fts
