// The safetensors format without LibTorch: a strict, memory-mapped reader and a streaming, atomic writer.
// Invariant: an opened file has been fully validated (offsets contiguous, covering the whole buffer, sizes
// matching dtype x shape), so data(entry) always points at entry.nbytes() readable bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fts {

// Element types of the format. The enumerator order is the reference implementation's alignment order
// (huggingface/safetensors `Dtype`), which the writer uses to sort tensors.
enum class SafetensorsDtype { Bool, U8, I8, F8E5M2, F8E4M3, I16, U16, F16, BF16, I32, U32, F32, F64, I64, U64 };

std::string_view dtypeName(SafetensorsDtype dtype);                     // "F32", "BF16", ...
size_t dtypeSize(SafetensorsDtype dtype);                               // bytes per element
std::optional<SafetensorsDtype> parseDtypeName(std::string_view name);  // nullopt for an unknown name

struct TensorEntry {
    std::string name;
    SafetensorsDtype dtype = SafetensorsDtype::F32;
    std::vector<int64_t> shape;   // empty = scalar
    uint64_t begin = 0, end = 0;  // byte offsets into the data buffer (after the header)
    uint64_t nbytes() const { return end - begin; }
    int64_t numel() const;
};

// A validated, read-only memory map of one .safetensors file. Shared so that zero-copy tensor views can keep
// the mapping alive after the caller drops its handle.
class SafetensorsFile {
public:
    // Throws IoError when the file cannot be opened/mapped, FormatError (naming the file and, where it
    // applies, the tensor) for every malformed header or layout.
    static std::shared_ptr<SafetensorsFile> open(const std::filesystem::path& path);
    ~SafetensorsFile();
    SafetensorsFile(const SafetensorsFile&) = delete;
    SafetensorsFile& operator=(const SafetensorsFile&) = delete;

    const std::filesystem::path& path() const { return m_path; }
    const std::vector<TensorEntry>& tensors() const { return m_tensors; }  // in data-offset order
    const TensorEntry* find(std::string_view name) const;                  // nullptr when absent
    const void* data(const TensorEntry& entry) const { return m_dataStart + entry.begin; }
    // Drops the entry's pages from this process's resident set (madvise MADV_DONTNEED on the read-only mapping):
    // a loader that has copied a tensor out calls it so that peak RSS stays near the converted weights. The
    // bytes stay readable (a later access faults them in again from the page cache).
    void releasePages(const TensorEntry& entry) const { releaseRange(entry.begin, entry.end); }
    // The same for bytes [begin, end) of the data buffer (offsets as in TensorEntry).
    void releaseRange(uint64_t begin, uint64_t end) const;
    const std::map<std::string, std::string>& metadata() const { return m_metadata; }
    uint64_t headerSize() const { return m_headerSize; }  // N, the JSON header's byte length

private:
    SafetensorsFile() = default;
    std::filesystem::path m_path;
    void* m_map = nullptr;
    size_t m_mapSize = 0;
    const unsigned char* m_dataStart = nullptr;
    uint64_t m_headerSize = 0;
    std::vector<TensorEntry> m_tensors;
    std::unordered_map<std::string, size_t> m_index;
    std::map<std::string, std::string> m_metadata;
};

// Receives a tensor's bytes in one or more pieces while a file is written.
using ByteSink = std::function<void(const void* bytes, size_t size)>;

// One tensor to write: either `data` (nbytes() contiguous little-endian bytes) or, when data is null,
// `fill`, called once at write time to stream the bytes into the sink (lets callers convert or copy
// from a device one tensor at a time instead of materialising everything first).
struct TensorView {
    std::string name;
    SafetensorsDtype dtype = SafetensorsDtype::F32;
    std::vector<int64_t> shape;
    const void* data = nullptr;
    std::function<void(const ByteSink&)> fill;
    uint64_t nbytes() const;
};

// Serialise the header exactly as the reference writer does: "__metadata__" first, tensors sorted by
// descending dtype alignment then name, compact JSON, padded with spaces to a multiple of 8 bytes.
// Throws FormatError for duplicate or empty names, negative dims, or a name equal to "__metadata__".
std::string safetensorsHeader(const std::vector<TensorView>& tensors,
                              const std::map<std::string, std::string>& metadata);

// Write atomically (temporary sibling, fsync, rename, fsync of the folder; AtomicFileWriter). Tensor bytes are
// streamed. Returns the xxh3-64 of the file's bytes, computed as they were written.
uint64_t writeSafetensors(const std::filesystem::path& path, const std::vector<TensorView>& tensors,
                          const std::map<std::string, std::string>& metadata = {});

}  // namespace fts
