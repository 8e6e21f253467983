// The ssh transport's command lines, built from argv vectors. ssh joins its remote arguments with spaces
// and hands the result to the remote user's shell, so every remote argument is quoted for a POSIX shell
// (single quotes; a ' becomes '\''): host names, paths and config values never reach a shell unquoted.
#pragma once
#include <string>
#include <vector>

namespace fts {

// One word for a POSIX shell: 'text' with each ' written as '\''. The empty string becomes ''.
std::string shellQuote(const std::string& word);
// The remote command line: every argument quoted, joined by spaces.
std::string remoteCommandLine(const std::vector<std::string>& argv);

struct SshOptions {
    int port = 0;                   // --ssh_port (0: ssh's default or the user's config)
    std::string configFile;         // --ssh-config: ssh -F FILE (empty: the user's ~/.ssh/config)
    int connectTimeoutSeconds = 5;  // ConnectTimeout: an unreachable host fails fast
};

// argv for the local ssh client: ssh -T -o BatchMode=yes -o ConnectTimeout=N [-F file] [-p port]
// -o ServerAliveInterval=5 -o ServerAliveCountMax=2 -- HOST 'arg' 'arg' ...
// BatchMode: never a password prompt (keys, agent and the user's config only). The host must pass
// hostNameProblem (hostfile.h); it is a separate argv element after "--", so it is never an option.
std::vector<std::string> sshArgv(const std::string& host, const SshOptions& options,
                                 const std::vector<std::string>& remoteArgv);

}  // namespace fts
