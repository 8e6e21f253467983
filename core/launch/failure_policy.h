// Which failure names a multi-rank run's end, and when the surviving ranks are stopped. A rank whose
// collective failed because a peer died is a consequence; the first error that is not one is the root
// cause and replaces a consequence reported before it. After the first failure the others get one second
// to report their cause, then every rank on every host is killed (well within the 10 s promised).
#pragma once
#include <chrono>
#include <optional>
#include <string>

namespace fts {

class FailurePolicy {
public:
    using Clock = std::chrono::steady_clock;
    explicit FailurePolicy(int worldSize) : m_world(worldSize) {}

    // A rank's own error event (consequence: a collective failed) or its abnormal exit.
    void rankFailed(int rank, const std::string& message, bool consequence);
    // A failure of the launch itself (a host that cannot start, a lost ssh session): a root cause.
    void launchFailed(const std::string& message);

    bool failed() const { return !m_failure.empty(); }
    const std::string& failure() const { return m_failure; }
    int failedRank() const { return m_rank; }
    // True once when it is time to kill every rank (then the caller kills them all).
    bool killDue(Clock::time_point now);

private:
    void armKill();
    int m_world;
    std::string m_failure;
    int m_rank = -1;
    bool m_consequence = false;
    std::optional<Clock::time_point> m_killAt;
};

}  // namespace fts
