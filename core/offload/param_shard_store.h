// Where a ZeRO stage-3 rank's parameter shard rests between uses (offload_param): on the training device (no
// offload), in host memory (device cpu; pinned when training on CUDA), or on NVMe (device nvme, ZeRO-Infinity): the
// first max_in_cpu elements in host memory, the rest in a swap file under <nvme_path>/<run>/rank<r>/. The gather
// reads ranges of it (read(): a view where the values rest on the training device, else a copy moved there);
// prefetch() starts reading the next blocks' ranges from NVMe into at most buffer_count buffers of at most
// buffer_size elements each while the current block computes. The step writes the updated values through the
// ParamSink interface in one ordered pass, streamed to the swap file in aligned blocks.
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "core/config/train_config.h"
#include "core/offload/optimizer_partition.h"
#include "core/offload/param_sink.h"
#include "core/offload/swap_file.h"

namespace fts {

struct ParamStorePlacement {
    StatePlacement where = StatePlacement::Device;
    bool pinMemory = true;            // host memory page-locked (only when training on CUDA)
    int64_t maxInCpu = 1000000000;    // nvme: elements kept in host memory (a prefix of the shard)
    int bufferCount = 5;              // nvme: ranges read ahead at once
    int64_t bufferElems = 100000000;  // nvme: elements per buffer (every parameter's chunk must fit one)
    std::filesystem::path swapDir;    // nvme: this rank's folder
    SwapIoOptions io;
};

class ParamShardStore : public ParamSink {
public:
    // initial: the shard (elements, the parameter dtype, on the training device). largestChunk: the largest
    // parameter chunk (nvme: it must fit buffer_size, as in DeepSpeed); its name for the error.
    ParamShardStore(const torch::Tensor& initial, const ParamStorePlacement& placement, int64_t largestChunk,
                    const std::string& largestName);
    ~ParamShardStore() override;
    ParamShardStore(const ParamShardStore&) = delete;
    ParamShardStore& operator=(const ParamShardStore&) = delete;

    StatePlacement placement() const { return m_place.where; }
    int64_t elements() const override { return m_elements; }
    torch::ScalarType dtype() const override { return m_dtype; }
    // Every element in memory: the tensor holding them (training device or host); else undefined.
    torch::Tensor wholeTensor() const { return m_swapped == 0 ? m_resident : torch::Tensor(); }

    // [offset, offset + len) on the training device: a view where they rest there, else a copy (from a read-ahead
    // buffer when one covers the range).
    torch::Tensor read(int64_t offset, int64_t len);
    // nvme: starts reading [offset, offset + len) ahead when it is (partly) on disk, fits buffer_size, is not being
    // read already and a buffer is free (the oldest read-ahead is dropped when none is). Otherwise nothing.
    void prefetch(int64_t offset, int64_t len);

    // What the caller will read ahead at most: `ranges` ranges of up to `elems` elements (sizes the buffers).
    void setReadAheadBound(int ranges, int64_t elems) {
        m_aheadRanges = ranges;
        m_aheadElems = elems;
    }

    // The largest span a writer will ask for besides maxSpan() (the optimizer's sub_group_size), for the byte count.
    void setSpanBound(int64_t elems) { m_spanBound = elems; }

    // Ranges read ahead at once: min(announced ranges, buffer_count); 0 when a range exceeds buffer_size.
    int readAheadRanges() const;

    // ParamSink: one ordered pass of writes (drops every read-ahead first); spans of at most one write buffer.
    int64_t maxSpan() const override;
    torch::Tensor span(int64_t offset, int64_t n) override;
    void commit(int64_t offset, int64_t n) override;
    void finish() override;

    // Bytes where they rest: on the training device, in host memory (besides the device), on NVMe.
    int64_t deviceBytes() const;
    int64_t hostBytes() const;
    int64_t nvmeBytes() const;
    int64_t swapBytesRead() const;
    int64_t swapBytesWritten() const;
    double swapWaitSeconds() const;

private:
    struct Ahead {
        int64_t offset = 0, len = 0;
        size_t buffer = 0;        // index in m_pool
        int64_t bufferStart = 0;  // byte offset in the file of the buffer's first byte
        SwapFile::Ticket ticket = 0;
    };
    int64_t rangeBufferBytes(int64_t elems) const;  // an aligned buffer that holds any range of `elems` elements
    void makePool();
    void dropReadAhead();
    void readSwapped(int64_t offset, int64_t len, void* dst);  // elements in [m_residentElems, m_elements)
    void appendToFile(const char* bytes, int64_t n);

    ParamStorePlacement m_place;
    torch::Device m_device;
    torch::ScalarType m_dtype;
    int64_t m_elements = 0, m_esz = 0;
    int64_t m_residentElems = 0, m_swapped = 0;  // elements in memory (a prefix), elements on NVMe
    torch::Tensor m_resident;                    // the resident prefix (device, or host when offloaded)
    std::filesystem::path m_dir;
    std::unique_ptr<SwapFile> m_file;
    std::list<Ahead> m_ahead;
    int m_aheadRanges = 2;
    int64_t m_aheadElems = 0;
    // Allocated once (the first read): read-ahead buffers, and one for reads that no read-ahead covers.
    std::vector<AlignedHostBuffer> m_pool;
    AlignedHostBuffer m_readBuf;
    bool m_poolMade = false;
    int64_t m_spanBound = INT64_MAX;
    // The write pass: the span handed out (staging when not wholly resident), and the aligned tail to write.
    torch::Tensor m_stage;
    int64_t m_passNext = 0;           // the next offset a span must start at
    AlignedHostBuffer m_writeBuf[2];  // double-buffered aligned writes
    SwapFile::Ticket m_writeTicket[2] = {0, 0};
    int m_writeCur = 0;
    int64_t m_writeFill = 0, m_writePos = 0;  // bytes in the current buffer, file offset of its start
};

}  // namespace fts
