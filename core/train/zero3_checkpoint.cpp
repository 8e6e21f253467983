// Consolidation of a ZeRO stage 3 checkpoint (see zero3_checkpoint.h). Parameter p's flat elements are the
// concatenation over ranks q = 0..N-1 of master[offset_p, offset_p + len_q) in rank q's shard, len_q =
// min(chunk_p, numel_p - q * chunk_p): the safetensors writer's fill callback streams them in that order.
#include "core/train/zero3_checkpoint.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "core/weights/safetensors.h"
#include "core/model/safetensors_torch.h"
#include "core/train/checkpoint.h"
#include "core/zero/step_engine.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"

namespace fts {
namespace fs = std::filesystem;

bool isZero3Checkpoint(const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_regular_file(dir / "trainer_state.json", ec) || fs::exists(dir / "model.safetensors", ec)) return false;
    try {
        return parseJson(readFile(dir / "trainer_state.json")).contains("zero3_partition");
    } catch (const nlohmann::json::exception&) {
        return false;
    }
}

void exportZero3Checkpoint(const fs::path& dir, const fs::path& outDir, torch::Dtype dtype) {
    const fs::path stateFile = dir / "trainer_state.json";
    const nlohmann::json part = readTrainerState(dir).at("zero3_partition");
    const int world = part.at("world_size").get<int>();
    const int64_t shardElems = part.at("shard_elements").get<int64_t>();
    struct Shard {
        std::shared_ptr<SafetensorsFile> file;
        const TensorEntry* master = nullptr;
    };
    std::vector<Shard> shards;
    for (int q = 0; q < world; ++q) {
        const fs::path f = dir / optimizerShardName(q);
        if (!fs::exists(f))
            throw IoError(f.string() + ": missing (rank " + std::to_string(q) +
                          "'s shard of a ZeRO stage 3 checkpoint of " + std::to_string(world) + " ranks)");
        Shard s{SafetensorsFile::open(f), nullptr};
        s.master = s.file->find("master");
        if (!s.master || s.master->dtype != SafetensorsDtype::F32 || s.master->numel() != shardElems)
            throw FormatError(f.string() + ": tensor 'master' must be F32 with " + std::to_string(shardElems) +
                              " elements (" + stateFile.string() + ": zero3_partition.shard_elements)");
        shards.push_back(std::move(s));
    }
    std::vector<TensorView> views;
    const SafetensorsDtype outType = toSafetensorsDtype(dtype);
    for (const auto& p : part.at("params")) {
        TensorView v;
        v.name = p.at("name").get<std::string>();
        v.dtype = outType;
        v.shape = p.at("shape").get<std::vector<int64_t>>();
        const int64_t numel = p.at("numel").get<int64_t>(), chunk = p.at("chunk").get<int64_t>(),
                      offset = p.at("offset").get<int64_t>();
        if (offset < 0 || chunk < 0 || offset + chunk > shardElems || chunk * world < numel)
            throw FormatError(stateFile.string() + ": zero3_partition entry of '" + v.name +
                              "' does not fit the shards");
        v.fill = [&shards, numel, chunk, offset, dtype](const ByteSink& sink) {
            for (size_t q = 0; q < shards.size(); ++q) {
                const int64_t lo = std::min<int64_t>(numel, int64_t(q) * chunk), len = std::min(chunk, numel - lo);
                if (len <= 0) break;
                const float* src = static_cast<const float*>(shards[q].file->data(*shards[q].master)) + offset;
                torch::Tensor piece =
                    torch::from_blob(const_cast<float*>(src), {len}, torch::kFloat32).to(dtype).contiguous();
                sink(piece.data_ptr(), size_t(piece.nbytes()));
            }
        };
        views.push_back(std::move(v));
    }
    std::error_code ec;
    fs::create_directories(outDir, ec);
    if (!fs::is_directory(outDir, ec)) throw IoError(outDir.string() + ": cannot create the output folder");
    nlohmann::json config = parseJson(readFile(dir / "config.json"));
    const std::string dtypeName = dtype == torch::kFloat32    ? "float32"
                                  : dtype == torch::kBFloat16 ? "bfloat16"
                                                              : "float16";
    config["torch_dtype"] = dtypeName;
    if (config.contains("dtype")) config["dtype"] = dtypeName;
    if (part.contains("architecture") && !part["architecture"].get<std::string>().empty())
        config["architectures"] = nlohmann::json::array({part["architecture"]});
    if (part.contains("model_type") && !part["model_type"].get<std::string>().empty())
        config["model_type"] = part["model_type"];
    writeSafetensors(outDir / "model.safetensors", views, {{"format", "pt"}});
    writeFileAtomic(outDir / "config.json", config.dump(2) + "\n");
    for (const char* f : {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"})
        if (fs::exists(dir / f)) writeFileAtomic(outDir / f, readFile(dir / f));
}

}  // namespace fts
