// The torch-free checks of `fts doctor`; see doctor.h.
#include "core/launch/doctor.h"

#include <sys/statvfs.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/config/hf_cache.h"
#include "core/config/message_templates.h"
#include "core/store/run_store.h"
#include "core/util/json_parse.h"

namespace fts {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kGiB = uint64_t(1) << 30;

std::string gib(uint64_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(kGiB));
    return buf;
}

}  // namespace

const char* doctorLevelName(DoctorLine::Level level) {
    switch (level) {
        case DoctorLine::Level::Ok:
            return "ok";
        case DoctorLine::Level::Info:
            return "info";
        case DoctorLine::Level::Warning:
            return "warning";
        case DoctorLine::Level::Error:
            return "error";
    }
    return "info";
}

DoctorLine checkStore(const fs::path& path) {
    DoctorLine l{DoctorLine::Level::Ok, "store", "", ""};
    std::error_code ec;
    if (!fs::exists(path, ec)) {
        l.level = DoctorLine::Level::Info;
        l.detail = fillTemplate(msg::kStoreMissing, {path.string()});
        return l;
    }
    try {
        RunStore store(path, true);
        const std::string check = store.quickCheck();
        const size_t runs = store.listRuns(0).size();  // 0: no limit
        l.detail = fillTemplate(msg::kStoreHealth,
                                {path.string(), std::to_string(store.schemaVersion()), std::to_string(runs), check});
        if (check != "ok") {
            l.level = DoctorLine::Level::Error;
            l.fix = msg::kStoreDamagedFix;
        }
    } catch (const std::exception& e) {
        l.detail = e.what();
        if (l.detail.find("cannot be migrated") != std::string::npos) {  // an older schema: fine once opened read-write
            l.level = DoctorLine::Level::Warning;
            l.fix = msg::kStoreOldSchemaFix;
        } else {
            l.level = DoctorLine::Level::Error;
            l.fix = msg::kStoreUnreadableFix;
        }
    }
    return l;
}

DoctorLine checkDisk(const std::string& topic, const fs::path& path) {
    DoctorLine l{DoctorLine::Level::Ok, topic, "", ""};
    fs::path p = path;
    std::error_code ec;
    while (!p.empty() && !fs::exists(p, ec) && p.has_parent_path() && p.parent_path() != p) p = p.parent_path();
    struct statvfs st {};
    if (::statvfs(p.c_str(), &st) != 0) {
        l.level = DoctorLine::Level::Warning;
        l.detail = fillTemplate(msg::kDiskUnknown, {path.string()});
        return l;
    }
    const uint64_t free = uint64_t(st.f_bavail) * st.f_frsize;
    l.detail = fillTemplate(msg::kDiskFree, {gib(free), p.string()});
    if (free < kGiB / 2) {
        l.level = DoctorLine::Level::Error;
        l.fix = msg::kDiskFullFix;
    } else if (free < 5 * kGiB) {
        l.level = DoctorLine::Level::Warning;
        l.fix = msg::kDiskLowFix;
    }
    return l;
}

DoctorLine checkMemory() {
    DoctorLine l{DoctorLine::Level::Ok, "memory", "", ""};
    std::ifstream in("/proc/meminfo");
    std::string key;
    uint64_t kb = 0, totalKb = 0, availableKb = 0;
    std::string unit;
    while (in >> key >> kb >> unit) {
        if (key == "MemTotal:") totalKb = kb;
        if (key == "MemAvailable:") availableKb = kb;
    }
    if (totalKb == 0) {
        l.level = DoctorLine::Level::Warning;
        l.detail = msg::kMemInfoUnreadable;
        return l;
    }
    l.detail = fillTemplate(msg::kMemoryAvailable, {gib(availableKb * 1024), gib(totalKb * 1024)});
    if (availableKb * 1024 < 4 * kGiB) {
        l.level = DoctorLine::Level::Warning;
        l.fix = msg::kMemoryLowFix;
    }
    return l;
}

DoctorLine checkHfCache() {
    DoctorLine l{DoctorLine::Level::Info, "hf cache", "", ""};
    std::error_code ec;
    for (const fs::path& dir : hfHubCacheDirs()) {
        if (!fs::is_directory(dir, ec)) continue;
        int models = 0;
        for (const auto& e : fs::directory_iterator(dir, ec))
            if (e.path().filename().string().rfind("models--", 0) == 0) ++models;
        l.detail = fillTemplate(msg::kHfCacheModels, {dir.string(), std::to_string(models)});
        return l;
    }
    std::string searched;
    for (const fs::path& dir : hfHubCacheDirs()) searched += (searched.empty() ? "" : ", ") + dir.string();
    l.detail = fillTemplate(msg::kHfCacheNone, {searched});
    return l;
}

std::vector<DoctorLine> checkHosts(const std::vector<std::string>& hosts, const TransportOptions& transport,
                                   int timeoutMs) {
    std::vector<DoctorLine> out;
    for (const HostProbe& p : probeHosts(hosts, transport, timeoutMs)) {
        DoctorLine l{DoctorLine::Level::Ok, "host " + p.host, "", ""};
        if (!p.ok) {
            l.level = DoctorLine::Level::Error;
            l.detail = p.error;
            l.fix = fillTemplate(msg::kHostFix, {p.host});
        } else {
            const nlohmann::json gpus = parseJsonOrDiscarded(p.gpusJson);
            const size_t n = gpus.is_array() ? gpus.size() : 0;
            l.detail = fillTemplate(msg::kHostReachable, {p.hostname, p.ftsVersion, std::to_string(n)});
        }
        out.push_back(std::move(l));
    }
    return out;
}

}  // namespace fts
