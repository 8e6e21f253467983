// The tensor types of GGUF files (ggml's `ggml_type`): the numeric ids a file stores, and each type's block
// (elements per block, bytes per block) as llama.cpp lays them out. Only the types this exporter writes are listed.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace fts::gguf {

// Numeric values are the file format's (ggml.h `enum ggml_type`); never renumber.
enum class GgmlType : uint32_t {
    F32 = 0,
    F16 = 1,
    Q4_0 = 2,
    Q4_1 = 3,
    Q5_0 = 6,
    Q5_1 = 7,
    Q8_0 = 8,
    Q4_K = 12,
    Q5_K = 13,
    Q6_K = 14,
    BF16 = 30,
};

constexpr int kSuperBlock = 256;  // QK_K: elements per k-quant super-block

struct GgmlTypeTraits {
    int blockElements;  // elements per block (1 for the float types)
    int blockBytes;     // bytes per block
};

GgmlTypeTraits typeTraits(GgmlType type);
std::string_view typeName(GgmlType type);  // "F32", "Q4_K", ... as gguf-py spells them
// Bytes of a row of `elements` values (elements a multiple of the block size).
size_t rowBytes(GgmlType type, int64_t elements);

}  // namespace fts::gguf
