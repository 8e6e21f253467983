// Stop signals (SIGINT, SIGTERM) for a process that computes with LibTorch: blocked in every compute thread and
// received by one watcher thread of their own, which calls the owner's function. Never a handler on a compute
// thread: oneDNN's JIT f32 GEMM kernels point RSP at heap memory while they run (oneDNN issue #4845), so a signal
// handled on a thread inside one writes the kernel's signal frame over the heap ("corrupted size vs. prev_size",
// seen when a stop reached a training rank mid-step). tests/core/util/test_stop_signal_watcher.cpp.
#pragma once
#include <signal.h>

#include <functional>
#include <memory>

namespace fts {

class StopSignalWatcher {
public:
    // Blocks SIGINT and SIGTERM in the calling thread, and so in every thread it starts from now on (construct it
    // before LibTorch starts its thread pools: first in a command), and receives them on a thread of its own:
    // each one calls onSignal(signal number) there. Throws IoError when the watcher cannot be set up.
    explicit StopSignalWatcher(std::function<void(int)> onSignal);
    // Stops the watcher thread. The signals stay blocked in this thread: one arriving later stays pending (the
    // owner is ending; a stop then has nothing left to stop).
    ~StopSignalWatcher();
    StopSignalWatcher(const StopSignalWatcher&) = delete;
    StopSignalWatcher& operator=(const StopSignalWatcher&) = delete;

    // From onSignal: ends the process as the signal's default action does (its parent sees "killed by `sig`").
    [[noreturn]] static void terminateBy(int sig);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace fts
