// One swap file on a local SSD for offloaded state (ZeRO-Infinity): opened with O_DIRECT, its whole size reserved
// up front with fallocate, no data written (so a full disk fails at start, not mid-run; a file system without
// fallocate gets a sparse file after a free-space check), read and written asynchronously through io_uring by
// `intra_op_parallelism` I/O threads, each keeping up to `queue_depth` requests of `block_size` bytes in flight.
// Buffers, offsets and sizes must be multiples of kSwapAlign. The file is removed when the object is destroyed.
// No LibTorch here.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace fts {

constexpr int64_t kSwapAlign = 4096;  // O_DIRECT: buffer address, file offset and length
inline int64_t alignUp(int64_t n, int64_t a) { return (n + a - 1) / a * a; }

struct SwapIoOptions {
    int64_t blockSize = 1048576;  // aio.block_size (bytes per request)
    int queueDepth = 8;           // aio.queue_depth
    int threads = 1;              // aio.intra_op_parallelism
    bool singleSubmit = false;    // aio.single_submit: one request per submission
    bool overlapEvents = true;    // aio.overlap_events: false waits for a whole batch before submitting more
};

class SwapFile {
public:
    using Ticket = uint64_t;
    // Creates `path` (its folder must exist) and reserves `bytes`; IoError naming the path on failure (ENOSPC: the
    // bytes asked for).
    SwapFile(std::filesystem::path path, int64_t bytes, const SwapIoOptions& io);
    ~SwapFile();
    SwapFile(const SwapFile&) = delete;
    SwapFile& operator=(const SwapFile&) = delete;

    Ticket write(int64_t offset, const void* buffer, int64_t bytes);
    Ticket read(int64_t offset, void* buffer, int64_t bytes);
    // Blocks until the request is done; IoError naming the file if any part of it failed.
    void wait(Ticket t);
    void waitAll();
    const std::filesystem::path& path() const { return m_path; }
    int64_t size() const { return m_bytes; }
    // Bytes moved so far, and the seconds callers spent waiting for requests still in flight (the part of the I/O
    // that compute did not hide): a run's per-step swap figures.
    int64_t bytesRead() const;
    int64_t bytesWritten() const;
    double waitSeconds() const;

private:
    struct Impl;
    std::filesystem::path m_path;
    int64_t m_bytes = 0;
    std::unique_ptr<Impl> m_impl;
};

// Host memory aligned for O_DIRECT (kSwapAlign), freed with the object.
class AlignedHostBuffer {
public:
    AlignedHostBuffer() = default;
    explicit AlignedHostBuffer(int64_t bytes);
    ~AlignedHostBuffer();
    AlignedHostBuffer(AlignedHostBuffer&& o) noexcept;
    AlignedHostBuffer& operator=(AlignedHostBuffer&& o) noexcept;
    void* data() const { return m_data; }
    int64_t bytes() const { return m_bytes; }

private:
    void* m_data = nullptr;
    int64_t m_bytes = 0;
};

}  // namespace fts
