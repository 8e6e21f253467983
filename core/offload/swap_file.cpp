// SwapFile (see swap_file.h). Each request is cut into block_size pieces; an I/O thread owns one io_uring of
// queue_depth entries and keeps that many pieces in flight (with overlap_events off it waits for a whole batch before
// submitting the next). A short transfer is resubmitted for the rest; an error fails the request, and wait() reports
// it with the file's name and the system's message.
#include "core/offload/swap_file.h"

#include <fcntl.h>
#include <liburing.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/util/error.h"

namespace fts {

namespace {

std::string sysError(int err) { return std::strerror(err); }

}  // namespace

struct SwapFile::Impl {
    struct Piece {
        uint64_t request;
        bool write;
        char* buffer;
        int64_t offset;
        int64_t bytes;
    };

    struct Request {
        int64_t pending = 0;  // pieces not yet completed
        int error = 0;        // first errno seen
        bool write = false;
    };

    int fd = -1;
    SwapIoOptions io;
    std::mutex mutex;
    std::condition_variable done;
    std::unordered_map<uint64_t, Request> requests;
    uint64_t next = 1;
    int64_t bytesRead = 0, bytesWritten = 0;
    int64_t waitNanos = 0;  // time callers spent blocked in wait()

    struct Worker {
        io_uring ring{};
        std::deque<Piece> queue;
        std::condition_variable wake;
        std::thread thread;
        int inFlight = 0;
    };
    std::vector<std::unique_ptr<Worker>> workers;
    size_t nextWorker = 0;
    bool quit = false;

    void finishPiece(const Piece& p, int err) {  // under mutex
        auto it = requests.find(p.request);
        if (it == requests.end()) return;
        if (err && !it->second.error) it->second.error = err;
        if (--it->second.pending == 0) done.notify_all();
    }

    void run(Worker& w) {
        std::unique_lock<std::mutex> lock(mutex);
        std::unordered_map<uint64_t, Piece> flying;
        uint64_t tag = 0;
        for (;;) {
            w.wake.wait(lock, [&] { return quit || !w.queue.empty() || w.inFlight > 0; });
            if (quit && w.inFlight == 0) return;
            // Submit while there is room (overlap_events off: only when nothing is in flight).
            int prepared = 0;
            while (!w.queue.empty() && w.inFlight < io.queueDepth &&
                   (io.overlapEvents || flying.empty() || prepared > 0)) {
                io_uring_sqe* sqe = io_uring_get_sqe(&w.ring);
                if (!sqe) break;
                Piece p = w.queue.front();
                w.queue.pop_front();
                if (p.write)
                    io_uring_prep_write(sqe, fd, p.buffer, unsigned(p.bytes), uint64_t(p.offset));
                else
                    io_uring_prep_read(sqe, fd, p.buffer, unsigned(p.bytes), uint64_t(p.offset));
                io_uring_sqe_set_data64(sqe, ++tag);
                flying.emplace(tag, p);
                ++w.inFlight;
                ++prepared;
                if (io.singleSubmit) {
                    io_uring_submit(&w.ring);
                    prepared = 0;
                }
            }
            if (prepared > 0) io_uring_submit(&w.ring);
            if (w.inFlight == 0) continue;
            lock.unlock();
            io_uring_cqe* cqe = nullptr;
            int rc = io_uring_wait_cqe(&w.ring, &cqe);
            lock.lock();
            if (rc == -EINTR) continue;
            if (rc < 0) {  // the ring itself failed: fail everything in flight
                for (auto& [t, p] : flying) finishPiece(p, -rc);
                w.inFlight = 0;
                flying.clear();
                continue;
            }
            // Reap every completion that is ready.
            do {
                const uint64_t t = io_uring_cqe_get_data64(cqe);
                const int res = cqe->res;
                io_uring_cqe_seen(&w.ring, cqe);
                auto it = flying.find(t);
                if (it != flying.end()) {
                    Piece p = it->second;
                    flying.erase(it);
                    --w.inFlight;
                    if (res < 0) {
                        finishPiece(p, -res);
                    } else if (res == 0) {
                        finishPiece(p, p.write ? ENOSPC : EIO);  // no progress: a full disk or a truncated file
                    } else {
                        (p.write ? bytesWritten : bytesRead) += res;
                        if (res < p.bytes) {  // short transfer: the rest goes again
                            Piece rest = p;
                            rest.buffer += res;
                            rest.offset += res;
                            rest.bytes -= res;
                            w.queue.push_front(rest);
                        } else {
                            finishPiece(p, 0);
                        }
                    }
                }
            } while (io_uring_peek_cqe(&w.ring, &cqe) == 0);
        }
    }

