// fp16 loss scaling with DeepSpeed 0.19.8's rules (runtime/fp16/loss_scaler.py): a fixed scale (loss_scale > 0)
// or the dynamic scaler: start at 2^initial_scale_power; an overflow skips the step and, once `hysteresis`
// overflows have been absorbed, halves the scale (not below min_loss_scale); loss_scale_window clean steps since
// the last overflow double it (and refill the hysteresis); consecutive_hysteresis refills it after every clean
// step. An overflow while the scale is already at the minimum (and no hysteresis is left) stops the run.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>

#include "core/config/train_config.h"
#include "core/util/error.h"

namespace fts {

// Thrown when the dynamic scale cannot shrink any further (DeepSpeed raises and the run exits).
class LossScaleError : public Error {
public:
    using Error::Error;
};

class LossScaler {
public:
    explicit LossScaler(const Fp16Config& cfg);  // cfg.enabled false: a fixed scale of 1
    double scale() const { return m_scale; }
    bool dynamic() const { return m_dynamic; }
    // After every optimizer step (skipped or not): DeepSpeed's update_scale(overflow).
    void update(bool overflow);

    nlohmann::json state() const;  // for checkpoints
    // The state() of a checkpoint; a field of the wrong kind, or a scale that is not positive, is a FormatError
    // naming the key (absent fields keep their value).
    void restore(const nlohmann::json& state);

private:
    bool m_dynamic = false;
    double m_scale = 1.0;
    int64_t m_curIter = 0;
    int64_t m_lastOverflowIter = -1;
    int64_t m_window = 1000;
    double m_minScale = 1.0;
    int m_delayedShift = 1;
    int m_curHysteresis = 1;
    bool m_consecutiveHysteresis = false;
};

}  // namespace fts
