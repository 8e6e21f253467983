// Fuzz harness: a checkpoint folder's trainer_state.json and checksums.json, as the supervisor (run id, latest)
// and resume (checksum verification) read them. The first half of the input is one, the second the other.
#include "core/util/checkpoint_checksums.h"
#include "core/util/checkpoint_dir.h"
#include "core/util/error.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view in = fts::fuzz::bytes(data, size);
    fts::fuzz::writeScratch("out/checkpoints/step-00000002/trainer_state.json", in.substr(0, size / 2));
    fts::fuzz::writeScratch("out/checkpoints/step-00000002/checksums.json", in.substr(size / 2));
    fts::fuzz::writeScratch("out/checkpoints/latest", "step-00000002\n");
    const auto out = fts::fuzz::scratchDir() / "out";
    (void)fts::checkpointRunId(out / "checkpoints" / "step-00000002");
    (void)fts::checkpointDamage(out / "checkpoints" / "step-00000002");
    (void)fts::newestIntactCheckpoint(out, {});
    (void)fts::latestCheckpoint(out);
    return 0;
}
