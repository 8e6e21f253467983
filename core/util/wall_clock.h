// Wall-clock time as the run store and the event stream record it: seconds since the Unix epoch, with sub-second
// precision (system_clock; not for measuring durations, which take steady_clock).
#pragma once
#include <chrono>

namespace fts {

inline double unixNow() {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

}  // namespace fts
