// The checkpoint checksum manifest: written over every file, it finds a flipped byte, a truncated or a missing
// file by name; a folder without a manifest (written before it existed) passes; resume's choice skips damaged
// newer checkpoints, reporting each, and takes the newest intact one.
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "core/util/atomic_file.h"
#include "core/util/atomic_file_writer.h"
#include "core/util/checkpoint_checksums.h"
#include "core/util/checkpoint_dir.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

namespace fs = std::filesystem;
using namespace fts;

namespace {

// A checkpoint folder step-N with three files and a manifest; `latest` names it.
fs::path makeCheckpoint(const fs::path& out, int64_t step, bool withManifest = true) {
    const fs::path dir = out / "checkpoints" / checkpointDirName(step);
    fs::create_directories(dir);
    writeFileAtomic(dir / "trainer_state.json", "{\"step\": " + std::to_string(step) + "}");
    writeFileAtomic(dir / "optimizer.safetensors", std::string(100000 + size_t(step), char('a' + step)));
    AtomicFileWriter model(dir / "model.safetensors");
    model.write(std::string(5000, 'm'));
    const uint64_t modelSum = model.commit();
    if (withManifest) writeCheckpointChecksums(dir, {{"model.safetensors", modelSum}});
    writeFileAtomic(out / "checkpoints" / "latest", checkpointDirName(step) + "\n");
    return dir;
}

void flipByte(const fs::path& file, std::streamoff at) {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    char c = 0;
    f.seekg(at);
    f.read(&c, 1);
    c = char(c ^ 1);
    f.seekp(at);
    f.write(&c, 1);
}

}  // namespace

class TestCheckpointChecksums : public QObject {
    Q_OBJECT
private slots:
    void intactFolderPasses() {
        QTemporaryDir tmp;
        const fs::path dir = makeCheckpoint(tmp.path().toStdString(), 2);
        QVERIFY(checkpointDamage(dir).empty());
        // The manifest holds every other file, with the streamed checksum where one was given.
        const std::string manifest = readFile(dir / kChecksumsFile);
        for (const char* f : {"trainer_state.json", "optimizer.safetensors", "model.safetensors"})
            QVERIFY(manifest.find(f) != std::string::npos);
        QVERIFY(manifest.find(checksumHex(fileChecksum(dir / "model.safetensors"))) != std::string::npos);
    }

    void damageIsNamed_data() {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("expected");
        QTest::newRow("flipped byte") << "flip"
                                      << "optimizer.safetensors: checksum mismatch: the file is damaged";
        QTest::newRow("truncated") << "truncate"
                                   << "optimizer.safetensors: checksum mismatch: the file is damaged";
        QTest::newRow("missing") << "remove"
                                 << "model.safetensors: missing";
        QTest::newRow("manifest not json") << "manifest"
                                           << "checksums.json: unreadable";
        // fuzz_checkpoint_state: a non-string algorithm threw nlohmann's type_error out of checkpointDamage.
        QTest::newRow("algorithm a number") << "algorithm"
                                            << "checksums.json: expected {\"algorithm\": \"xxh3-64\"";
    }
    void damageIsNamed() {
        QFETCH(QString, what);
        QFETCH(QString, expected);
        QTemporaryDir tmp;
        const fs::path dir = makeCheckpoint(tmp.path().toStdString(), 4);
        if (what == "flip") flipByte(dir / "optimizer.safetensors", 50000);
        if (what == "truncate") fs::resize_file(dir / "optimizer.safetensors", 99999);
        if (what == "remove") fs::remove(dir / "model.safetensors");
        if (what == "manifest") writeFileAtomic(dir / kChecksumsFile, "{\"files\": ");
        if (what == "algorithm") writeFileAtomic(dir / kChecksumsFile, "{\"algorithm\": 4, \"files\": {}}");
        const std::vector<std::string> damage = checkpointDamage(dir);
        QCOMPARE(damage.size(), size_t(1));
        QVERIFY2(QString::fromStdString(damage[0]).contains(expected), damage[0].c_str());
    }

    void folderWithoutManifestPasses() {
        QTemporaryDir tmp;
        const fs::path dir = makeCheckpoint(tmp.path().toStdString(), 2, /*withManifest=*/false);
        QVERIFY(checkpointDamage(dir).empty());
    }

    void resumeSkipsDamagedNewerCheckpoints() {
        QTemporaryDir tmp;
        const fs::path out = tmp.path().toStdString();
        const fs::path s2 = makeCheckpoint(out, 2), s4 = makeCheckpoint(out, 4), s6 = makeCheckpoint(out, 6);
        std::vector<fs::path> reported;
        auto report = [&](const fs::path& d, const std::string& why) {
            reported.push_back(d);
            QVERIFY2(why.find("checksum mismatch") != std::string::npos, why.c_str());
        };
        QCOMPARE(newestIntactCheckpoint(out, report), s6);
        QVERIFY(reported.empty());
        flipByte(s6 / "model.safetensors", 10);
        flipByte(s4 / "optimizer.safetensors", 10);
        QCOMPARE(newestIntactCheckpoint(out, report), s2);
        QCOMPARE(reported, (std::vector<fs::path>{s6, s4}));
        flipByte(s2 / "trainer_state.json", 1);
        QVERIFY(newestIntactCheckpoint(out, {}).empty());
    }
};

QTEST_APPLESS_MAIN(TestCheckpointChecksums)
#include "test_checkpoint_checksums.moc"
