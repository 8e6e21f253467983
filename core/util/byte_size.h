// Sizes as people write them ("80GiB", "512MiB", "24G") and the host's memory from /proc/meminfo.
#pragma once
#include <cstdint>
#include <string>

namespace fts {

// "80000000000", "80GB", "80G", "80GiB", "512MiB", "1.5T": bytes (K/M/G/T are powers of 1024, as the GPU vendors'
// "80GB" cards hold 80 GiB give or take). Throws ConfigError naming `what` (an option or variable) otherwise.
int64_t parseByteSize(const std::string& text, const std::string& what);

int64_t hostMemoryBytes();     // MemTotal
int64_t hostAvailableBytes();  // MemAvailable (what new allocations can get without swapping)

}  // namespace fts
