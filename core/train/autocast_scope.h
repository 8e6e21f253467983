// bf16 autocast for the forward passes on the training device (ZeroPlan::bf16Autocast), restored on scope exit.
// LibTorch header: include it from core/train sources only.
#pragma once
#include <ATen/autocast_mode.h>

namespace fts {

class AutocastScope {
public:
    AutocastScope(bool enabled, c10::Device device) : m_enabled(enabled), m_type(device.type()) {
        if (!m_enabled) return;
        m_prevEnabled = at::autocast::is_autocast_enabled(m_type);
        m_prevDtype = at::autocast::get_autocast_dtype(m_type);
        at::autocast::set_autocast_dtype(m_type, at::kBFloat16);
        at::autocast::set_autocast_enabled(m_type, true);
    }
    ~AutocastScope() {
        if (!m_enabled) return;
        at::autocast::set_autocast_enabled(m_type, m_prevEnabled);
        at::autocast::set_autocast_dtype(m_type, m_prevDtype);
        at::autocast::clear_cache();
    }
    AutocastScope(const AutocastScope&) = delete;
    AutocastScope& operator=(const AutocastScope&) = delete;

private:
    bool m_enabled;
    c10::DeviceType m_type;
    bool m_prevEnabled = false;
    at::ScalarType m_prevDtype = at::kBFloat16;
};

}  // namespace fts
