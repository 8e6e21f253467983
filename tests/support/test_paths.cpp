// The tests' paths at run time (see test_paths.h).
#include "tests/support/test_paths.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>

namespace fts::testing {

namespace {

namespace fs = std::filesystem;

// The build tree this program sits in (the nearest folder above it holding CMakeCache.txt) and the cache's values
// the paths follow from; empty when there is none.
std::map<std::string, std::string> pathsFromBuildTree() {
    std::error_code ec;
    fs::path dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
    while (!ec && !dir.empty() && !fs::exists(dir / "CMakeCache.txt", ec)) {
        if (dir == dir.root_path()) return {};
        dir = dir.parent_path();
    }
    if (ec || dir.empty()) return {};
    std::string source, python;
    std::ifstream cache(dir / "CMakeCache.txt");
    for (std::string line; std::getline(cache, line);) {  // KEY:TYPE=VALUE
        const size_t eq = line.find('=');
        if (eq == std::string::npos) continue;
        if (line.starts_with("CMAKE_HOME_DIRECTORY:")) source = line.substr(eq + 1);
        if (line.starts_with("FTS_PYTHON:")) python = line.substr(eq + 1);
    }
    if (source.empty()) return {};
    return {{"FTS_SOURCE_DIR", source},
            {"FTS_TEST_DATA_DIR", source + "/tests/data"},
            {"FTS_BINARY_DIR", dir.string()},
            {"FTS_TEST_PYTHON", python.empty() ? std::string("python3") : python},
            {"FTS_CLI_PATH", (dir / "bin" / "fts").string()}};
}

}  // namespace

const char* testPath(const char* name) {
    static std::mutex mutex;
    static std::map<std::string, std::string> values;  // never erased: the pointers handed out stay valid
    static bool treeRead = false;
    static std::map<std::string, std::string> fromTree;
    const std::lock_guard<std::mutex> lock(mutex);
    if (auto it = values.find(name); it != values.end()) return it->second.c_str();
    std::string value;
    if (const char* env = std::getenv(name); env && *env) {
        value = env;
    } else {
        if (!treeRead) fromTree = pathsFromBuildTree(), treeRead = true;
        if (auto it = fromTree.find(name); it != fromTree.end()) value = it->second;
    }
    if (value.empty()) {
        std::fprintf(stderr,
                     "%s is not set: run the tests through ctest (tests/CMakeLists.txt sets it), or from a build tree "
                     "(its CMakeCache.txt says where the sources are)\n",
                     name);
        std::abort();
    }
    return values.emplace(name, value).first->second.c_str();
}

}  // namespace fts::testing
