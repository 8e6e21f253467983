// Fuzz harness: a DeepSpeed hostfile and the --include / --exclude host:slot@host syntax, planned into ranks.
// The input is the hostfile, then after a NUL byte the include value, then after another the exclude value.
#include "core/launch/hostfile.h"
#include "core/launch/launch_plan.h"
#include "core/util/error.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view in = fts::fuzz::bytes(data, size);
    const size_t a = in.find('\0');
    const size_t b = a == std::string_view::npos ? a : in.find('\0', a + 1);
    const std::string hostfile(in.substr(0, a));
    const std::string include(a == std::string_view::npos
                                  ? std::string_view()
                                  : in.substr(a + 1, b == std::string_view::npos ? b : b - a - 1));
    const std::string exclude(b == std::string_view::npos ? std::string_view() : in.substr(b + 1));
    try {
        const auto hosts = fts::parseHostfile(hostfile, "hostfile");
        for (int nodes : {0, 1}) try {
                (void)fts::describePlan(fts::planLaunch(hosts, include, exclude, nodes, 0));
            } catch (const fts::Error&) {
            }
    } catch (const fts::Error&) {
    }
    try {
        (void)fts::resolveLocalLaunch(0, 0, include, exclude, "0,1,2,3");
    } catch (const fts::Error&) {
    }
    return 0;
}
