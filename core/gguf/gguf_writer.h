// The GGUF v3 container (llama.cpp's model file): header, metadata key-values, tensor infos, then the tensors'
// data, each aligned to `general.alignment` (32). The writer streams: tensor bytes are produced one tensor at a
// time when the file is written (so a 7B model is never whole in memory), into an AtomicFileWriter (a temporary
// sibling renamed over the target at the end: an error or a stop leaves no partial file).
// Invariant: every tensor's producer writes exactly the byte count its info declares (checked).
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "core/gguf/ggml_types.h"

namespace fts::gguf {

// Metadata value types of the file format (gguf.cpp `gguf_type`).
enum class ValueType : uint32_t {
    U8 = 0,
    I8 = 1,
    U16 = 2,
    I16 = 3,
    U32 = 4,
    I32 = 5,
    F32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    U64 = 10,
    I64 = 11,
    F64 = 12,
};

// One metadata value: a scalar or a homogeneous array (of strings, i32, f32, bool).
struct MetadataValue {
    ValueType type = ValueType::U32;
    ValueType elementType = ValueType::U32;  // for Array
    uint64_t u = 0;
    int64_t i = 0;
    double f = 0;
    bool b = false;
    std::string s;
    std::vector<std::string> strings;
    std::vector<int32_t> ints;
    std::vector<float> floats;

    static MetadataValue u32(uint32_t v);
    static MetadataValue i32(int32_t v);
    static MetadataValue f32(float v);
    static MetadataValue boolean(bool v);
    static MetadataValue string(std::string v);
    static MetadataValue stringArray(std::vector<std::string> v);
    static MetadataValue i32Array(std::vector<int32_t> v);
    static MetadataValue f32Array(std::vector<float> v);
    static MetadataValue boolArray(std::vector<bool> v);  // stored in `ints` (0 / 1)
};

struct MetadataEntry {
    std::string key;
    MetadataValue value;
};

// Receives a tensor's bytes (in pieces) as the file is written.
using TensorSink = std::function<void(const void* bytes, size_t size)>;

struct TensorInfo {
    std::string name;
    std::vector<int64_t> ne;  // ggml order: ne[0] is the contiguous (row) dimension, i.e. numpy's shape reversed
    GgmlType type = GgmlType::F32;
    std::function<void(const TensorSink&)> produce;  // writes exactly bytes() bytes
    uint64_t bytes() const;
};

constexpr uint32_t kAlignment = 32;

// Writes `path` atomically. `progress(done, total)` is called after each tensor (bytes of tensor data).
// Throws FormatError for duplicate keys or tensor names, or a producer that wrote the wrong byte count; IoError
// (naming the file) when it cannot be written.
void writeGguf(const std::filesystem::path& path, const std::vector<MetadataEntry>& metadata,
               const std::vector<TensorInfo>& tensors,
               const std::function<void(uint64_t done, uint64_t total)>& progress = {});

}  // namespace fts::gguf
