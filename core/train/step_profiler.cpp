// The Kineto profile of a few training steps (see step_profiler.h).
#include "core/train/step_profiler.h"

#include <c10/core/Device.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace fts {
namespace fs = std::filesystem;

namespace {
using Clock = std::chrono::steady_clock;
namespace prof = torch::autograd::profiler;
using torch::profiler::impl::ActivityType;

bool isHostSync(const std::string& name) {
    return name == "cudaStreamSynchronize" || name == "cudaDeviceSynchronize" || name == "cudaEventSynchronize" ||
           name == "cudaMemcpy" || name == "cudaStreamWaitEvent_blocking";
}

struct Tally {
    int64_t calls = 0;
    double ms = 0.0;
};

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

// Kernel names are C++ signatures hundreds of characters long: the first 110 say which kernel it is.
std::string shortName(const std::string& name) { return name.size() > 110 ? name.substr(0, 107) + "..." : name; }

}  // namespace

struct StepProfiler::Impl {
    ProfileSettings settings;
    c10::Device device;
    fs::path folder;
    bool running = false, written = false;
    int64_t firstStep = 0, stepsRecorded = 0;
    Clock::time_point startedAt;

    Impl(const ProfileSettings& s, const c10::Device& d, fs::path f) : settings(s), device(d), folder(std::move(f)) {}

    std::set<ActivityType> activities() const {
        std::set<ActivityType> a{ActivityType::CPU};
        if (device.is_cuda()) a.insert(ActivityType::CUDA);
        return a;
    }
    prof::ProfilerConfig config() const { return prof::ProfilerConfig(torch::profiler::impl::ProfilerState::KINETO); }
    void synchronize() const {
        if (device.is_cuda()) c10::impl::VirtualGuardImpl(device.type()).synchronizeDevice(device.index());
    }

    void start() {
        synchronize();  // the window holds its steps' kernels only
        prof::prepareProfiler(config(), activities());
        prof::enableProfiler(config(), activities());
        running = true;
        startedAt = Clock::now();
    }

