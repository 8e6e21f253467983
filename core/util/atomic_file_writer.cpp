// AtomicFileWriter and fileChecksum (see atomic_file_writer.h).
#include "core/util/atomic_file_writer.h"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace fts {
namespace fs = std::filesystem;

namespace {

constexpr size_t kBufferBytes = 1 << 20;

std::string bytesText(uint64_t n) {
    char buf[64];
    if (n >= (uint64_t(1) << 30))
        std::snprintf(buf, sizeof buf, "%.2f GiB", double(n) / double(uint64_t(1) << 30));
    else if (n >= (uint64_t(1) << 20))
        std::snprintf(buf, sizeof buf, "%.1f MiB", double(n) / double(uint64_t(1) << 20));
    else
        std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(n));
    return buf;
}

XXH3_state_t* state(void* p) { return static_cast<XXH3_state_t*>(p); }

}  // namespace

AtomicFileWriter::AtomicFileWriter(const fs::path& target, mode_t mode) : m_target(target) {
    const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    std::error_code ec;
    fs::create_directories(dir, ec);
    m_tmp = dir / ("." + target.filename().string() + ".tmp" + std::to_string(std::random_device{}()));
    m_fd = ::open(m_tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (m_fd < 0)
        throw IoError(target.string() + ": cannot create " + m_tmp.filename().string() + ": " + std::strerror(errno));
    m_hash = XXH3_createState();
    XXH3_64bits_reset(state(m_hash));
    m_buffer.reserve(kBufferBytes);
}

AtomicFileWriter::~AtomicFileWriter() {
    if (m_fd >= 0) ::close(m_fd);
    if (!m_committed) {
        std::error_code ec;
        fs::remove(m_tmp, ec);
    }
    XXH3_freeState(state(m_hash));
}

void AtomicFileWriter::fail(const std::string& what, int err, size_t wanted) {
    std::string msg = m_target.string() + ": " + what + ": " + std::strerror(err);
    if (err == ENOSPC || err == EDQUOT) {
        const fs::path dir = m_target.parent_path().empty() ? fs::path(".") : m_target.parent_path();
        msg = m_target.string() + ": the disk is full after writing " + bytesText(m_onDisk) + " of this file (" +
              (wanted > 0 ? bytesText(wanted) + " more were being written; " : std::string()) + freeSpaceText(dir) +
              "). The previous file, if any, is unchanged; free space there and resume.";
    }
    ::close(m_fd);
    m_fd = -1;
    std::error_code ec;
    fs::remove(m_tmp, ec);
    throw IoError(msg);
}

// at < 0: append at the end (write); else at that offset (pwrite, bytes already counted in m_onDisk).
void AtomicFileWriter::writeRaw(const char* p, size_t size, int64_t at) {
    while (size > 0) {
        const ssize_t n = at < 0 ? ::write(m_fd, p, size) : ::pwrite(m_fd, p, size, off_t(at));
        if (n < 0) {
            if (errno == EINTR) continue;
            fail("write failed", errno, size);
        }
        p += n;
        size -= size_t(n);
        if (at < 0)
            m_onDisk += uint64_t(n);
        else
            at += n;
    }
}

void AtomicFileWriter::flushBuffer() {
    if (m_buffer.empty()) return;
    writeRaw(m_buffer.data(), m_buffer.size());
    m_buffer.clear();
}

void AtomicFileWriter::write(const void* data, size_t size) {
    if (m_fd < 0) throw IoError(m_target.string() + ": write after the file was closed");
    if (size == 0) return;
    XXH3_64bits_update(state(m_hash), data, size);
    m_written += size;
    if (m_buffer.size() + size > kBufferBytes) flushBuffer();
    if (size >= kBufferBytes)
        writeRaw(static_cast<const char*>(data), size);
    else
        m_buffer.append(static_cast<const char*>(data), size);
}

void AtomicFileWriter::writeAt(uint64_t offset, const void* data, size_t size) {
    if (offset + size > m_written) throw IoError(m_target.string() + ": writeAt past the bytes written");
    flushBuffer();
    writeRaw(static_cast<const char*>(data), size, int64_t(offset));
    m_hashValid = false;
}

uint64_t AtomicFileWriter::checksum() const {
    if (!m_hashValid) throw Error(m_target.string() + ": no streamed checksum (bytes were rewritten in place)");
    return XXH3_64bits_digest(state(m_hash));
}

uint64_t AtomicFileWriter::commit() {
    if (m_fd < 0) throw IoError(m_target.string() + ": commit after the file was closed");
    flushBuffer();
    if (::fsync(m_fd) != 0) fail("fsync failed", errno, 0);
    const int fd = m_fd;
    m_fd = -1;
    if (::close(fd) != 0) {
        const int err = errno;
        std::error_code ec;
        fs::remove(m_tmp, ec);
        throw IoError(m_target.string() + ": close failed: " + std::strerror(err));
    }
    if (::rename(m_tmp.c_str(), m_target.c_str()) != 0) {
        const int err = errno;
        std::error_code ec;
        fs::remove(m_tmp, ec);
        throw IoError(m_target.string() + ": rename failed: " + std::strerror(err));
    }
    m_committed = true;
    fsyncPath(m_target.parent_path().empty() ? fs::path(".") : m_target.parent_path());
    return m_hashValid ? XXH3_64bits_digest(state(m_hash)) : 0;
}

uint64_t fileChecksum(const fs::path& file) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw IoError(file.string() + ": cannot open: " + std::strerror(errno));
    XXH3_state_t* s = XXH3_createState();
    XXH3_64bits_reset(s);
    std::string buf(8 << 20, '\0');
    for (;;) {
        const ssize_t n = ::read(fd, buf.data(), buf.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            const int err = errno;
            ::close(fd);
            XXH3_freeState(s);
            throw IoError(file.string() + ": read failed: " + std::strerror(err));
        }
        if (n == 0) break;
        XXH3_64bits_update(s, buf.data(), size_t(n));
    }
    ::close(fd);
    const uint64_t h = XXH3_64bits_digest(s);
    XXH3_freeState(s);
    return h;
}

std::string checksumHex(uint64_t checksum) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(checksum));
    return buf;
}

std::string freeSpaceText(const fs::path& dir) {
    struct statvfs fsinfo {};
    if (::statvfs(dir.c_str(), &fsinfo) != 0) return "free space unknown on " + dir.string();
    return bytesText(uint64_t(fsinfo.f_bavail) * fsinfo.f_frsize) + " free on " + dir.string();
}

}  // namespace fts
