// Multi-tensor launch packing (device code's side of it): a list of tensors is cut into fixed-size chunks, one
// thread block per chunk; each launch carries at most kTensors tensor slots and kBlocks (slot, chunk) pairs in its
// by-value argument struct (kept under CUDA's classic 4 KiB kernel-parameter limit). A tensor whose chunks do not
// fit one launch continues in the next. For .cu files only.
#pragma once
#include <cstddef>
#include <cstdint>

namespace fts::kernels {

constexpr int64_t kChunkElems = 65536;  // elements per thread block
constexpr int kBlockThreads = 512;

template <int kBlocks>
struct ChunkMap {
    int32_t slot[kBlocks];   // tensor slot of the launch's argument arrays
    int32_t chunk[kBlocks];  // chunk index within that tensor
};

// For tensors 0..count-1 of numelOf(t) elements: addSlot(slot, t) puts tensor t into argument slot `slot`,
// launch(blocks) runs the launch whose map holds `blocks` entries. Empty tensors are skipped.
template <int kTensors, int kBlocks, typename NumelOf, typename AddSlot, typename Launch>
void packChunks(size_t count, ChunkMap<kBlocks>& map, NumelOf numelOf, AddSlot addSlot, Launch launch) {
    int used = 0, blocks = 0;  // tensor slots and blocks of the launch being filled
    for (size_t t = 0; t < count; ++t) {
        const int64_t n = numelOf(t);
        if (n <= 0) continue;
        const int64_t chunks = (n + kChunkElems - 1) / kChunkElems;
        addSlot(used++, t);
        for (int64_t c = 0; c < chunks; ++c) {
            map.slot[blocks] = used - 1;
            map.chunk[blocks] = int32_t(c);
            ++blocks;
            const bool lastChunk = c == chunks - 1;
            if (blocks == kBlocks || (used == kTensors && lastChunk)) {
                launch(blocks);
                blocks = 0;
                used = 0;
                if (!lastChunk) addSlot(used++, t);  // the rest of this tensor goes on in the next launch
            }
        }
    }
    if (blocks > 0) launch(blocks);
}

}  // namespace fts::kernels