    uint64_t submit(bool write, char* buffer, int64_t offset, int64_t bytes, const std::filesystem::path& path,
                    int64_t size) {
        if (offset % kSwapAlign || bytes % kSwapAlign || reinterpret_cast<uintptr_t>(buffer) % kSwapAlign)
            throw Error(path.string() + ": swap I/O must be aligned to " + std::to_string(kSwapAlign) + " bytes");
        if (offset < 0 || offset + bytes > size) throw Error(path.string() + ": swap I/O beyond the end of the file");
        std::lock_guard<std::mutex> lock(mutex);
        const uint64_t id = next++;
        Request& r = requests[id];
        r.write = write;
        Worker& w = *workers[nextWorker++ % workers.size()];
        for (int64_t k = 0; k < bytes; k += io.blockSize) {
            w.queue.push_back({id, write, buffer + k, offset + k, std::min(io.blockSize, bytes - k)});
            ++r.pending;
        }
        if (r.pending == 0) done.notify_all();
        w.wake.notify_one();
        return id;
    }
};

SwapFile::SwapFile(std::filesystem::path path, int64_t bytes, const SwapIoOptions& io)
    : m_path(std::move(path)),
      m_bytes(alignUp(std::max<int64_t>(bytes, 0), kSwapAlign)),
      m_impl(std::make_unique<Impl>()) {
    Impl& d = *m_impl;
    d.io = io;
    d.io.blockSize = std::max<int64_t>(kSwapAlign, alignUp(io.blockSize, kSwapAlign));
    d.io.queueDepth = std::max(1, io.queueDepth);
    d.fd = ::open(m_path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_DIRECT | O_CLOEXEC, 0600);
    if (d.fd < 0) {
        const int err = errno;
        if (err == EINVAL)
            throw IoError(m_path.string() +
                          ": the filesystem does not support O_DIRECT (NVMe offload needs a local "
                          "filesystem such as ext4 or xfs)");
        throw IoError(m_path.string() + ": cannot create the swap file: " + sysError(err));
    }
    if (m_bytes > 0) {
        // fallocate reserves the blocks without writing them (glibc's posix_fallocate would write a zero into every
        // block where the file system lacks it: minutes for tens of GB). Without it, a sparse file of the size,
        // after checking the free space, so a full disk still fails here and not mid-run.
        int rc = ::fallocate(d.fd, 0, 0, off_t(m_bytes)) == 0 ? 0 : errno;
        if (rc == EOPNOTSUPP || rc == ENOSYS) {
            struct statvfs fs {};
            if (::fstatvfs(d.fd, &fs) == 0 && int64_t(fs.f_bavail) * int64_t(fs.f_frsize) < m_bytes)
                rc = ENOSPC;
            else
                rc = ::ftruncate(d.fd, off_t(m_bytes)) == 0 ? 0 : errno;
        }
        if (rc != 0) {
            ::close(d.fd);
            ::unlink(m_path.c_str());
            throw IoError(m_path.string() + ": cannot reserve " + std::to_string(m_bytes) +
                          " bytes for the swap file: " + sysError(rc));
        }
    }
    const int threads = std::max(1, io.threads);
    for (int t = 0; t < threads; ++t) {
        auto w = std::make_unique<Impl::Worker>();
        const int rc = io_uring_queue_init(unsigned(d.io.queueDepth), &w->ring, 0);
        if (rc < 0) {
            for (auto& prev : d.workers) {
                {
                    std::lock_guard<std::mutex> lock(d.mutex);
                    d.quit = true;
                }
                prev->wake.notify_all();
                prev->thread.join();
                io_uring_queue_exit(&prev->ring);
            }
            ::close(d.fd);
            ::unlink(m_path.c_str());
            throw IoError(m_path.string() + ": io_uring is not available (" + sysError(-rc) +
                          "); NVMe offload needs Linux 5.6 or later with io_uring allowed");
        }
        d.workers.push_back(std::move(w));
    }
    for (auto& w : d.workers) {
        Impl::Worker* wp = w.get();
        w->thread = std::thread([this, wp] { m_impl->run(*wp); });
    }
}

SwapFile::~SwapFile() {
    Impl& d = *m_impl;
    {
        std::lock_guard<std::mutex> lock(d.mutex);
        d.quit = true;
    }
    for (auto& w : d.workers) w->wake.notify_all();
    for (auto& w : d.workers) {
        w->thread.join();
        io_uring_queue_exit(&w->ring);
    }
    if (d.fd >= 0) ::close(d.fd);
    std::error_code ec;
    std::filesystem::remove(m_path, ec);
}

SwapFile::Ticket SwapFile::write(int64_t offset, const void* buffer, int64_t bytes) {
    return m_impl->submit(true, static_cast<char*>(const_cast<void*>(buffer)), offset, bytes, m_path, m_bytes);
}

SwapFile::Ticket SwapFile::read(int64_t offset, void* buffer, int64_t bytes) {
    return m_impl->submit(false, static_cast<char*>(buffer), offset, bytes, m_path, m_bytes);
}

void SwapFile::wait(Ticket t) {
    Impl& d = *m_impl;
    std::unique_lock<std::mutex> lock(d.mutex);
    auto it = d.requests.find(t);
    if (it == d.requests.end()) return;
    if (it->second.pending > 0) {  // the caller waits for the disk: count the stall
        const auto t0 = std::chrono::steady_clock::now();
        d.done.wait(lock, [&] { return it->second.pending == 0; });
        d.waitNanos +=
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
    }
    const Impl::Request r = it->second;
    d.requests.erase(it);
    if (r.error)
        throw IoError(m_path.string() + ": swap " + (r.write ? "write" : "read") + " failed: " + sysError(r.error) +
                      (r.error == ENOSPC ? " (the disk is full)" : ""));
}

void SwapFile::waitAll() {
    std::vector<Ticket> all;
    {
        std::lock_guard<std::mutex> lock(m_impl->mutex);
        for (auto& [t, r] : m_impl->requests) all.push_back(t);
    }
    for (Ticket t : all) wait(t);
}

double SwapFile::waitSeconds() const {
    std::lock_guard<std::mutex> lock(m_impl->mutex);
    return double(m_impl->waitNanos) * 1e-9;
}

int64_t SwapFile::bytesRead() const {
    std::lock_guard<std::mutex> lock(m_impl->mutex);
    return m_impl->bytesRead;
}
int64_t SwapFile::bytesWritten() const {
    std::lock_guard<std::mutex> lock(m_impl->mutex);
    return m_impl->bytesWritten;
}

AlignedHostBuffer::AlignedHostBuffer(int64_t bytes) : m_bytes(alignUp(bytes, kSwapAlign)) {
    if (m_bytes > 0 && ::posix_memalign(&m_data, size_t(kSwapAlign), size_t(m_bytes)) != 0)
        throw Error("cannot allocate " + std::to_string(m_bytes) + " bytes of aligned host memory for NVMe swapping");
}
AlignedHostBuffer::~AlignedHostBuffer() { std::free(m_data); }
AlignedHostBuffer::AlignedHostBuffer(AlignedHostBuffer&& o) noexcept : m_data(o.m_data), m_bytes(o.m_bytes) {
    o.m_data = nullptr;
    o.m_bytes = 0;
}
AlignedHostBuffer& AlignedHostBuffer::operator=(AlignedHostBuffer&& o) noexcept {
    if (this != &o) {
        std::free(m_data);
        m_data = o.m_data;
        m_bytes = o.m_bytes;
        o.m_data = nullptr;
        o.m_bytes = 0;
    }
    return *this;
}

}  // namespace fts
