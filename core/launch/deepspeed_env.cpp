// .deepspeed_env files and exported prefixes (see deepspeed_env.h).
#include "core/launch/deepspeed_env.h"

#include <unistd.h>  // environ

#include <cctype>
#include <cstdlib>
#include <sstream>

#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace fts {

namespace {
bool validName(const std::string& n) {
    if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) return false;
    for (unsigned char c : n)
        if (!(std::isalnum(c) || c == '_')) return false;
    return true;
}
}  // namespace

EnvList parseDeepspeedEnv(const std::string& text, const std::string& fileName) {
    EnvList out;
    std::istringstream in(text);
    std::string line;
    int lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        size_t first = line.find_first_not_of(" \t");
        if (first == std::string::npos || line[first] == '#') continue;
        const size_t eq = line.find('=');
        const std::string where = fileName + ", line " + std::to_string(lineNo) + ": ";
        if (eq == std::string::npos) throw ConfigError(where + "expected NAME=VALUE, got \"" + line + "\"");
        std::string name = line.substr(0, eq);
        if (name.rfind("export ", 0) == 0) name = name.substr(7);
        while (!name.empty() && (name.front() == ' ' || name.front() == '\t')) name.erase(0, 1);
        if (!validName(name))
            throw ConfigError(where + "\"" + name +
                              "\" is not a variable name (letters, digits and '_', not starting with a digit)");
        out.emplace_back(name, line.substr(eq + 1));
    }
    return out;
}

EnvList nodeEnvironment(const std::filesystem::path& home, const std::filesystem::path& cwd,
                        std::vector<std::filesystem::path>* sources) {
    EnvList out;
    for (char** e = environ; *e; ++e) {
        const std::string kv = *e;
        const size_t eq = kv.find('=');
        if (eq == std::string::npos) continue;
        for (const char* prefix : {"NCCL_", "GLOO_", "UCX_", "TORCH_"})
            if (kv.rfind(prefix, 0) == 0) out.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
    const char* name = std::getenv("DS_ENV_FILE");
    const std::string fileName = name && *name ? name : ".deepspeed_env";
    for (const std::filesystem::path& dir : {home, cwd}) {
        if (dir.empty()) continue;
        const std::filesystem::path file = dir / fileName;
        std::error_code ec;
        if (!std::filesystem::is_regular_file(file, ec)) continue;
        if (sources) sources->push_back(file);
        for (auto& kv : parseDeepspeedEnv(readFile(file), file.string())) out.push_back(std::move(kv));
    }
    return out;
}

}  // namespace fts
