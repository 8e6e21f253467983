// DeepSpeed hostfile grammar (see hostfile.h). DeepSpeed matches ^(\S+)\s+slots=(\d+) and ignores the
// rest of the line; here only a trailing '#' comment may follow, anything else is an error naming the line.
#include "core/launch/hostfile.h"

#include <cctype>
#include <set>
#include <sstream>

#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace fts {

std::string hostNameProblem(const std::string& host) {
    if (host.empty()) return "the host name is empty";
    if (host[0] == '-') return "a host name must not start with '-' (ssh would read it as an option)";
    if (host.size() > 253) return "the host name is longer than 253 characters";
    for (unsigned char c : host)
        if (!(std::isalnum(c) || c == '.' || c == '_' || c == '-' || c == ':'))
            return std::string("the host name has the character ") +
                   (std::isprint(c) ? "'" + std::string(1, char(c)) + "'" : "code " + std::to_string(int(c))) +
                   "; expected letters, digits, '.', '_', '-' or ':' (a name, an ssh alias or an address)";
    return {};
}

bool isLocalHostName(const std::string& host) { return host == "localhost" || host == "127.0.0.1"; }

std::vector<HostSlots> parseHostfile(const std::string& text, const std::string& fileName) {
    std::vector<HostSlots> hosts;
    std::set<std::string> seen;
    std::istringstream in(text);
    std::string raw;
    int lineNo = 0;
    auto fail = [&](const std::string& why) {
        throw ConfigError("hostfile " + fileName + ", line " + std::to_string(lineNo) + ": " + why);
    };
    while (std::getline(in, raw)) {
        ++lineNo;
        std::string line = raw;
        if (const size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
        std::istringstream words(line);
        std::string host, slotsWord, extra;
        if (!(words >> host)) continue;  // blank or comment
        if (!(words >> slotsWord) || slotsWord.rfind("slots=", 0) != 0)
            fail("expected \"HOST slots=N\" (as DeepSpeed's hostfile), got \"" + raw + "\"");
        if (words >> extra) fail("unexpected \"" + extra + "\" after " + slotsWord + " (expected \"HOST slots=N\")");
        const std::string digits = slotsWord.substr(6);
        if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos)
            fail("slots must be a whole number, got \"" + slotsWord + "\"");
        const int slots = std::stoi(digits);
        if (slots < 1) fail("slots must be at least 1, got " + digits + " for host " + host);
        // A slot is a rank (a GPU, or a CPU process): no machine has more than this. The launch plan holds every
        // slot, so a hostfile asking for a million per host made planning take half a minute (found by fuzzing).
        if (slots > kMaxSlotsPerHost)
            fail("slots must be at most " + std::to_string(kMaxSlotsPerHost) + " per host, got " + digits +
                 " for host " + host);
        if (const std::string why = hostNameProblem(host); !why.empty()) fail("host \"" + host + "\": " + why);
        if (!seen.insert(host).second) fail("host " + host + " is listed twice (DeepSpeed refuses that too)");
        hosts.push_back({host, slots, lineNo});
    }
    if (hosts.empty()) throw ConfigError("hostfile " + fileName + ": no host in it (expected lines \"HOST slots=N\")");
    return hosts;
}

std::vector<HostSlots> readHostfile(const std::filesystem::path& file) {
    std::string text;
    try {
        text = readFile(file);
    } catch (const Error& e) {
        throw ConfigError("hostfile " + file.string() + ": cannot be read: " + e.what());
    }
    return parseHostfile(text, file.string());
}

}  // namespace fts
