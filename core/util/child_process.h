// Child processes started from an argv vector (posix_spawn, never a shell), with their stdin, stdout and
// stderr on pipes and, when asked, in a process group of their own (a terminal's Ctrl-C then reaches only
// the parent, which decides how the children stop). Also the line splitter the readers of those pipes use.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

namespace fts {

struct ChildProcess {
    pid_t pid = -1;
    int inFd = -1;   // write end of the child's stdin (-1 when not piped)
    int outFd = -1;  // read end of its stdout
    int errFd = -1;  // read end of its stderr
};

struct SpawnOptions {
    std::vector<std::string> env;  // the whole environment, NAME=VALUE
    bool pipeStdin = true;         // else the child's stdin is /dev/null
    bool ownProcessGroup = true;
    int passFd = -1;  // >= 0: given to the child as fd 3
    // The child starts with SIGTERM and SIGINT blocked, for a child that receives them on a watcher thread
    // (stop_signal_watcher.h): a stop sent while it is still loading waits for the watcher instead of killing it
    // (a training rank needs a few hundred ms to load LibTorch before its main runs).
    bool blockStopSignals = false;
};

// Throws IoError naming argv[0] when the pipes or the process cannot be made.
ChildProcess spawnChild(const std::vector<std::string>& argv, const SpawnOptions& options);

// Runs argv to its end (this process's environment, stdin /dev/null) and returns its stdout and wait status; its
// stderr is read and dropped. IoError when it cannot be started (a missing program reads as exit status 127).
struct CapturedRun {
    std::string out;
    int status = 0;   // as waitpid gives it
    bool ok() const;  // exited with status 0
};
CapturedRun runCaptured(const std::vector<std::string>& argv);

// The calling process's environment without the variables named in `drop` (exact names) and then
// `add` appended (NAME=VALUE).
std::vector<std::string> environmentWith(const std::vector<std::string>& drop, const std::vector<std::string>& add);

// "exited with code 3" / "was killed by signal 9 (Killed)".
std::string describeExitStatus(int status);

// Writes all of `data` (retrying on EINTR/partial writes); false when the reader is gone.
bool writeAll(int fd, const std::string& data);

// Splits a byte stream into lines; keeps the unfinished tail.
struct LineBuffer {
    std::string pending;
    template <class F>
    void feed(const char* data, size_t n, F&& onLine) {
        pending.append(data, n);
        size_t start = 0, nl;
        while ((nl = pending.find('\n', start)) != std::string::npos) {
            onLine(pending.substr(start, nl - start));
            start = nl + 1;
        }
        pending.erase(0, start);
    }
};

}  // namespace fts
