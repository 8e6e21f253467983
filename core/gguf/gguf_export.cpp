// HF folder -> GGUF (see gguf_export.h). Metadata in llama.cpp's converter's order: general.*, the architecture's
// hyper-parameters, general.file_type and quantization_version, then tokenizer.*.
#include "core/gguf/gguf_export.h"

#include <algorithm>
#include <thread>

#include "core/gguf/block_quantize.h"
#include "core/gguf/gguf_model.h"
#include "core/gguf/gguf_vocab.h"
#include "core/gguf/parallel_ranges.h"
#include "core/gguf/ollama_modelfile.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"
#include "core/weights/model_weights.h"

namespace fts::gguf {
namespace fs = std::filesystem;

namespace {

nlohmann::json readConfig(const fs::path& dir) {
    const fs::path file = dir / "config.json";
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) throw IoError(file.string() + ": not found (the model folder's config.json)");
    try {
        return parseJson(readFile(file));
    } catch (const nlohmann::json::exception& e) {
        throw FormatError(file.string() + ": not valid JSON (" + e.what() + ")");
    }
}

// tokenizer_config.json's chat_template (a string, or the "default" of a list of named templates), else
// chat_template.jinja; empty when the folder has none.
std::string folderChatTemplate(const fs::path& dir) {
    std::error_code ec;
    if (fs::is_regular_file(dir / "tokenizer_config.json", ec)) {
        try {
            const nlohmann::json tc = parseJson(readFile(dir / "tokenizer_config.json"));
            if (tc.contains("chat_template")) {
                const nlohmann::json& t = tc["chat_template"];
                if (t.is_string()) return t.get<std::string>();
                if (t.is_array())
                    for (const nlohmann::json& named : t)
                        if (named.is_object() && named.value("name", "") == "default" && named.contains("template") &&
                            named["template"].is_string())
                            return named["template"].get<std::string>();
            }
        } catch (const nlohmann::json::exception&) {
            // readGgufVocab reports a malformed tokenizer_config.json
        }
    }
    if (fs::is_regular_file(dir / "chat_template.jinja", ec)) return readFile(dir / "chat_template.jinja");
    return "";
}

// Quantizes the rows of `values` (rows of ne0) into `out` on up to `threads` threads.
void encodeRows(GgmlType type, const std::vector<float>& values, int64_t ne0, std::vector<uint8_t>& out, int threads) {
    const int64_t rows = static_cast<int64_t>(values.size()) / ne0;
    const size_t rowSize = rowBytes(type, ne0);
    out.resize(static_cast<size_t>(rows) * rowSize);
    parallelRanges(rows, threads, std::max<int64_t>(1, (1 << 16) / ne0), [&](int64_t first, int64_t last) {
        for (int64_t r = first; r < last; ++r)
            quantizeRow(type, values.data() + r * ne0, ne0, out.data() + static_cast<size_t>(r) * rowSize);
    });
}

}  // namespace

std::string folderName(const fs::path& dir) {
    fs::path p = fs::absolute(dir).lexically_normal();
    if (p.filename().empty()) p = p.parent_path();  // "model/"
    return p.filename().string();
}

GgufExportResult exportGguf(const fs::path& modelDir, const fs::path& outFile, const GgufExportOptions& options) {
    // ---- plan: everything that can fail is checked before the file is opened ----
    const nlohmann::json config = readConfig(modelDir);
    const ModelWeights weights = openModelWeights(modelDir);
    const GgufModel model = planGgufModel(modelDir, config, weights);
    const GgufVocab vocab = readGgufVocab(modelDir, config, model.vocabSize);
    std::vector<TensorShape> shapes;
    for (const PlannedTensor& t : model.tensors) shapes.push_back({t.name, t.ne});
    const std::vector<GgmlType> types = tensorTypes(options.preset, shapes, model.layers);

    GgufExportResult result;
    result.file = outFile;
    result.warnings = model.warnings;
    result.warnings.insert(result.warnings.end(), vocab.warnings.begin(), vocab.warnings.end());
    std::string chatTemplate = folderChatTemplate(modelDir);
    result.chat = options.chat;
    if (!result.chat && !chatTemplate.empty()) result.chat = detectChatTemplate(modelDir);
    if (chatTemplate.empty() && options.chat) chatTemplate = jinjaChatTemplate(*options.chat, vocab.eosText);

    std::vector<MetadataEntry> metadata;
    metadata.push_back({"general.architecture", MetadataValue::string(model.arch)});
    metadata.push_back({"general.type", MetadataValue::string("model")});
    const std::string name = !options.name.empty() ? options.name : folderName(modelDir);
    metadata.push_back({"general.name", MetadataValue::string(name.empty() ? "model" : name)});
    metadata.insert(metadata.end(), model.hyperParameters.begin(), model.hyperParameters.end());
    metadata.push_back({"general.file_type", MetadataValue::u32(fileType(options.preset))});
    metadata.push_back({"general.quantization_version", MetadataValue::u32(2)});
    metadata.insert(metadata.end(), vocab.metadata.begin(), vocab.metadata.end());
    if (!chatTemplate.empty()) metadata.push_back({"tokenizer.chat_template", MetadataValue::string(chatTemplate)});

    // ---- write: each tensor read, rearranged, encoded and streamed in turn ----
    const int threads =
        options.threads > 0 ? options.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    std::vector<TensorInfo> infos;
    for (size_t i = 0; i < model.tensors.size(); ++i) {
        const PlannedTensor& planned = model.tensors[i];
        TensorInfo info;
        info.name = planned.name;
        info.ne = planned.ne;
        info.type = types[i];
        info.produce = [&planned, &weights, type = types[i], threads](const TensorSink& sink) {
            const std::vector<float> values = tensorValues(planned, weights, threads);
            if (type == GgmlType::F32) {
                sink(values.data(), values.size() * sizeof(float));
                return;
            }
            std::vector<uint8_t> encoded;
            encodeRows(type, values, planned.ne[0], encoded, threads);
            sink(encoded.data(), encoded.size());
        };
        infos.push_back(std::move(info));
        ++result.tensorTypes[std::string(typeName(types[i]))];
    }
    writeGguf(outFile, metadata, infos, options.progress);
    std::error_code ec;
    result.fileBytes = fs::file_size(outFile, ec);

    if (options.writeModelfile) {
        ModelfileInputs in;
        in.ggufFileName = outFile.filename().string();
        in.chat = result.chat;
        in.eosText = vocab.eosText;
        in.contextLength = std::min(options.modelfileContext, model.contextLength);
        result.modelfile = outFile.parent_path() / "Modelfile";
        writeFileAtomic(result.modelfile, ollamaModelfile(in));
    }
    return result;
}

}  // namespace fts::gguf
