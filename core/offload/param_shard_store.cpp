// ParamShardStore (see param_shard_store.h).
#include "core/offload/param_shard_store.h"

#include <cstring>

#include "core/util/error.h"

namespace fts {

namespace {

constexpr int64_t kWriteBufferBytes = 8 << 20;  // one aligned write of the streamed pass
const char* const kKey = "deepspeed.zero_optimization.offload_param";

int64_t alignDown(int64_t n, int64_t a) { return n / a * a; }

}  // namespace

ParamShardStore::ParamShardStore(const torch::Tensor& initial, const ParamStorePlacement& placement,
                                 int64_t largestChunk, const std::string& largestName)
    : m_place(placement),
      m_device(initial.device()),
      m_dtype(initial.scalar_type()),
      m_elements(initial.numel()),
      m_esz(int64_t(initial.element_size())) {
    torch::NoGradGuard ng;
    const torch::Tensor flat = initial.detach().reshape({-1});
    const bool toHost = m_place.where != StatePlacement::Device && !m_device.is_cpu();
    const auto hostOpts =
        torch::TensorOptions().dtype(m_dtype).device(torch::kCPU).pinned_memory(m_place.pinMemory && toHost);
    if (m_place.where != StatePlacement::Nvme) {
        m_residentElems = m_elements;
        m_resident = toHost ? torch::empty({m_elements}, hostOpts).copy_(flat) : flat;
        return;
    }
    if (m_place.bufferCount < 1)
        throw ConfigError(std::string(kKey) + ".buffer_count: expected at least 1 with device \"nvme\"");
    if (m_place.bufferElems < largestChunk)
        throw ConfigError(std::string(kKey) + ".buffer_size: " + std::to_string(m_place.bufferElems) +
                          " elements is smaller than this rank's largest parameter partition ('" + largestName + "', " +
                          std::to_string(largestChunk) + " elements); expected at least " +
                          std::to_string(largestChunk));
    if (m_place.maxInCpu < 0) throw ConfigError(std::string(kKey) + ".max_in_cpu: expected >= 0");
    m_residentElems = std::min(m_elements, m_place.maxInCpu);
    m_swapped = m_elements - m_residentElems;
    m_resident = torch::empty({m_residentElems}, toHost ? hostOpts : flat.options());
    m_resident.copy_(flat.narrow(0, 0, m_residentElems));
    if (m_swapped == 0) return;

    // The folder and the file (its size reserved now: a full disk fails here, before training).
    const std::string key = std::string(kKey) + ".nvme_path";
    m_dir = m_place.swapDir;
    const std::filesystem::path root = m_dir.parent_path().parent_path();
    std::error_code ec;
    if (!std::filesystem::is_directory(root, ec))
        throw ConfigError(key + ": " + root.string() +
                          " does not exist or is not a folder; expected a folder on a local SSD");
    std::filesystem::create_directories(m_dir, ec);
    if (ec) throw ConfigError(key + ": cannot create " + m_dir.string() + ": " + ec.message());
    const int64_t fileBytes = alignUp(m_swapped * m_esz, kSwapAlign);
    const auto space = std::filesystem::space(root, ec);
    if (!ec && int64_t(space.available) < fileBytes)
        throw ConfigError(key + ": " + root.string() + " has " + std::to_string(space.available) +
                          " bytes free but this "
                          "rank's parameter partition needs " +
                          std::to_string(fileBytes) + " bytes");
    try {
        m_file = std::make_unique<SwapFile>(m_dir / "parameters.swp", fileBytes, m_place.io);
    } catch (const IoError& e) {
        throw ConfigError(key + ": " + e.what());
    }
    const int64_t wb = std::min(kWriteBufferBytes, fileBytes);
    m_writeBuf[0] = AlignedHostBuffer(wb);
    m_writeBuf[1] = AlignedHostBuffer(wb);
    // The initial values of the swapped part go to the file in one pass.
    const torch::Tensor hostInit = flat.narrow(0, m_residentElems, m_swapped).to(torch::kCPU).contiguous();
    appendToFile(static_cast<const char*>(hostInit.data_ptr()), m_swapped * m_esz);
    m_passNext = m_elements;
    finish();
}

ParamShardStore::~ParamShardStore() {
    try {
        dropReadAhead();
        if (m_file) m_file->waitAll();
    } catch (...) {
    }
    if (!m_file) return;
    m_file.reset();  // removes the swap file
    std::error_code ec;
    std::filesystem::remove(m_dir, ec);                // rank<r>, when empty
    std::filesystem::remove(m_dir.parent_path(), ec);  // the run's folder, when no other rank uses it
}

void ParamShardStore::dropReadAhead() {
    std::list<Ahead> ahead;
    ahead.swap(m_ahead);
    for (Ahead& a : ahead)
        if (a.ticket) m_file->wait(a.ticket);
}

int64_t ParamShardStore::rangeBufferBytes(int64_t elems) const {
    return alignUp(elems * m_esz, kSwapAlign) + kSwapAlign;
}

void ParamShardStore::makePool() {
    if (m_poolMade || m_aheadElems <= 0) return;
    m_poolMade = true;
    m_readBuf = AlignedHostBuffer(rangeBufferBytes(m_aheadElems));
    for (int i = 0; i < readAheadRanges(); ++i) m_pool.emplace_back(rangeBufferBytes(m_aheadElems));
}

int ParamShardStore::readAheadRanges() const {
    if (!m_file || m_aheadElems > m_place.bufferElems) return 0;  // ranges beyond buffer_size are read on demand
    return std::min(m_aheadRanges, m_place.bufferCount);
}

int64_t ParamShardStore::maxSpan() const {
    return m_file ? std::max<int64_t>(1, kWriteBufferBytes / m_esz) : INT64_MAX;
}

void ParamShardStore::readSwapped(int64_t offset, int64_t len, void* dst) {
    const int64_t b0 = (offset - m_residentElems) * m_esz, b1 = b0 + len * m_esz;
    for (auto it = m_ahead.begin(); it != m_ahead.end(); ++it)
        if (offset >= it->offset && offset + len <= it->offset + it->len) {
            if (it->ticket) {
                const SwapFile::Ticket t = it->ticket;
                it->ticket = 0;
                try {
                    m_file->wait(t);
                } catch (...) {
                    m_ahead.erase(it);  // its buffer was never filled
                    throw;
                }
            }
            std::memcpy(dst, static_cast<const char*>(m_pool[it->buffer].data()) + (b0 - it->bufferStart),
                        size_t(len * m_esz));
            return;
        }
    makePool();
    const int64_t a0 = alignDown(b0, kSwapAlign), a1 = alignUp(b1, kSwapAlign);
    AlignedHostBuffer temp;  // only for a range larger than the caller announced
    void* buf = m_readBuf.data();
    if (a1 - a0 > m_readBuf.bytes()) {
        temp = AlignedHostBuffer(a1 - a0);
        buf = temp.data();
    }
    m_file->wait(m_file->read(a0, buf, a1 - a0));
    std::memcpy(dst, static_cast<const char*>(buf) + (b0 - a0), size_t(len * m_esz));
}

torch::Tensor ParamShardStore::read(int64_t offset, int64_t len) {
    if (offset < 0 || len < 0 || offset + len > m_elements) throw Error("parameter store: read outside the shard");
    if (offset + len <= m_residentElems) {
        torch::Tensor v = m_resident.narrow(0, offset, len);
        return v.device() == m_device ? v : v.to(m_device);
    }
    torch::Tensor out = torch::empty({len}, torch::TensorOptions().dtype(m_dtype).device(torch::kCPU));
    const int64_t inMemory = std::max<int64_t>(0, m_residentElems - offset);
    if (inMemory > 0) out.narrow(0, 0, inMemory).copy_(m_resident.narrow(0, offset, inMemory));
    readSwapped(offset + inMemory, len - inMemory, static_cast<char*>(out.data_ptr()) + inMemory * m_esz);
    return out.device() == m_device ? out : out.to(m_device);
}

void ParamShardStore::prefetch(int64_t offset, int64_t len) {
    if (!m_file || offset + len <= m_residentElems || len > m_place.bufferElems || len <= 0) return;
    const int64_t s0 = std::max(offset, m_residentElems), s1 = offset + len;
    for (const Ahead& a : m_ahead)
        if (s0 >= a.offset && s1 <= a.offset + a.len) return;
    makePool();
    const int64_t b0 = (s0 - m_residentElems) * m_esz, b1 = (s1 - m_residentElems) * m_esz;
    const int64_t start = alignDown(b0, kSwapAlign), bytes = alignUp(b1, kSwapAlign) - start;
    if (m_pool.empty() || bytes > m_pool.front().bytes()) return;  // larger than announced: read on demand
    Ahead a;
    if (m_ahead.size() >= m_pool.size()) {  // the oldest read-ahead gives its buffer up
        if (m_ahead.front().ticket) m_file->wait(m_ahead.front().ticket);
        a.buffer = m_ahead.front().buffer;
        m_ahead.pop_front();
    } else {
        std::vector<char> used(m_pool.size(), 0);
        for (const Ahead& x : m_ahead) used[x.buffer] = 1;
        while (used[a.buffer]) ++a.buffer;
    }
    a.offset = s0;
    a.len = s1 - s0;
    a.bufferStart = start;
    a.ticket = m_file->read(start, m_pool[a.buffer].data(), bytes);
    m_ahead.push_back(a);
}

torch::Tensor ParamShardStore::span(int64_t offset, int64_t n) {
    if (offset == 0) {  // a new pass: what was read ahead is about to be stale
        if (m_file) {
            dropReadAhead();
            for (auto& t : m_writeTicket)  // writes of a pass that ended in an error
                if (t) m_file->wait(t), t = 0;
        }
        m_writeCur = 0;
        m_passNext = 0;
        m_writeFill = 0;
        m_writePos = 0;
    }
    if (offset != m_passNext || n < 0 || offset + n > m_elements)
        throw Error("parameter store: write spans must cover the shard in order (expected offset " +
                    std::to_string(m_passNext) + ", got " + std::to_string(offset) + ")");
    if (offset + n <= m_residentElems) return m_resident.narrow(0, offset, n);
    if (!m_stage.defined() || m_stage.numel() < n)
        m_stage = torch::empty({n}, torch::TensorOptions().dtype(m_dtype).device(torch::kCPU));
    return m_stage.narrow(0, 0, n);
}

void ParamShardStore::commit(int64_t offset, int64_t n) {
    m_passNext = offset + n;
    if (offset + n <= m_residentElems) return;
    torch::NoGradGuard ng;
    const int64_t inMemory = std::max<int64_t>(0, m_residentElems - offset);
    if (inMemory > 0) m_resident.narrow(0, offset, inMemory).copy_(m_stage.narrow(0, 0, inMemory));
    appendToFile(static_cast<const char*>(m_stage.data_ptr()) + inMemory * m_esz, (n - inMemory) * m_esz);
}

void ParamShardStore::appendToFile(const char* bytes, int64_t n) {
    const int64_t cap = m_writeBuf[0].bytes();
    while (n > 0) {
        const int64_t k = std::min(n, cap - m_writeFill);
        std::memcpy(static_cast<char*>(m_writeBuf[m_writeCur].data()) + m_writeFill, bytes, size_t(k));
        m_writeFill += k;
        bytes += k;
        n -= k;
        if (m_writeFill == cap) {
            m_writeTicket[m_writeCur] = m_file->write(m_writePos, m_writeBuf[m_writeCur].data(), cap);
            m_writePos += cap;
            m_writeCur = 1 - m_writeCur;
            if (m_writeTicket[m_writeCur]) m_file->wait(m_writeTicket[m_writeCur]);
            m_writeTicket[m_writeCur] = 0;
            m_writeFill = 0;
        }
    }
}

void ParamShardStore::finish() {
    if (!m_file) return;
    if (m_passNext != m_elements)
        throw Error("parameter store: a write pass ended at element " + std::to_string(m_passNext) + " of " +
                    std::to_string(m_elements));
    if (m_writeFill > 0) {  // the last block, zero-padded to the alignment
        const int64_t bytes = alignUp(m_writeFill, kSwapAlign);
        std::memset(static_cast<char*>(m_writeBuf[m_writeCur].data()) + m_writeFill, 0, size_t(bytes - m_writeFill));
        m_writeTicket[m_writeCur] = m_file->write(m_writePos, m_writeBuf[m_writeCur].data(), bytes);
    }
    for (auto& t : m_writeTicket)
        if (t) m_file->wait(t), t = 0;
    m_writeFill = 0;
    m_writePos = 0;
    m_passNext = 0;
}

int64_t ParamShardStore::deviceBytes() const {
    return m_resident.device() == m_device ? int64_t(m_resident.nbytes()) : 0;
}

int64_t ParamShardStore::hostBytes() const {
    int64_t b = m_resident.device() == m_device ? 0 : int64_t(m_resident.nbytes());
    if (!m_file) return b;
    // The two write buffers and the span a step writes into, the read buffer and the copy a read hands on, and the
    // read-ahead buffers.
    b += 2 * m_writeBuf[0].bytes() + std::min({maxSpan(), m_spanBound, m_elements}) * m_esz;
    b += rangeBufferBytes(m_aheadElems) + m_aheadElems * m_esz +
         int64_t(readAheadRanges()) * rangeBufferBytes(m_aheadElems);
    return b;
}

int64_t ParamShardStore::nvmeBytes() const { return m_swapped * m_esz; }
int64_t ParamShardStore::swapBytesRead() const { return m_file ? m_file->bytesRead() : 0; }
int64_t ParamShardStore::swapBytesWritten() const { return m_file ? m_file->bytesWritten() : 0; }
double ParamShardStore::swapWaitSeconds() const { return m_file ? m_file->waitSeconds() : 0.0; }

}  // namespace fts
