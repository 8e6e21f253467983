// Consolidation of a ZeRO stage 3 checkpoint (see zero3_export.h). Parameter p's flat elements are the
// concatenation over ranks q = 0..N-1 of master[offset_p, offset_p + len_q) in rank q's shard, len_q =
// min(chunk_p, numel_p - q * chunk_p): the safetensors writer's fill callback streams them in that order.
#include "core/zero/zero3_export.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>

#include "core/arch/decoder_arch.h"
#include "core/weights/safetensors.h"
#include "core/model/language_model.h"
#include "core/model/safetensors_torch.h"
#include "core/zero/zero_plan.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/json_fields.h"
#include "core/util/json_parse.h"

namespace fts {
namespace fs = std::filesystem;

void exportZero3Checkpoint(const nlohmann::json& st, const fs::path& dir, const fs::path& outDir, torch::Dtype dtype) {
    const fs::path stateFile = dir / "trainer_state.json";
    const std::string where = stateFile.string() + ": zero3_partition";
    if (!st.contains("zero3_partition") || !st["zero3_partition"].is_object())
        throw FormatError(stateFile.string() + ": key \"zero3_partition\" is missing or not an object");
    const nlohmann::json& part = st["zero3_partition"];
    const int world = requiredField<int>(part, "world_size", where);
    const int64_t shardElems = requiredField<int64_t>(part, "shard_elements", where);
    if (world < 1 || shardElems < 0) throw FormatError(where + ": world_size or shard_elements is out of range");
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
    nlohmann::json config = parseJson(readFile(dir / "config.json"));
    const std::map<std::string, std::vector<StoredPiece>> pieces = storedPieces(config, (dir / "config.json").string());
    std::vector<TensorView> views;
    const SafetensorsDtype outType = toSafetensorsDtype(dtype);
    if (!part.contains("params") || !part["params"].is_array())
        throw FormatError(where + ": key \"params\" is missing or not a list");
    for (const auto& p : part["params"]) {
        TensorView v;
        v.name = requiredField<std::string>(p, "name", where + ".params");
        const std::string entry = where + " entry of '" + v.name + "'";
        v.dtype = outType;
        if (!p.contains("shape") || !p["shape"].is_array()) throw FormatError(entry + ": \"shape\" must be a list");
        int64_t shapeNumel = 1;
        for (const auto& d : p["shape"]) {
            if (!jsonHolds<int64_t>(d) || d.get<int64_t>() < 0 ||
                (d.get<int64_t>() > 0 && shapeNumel > std::numeric_limits<int64_t>::max() / d.get<int64_t>()))
                throw FormatError(entry + ": \"shape\" must list sizes (integers >= 0), found " +
                                  jsonForMessage(p["shape"]));
            v.shape.push_back(d.get<int64_t>());
            shapeNumel *= d.get<int64_t>();
        }
        const int64_t numel = requiredField<int64_t>(p, "numel", entry),
                      chunk = requiredField<int64_t>(p, "chunk", entry),
                      offset = requiredField<int64_t>(p, "offset", entry);
        // Compared without overflow: offset + chunk <= shardElems and chunk * world >= numel.
        if (numel != shapeNumel || offset < 0 || chunk < 0 || offset > shardElems || chunk > shardElems - offset ||
            chunk < numel / world + (numel % world != 0 ? 1 : 0))
            throw FormatError(entry + " does not fit the shards");
        // Elements [from, to) of the parameter, flat: rank q holds [q * chunk, (q + 1) * chunk) at `offset`.
        auto fillRange = [&shards, chunk, offset, dtype](int64_t from, int64_t to) {
            return [&shards, chunk, offset, dtype, from, to](const ByteSink& sink) {
                for (size_t q = 0; q < shards.size(); ++q) {
                    const int64_t lo = std::max(from, int64_t(q) * chunk), hi = std::min(to, int64_t(q + 1) * chunk);
                    if (hi <= lo) continue;
                    const float* src = static_cast<const float*>(shards[q].file->data(*shards[q].master)) + offset +
                                       (lo - int64_t(q) * chunk);
                    torch::Tensor piece =
                        torch::from_blob(const_cast<float*>(src), {hi - lo}, torch::kFloat32).to(dtype).contiguous();
                    sink(piece.data_ptr(), size_t(piece.nbytes()));
                }
            };
        };
        const auto stored = pieces.find(v.name);
        if (stored == pieces.end() || v.shape.size() != 3) {
            v.fill = fillRange(0, numel);
            views.push_back(std::move(v));
            continue;
        }
        // Saved in pieces, as transformers saves stacked experts: each piece is a contiguous run of rows.
        const int64_t rowsPerSlice = v.shape[1], width = v.shape[2];
        for (const StoredPiece& piece : stored->second) {
            if (piece.expert >= v.shape[0] || piece.row + piece.rows > rowsPerSlice)
                throw FormatError(entry + " does not have the shape its model's config.json gives it");
            TensorView pv;
            pv.name = piece.name;
            pv.dtype = outType;
            pv.shape = {piece.rows, width};
            const int64_t from = (piece.expert * rowsPerSlice + piece.row) * width;
            pv.fill = fillRange(from, from + piece.rows * width);
            views.push_back(std::move(pv));
        }
    }
    std::error_code ec;
    fs::create_directories(outDir, ec);
    if (!fs::is_directory(outDir, ec)) throw IoError(outDir.string() + ": cannot create the output folder");
    const std::string dtypeName = torchDtypeConfigName(dtype);
    config["torch_dtype"] = dtypeName;
    if (config.contains("dtype")) config["dtype"] = dtypeName;
    if (const auto arch = optionalField<std::string>(part, "architecture", where); arch && !arch->empty())
        config["architectures"] = nlohmann::json::array({*arch});
    if (const auto type = optionalField<std::string>(part, "model_type", where); type && !type->empty())
        config["model_type"] = *type;
    writeSafetensors(outDir / "model.safetensors", views, {{"format", "pt"}});
    writeFileAtomic(outDir / "config.json", config.dump(2) + "\n");
    for (const char* f : {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"})
        if (fs::exists(dir / f)) writeFileAtomic(outDir / f, readFile(dir / f));
}

}  // namespace fts
