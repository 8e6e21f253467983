// Atomic file writes: content replaced whole, no temporary files left behind, errors name the path; owner-only
// folders and files are 0700 / 0600 under a permissive umask and existing ones keep their mode.
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

#include "core/util/atomic_file.h"
#include "core/util/checkpoint_dir.h"
#include "core/util/error.h"
#include "core/util/owner_only.h"

#include <sys/stat.h>

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

namespace fs = std::filesystem;

class TestAtomicFile : public QObject {
    Q_OBJECT
private slots:
    void writesAndReplacesWhole() {
        QTemporaryDir tmp;
        const fs::path file = fs::path(tmp.path().toStdString()) / "sub" / "state.json";
        fts::writeFileAtomic(file, "first");
        QCOMPARE(fts::readFile(file), std::string("first"));
        fts::writeFileAtomic(file, std::string(100000, 'x'));
        QCOMPARE(fts::readFile(file).size(), size_t(100000));
        int entries = 0;
        for (const auto& e : fs::directory_iterator(file.parent_path())) {
            (void)e;
            ++entries;
        }
        QCOMPARE(entries, 1);  // no temporary sibling left
    }
    void errorsNameThePath() {
        QTemporaryDir tmp;
        const fs::path blocker = fs::path(tmp.path().toStdString()) / "plainfile";
        fts::writeFileAtomic(blocker, "x");
        try {
            fts::writeFileAtomic(blocker / "child.json", "y");  // parent is a file
            QFAIL("expected an IoError");
        } catch (const fts::IoError& e) {
            QVERIFY2(std::string(e.what()).find("plainfile") != std::string::npos, e.what());
        }
        try {
            fts::readFile(blocker.parent_path() / "missing.json");
            QFAIL("expected an IoError");
        } catch (const fts::IoError& e) {
            QVERIFY2(std::string(e.what()).find("missing.json") != std::string::npos, e.what());
        }
    }
    void latestCheckpointPrefersLatestFileAndFallsBack() {
        QTemporaryDir tmp;
        const fs::path out = tmp.path().toStdString();
        QVERIFY(fts::latestCheckpoint(out).empty());
        for (const char* d : {"step-00000002", "step-00000010", "step-00000011.tmp42"}) {
            fs::create_directories(out / "checkpoints" / d);
            fts::writeFileAtomic(out / "checkpoints" / d / "trainer_state.json", "{}");
        }
        // No `latest` file (a crash before it was written): the newest complete step folder, never a .tmp one.
        QCOMPARE(fts::latestCheckpoint(out).filename().string(), std::string("step-00000010"));
        fts::writeFileAtomic(out / "checkpoints" / "latest", "step-00000002\n");
        QCOMPARE(fts::latestCheckpoint(out).filename().string(), std::string("step-00000002"));
        QCOMPARE(fts::checkpointDirName(123), std::string("step-00000123"));
    }

    void ownerOnlyFoldersAndFilesWhateverTheUmask() {
        QTemporaryDir tmp;
        const fs::path root = tmp.path().toStdString();
        const mode_t old = ::umask(0);  // the most permissive umask: everything we do not restrict is 0777 / 0666
        const auto modeOf = [](const fs::path& p) {
            struct stat st {};
            if (::stat(p.c_str(), &st) != 0) return mode_t(~0u);
            return mode_t(st.st_mode & 07777);
        };
        fts::createOwnerOnlyDirectory(root / "a" / "b" / "private");
        QCOMPARE(modeOf(root / "a" / "b" / "private"), mode_t(0700));
        QCOMPARE(modeOf(root / "a"), mode_t(0777));  // parents are made as create_directories makes them
        fs::create_directories(root / "shared");
        fs::permissions(root / "shared", fs::perms(0755));
        fts::createOwnerOnlyDirectory(root / "shared");  // exists: the user's mode stays
        QCOMPARE(modeOf(root / "shared"), mode_t(0755));
        fts::createOwnerOnlyFileIfMissing(root / "a" / "f.db");
        QCOMPARE(modeOf(root / "a" / "f.db"), mode_t(0600));
        QCOMPARE(fs::file_size(root / "a" / "f.db"), uintmax_t(0));
        fts::writeFileAtomic(root / "a" / "g.db", "kept");
        fs::permissions(root / "a" / "g.db", fs::perms(0640));
        fts::createOwnerOnlyFileIfMissing(root / "a" / "g.db");  // exists: neither emptied nor re-moded
        QCOMPARE(modeOf(root / "a" / "g.db"), mode_t(0640));
        QCOMPARE(fts::readFile(root / "a" / "g.db"), std::string("kept"));
        fts::writeFileAtomic(root / "plain", "x");
        bool threw = false;
        try {
            fts::createOwnerOnlyDirectory(root / "plain");
        } catch (const fts::IoError& e) {
            threw = std::string(e.what()).find("plain: exists and is not a folder") != std::string::npos;
        }
        ::umask(old);
        QVERIFY(threw);
    }
};

QTEST_APPLESS_MAIN(TestAtomicFile)
#include "test_atomic_file.moc"
