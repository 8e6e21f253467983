// Section timing of a training step (see step_timer.h).
#include "core/train/step_timer.h"

#include <c10/core/Device.h>
#include <c10/core/Event.h>
#include <c10/core/impl/VirtualGuardImpl.h>

#include <array>
#include <chrono>
#include <optional>

namespace fts {

namespace {
using Clock = std::chrono::steady_clock;
constexpr std::array<const char*, 3> kSectionMetric = {"time_forward_ms", "time_backward_ms", "time_step_ms"};
}  // namespace

struct StepTimer::Impl {
    struct Interval {
        StepSection section;
        std::optional<c10::Event> start, stop;  // device events (CUDA)
        Clock::time_point startAt, stopAt;      // the clock (CPU)
    };
    c10::Device device;
    bool events = false;
    std::vector<Interval> open;  // begun and maybe ended since the last take()
    int64_t steps = 0;

    explicit Impl(const c10::Device& d) : device(d), events(d.is_cuda()) {}
    void record(c10::Event& e) const {
        c10::impl::VirtualGuardImpl guard(device.type());
        e.record(guard.getStream(device));
    }
};

StepTimer::StepTimer(bool enabled, const c10::Device& device) {
    if (enabled) impl_ = std::make_unique<Impl>(device);
}

StepTimer::~StepTimer() = default;

void StepTimer::begin(StepSection section) {
    if (!impl_) return;
    Impl::Interval interval{section, std::nullopt, std::nullopt, Clock::now(), {}};
    if (impl_->events) {
        // BACKEND_DEFAULT keeps timing on (PyTorch's default event flag turns it off).
        interval.start.emplace(impl_->device.type(), c10::EventFlag::BACKEND_DEFAULT);
        impl_->record(*interval.start);
    }
    impl_->open.push_back(std::move(interval));
}

void StepTimer::end(StepSection section) {
    if (!impl_) return;
    for (auto it = impl_->open.rbegin(); it != impl_->open.rend(); ++it)
        if (it->section == section && it->stopAt == Clock::time_point{}) {  // the open interval of this section
            it->stopAt = Clock::now();
            if (impl_->events) {
                it->stop.emplace(impl_->device.type(), c10::EventFlag::BACKEND_DEFAULT);
                impl_->record(*it->stop);
            }
            return;
        }
}

void StepTimer::stepDone() {
    if (impl_) impl_->steps += 1;
}

std::vector<std::pair<std::string, double>> StepTimer::take() {
    std::vector<std::pair<std::string, double>> out;
    if (!impl_ || impl_->steps == 0) return out;
    std::array<double, 3> ms{0.0, 0.0, 0.0};
    std::vector<Impl::Interval> unfinished;
    for (auto& interval : impl_->open) {
        if (interval.stopAt ==
            Clock::time_point{}) {  // a section still running at the log point belongs to the next figures
            unfinished.push_back(std::move(interval));
            continue;
        }
        double took;
        if (impl_->events) {
            interval.stop->synchronize();
            took = interval.start->elapsedTime(*interval.stop);
        } else {
            took = std::chrono::duration<double, std::milli>(interval.stopAt - interval.startAt).count();
        }
        ms[static_cast<size_t>(interval.section)] += took;
    }
    for (size_t i = 0; i < ms.size(); ++i) out.emplace_back(kSectionMetric[i], ms[i] / double(impl_->steps));
    impl_->open = std::move(unfinished);
    impl_->steps = 0;
    return out;
}

}  // namespace fts
