// Fuzz harness: the dataset readers (JSONL, JSON arrays, CSV, TSV, TXT). The first byte picks the format; the
// rest is the file. Every record must come back as a record or a bad row with its line, then the end.
#include "core/data/record_reader.h"
#include "core/util/error.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    static const char* kNames[] = {"d.jsonl", "d.json", "d.csv", "d.tsv", "d.txt"};
    const auto file = fts::fuzz::writeScratch(kNames[data[0] % 5], fts::fuzz::bytes(data + 1, size - 1));
    try {
        fts::RecordReader reader(file);
        fts::Record record;
        fts::BadRow bad;
        for (size_t i = 0; i <= size + 1; ++i)  // a reader that never ends is a bug: at most one record per byte
            if (reader.next(record, bad) == fts::RecordReader::Status::End) return 0;
        __builtin_trap();
    } catch (const fts::Error&) {
    }
    return 0;
}