    std::string stopAndWrite() {
        synchronize();
        const double wallMs = std::chrono::duration<double, std::milli>(Clock::now() - startedAt).count();
        std::unique_ptr<prof::ProfilerResult> result = prof::disableProfiler();
        running = false;
        written = true;
        std::error_code ec;
        fs::create_directories(folder, ec);
        if (ec) throw Error("training.profile: cannot create " + folder.string() + ": " + ec.message());
        result->save((folder / "trace.json").string());

        const double steps = double(std::max<int64_t>(stepsRecorded, 1));
        std::map<std::string, Tally> kernels, operators;
        std::vector<std::pair<uint64_t, uint64_t>> busy;
        int64_t kernelCount = 0, operatorCount = 0, syncs = 0, reads = 0;
        double kernelMs = 0.0;
        for (const auto& e : result->events()) {
            const std::string name = e.name();
            if (e.deviceType() != c10::DeviceType::CPU) {  // on the GPU: kernels, copies, sets
                // the loop's own scopes (fts::forward, ...) are mirrored on the GPU as spans: not kernels
                if (name.rfind("fts::", 0) == 0) continue;
                const double ms = double(e.durationNs()) / 1e6;
                Tally& k = kernels[name];
                k.calls += 1;
                k.ms += ms;
                kernelMs += ms;
                kernelCount += 1;
                busy.emplace_back(e.startNs(), e.endNs());
                continue;
            }
            if (isHostSync(name)) syncs += 1;
            if (name.rfind("aten::", 0) == 0) {
                operatorCount += 1;
                Tally& o = operators[name];
                o.calls += 1;
                o.ms += double(e.durationNs()) / 1e6;
                if (name == "aten::_local_scalar_dense") reads += 1;
            }
        }
        std::sort(busy.begin(), busy.end());
        double busyMs = 0.0;
        uint64_t from = 0, to = 0;
        for (const auto& [a, b] : busy) {
            if (a > to) {
                busyMs += double(to - from) / 1e6;
                from = a;
                to = b;
            } else {
                to = std::max(to, b);
            }
        }
        busyMs += double(to - from) / 1e6;

        auto ranked = [](const std::map<std::string, Tally>& m, bool byTime) {
            std::vector<std::pair<std::string, Tally>> v(m.begin(), m.end());
            std::sort(v.begin(), v.end(), [&](const auto& x, const auto& y) {
                return byTime ? x.second.ms > y.second.ms : x.second.calls > y.second.calls;
            });
            return v;
        };
        nlohmann::json summary{{"steps", stepsRecorded},
                               {"first_step", firstStep + 1},
                               {"device", device.str()},
                               {"wall_ms_per_step", wallMs / steps},
                               {"gpu_busy_ms_per_step", busyMs / steps},
                               {"gpu_idle_ms_per_step", std::max(0.0, wallMs - busyMs) / steps},
                               {"kernel_ms_per_step", kernelMs / steps},
                               {"kernels_per_step", double(kernelCount) / steps},
                               {"operators_per_step", double(operatorCount) / steps},
                               {"host_syncs_per_step", double(syncs) / steps},
                               {"host_reads_per_step", double(reads) / steps}};
        std::string text = "profile of steps " + std::to_string(firstStep + 1) + ".." +
                           std::to_string(firstStep + stepsRecorded) + " on " + device.str() + "\n";
        text += "per step: wall " + fixed(wallMs / steps, 2) + " ms, " +
                (device.is_cuda() ? "GPU busy " + fixed(busyMs / steps, 2) + " ms (idle " +
                                        fixed(std::max(0.0, wallMs - busyMs) / steps, 2) + " ms), kernels " +
                                        fixed(double(kernelCount) / steps, 1) + ", "
                                  : std::string()) +
                "operators " + fixed(double(operatorCount) / steps, 1) + ", host synchronisations " +
                fixed(double(syncs) / steps, 1) + ", values read on the host " + fixed(double(reads) / steps, 1) +
                "\n\n";
        nlohmann::json kernelRows = nlohmann::json::array(), operatorRows = nlohmann::json::array();
        if (!kernels.empty()) {
            text += "GPU kernels by total time      calls/step   ms/step   share\n";
            int shown = 0;
            for (const auto& [name, t] : ranked(kernels, true)) {
                kernelRows.push_back({{"name", name},
                                      {"calls_per_step", double(t.calls) / steps},
                                      {"ms_per_step", t.ms / steps},
                                      {"share", kernelMs > 0 ? t.ms / kernelMs : 0.0}});
                if (shown++ < 40)
                    text += fixed(double(t.calls) / steps, 1) + "\t" + fixed(t.ms / steps, 3) + "\t" +
                            fixed(100.0 * t.ms / std::max(kernelMs, 1e-12), 1) + "%\t" + shortName(name) + "\n";
            }
            text += "\n";
        }
        text += "operators by calls      calls/step   ms/step (host, inclusive)\n";
        int shown = 0;
        for (const auto& [name, t] : ranked(operators, false)) {
            operatorRows.push_back(
                {{"name", name}, {"calls_per_step", double(t.calls) / steps}, {"ms_per_step", t.ms / steps}});
            if (shown++ < 40)
                text += fixed(double(t.calls) / steps, 1) + "\t" + fixed(t.ms / steps, 3) + "\t" + name + "\n";
        }
        summary["kernels"] = kernelRows;
        summary["operators"] = operatorRows;
        writeFileAtomic(folder / "summary.txt", text);
        writeFileAtomic(folder / "summary.json", summary.dump(1));
        std::string line = "profile of steps " + std::to_string(firstStep + 1) + ".." +
                           std::to_string(firstStep + stepsRecorded) + " written to " + folder.string() +
                           " (summary.txt, trace.json): " + fixed(wallMs / steps, 1) + " ms per step";
        if (device.is_cuda())
            line += ", GPU busy " + fixed(busyMs / steps, 1) + " ms, " + fixed(double(kernelCount) / steps, 0) +
                    " kernels, " + fixed(double(syncs) / steps, 1) + " host synchronisations";
        else
            line += ", " + fixed(double(operatorCount) / steps, 0) + " operators";
        return line;
    }
};

StepProfiler::StepProfiler(const ProfileSettings& settings, const c10::Device& device, fs::path folder) {
    if (settings.enabled) impl_ = std::make_unique<Impl>(settings, device, std::move(folder));
}

StepProfiler::~StepProfiler() {
    if (impl_ && impl_->running) {
        try {
            prof::disableProfiler();
        } catch (...) {  // the run is failing already; its error is the one to report
        }
    }
}

void StepProfiler::beforeStep(int64_t stepsRun) {
    if (!impl_ || impl_->running || impl_->written || stepsRun != impl_->settings.wait) return;
    impl_->firstStep = stepsRun;
    impl_->start();
}

std::optional<std::string> StepProfiler::afterStep() {
    if (!impl_ || !impl_->running) return std::nullopt;
    impl_->stepsRecorded += 1;
    if (impl_->stepsRecorded < impl_->settings.active) return std::nullopt;
    return impl_->stopAndWrite();
}

std::optional<std::string> StepProfiler::finish() {
    if (!impl_ || impl_->written) return std::nullopt;
    if (impl_->running && impl_->stepsRecorded > 0) return impl_->stopAndWrite();
    return "training.profile: the run ended after fewer than " + std::to_string(impl_->settings.wait + 1) +
           " steps of this process; no profile was written (lower training.profile.wait)";
}

}  // namespace fts
