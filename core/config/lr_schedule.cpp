// DeepSpeed 0.19.8's LR schedules as pure functions of the optimizer step (see lr_schedule.h for the
// step convention). Computed in double in DeepSpeed's order of operations so results match to the ulp.
#include "core/config/lr_schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace fts {
namespace {

// The warm-up fraction at iteration i < W (WarmupLR._get_gamma / WarmupCosineLR.get_lr_ratio).
double warmupGamma(const SchedulerConfig& s, int64_t i, int64_t w) {
    if (s.warmupType == "linear") return double(i) / double(w);
    const double inverseLogWarmUp = 1.0 / std::log(double(w));
    return inverseLogWarmUp * std::log(double(i + 1));
}

// The Trainer's lambda at update k (transformers 5.23 optimization.py, same order of operations).
double trainerLambda(const SchedulerConfig& s, double lrInit, int64_t k) {
    const int64_t w = s.warmupNumSteps, total = s.totalNumSteps;
    if (s.type == SchedulerType::HfConstant) return 1.0;
    if (k < w) return double(k) / double(std::max<int64_t>(1, w));
    const double progress = double(k - w) / double(std::max<int64_t>(1, total - w));
    switch (s.type) {
        case SchedulerType::HfConstantWithWarmup:
            return 1.0;
        case SchedulerType::HfLinear:
            return std::max(0.0, double(total - k) / double(std::max<int64_t>(1, total - w)));
        case SchedulerType::HfCosine:
        case SchedulerType::HfCosineWithMinLr: {
            const double minRate =
                s.type == SchedulerType::HfCosine ? 0.0 : (s.minLr >= 0 ? s.minLr / lrInit : s.minLrRate);
            double factor = 0.5 * (1.0 + std::cos(std::numbers::pi * s.numCycles * 2.0 * progress));
            factor = factor * (1 - minRate) + minRate;
            return std::max(0.0, factor);
        }
        case SchedulerType::HfCosineWithRestarts:
            if (progress >= 1.0) return 0.0;
            return std::max(0.0, 0.5 * (1.0 + std::cos(std::numbers::pi * std::fmod(s.numCycles * progress, 1.0))));
        case SchedulerType::HfPolynomial: {
            if (k > total) return s.lrEnd / lrInit;
            const double lrRange = lrInit - s.lrEnd;
            const double decaySteps = double(total - w);
            const double pctRemaining = 1 - double(k - w) / decaySteps;
            return (lrRange * std::pow(pctRemaining, s.power) + s.lrEnd) / lrInit;
        }
        case SchedulerType::HfInverseSqrt: {
            const int64_t timescale = s.timescale > 0 ? s.timescale : (w > 0 ? w : 10000);
            const int64_t shift = timescale - w;
            return 1.0 / std::sqrt(double(k + shift) / double(timescale));
        }
        default:
            break;
    }
    return 1.0;
}

}  // namespace

double learningRateAt(const SchedulerConfig& s, double optimizerLr, int64_t step) {
    if (step < 0) throw std::invalid_argument("learningRateAt: step must be >= 0, got " + std::to_string(step));
    if (s.type == SchedulerType::None) return optimizerLr;
    if (isTrainerScheduler(s.type)) return optimizerLr * trainerLambda(s, optimizerLr, step);

    const int64_t i = step - 1;  // the scheduler's last_batch_iteration during update `step`
    const int64_t w = std::max<int64_t>(2, s.warmupNumSteps);
    const int64_t total = s.totalNumSteps;

    if (s.type == SchedulerType::WarmupCosineLR) {
        if (i < 0) return 0.0;
        double ratio;
        if (i < w) {
            const double g = warmupGamma(s, i, w);
            ratio = s.warmupMinRatio + g * (1.0 - s.warmupMinRatio);
        } else {
            const int64_t realLastStep = i - w + 1;
            const int64_t realTotalSteps = std::max<int64_t>(1, total - w);
            // Python true division of two ints, then min with 1.0
            const double progress = std::min(1.0, double(realLastStep) / double(realTotalSteps));
            const double delta = 1.0 - s.cosMinRatio;
            const double half = (1.0 + std::cos(std::numbers::pi * progress)) / 2.0;
            ratio = std::max(0.0, s.cosMinRatio + delta * half);
        }
        return optimizerLr * ratio;
    }

    // WarmupLR, WarmupDecayLR
    if (i < 0) return s.warmupMinLr;
    const double delta = s.warmupMaxLr - s.warmupMinLr;
    double gamma;
    if (i < w) {
        gamma = warmupGamma(s, i, w);
    } else if (s.type == SchedulerType::WarmupLR) {
        gamma = 1.0;
    } else {
        gamma = std::max(0.0, double(total - i) / std::max(1.0, double(total - w)));
    }
    return s.warmupMinLr + delta * gamma;
}

}  // namespace fts
