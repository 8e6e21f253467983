// LiveSeries: bounded, finite-only, x-sorted series. Thinning keeps the first point, the recent half at
// full resolution and every second point of the older half, so a long run's curve keeps its shape.
#include "ui/live_series.h"

#include <algorithm>
#include <cmath>

namespace fts {

LiveSeries::LiveSeries(int capacity) : m_capacity(std::max(capacity, 16)) {}

bool LiveSeries::append(double x, double y) {
    if (!std::isfinite(x) || !std::isfinite(y)) {
        ++m_dropped;
        return false;
    }
    if (m_x.isEmpty() || x > m_x.constLast()) {
        m_x.append(x);
        m_y.append(y);
    } else {
        // Out of order (rare: a late eval point, a re-read step). Keep x sorted; equal x replaces.
        const auto it = std::lower_bound(m_x.begin(), m_x.end(), x);
        const auto i = static_cast<int>(it - m_x.begin());
        if (it != m_x.end() && *it == x) {
            m_y[i] = y;
        } else {
            m_x.insert(i, x);
            m_y.insert(i, y);
        }
        ++m_layoutRevision;
    }
    if (m_x.size() > m_capacity) {
        thin();
        ++m_layoutRevision;
    }
    ++m_revision;
    return true;
}

void LiveSeries::clear() {
    m_x.clear();
    m_y.clear();
    m_dropped = 0;
    ++m_revision;
    ++m_layoutRevision;
}

void LiveSeries::thin() {
    const int n = static_cast<int>(m_x.size());
    const int recentStart = n / 2;
    int out = 1;  // index 0 (the first point) is always kept
    for (int i = 2; i < recentStart; i += 2) {
        m_x[out] = m_x[i];
        m_y[out] = m_y[i];
        ++out;
    }
    for (int i = recentStart; i < n; ++i) {
        m_x[out] = m_x[i];
        m_y[out] = m_y[i];
        ++out;
    }
    m_x.resize(out);
    m_y.resize(out);
}

}  // namespace fts
