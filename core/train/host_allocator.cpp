// Caching CPU allocator (see host_allocator.h). Every block carries its size in a 64-byte header in front of the
// data (so one raw deleter serves all); small blocks go straight back to free(), large ones to an exact-size list.
#include "core/train/host_allocator.h"

#include <c10/core/CPUAllocator.h>
#include <c10/core/alignment.h>
#include <c10/util/Exception.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/util/byte_size.h"

namespace fts {

namespace {

constexpr size_t kAlignment = 64;  // c10's gAlignment with AVX-512
constexpr size_t kHeader = kAlignment;
constexpr size_t kMinCached = size_t(1) << 20;
static_assert(kAlignment >= c10::gAlignment);

class CachingHostAllocator final : public c10::Allocator {
public:
    CachingHostAllocator(int64_t capBytes, int64_t limitBytes) : m_cap(capBytes), m_limit(limitBytes) {}
    int64_t limit() const { return m_limit; }

    c10::DataPtr allocate(size_t n) override {
        if (m_limit > 0 && m_live.load() + int64_t(n) > m_limit)
            TORCH_CHECK_WITH(OutOfMemoryError, false, "CPU out of memory: tried to allocate ", n, " bytes with ",
                             m_live.load(), " bytes of tensors allocated; FTS_CPU_MEMORY_LIMIT is ", m_limit, " bytes");
        countAllocated(int64_t(n));
        void* base = nullptr;
        if (n < kMinCached || m_cap <= 0) return wrap(newBlock(n));
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            auto it = m_free.find(n);
            if (it != m_free.end() && !it->second.empty()) {
                base = it->second.back();
                it->second.pop_back();
                m_stats.cachedBytes -= int64_t(n);
                m_stats.hits += 1;
            } else {
                m_stats.misses += 1;
            }
        }
        return wrap(base ? base : newBlock(n));
    }

    c10::DeleterFnPtr raw_deleter() const override { return &release; }
    void copy_data(void* dest, const void* src, std::size_t count) const override {
        default_copy_data(dest, src, count);
    }

    void releaseCached() {
        std::unordered_map<size_t, std::vector<void*>> blocks;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            blocks.swap(m_free);
            m_stats.releasedBytes += m_stats.cachedBytes;
            m_stats.cachedBytes = 0;
        }
        for (auto& [n, list] : blocks)
            for (void* base : list) std::free(base);
    }

    HostAllocatorStats stats() {
        std::lock_guard<std::mutex> lock(m_mutex);
        HostAllocatorStats s = m_stats;
        s.liveBytes = m_live.load();
        s.peakLiveBytes = m_peak.load();
        return s;
    }

    void resetPeak() { m_peak.store(m_live.load()); }

    static CachingHostAllocator* instance;

private:
    static void* newBlock(size_t n) {
        void* base = nullptr;
        if (posix_memalign(&base, kAlignment, n + kHeader) != 0 || !base) throw std::bad_alloc();
        *static_cast<size_t*>(base) = n;
        return base;
    }
    static c10::DataPtr wrap(void* base) {
        void* data = static_cast<char*>(base) + kHeader;
        return {data, data, &release, c10::Device(c10::DeviceType::CPU)};
    }
    void countAllocated(int64_t n) {
        const int64_t live = m_live.fetch_add(n) + n;
        int64_t peak = m_peak.load();
        while (live > peak && !m_peak.compare_exchange_weak(peak, live)) {
        }
    }

    static void release(void* data) {
        if (!data) return;
        void* base = static_cast<char*>(data) - kHeader;
        const size_t n = *static_cast<size_t*>(base);
        instance->m_live.fetch_sub(int64_t(n));
        if (n < kMinCached || instance->m_cap <= 0)
            std::free(base);
        else
            instance->give(base, n);
    }

    void give(void* base, size_t n) {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            if (m_stats.cachedBytes + int64_t(n) <= m_cap) {
                m_free[n].push_back(base);
                m_stats.cachedBytes += int64_t(n);
                return;
            }
            m_stats.releasedBytes += int64_t(n);
        }
        std::free(base);
    }

    const int64_t m_cap;
    const int64_t m_limit;
    std::mutex m_mutex;
    std::unordered_map<size_t, std::vector<void*>> m_free;
    HostAllocatorStats m_stats;
    std::atomic<int64_t> m_live{0}, m_peak{0};
};

CachingHostAllocator* CachingHostAllocator::instance = nullptr;
std::once_flag g_installed;

}  // namespace

void installHostCachingAllocator(int64_t capBytes) {
    std::call_once(g_installed, [&] {
        if (const char* env = std::getenv("FTS_HOST_CACHE_MB")) capBytes = std::strtoll(env, nullptr, 10) << 20;
        // Never destroyed: tensors may outlive every static destructor and still return their blocks here.
        const char* limit = std::getenv("FTS_CPU_MEMORY_LIMIT");
        CachingHostAllocator::instance =
            new CachingHostAllocator(capBytes, limit && *limit ? parseByteSize(limit, "FTS_CPU_MEMORY_LIMIT") : 0);
        c10::SetCPUAllocator(CachingHostAllocator::instance, /*priority=*/1);
    });
}

void releaseHostCache() {
    if (CachingHostAllocator::instance) CachingHostAllocator::instance->releaseCached();
}

void resetHostPeak() {
    if (CachingHostAllocator::instance) CachingHostAllocator::instance->resetPeak();
}

int64_t hostTensorLimit() { return CachingHostAllocator::instance ? CachingHostAllocator::instance->limit() : 0; }

bool hostAllocatorInstalled() { return CachingHostAllocator::instance != nullptr; }

HostAllocatorStats hostAllocatorStats() {
    return CachingHostAllocator::instance ? CachingHostAllocator::instance->stats() : HostAllocatorStats{};
}

}  // namespace fts
