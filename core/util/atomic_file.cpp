// Atomic file writes (see atomic_file.h).
#include "core/util/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/util/atomic_file_writer.h"
#include "core/util/error.h"

namespace fts {
namespace fs = std::filesystem;

static std::string errnoText() { return std::strerror(errno); }

void fsyncPath(const fs::path& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw IoError(path.string() + ": cannot open for fsync: " + errnoText());
    int rc = ::fsync(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0) throw IoError(path.string() + ": fsync failed: " + std::strerror(err));
}

void writeFileAtomic(const fs::path& target, std::string_view bytes) {
    AtomicFileWriter out(target);
    out.write(bytes);
    out.commit();
}

void renameDirAtomic(const fs::path& tmpDir, const fs::path& target) {
    std::error_code ec;
    if (fs::exists(target)) fs::remove_all(target, ec);
    if (::rename(tmpDir.c_str(), target.c_str()) != 0)
        throw IoError(target.string() + ": rename of " + tmpDir.string() + " failed: " + errnoText());
    fsyncPath(target.parent_path().empty() ? fs::path(".") : target.parent_path());
}

std::string readFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw IoError(path.string() + ": cannot open for reading");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace fts
