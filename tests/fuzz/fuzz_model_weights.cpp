// Fuzz harness: model.safetensors.index.json (the sharded-weights index) beside one valid shard, opened as the
// loader and the studio's model picker open a folder.
#include "core/util/error.h"
#include "core/weights/model_weights.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

const std::filesystem::path& folder() {
    static const std::filesystem::path dir = [] {
        const auto d = fts::fuzz::scratchDir() / "model";
        std::filesystem::create_directories(d);
        std::vector<fts::TensorView> views;
        static const float values[6] = {1, 2, 3, 4, 5, 6};
        views.push_back({"a.weight", fts::SafetensorsDtype::F32, {2, 3}, values, {}});
        views.push_back({"b.bias", fts::SafetensorsDtype::F32, {2}, values, {}});
        fts::writeSafetensors(d / "model-00001-of-00001.safetensors", views);
        return d;
    }();
    return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto& dir = folder();
    fts::fuzz::writeScratch("model/model.safetensors.index.json", fts::fuzz::bytes(data, size));
    try {
        const fts::ModelWeights w = fts::openModelWeights(dir);
        (void)w.numElements();
        (void)w.mainDtypeName();
    } catch (const fts::Error&) {
    }
    return 0;
}
