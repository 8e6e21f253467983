// Byte sizes and host memory (see byte_size.h).
#include "core/util/byte_size.h"

#include <cctype>
#include <fstream>

#include "core/util/error.h"

namespace fts {

int64_t parseByteSize(const std::string& text, const std::string& what) {
    size_t pos = 0;
    double v = 0;
    try {
        v = std::stod(text, &pos);
    } catch (const std::exception&) {
        throw ConfigError(what + ": expected a size such as 80GiB or 85899345920, got \"" + text + "\"");
    }
    std::string unit = text.substr(pos);
    for (auto& ch : unit) ch = char(std::toupper(static_cast<unsigned char>(ch)));
    double mult = 1;
    if (unit.empty() || unit == "B")
        mult = 1;
    else if (unit == "K" || unit == "KB" || unit == "KIB")
        mult = 1024.0;
    else if (unit == "M" || unit == "MB" || unit == "MIB")
        mult = 1024.0 * 1024;
    else if (unit == "G" || unit == "GB" || unit == "GIB")
        mult = 1024.0 * 1024 * 1024;
    else if (unit == "T" || unit == "TB" || unit == "TIB")
        mult = 1024.0 * 1024 * 1024 * 1024;
    else
        throw ConfigError(what + ": unknown unit \"" + text.substr(pos) + "\" (use B, KiB, MiB, GiB, TiB)");
    if (!(v > 0)) throw ConfigError(what + ": must be positive, got \"" + text + "\"");
    return int64_t(v * mult);
}

namespace {
int64_t meminfo(const std::string& wanted) {
    std::ifstream in("/proc/meminfo");
    std::string key, unit;
    int64_t kb = 0;
    while (in >> key >> kb >> unit)
        if (key == wanted) return kb * 1024;
    return 0;
}
}  // namespace

int64_t hostMemoryBytes() { return meminfo("MemTotal:"); }
int64_t hostAvailableBytes() { return meminfo("MemAvailable:"); }

}  // namespace fts
