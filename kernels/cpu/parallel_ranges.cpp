// The worker pool behind parallelRanges (see parallel_ranges.h). Workers are started on first use and live for the
// process; each call publishes one job (a generation number, the function and the piece bounds) under a mutex and
// waits until every worker it used has reported back.
#include "kernels/cpu/parallel_ranges.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace fts::kernels {
namespace {

class Pool {
public:
    ~Pool() {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_quit = true;
            ++m_generation;
        }
        m_wake.notify_all();
        for (auto& t : m_workers) t.join();
    }

    void run(int pieces, const std::function<void(int)>& piece) {
        std::lock_guard<std::mutex> callLock(m_callMutex);  // one job at a time
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            // A worker starts having "seen" the generation before this job's, so it takes this job first.
            while (int(m_workers.size()) < pieces - 1) {
                const int index = int(m_workers.size()) + 1;
                m_workers.emplace_back([this, index, seen = m_generation] { workerLoop(index, seen); });
            }
            m_job = &piece;
            m_pieces = pieces;
            m_pending = pieces - 1;
            m_error = nullptr;
            ++m_generation;
        }
        m_wake.notify_all();
        std::exception_ptr mine;
        try {
            piece(0);
        } catch (...) {
            mine = std::current_exception();
        }
        std::unique_lock<std::mutex> lock(m_mutex);
        m_done.wait(lock, [this] { return m_pending == 0; });
        m_job = nullptr;
        if (mine) std::rethrow_exception(mine);
        if (m_error) std::rethrow_exception(m_error);
    }

private:
    void workerLoop(int index, uint64_t seen) {
        for (;;) {
            const std::function<void(int)>* job = nullptr;
            {
                std::unique_lock<std::mutex> lock(m_mutex);
                m_wake.wait(lock, [&] { return m_generation != seen; });
                seen = m_generation;
                if (m_quit) return;
                if (index >= m_pieces || !m_job) continue;
                job = m_job;
            }
            std::exception_ptr err;
            try {
                (*job)(index);
            } catch (...) {
                err = std::current_exception();
            }
            std::lock_guard<std::mutex> lock(m_mutex);
            if (err && !m_error) m_error = err;
            if (--m_pending == 0) m_done.notify_one();
        }
    }

    std::mutex m_callMutex;
    std::mutex m_mutex;
    std::condition_variable m_wake, m_done;
    std::vector<std::thread> m_workers;
    const std::function<void(int)>* m_job = nullptr;
    int m_pieces = 0, m_pending = 0;
    uint64_t m_generation = 0;
    bool m_quit = false;
    std::exception_ptr m_error;
};

Pool& pool() {
    static Pool p;
    return p;
}

}  // namespace

int hardwareThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

void parallelRanges(int64_t n, int threads, int64_t align, const std::function<void(int64_t, int64_t)>& fn) {
    if (n <= 0) return;
    if (threads <= 0) threads = hardwareThreads();
    align = std::max<int64_t>(1, align);
    // At least 64K elements per piece: below that a wake-up costs more than it saves.
    const int64_t minPiece = std::max<int64_t>(align, 65536);
    const int64_t maxPieces = std::max<int64_t>(1, n / minPiece);
    const int pieces = int(std::min<int64_t>(threads, maxPieces));
    if (pieces <= 1) {
        fn(0, n);
        return;
    }
    int64_t per = (n + pieces - 1) / pieces;
    per = (per + align - 1) / align * align;
    pool().run(pieces, [&](int k) {
        const int64_t begin = std::min(n, int64_t(k) * per), end = std::min(n, begin + per);
        if (begin < end) fn(begin, end);
    });
}

}  // namespace fts::kernels
