// Fuzz harness: a model folder's config.json read into a model shape (every architecture's keys, defaults,
// ranges). Syntax errors are nlohmann parse_errors; everything else must be an fts::Error naming the key.
#include "core/config/model_shape.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto doc = fts::fuzz::jsonOf(data, size);
    if (!doc) return 0;
    try {
        const fts::ModelShape shape = fts::modelShapeFromJson(*doc, "config.json");
        (void)shape.numParameters();
        (void)shape.largestLayerParameters();
        (void)shape.largestModuleParameters();
    } catch (const fts::Error&) {
    }
    return 0;
}
