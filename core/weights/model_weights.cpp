// openModelWeights: a folder's safetensors weights, single file or sharded index (see model_weights.h).
#include "core/weights/model_weights.h"

#include <nlohmann/json.hpp>

#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"

namespace fts {
namespace fs = std::filesystem;

int64_t ModelWeights::numElements() const {
    int64_t n = 0;
    for (const auto& [name, t] : tensors) n += t.entry->numel();
    return n;
}

std::string ModelWeights::mainDtypeName() const {
    std::map<std::string, int64_t> perDtype;
    for (const auto& [name, t] : tensors) perDtype[std::string(dtypeName(t.entry->dtype))] += t.entry->numel();
    std::string best;
    int64_t most = -1;
    for (const auto& [dtype, n] : perDtype)
        if (n > most) {
            most = n;
            best = dtype;
        }
    return best;
}

namespace {

ModelWeights openIndex(const fs::path& dir, const fs::path& index) {
    ModelWeights w;
    nlohmann::json j;
    try {
        j = parseJson(readFile(index));
    } catch (const nlohmann::json::exception& e) {
        throw FormatError(index.string() + ": not valid JSON: " + e.what());
    }
    if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
        throw FormatError(index.string() + ": key \"weight_map\": expected an object {tensor name: shard file}");
    std::map<std::string, std::shared_ptr<SafetensorsFile>> shards;
    std::error_code ec;
    for (auto it = j["weight_map"].begin(); it != j["weight_map"].end(); ++it) {
        if (!it->is_string())
            throw FormatError(index.string() + ": weight_map[\"" + it.key() +
                              "\"]: expected a shard file name, found " + it->dump());
        const std::string shardName = it->get<std::string>();
        if (shardName.empty() || fs::path(shardName).is_absolute() || shardName.find("..") != std::string::npos)
            throw FormatError(index.string() + ": weight_map[\"" + it.key() + "\"]: shard \"" + shardName +
                              "\" must be a file name inside the model folder");
        auto& shard = shards[shardName];
        if (!shard) {
            const fs::path shardPath = dir / shardName;
            if (!fs::is_regular_file(shardPath, ec))
                throw IoError(index.string() + ": shard \"" + shardName + "\" (holding tensor '" + it.key() +
                              "') is missing: " + shardPath.string() + " not found");
            shard = SafetensorsFile::open(shardPath);
        }
        const TensorEntry* e = shard->find(it.key());
        if (!e)
            throw FormatError(index.string() + ": weight_map puts tensor '" + it.key() + "' in " + shardName +
                              ", but that shard does not contain it");
        w.tensors[it.key()] = {shard, e};
    }
    // Tensors a shard holds but the index forgot still count as checkpoint content (the loader reports them).
    for (const auto& [name, shard] : shards)
        for (const auto& e : shard->tensors())
            if (!w.tensors.count(e.name)) w.tensors[e.name] = {shard, &e};
    w.fileCount = int(shards.size());
    w.description = index.string() + " (" + std::to_string(shards.size()) + " shards)";
    return w;
}

}  // namespace

bool hasSafetensorsWeights(const fs::path& dir) {
    std::error_code ec;
    return fs::is_regular_file(dir / "model.safetensors", ec) ||
           fs::is_regular_file(dir / "model.safetensors.index.json", ec);
}

ModelWeights openModelWeights(const fs::path& dir) {
    std::error_code ec;
    const fs::path single = dir / "model.safetensors";
    const fs::path index = dir / "model.safetensors.index.json";
    if (fs::is_regular_file(single, ec)) {
        ModelWeights w;
        auto file = SafetensorsFile::open(single);
        for (const auto& e : file->tensors()) w.tensors[e.name] = {file, &e};
        w.fileCount = 1;
        w.description = single.string();
        return w;
    }
    if (fs::is_regular_file(index, ec)) return openIndex(dir, index);
    for (const char* other : {"pytorch_model.bin", "pytorch_model.bin.index.json", "tf_model.h5", "model.ckpt.index"})
        if (fs::exists(dir / other, ec))
            throw FormatError(dir.string() + ": has " + other +
                              " but only safetensors weights are supported (model.safetensors or "
                              "model.safetensors.index.json); convert the checkpoint to safetensors first");
    throw IoError(dir.string() + ": no model.safetensors or model.safetensors.index.json found");
}

}  // namespace fts
