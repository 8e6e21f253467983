// Folders and files only their owner may read: the run store, checkpoints and the token cache hold what a run was
// trained on (configs, metrics, sample texts, tokenized data, weights), so they are created mode 0700 / 0600
// whatever the umask. Only what we create is set: a folder or file that already exists keeps the user's mode.
// Header-only on purpose (two small functions used by three libraries).
#pragma once
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/util/error.h"

namespace fts {

// Creates `dir` (mode 0700) and any missing parents (the umask's mode, as create_directories does).
inline void createOwnerOnlyDirectory(const std::filesystem::path& dir) {
    std::error_code ec;
    if (std::filesystem::is_directory(dir, ec)) return;
    if (dir.has_parent_path() && dir.parent_path() != dir) {
        std::filesystem::create_directories(dir.parent_path(), ec);
        if (ec) throw IoError(dir.parent_path().string() + ": cannot create the folder: " + ec.message());
    }
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
        throw IoError(dir.string() + ": cannot create the folder: " + std::strerror(errno));
    if (!std::filesystem::is_directory(dir, ec)) throw IoError(dir.string() + ": exists and is not a folder");
}

// Creates an empty `file` with mode 0600 unless it exists (e.g. before SQLite opens a new database there, so that
// the database and its -wal and -shm files, which SQLite gives the database's mode, are the owner's only).
inline void createOwnerOnlyFileIfMissing(const std::filesystem::path& file) {
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
        ::close(fd);
        return;
    }
    if (errno != EEXIST) throw IoError(file.string() + ": cannot create the file: " + std::strerror(errno));
}

}  // namespace fts
