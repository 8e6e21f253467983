// Tests of openModelWeights: a single file and a sharded index give every tensor with its element count and
// main dtype; each broken folder (missing shard, a tensor the index misplaces, bad JSON, a path escaping the
// folder, only pytorch_model.bin, no weights at all) is one typed error naming the file.
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include "core/util/error.h"
#include "core/weights/model_weights.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
namespace fs = std::filesystem;

namespace {

// Writes a safetensors file holding `shapes` (name -> shape) in `dtype`, every byte 0x11.
void writeTensors(const fs::path& path, const std::map<std::string, std::vector<int64_t>>& shapes,
                  SafetensorsDtype dtype = SafetensorsDtype::F32) {
    std::vector<TensorView> views;
    for (const auto& [name, shape] : shapes) {
        TensorView v{name, dtype, shape, nullptr, {}};
        v.fill = [n = v.nbytes()](const ByteSink& sink) {
            const std::vector<unsigned char> bytes(n, 0x11);
            sink(bytes.data(), bytes.size());
        };
        views.push_back(std::move(v));
    }
    writeSafetensors(path, views);
}

void writeText(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

class TestModelWeights : public QObject {
    Q_OBJECT
private slots:
    void singleFile() {
        QTemporaryDir dir;
        const fs::path d = dir.path().toStdString();
        writeTensors(d / "model.safetensors", {{"a", {3, 5}}, {"b", {7}}});
        const ModelWeights w = openModelWeights(d);
        QCOMPARE(w.fileCount, 1);
        QCOMPARE(int(w.tensors.size()), 2);
        QCOMPARE(w.numElements(), int64_t(22));
        QCOMPARE(w.mainDtypeName(), std::string("F32"));
        QCOMPARE(w.tensors.at("a").entry->shape, (std::vector<int64_t>{3, 5}));
    }

    void shardedIndex() {
        QTemporaryDir dir;
        const fs::path d = dir.path().toStdString();
        writeTensors(d / "s1.safetensors", {{"x", {4, 4}}}, SafetensorsDtype::BF16);
        writeTensors(d / "s2.safetensors", {{"y", {2}}, {"forgotten", {3}}}, SafetensorsDtype::F32);
        writeText(d / "model.safetensors.index.json",
                  R"({"metadata": {}, "weight_map": {"x": "s1.safetensors", "y": "s2.safetensors"}})");
        const ModelWeights w = openModelWeights(d);
        QCOMPARE(w.fileCount, 2);
        // The tensor a shard holds but the index forgot is listed too (the loader reports it as unexpected).
        QCOMPARE(int(w.tensors.size()), 3);
        QCOMPARE(w.numElements(), int64_t(16 + 2 + 3));
        QCOMPARE(w.mainDtypeName(), std::string("BF16"));
        QVERIFY(w.description.find("2 shards") != std::string::npos);
    }

    void brokenFolders_data() {
        QTest::addColumn<QString>("index");      // model.safetensors.index.json text; empty: none
        QTest::addColumn<QString>("otherFile");  // another file to create; empty: none
        QTest::addColumn<bool>("ioError");       // else FormatError
        QTest::addColumn<QString>("message");
        QTest::newRow("missing shard") << R"({"weight_map": {"x": "gone.safetensors"}})"
                                       << "" << true << "shard \"gone.safetensors\" (holding tensor 'x') is missing";
        QTest::newRow("misplaced tensor")
            << R"({"weight_map": {"z": "s1.safetensors"}})"
            << "" << false << "weight_map puts tensor 'z' in s1.safetensors, but that shard does not contain it";
        QTest::newRow("bad json") << R"({"weight_map": )"
                                  << "" << false << "model.safetensors.index.json: not valid JSON";
        QTest::newRow("no weight_map") << R"({"metadata": {}})"
                                       << "" << false << "key \"weight_map\": expected an object";
        QTest::newRow("escaping path") << R"({"weight_map": {"x": "../s1.safetensors"}})"
                                       << "" << false << "must be a file name inside the model folder";
        QTest::newRow("not a string") << R"({"weight_map": {"x": 3}})"
                                      << "" << false << "expected a shard file name, found 3";
        QTest::newRow("pytorch only") << ""
                                      << "pytorch_model.bin" << false << "has pytorch_model.bin but only safetensors";
        QTest::newRow("no weights") << ""
                                    << "" << true << "no model.safetensors or model.safetensors.index.json found";
    }
    void brokenFolders() {
        QFETCH(QString, index);
        QFETCH(QString, otherFile);
        QFETCH(bool, ioError);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const fs::path d = dir.path().toStdString();
        writeTensors(d / "s1.safetensors", {{"x", {2}}});
        if (!index.isEmpty()) writeText(d / "model.safetensors.index.json", index.toStdString());
        if (!otherFile.isEmpty()) writeText(d / otherFile.toStdString(), "not really");
        try {
            openModelWeights(d);
            QFAIL("expected an error");
        } catch (const IoError& e) {
            QVERIFY2(ioError, e.what());
            QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
        } catch (const FormatError& e) {
            QVERIFY2(!ioError, e.what());
            QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
        }
    }

    void truncatedFileNamesTheFile() {
        QTemporaryDir dir;
        const fs::path d = dir.path().toStdString();
        writeTensors(d / "model.safetensors", {{"a", {64}}});
        fs::resize_file(d / "model.safetensors", fs::file_size(d / "model.safetensors") - 4);
        try {
            openModelWeights(d);
            QFAIL("expected an error");
        } catch (const FormatError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QString::fromStdString((d / "model.safetensors").string())),
                     e.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestModelWeights)
#include "test_model_weights.moc"
