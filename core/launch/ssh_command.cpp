// Quoting for the remote shell and the ssh client's argv (see ssh_command.h).
#include "core/launch/ssh_command.h"

#include "core/launch/hostfile.h"
#include "core/util/error.h"

namespace fts {

std::string shellQuote(const std::string& word) {
    std::string out = "'";
    for (char c : word) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    out += '\'';
    return out;
}

std::string remoteCommandLine(const std::vector<std::string>& argv) {
    std::string line;
    for (const std::string& a : argv) {
        if (a.find('\0') != std::string::npos) throw ConfigError("a remote argument contains a NUL byte");
        line += (line.empty() ? "" : " ") + shellQuote(a);
    }
    return line;
}

std::vector<std::string> sshArgv(const std::string& host, const SshOptions& o,
                                 const std::vector<std::string>& remoteArgv) {
    if (const std::string why = hostNameProblem(host); !why.empty()) throw ConfigError("host \"" + host + "\": " + why);
    std::vector<std::string> argv{"ssh", "-T",
                                  "-o",  "BatchMode=yes",
                                  "-o",  "ConnectTimeout=" + std::to_string(o.connectTimeoutSeconds),
                                  "-o",  "ServerAliveInterval=5",
                                  "-o",  "ServerAliveCountMax=2"};
    if (!o.configFile.empty()) argv.insert(argv.end(), {"-F", o.configFile});
    if (o.port > 0) argv.insert(argv.end(), {"-p", std::to_string(o.port)});
    argv.push_back("--");
    argv.push_back(host);
    argv.push_back(remoteCommandLine(remoteArgv));
    return argv;
}

}  // namespace fts
