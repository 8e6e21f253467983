// Fuzz harness: a .safetensors file (the 8-byte length, the JSON header, the data buffer) opened and validated;
// every tensor of a file that opens must lie inside the mapping (its first and last bytes are read).
#include "core/util/error.h"
#include "core/weights/safetensors.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto file = fts::fuzz::writeScratch("model.safetensors", fts::fuzz::bytes(data, size));
    try {
        const auto st = fts::SafetensorsFile::open(file);
        volatile unsigned char sink = 0;
        for (const auto& t : st->tensors()) {
            if (t.nbytes() == 0) continue;
            const auto* p = static_cast<const unsigned char*>(st->data(t));
            sink = sink ^ p[0] ^ p[t.nbytes() - 1];
            (void)t.numel();
        }
    } catch (const fts::Error&) {
    }
    return 0;
}
