// What a queued run asks for and what the queue runner has: local GPUs by index, CPU slots, SSH hosts of a
// hostfile. A request is written as `fts queue add --devices` takes it:
//   auto            one GPU where the runner has GPUs, else one CPU slot (the default)
//   cpu, cpu:N      N ranks on the CPU (N of the runner's CPU slots)
//   gpus:N          any N of the runner's GPUs (one rank each)
//   localhost:0,2   exactly those GPUs (DeepSpeed's --include syntax, this machine only)
//   hostfile:PATH   the hosts of a DeepSpeed hostfile, each held whole while the run lasts; with
//                   ";include=h1:0,1@h2:0" (DeepSpeed's --include) only those hosts and slots run. This machine in the
//                   hostfile (localhost) also holds the local GPUs it uses (all of them without an include), or one
//                   CPU slot where there is no GPU.
#pragma once
#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace fts {

struct DeviceRequest {
    enum class Kind { Auto, Cpu, AnyGpus, Gpus, Hostfile } kind = Kind::Auto;
    int count = 1;                   // Cpu, AnyGpus: how many
    std::vector<int> gpus;           // Gpus
    std::filesystem::path hostfile;  // Hostfile
    std::vector<std::string> hosts;  // Hostfile: its hosts (read when parsed), or those the include names
    std::string include;             // Hostfile: DeepSpeed's --include ("" = every host and slot)
    std::vector<int> localGpus;      // Hostfile: the include's slots on this machine (localhost:0,1)
    bool local = false;              // Hostfile: this machine is one of its hosts
    int ranks = 1;                   // the ranks it starts (Auto: 1)
    std::string text() const;        // as written
};

// ConfigError naming --devices and what was expected.
DeviceRequest parseDeviceRequest(const std::string& text);

// The devices the runner hands out, and those in use.
struct DevicePool {
    int cpuSlots = 1;
    std::vector<int> gpus;  // local GPU ids
    int cpuUsed = 0;
    std::set<int> gpusUsed;
    std::set<std::string> hostsUsed;
};

// What one run holds while it runs.
struct DeviceClaim {
    int cpu = 0;
    std::vector<int> gpus;
    std::vector<std::string> hosts;
};

// The claim for `request` (Auto resolved by the pool), or the reason it cannot be had now (`why`, empty claim);
// `never` is set when the pool could never satisfy it (more GPUs or slots than it has).
bool claimDevices(const DevicePool& pool, const DeviceRequest& request, DeviceClaim& claim, std::string& why,
                  bool& never);
void takeDevices(DevicePool& pool, const DeviceClaim& claim);
void releaseDevices(DevicePool& pool, const DeviceClaim& claim);
// Whether two claims (or a claim and a request's possible claim) share a device.
bool claimsOverlap(const DeviceClaim& a, const DeviceClaim& b);

// `fts train` options that put a run on its claim: --nproc N, --include localhost:ids, --hostfile PATH.
std::vector<std::string> launchArguments(const DeviceRequest& request, const DeviceClaim& claim);

// The GPUs of this machine by nvidia-smi's index (empty without nvidia-smi or a GPU).
std::vector<int> localGpuIds();

}  // namespace fts
