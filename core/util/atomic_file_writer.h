// The one streaming atomic writer of the core: bytes go to a temporary sibling of the target; commit() fsyncs it,
// renames it over the target and fsyncs the folder, so a crash or a kill leaves the old file or the whole new one.
// The xxh3-64 of every byte written is kept as the bytes pass (checkpoints record it; see checkpoint_checksums.h).
// Invariant: a writer destroyed without commit() (an error, a full disk, a stop) removes its temporary file and
// leaves the target untouched. Used by checkpoints and exports (safetensors, JSON), the token cache and
// writeFileAtomic.
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace fts {

class AtomicFileWriter {
public:
    // Creates the folder if needed and the temporary file (mode 0644, or e.g. 0600 for files only the owner may
    // read). IoError naming the file when it cannot be created.
    explicit AtomicFileWriter(const std::filesystem::path& target, mode_t mode = 0644);
    ~AtomicFileWriter();
    AtomicFileWriter(const AtomicFileWriter&) = delete;
    AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

    // Appends (buffered; large pieces go straight through). IoError naming the target on failure; a full disk
    // says how many bytes were written, how many more were being written, and the free space left.
    void write(const void* data, size_t size);
    void write(std::string_view bytes) { write(bytes.data(), bytes.size()); }
    // Overwrites bytes already written (a header whose counts are known only at the end). The file then has no
    // streamed checksum: checksum() throws after this.
    void writeAt(uint64_t offset, const void* data, size_t size);

    uint64_t bytesWritten() const { return m_written; }
    uint64_t checksum() const;  // xxh3-64 of the bytes so far
    // fsync, rename over the target, fsync the folder. Returns the checksum (0 after writeAt).
    uint64_t commit();

    const std::filesystem::path& target() const { return m_target; }

private:
    void flushBuffer();
    void writeRaw(const char* p, size_t size, int64_t at = -1);
    [[noreturn]] void fail(const std::string& what, int err, size_t wanted);

    std::filesystem::path m_target, m_tmp;
    int m_fd = -1;
    std::string m_buffer;
    uint64_t m_written = 0;  // bytes accepted (buffered or on disk)
    uint64_t m_onDisk = 0;   // bytes the kernel accepted
    void* m_hash = nullptr;  // XXH3_state_t
    bool m_hashValid = true;
    bool m_committed = false;
};

// The xxh3-64 of a file's bytes, read in 8 MiB pieces. IoError naming the file when it cannot be read.
uint64_t fileChecksum(const std::filesystem::path& file);
// 16 lower-case hex digits, as checksum manifests store it.
std::string checksumHex(uint64_t checksum);
// For messages about a full disk: "12.5 MiB free on DIR", the space left to this user on the file system of `dir`.
std::string freeSpaceText(const std::filesystem::path& dir);

}  // namespace fts
