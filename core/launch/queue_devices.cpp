// Device requests of queued runs: parsing, claiming from the runner's pool, and the launch options of a claim.
#include "core/launch/queue_devices.h"

#include <algorithm>

#include "core/launch/hostfile.h"
#include "core/launch/memory_preflight.h"
#include "core/util/child_process.h"
#include "core/util/error.h"

namespace fts {

namespace {

int positiveCount(const std::string& text, const std::string& whole) {
    try {
        size_t used = 0;
        const int n = std::stoi(text, &used);
        if (used == text.size() && n >= 1 && n <= 1024) return n;
    } catch (const std::exception&) {
    }
    throw ConfigError("--devices \"" + whole + "\": expected a count from 1 to 1024 after the colon");
}

}  // namespace

std::string DeviceRequest::text() const {
    switch (kind) {
        case Kind::Auto:
            return "auto";
        case Kind::Cpu:
            return count == 1 ? "cpu" : "cpu:" + std::to_string(count);
        case Kind::AnyGpus:
            return "gpus:" + std::to_string(count);
        case Kind::Gpus: {
            std::string s = "localhost:";
            for (size_t i = 0; i < gpus.size(); ++i) s += (i ? "," : "") + std::to_string(gpus[i]);
            return s;
        }
        case Kind::Hostfile:
            return "hostfile:" + hostfile.string() + (include.empty() ? "" : ";include=" + include);
    }
    return "auto";
}

DeviceRequest parseDeviceRequest(const std::string& text) {
    DeviceRequest r;
    if (text.empty() || text == "auto") return r;
    if (text == "cpu") {
        r.kind = DeviceRequest::Kind::Cpu;
        return r;
    }
    if (text.rfind("cpu:", 0) == 0) {
        r.kind = DeviceRequest::Kind::Cpu;
        r.ranks = r.count = positiveCount(text.substr(4), text);
        return r;
    }
    if (text.rfind("gpus:", 0) == 0) {
        r.kind = DeviceRequest::Kind::AnyGpus;
        r.ranks = r.count = positiveCount(text.substr(5), text);
        return r;
    }
    if (text.rfind("localhost:", 0) == 0) {
        r.kind = DeviceRequest::Kind::Gpus;
        std::string rest = text.substr(10);
        for (size_t start = 0; start <= rest.size();) {
            const size_t comma = rest.find(',', start);
            const std::string id = rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            try {
                size_t used = 0;
                const int g = std::stoi(id, &used);
                if (used != id.size() || g < 0) throw std::invalid_argument(id);
                if (std::find(r.gpus.begin(), r.gpus.end(), g) == r.gpus.end()) r.gpus.push_back(g);
            } catch (const std::exception&) {
                throw ConfigError("--devices \"" + text + "\": expected GPU ids after localhost:, e.g. localhost:0,2");
            }
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        std::sort(r.gpus.begin(), r.gpus.end());
        r.ranks = int(r.gpus.size());
        return r;
    }
    if (text.rfind("hostfile:", 0) == 0) {
        r.kind = DeviceRequest::Kind::Hostfile;
        std::string path = text.substr(9);
        if (const size_t at = path.rfind(";include="); at != std::string::npos) {
            r.include = path.substr(at + 9);
            path.resize(at);
        }
        r.hostfile = std::filesystem::absolute(path);
        const std::vector<HostSlots> hosts = readHostfile(r.hostfile);
        r.ranks = 0;
        if (r.include.empty()) {
            for (const HostSlots& h : hosts) {
                r.hosts.push_back(h.host);
                r.ranks += h.slotCount;
            }
        } else {  // "h1:0,1@h2": the hosts named, and this machine's slots
            for (size_t start = 0; start <= r.include.size();) {
                const size_t at = r.include.find('@', start);
                const std::string part =
                    r.include.substr(start, at == std::string::npos ? std::string::npos : at - start);
                const std::string host = part.substr(0, part.find(':'));
                if (std::none_of(hosts.begin(), hosts.end(), [&](const HostSlots& h) { return h.host == host; }))
                    throw ConfigError("--devices \"" + text + "\": the include names " + host + ", which " +
                                      r.hostfile.string() + " does not list");
                r.hosts.push_back(host);
                if (part.find(':') == std::string::npos)  // a host named alone: all its slots
                    for (const HostSlots& h : hosts) r.ranks += h.host == host ? h.slotCount : 0;
                else
                    r.ranks += int(std::count(part.begin(), part.end(), ',')) + 1;
                if (isLocalHostName(host) && part.find(':') != std::string::npos) {
                    const std::string ids = part.substr(part.find(':') + 1);
                    for (size_t s = 0; s <= ids.size();) {
                        const size_t comma = ids.find(',', s);
                        try {
                            r.localGpus.push_back(std::stoi(ids.substr(s, comma - s)));
                        } catch (const std::exception&) {
                            throw ConfigError("--devices \"" + text + "\": expected slot ids after " + host + ":");
                        }
                        if (comma == std::string::npos) break;
                        s = comma + 1;
                    }
                }
                if (at == std::string::npos) break;
                start = at + 1;
            }
        }
        r.local = std::any_of(r.hosts.begin(), r.hosts.end(), [](const std::string& h) { return isLocalHostName(h); });
        return r;
    }
    throw ConfigError("--devices \"" + text + "\": expected auto, cpu, cpu:N, gpus:N, localhost:0,2 or hostfile:PATH");
}

bool claimDevices(const DevicePool& pool, const DeviceRequest& request, DeviceClaim& claim, std::string& why,
                  bool& never) {
    claim = {};
    never = false;
    DeviceRequest r = request;
    if (r.kind == DeviceRequest::Kind::Auto) {
        r.kind = pool.gpus.empty() ? DeviceRequest::Kind::Cpu : DeviceRequest::Kind::AnyGpus;
        r.count = 1;
    }
    switch (r.kind) {
        case DeviceRequest::Kind::Cpu:
            if (r.count > pool.cpuSlots) {
                never = true;
                why = "needs " + std::to_string(r.count) + " CPU slots; the queue runner has " +
                      std::to_string(pool.cpuSlots) + " (fts queue run --cpu-slots)";
                return false;
            }
            if (pool.cpuUsed + r.count > pool.cpuSlots) {
                why = "waiting for " + std::to_string(r.count) + (r.count == 1 ? " CPU slot" : " CPU slots") + " (" +
                      std::to_string(pool.cpuUsed) + " of " + std::to_string(pool.cpuSlots) + " in use)";
                return false;
            }
            claim.cpu = r.count;
            return true;
        case DeviceRequest::Kind::AnyGpus: {
            if (r.count > int(pool.gpus.size())) {
                never = true;
                why = "needs " + std::to_string(r.count) + (r.count == 1 ? " GPU" : " GPUs") + "; this machine has " +
                      std::to_string(pool.gpus.size());
                return false;
            }
            for (int g : pool.gpus)
                if (!pool.gpusUsed.count(g) && int(claim.gpus.size()) < r.count) claim.gpus.push_back(g);
            if (int(claim.gpus.size()) < r.count) {
                why = "waiting for " + std::to_string(r.count) + (r.count == 1 ? " GPU" : " GPUs") + " (" +
                      std::to_string(pool.gpusUsed.size()) + " of " + std::to_string(pool.gpus.size()) + " in use)";
                claim = {};
                return false;
            }
            return true;
        }
        case DeviceRequest::Kind::Gpus: {
            std::string busy;
            for (int g : r.gpus) {
                if (std::find(pool.gpus.begin(), pool.gpus.end(), g) == pool.gpus.end()) {
                    never = true;
                    why = "needs GPU " + std::to_string(g) + ", which this machine does not have";
                    return false;
                }
                if (pool.gpusUsed.count(g)) busy += (busy.empty() ? "" : ",") + std::to_string(g);
            }
            if (!busy.empty()) {
                why = "waiting for GPU " + busy + " (in use by another queued run)";
                return false;
            }
            claim.gpus = r.gpus;
            return true;
        }
        case DeviceRequest::Kind::Hostfile: {
            std::string busy;
            for (const std::string& h : r.hosts)
                if (pool.hostsUsed.count(h)) busy += (busy.empty() ? "" : ", ") + h;
            if (!busy.empty()) {
                why = "waiting for host " + busy + " (in use by another queued run)";
                return false;
            }
            if (r.local) {  // this machine among the hosts: its GPUs (or a CPU slot) as a local run would hold them
                // (on a machine without GPUs the include's slots are CPU ranks: one CPU slot)
                const std::vector<int> gpus = pool.gpus.empty()      ? std::vector<int>()
                                              : !r.localGpus.empty() ? r.localGpus
                                                                     : pool.gpus;
                for (int g : gpus)
                    if (pool.gpusUsed.count(g)) {
                        why =
                            "waiting for GPU " + std::to_string(g) + " of this machine (in use by another queued run)";
                        return false;
                    }
                if (gpus.empty() && pool.cpuUsed >= pool.cpuSlots) {
                    why = "waiting for a CPU slot of this machine";
                    return false;
                }
                claim.gpus = gpus;
                claim.cpu = gpus.empty() ? 1 : 0;
            }
            claim.hosts = r.hosts;
            return true;
        }
        case DeviceRequest::Kind::Auto:
            break;
    }
    return false;
}

void takeDevices(DevicePool& pool, const DeviceClaim& c) {
    pool.cpuUsed += c.cpu;
    pool.gpusUsed.insert(c.gpus.begin(), c.gpus.end());
    pool.hostsUsed.insert(c.hosts.begin(), c.hosts.end());
}

void releaseDevices(DevicePool& pool, const DeviceClaim& c) {
    pool.cpuUsed = std::max(0, pool.cpuUsed - c.cpu);
    for (int g : c.gpus) pool.gpusUsed.erase(g);
    for (const std::string& h : c.hosts) pool.hostsUsed.erase(h);
}

bool claimsOverlap(const DeviceClaim& a, const DeviceClaim& b) {
    if (a.cpu > 0 && b.cpu > 0) return true;
    for (int g : a.gpus)
        if (std::find(b.gpus.begin(), b.gpus.end(), g) != b.gpus.end()) return true;
    for (const std::string& h : a.hosts)
        if (std::find(b.hosts.begin(), b.hosts.end(), h) != b.hosts.end()) return true;
    return false;
}

std::vector<std::string> launchArguments(const DeviceRequest& request, const DeviceClaim& c) {
    if (!c.hosts.empty()) {
        std::vector<std::string> args = {"--hostfile", request.hostfile.string()};
        if (!request.include.empty()) args.insert(args.end(), {"--include", request.include});
        return args;
    }
    if (!c.gpus.empty()) {
        std::string ids;
        for (int g : c.gpus) ids += (ids.empty() ? "" : ",") + std::to_string(g);
        return {"--include", "localhost:" + ids};
    }
    if (c.cpu > 1) return {"--nproc", std::to_string(c.cpu)};
    return {};
}

std::vector<int> localGpuIds() {
    std::vector<int> ids;
    for (const auto& [index, free] : []() {
             try {
                 const CapturedRun r =
                     runCaptured({"nvidia-smi", "--query-gpu=index,memory.free", "--format=csv,noheader,nounits"});
                 return r.ok() ? parseGpuFreeMemory(r.out) : std::vector<std::pair<int, int64_t>>();
             } catch (const Error&) {
                 return std::vector<std::pair<int, int64_t>>();
             }
         }())
        ids.push_back(index);
    return ids;
}

}  // namespace fts
