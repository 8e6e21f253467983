// DeepSpeed's hostfile: one "HOST slots=N" per line, '#' comments and blank lines skipped. A host name is
// an ssh destination (a name, an alias from ~/.ssh/config or an address); it must not start with '-' and
// holds only letters, digits and . _ - : (so it can never be read as an ssh option or reach a shell).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace fts {

// The most slots (ranks) one host of a hostfile may have.
inline constexpr int kMaxSlotsPerHost = 1024;

struct HostSlots {
    std::string host;
    int slotCount = 0;
    int line = 0;  // 1-based line in the hostfile (0: not from a file)
};

// Throws ConfigError naming the file and line: a line that is not "HOST slots=N", a host listed twice,
// slots outside 1..kMaxSlotsPerHost, a host name with other characters; and for a file with no host at all.
std::vector<HostSlots> parseHostfile(const std::string& text, const std::string& fileName);
std::vector<HostSlots> readHostfile(const std::filesystem::path& file);

// The check behind parseHostfile: empty when `host` is acceptable, else why not.
std::string hostNameProblem(const std::string& host);

// "localhost" and 127.0.0.1 run here without ssh.
bool isLocalHostName(const std::string& host);

}  // namespace fts
