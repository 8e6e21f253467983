// The streaming atomic writer: the target appears whole at commit and not before; the streamed checksum equals
// xxh3-64 of the file (and fileChecksum); an abandoned writer leaves the old target and no temporary file; a full
// disk (a 1 MiB tmpfs, root only) is an error saying where and how much, with the previous file intact.
#include <QTemporaryDir>
#include <QtTest>

#include <sys/mount.h>
#include <unistd.h>
#include <xxhash.h>

#include <filesystem>
#include <random>

#include "core/util/atomic_file.h"
#include "core/util/atomic_file_writer.h"
#include "core/util/error.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

namespace fs = std::filesystem;
using namespace fts;

namespace {

int filesIn(const fs::path& dir) {
    int n = 0;
    for (const auto& e : fs::directory_iterator(dir)) n += e.is_regular_file() ? 1 : 0;
    return n;
}

std::string randomBytes(size_t n, unsigned seed) {
    std::mt19937 gen(seed);
    std::string s(n, '\0');
    for (char& c : s) c = char(gen());
    return s;
}

}  // namespace

class TestAtomicFileWriter : public QObject {
    Q_OBJECT
private slots:
    void streamsWholeFileWithItsChecksum() {
        QTemporaryDir tmp;
        const fs::path file = fs::path(tmp.path().toStdString()) / "out.bin";
        // Pieces smaller and larger than the 1 MiB buffer, an awkward total.
        const std::string bytes = randomBytes(3 * (1 << 20) + 12345, 7);
        uint64_t sum = 0;
        {
            AtomicFileWriter w(file);
            size_t at = 0;
            for (size_t piece : {size_t(1), size_t(1000), size_t(1 << 20), size_t(5), size_t(2 << 20)}) {
                w.write(bytes.data() + at, piece);
                at += piece;
            }
            w.write(bytes.data() + at, bytes.size() - at);
            QVERIFY(!fs::exists(file));  // not before commit
            QCOMPARE(w.bytesWritten(), uint64_t(bytes.size()));
            sum = w.commit();
        }
        QCOMPARE(readFile(file), bytes);
        QCOMPARE(sum, uint64_t(XXH3_64bits(bytes.data(), bytes.size())));
        QCOMPARE(fileChecksum(file), sum);
        QCOMPARE(checksumHex(0x0123456789abcdefULL), std::string("0123456789abcdef"));
        QCOMPARE(filesIn(file.parent_path()), 1);
    }

    void abandonedWriterLeavesTheOldFile() {
        QTemporaryDir tmp;
        const fs::path file = fs::path(tmp.path().toStdString()) / "state.json";
        writeFileAtomic(file, "old");
        {
            AtomicFileWriter w(file);
            w.write(std::string(3 << 20, 'n'));
        }  // no commit: an error or a stop
        QCOMPARE(readFile(file), std::string("old"));
        QCOMPARE(filesIn(file.parent_path()), 1);
    }

    void writeAtPatchesAndDropsTheChecksum() {
        QTemporaryDir tmp;
        const fs::path file = fs::path(tmp.path().toStdString()) / "cache.bin";
        AtomicFileWriter w(file, 0600);
        w.write(std::string(16, '\0'));
        w.write("payload");
        w.writeAt(0, "HEAD", 4);
        QVERIFY_THROWS_EXCEPTION(Error, w.checksum());
        QVERIFY_THROWS_EXCEPTION(IoError, w.writeAt(20, "xxxxxxxx", 8));  // past the end
        QCOMPARE(w.commit(), uint64_t(0));
        QCOMPARE(readFile(file), std::string("HEAD") + std::string(12, '\0') + "payload");
        QCOMPARE(fs::status(file).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
    }

    void fullDiskSaysWhereAndHowMuch() {
        QTemporaryDir tmp;
        const fs::path mnt = fs::path(tmp.path().toStdString()) / "small";
        fs::create_directories(mnt);
        if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=1m") != 0)
            QSKIP("needs root to mount a 1 MiB tmpfs (CI runs as root)");
        struct Unmount {
            fs::path p;
            ~Unmount() { ::umount2(p.c_str(), MNT_DETACH); }
        } unmount{mnt};
        const fs::path file = mnt / "model.safetensors";
        writeFileAtomic(file, "previous");
        try {
            AtomicFileWriter w(file);
            w.write(randomBytes(3 << 20, 1));
            w.commit();
            QFAIL("expected the disk to be full");
        } catch (const IoError& e) {
            const std::string msg = e.what();
            QVERIFY2(msg.find(file.string() + ": the disk is full after writing") == 0, e.what());
            QVERIFY2(msg.find("free on " + mnt.string()) != std::string::npos, e.what());
        }
        QCOMPARE(readFile(file), std::string("previous"));
        QCOMPARE(filesIn(mnt), 1);
    }
};

QTEST_APPLESS_MAIN(TestAtomicFileWriter)
#include "test_atomic_file_writer.moc"
