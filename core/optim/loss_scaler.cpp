// LossScaler (see loss_scaler.h): the state machine of DeepSpeed's DynamicLossScaler.update_scale.
#include "core/optim/loss_scaler.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/util/error.h"
#include "core/util/json_fields.h"

namespace fts {

LossScaler::LossScaler(const Fp16Config& cfg) {
    if (!cfg.enabled) return;
    if (cfg.lossScale > 0.0) {
        m_scale = cfg.lossScale;
        return;
    }
    m_dynamic = true;
    m_scale = std::ldexp(1.0, cfg.initialScalePower);
    m_window = cfg.lossScaleWindow;
    m_minScale = cfg.minLossScale;
    m_delayedShift = cfg.hysteresis;
    m_curHysteresis = cfg.hysteresis;
    m_consecutiveHysteresis = cfg.consecutiveHysteresis;
}

void LossScaler::update(bool overflow) {
    if (!m_dynamic) return;
    if (overflow) {
        if (m_delayedShift == 1 || m_curHysteresis == 1) {
            if (m_scale == m_minScale)
                throw LossScaleError("fp16: the gradients overflowed with the loss scale already at its minimum (" +
                                     std::to_string(m_minScale) +
                                     ", deepspeed.fp16.min_loss_scale) at optimizer step " +
                                     std::to_string(m_curIter + 1) +
                                     "; the run cannot continue in fp16: lower the learning rate, enable gradient "
                                     "clipping, or train in bf16");
            m_scale = std::max(m_scale / 2.0, m_minScale);
        } else {
            m_curHysteresis -= 1;
        }
        m_lastOverflowIter = m_curIter;
    } else {
        if (m_consecutiveHysteresis) m_curHysteresis = m_delayedShift;
        const int64_t stable = (m_curIter - m_lastOverflowIter) - 1;
        if (stable > 0 && stable % m_window == 0) {
            if (!m_consecutiveHysteresis) m_curHysteresis = m_delayedShift;
            m_scale *= 2.0;
        }
    }
    m_curIter += 1;
}

nlohmann::json LossScaler::state() const {
    return {{"scale", m_scale},
            {"cur_iter", m_curIter},
            {"last_overflow_iter", m_lastOverflowIter},
            {"cur_hysteresis", m_curHysteresis}};
}

void LossScaler::restore(const nlohmann::json& s) {
    constexpr std::string_view kWhere = "loss_scaler";
    if (!s.is_object()) throw FormatError("key \"loss_scaler\" must be a JSON object, found " + jsonForMessage(s));
    const double scale = optionalField<double>(s, "scale", kWhere).value_or(m_scale);
    if (!(scale > 0) || !std::isfinite(scale))
        throw FormatError("loss_scaler: key \"scale\" must be a positive number, found " + std::to_string(scale));
    m_scale = scale;
    m_curIter = optionalField<int64_t>(s, "cur_iter", kWhere).value_or(m_curIter);
    m_lastOverflowIter = optionalField<int64_t>(s, "last_overflow_iter", kWhere).value_or(m_lastOverflowIter);
    m_curHysteresis = optionalField<int>(s, "cur_hysteresis", kWhere).value_or(m_curHysteresis);
}

}  // namespace fts
