// Fuzz harness: the training config text through the whole parse and validation (DeepSpeed block, "auto",
// the Trainer's names, offload, data and training sections). Every problem must come back as issues or as an
// fts::Error; anything else (a crash, a nlohmann type_error, a hang) is a bug.
#include "core/config/train_config.h"
#include "core/util/error.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const auto result = fts::parseTrainConfigText(std::string(fts::fuzz::bytes(data, size)),
                                                      fts::fuzz::scratchDir(), 1 + int(size % 4));
        if (result.ok()) (void)fts::configToResolvedJson(*result.config).dump();
    } catch (const fts::Error&) {
    }
    return 0;
}
