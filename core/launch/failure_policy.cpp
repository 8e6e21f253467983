// Root cause vs. consequence (see failure_policy.h).
#include "core/launch/failure_policy.h"

namespace fts {

void FailurePolicy::armKill() {
    if (!m_killAt) m_killAt = Clock::now() + std::chrono::milliseconds(m_world > 1 ? 1000 : 0);
}

void FailurePolicy::rankFailed(int rank, const std::string& message, bool consequence) {
    if (m_failure.empty() || (m_consequence && !consequence)) {
        m_failure = (m_world > 1 ? "rank " + std::to_string(rank) + ": " : std::string()) + message;
        m_rank = rank;
        m_consequence = consequence;
    }
    armKill();
}

void FailurePolicy::launchFailed(const std::string& message) {
    if (m_failure.empty() || m_consequence) {
        m_failure = message;
        m_rank = -1;
        m_consequence = false;
    }
    armKill();
}

bool FailurePolicy::killDue(Clock::time_point now) {
    if (!m_killAt || now < *m_killAt) return false;
    m_killAt = Clock::time_point::max();
    return true;
}

}  // namespace fts
