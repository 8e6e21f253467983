// The Gloo backend (CPU tensors): LibTorch's c10d::ProcessGroupGloo on the store's interface. Needs the
// gloo headers at build time (FTS_HAVE_GLOO_HEADERS, Debian's libgloo-dev); without them, a clear error.
#ifdef FTS_HAVE_GLOO_HEADERS
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif

#include "core/dist/c10d_communicator.h"

namespace fts {

c10::intrusive_ptr<c10d::Backend> makeGlooBackend(const c10::intrusive_ptr<c10d::Store>& store, const DistOptions& o) {
#ifdef FTS_HAVE_GLOO_HEADERS
    try {
        auto opts = c10d::ProcessGroupGloo::Options::create(o.timeout);
        opts->devices.push_back(
            c10d::ProcessGroupGloo::createDeviceForHostname(o.localAddr.empty() ? o.host : o.localAddr));
        opts->threads = 2;
        return c10::make_intrusive<c10d::ProcessGroupGloo>(store, o.rank, o.worldSize, opts);
    } catch (const c10::Error& e) {
        throw DistError("rank " + std::to_string(o.rank) + " of " + std::to_string(o.worldSize) +
                        ": cannot connect the Gloo process group: " + e.what_without_backtrace());
    }
#else
    (void)store;
    throw DistError("rank " + std::to_string(o.rank) +
                    ": this build has no Gloo backend (the gloo headers were "
                    "missing at build time: apt install libgloo-dev and rebuild)");
#endif
}

}  // namespace fts
