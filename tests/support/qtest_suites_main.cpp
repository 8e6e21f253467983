// main() of every test program that holds several Qt Test suites (tests/support/qtest_suites.h): the first
// argument names the suite, the rest go to it as if it were its own program. `--list` prints the suites.
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

namespace fts::testing {

using SuiteMain = int (*)(int argc, char** argv);

namespace {

std::map<std::string, SuiteMain>& suites() {
    static std::map<std::string, SuiteMain> all;  // filled by static initialisers, before main
    return all;
}

std::string g_program, g_running;

}  // namespace

bool registerSuite(const char* name, SuiteMain main) {
    if (!suites().emplace(name, main).second) {
        std::fprintf(stderr, "test program: two suites named %s\n", name);
        std::_Exit(2);
    }
    return true;
}

std::vector<std::string> selfCommand() { return {g_program, g_running}; }

}  // namespace fts::testing

namespace {

std::string thisProgram(const char* argv0) {
    char buf[4096];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, size_t(n)) : std::string(argv0);
}

int usage(const char* program, const char* problem) {
    std::fprintf(stderr, "%s%susage: %s SUITE [Qt Test arguments]   (%s --list: the suites)\nsuites:", problem,
                 *problem ? "\n" : "", program, program);
    for (const auto& [name, main] : fts::testing::suites()) std::fprintf(stderr, " %s", name.c_str());
    std::fprintf(stderr, "\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return usage(argv[0], "");
    if (std::strcmp(argv[1], "--list") == 0) {
        for (const auto& [name, main] : fts::testing::suites()) std::printf("%s\n", name.c_str());
        return 0;
    }
    const auto it = fts::testing::suites().find(argv[1]);
    if (it == fts::testing::suites().end()) return usage(argv[0], (std::string("no suite named ") + argv[1]).c_str());
    fts::testing::g_program = thisProgram(argv[0]);
    fts::testing::g_running = it->first;
    // The suite sees `program [its arguments]`: argv[1] (the suite's name) is taken out.
    std::vector<char*> args{argv[0]};
    for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
    args.push_back(nullptr);
    return it->second(int(args.size()) - 1, args.data());
}
