// Tests of the GGUF v3 writer: the header, metadata of every written type, tensor infos with offsets aligned to 32
// and the data where the infos say, read back byte by byte here; a duplicate key or tensor and a producer writing
// the wrong byte count are errors that leave no file. With the gguf package (the test venv): every quantized type's
// blocks, decoded by gguf's own dequantizers, equal our decoder's values (tests/data/gguf/check_gguf.py decode).
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <random>

#include "core/gguf/block_quantize.h"
#include "core/gguf/gguf_writer.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts::gguf;
namespace fs = std::filesystem;

namespace {

// A little-endian cursor over a file's bytes.
struct Cursor {
    const std::string& b;
    size_t at = 0;
    template <typename T>
    T get() {
        T v;
        std::memcpy(&v, b.data() + at, sizeof(T));
        at += sizeof(T);
        return v;
    }
    std::string str() {
        const uint64_t n = get<uint64_t>();
        std::string s = b.substr(at, n);
        at += n;
        return s;
    }
};

TensorInfo floatTensor(const std::string& name, std::vector<float> values, std::vector<int64_t> ne) {
    TensorInfo t;
    t.name = name;
    t.ne = std::move(ne);
    t.type = GgmlType::F32;
    t.produce = [values](const TensorSink& sink) { sink(values.data(), values.size() * 4); };
    return t;
}

}  // namespace

class TestGgufWriter : public QObject {
    Q_OBJECT
private slots:
    void layoutReadsBack() {
        QTemporaryDir tmp;
        const fs::path file = fs::path(tmp.path().toStdString()) / "m.gguf";
        std::vector<MetadataEntry> md = {
            {"general.architecture", MetadataValue::string("llama")},
            {"llama.block_count", MetadataValue::u32(2)},
            {"llama.rope.freq_base", MetadataValue::f32(10000.0f)},
            {"tokenizer.ggml.add_bos_token", MetadataValue::boolean(true)},
            {"tokenizer.ggml.tokens", MetadataValue::stringArray({"a", "bc", ""})},
            {"tokenizer.ggml.token_type", MetadataValue::i32Array({1, 3, 5})},
            {"tokenizer.ggml.scores", MetadataValue::f32Array({0.5f, -1.0f, -1000.0f})},
        };
        std::vector<TensorInfo> tensors = {floatTensor("a", {1, 2, 3}, {3}),  // 12 bytes, padded to 32
                                           floatTensor("b", std::vector<float>(16, 7.0f), {8, 2})};
        uint64_t lastDone = 0, lastTotal = 0;
        writeGguf(file, md, tensors, [&](uint64_t done, uint64_t total) {
            QVERIFY(done > lastDone);
            lastDone = done;
            lastTotal = total;
        });
        QCOMPARE(lastDone, uint64_t(12 + 64));
        QCOMPARE(lastTotal, lastDone);
        const std::string bytes = fts::readFile(file);
        Cursor c{bytes};
        QCOMPARE(bytes.substr(0, 4), std::string("GGUF"));
        c.at = 4;
        QCOMPARE(c.get<uint32_t>(), 3u);
        QCOMPARE(c.get<uint64_t>(), uint64_t(2));
        QCOMPARE(c.get<uint64_t>(), uint64_t(md.size()));
        QCOMPARE(c.str(), std::string("general.architecture"));
        QCOMPARE(c.get<uint32_t>(), uint32_t(ValueType::String));
        QCOMPARE(c.str(), std::string("llama"));
        QCOMPARE(c.str(), std::string("llama.block_count"));
        QCOMPARE(c.get<uint32_t>(), uint32_t(ValueType::U32));
        QCOMPARE(c.get<uint32_t>(), 2u);
        QCOMPARE(c.str(), std::string("llama.rope.freq_base"));
        QCOMPARE(c.get<uint32_t>(), uint32_t(ValueType::F32));
        QCOMPARE(c.get<float>(), 10000.0f);
        QCOMPARE(c.str(), std::string("tokenizer.ggml.add_bos_token"));
        QCOMPARE(c.get<uint32_t>(), uint32_t(ValueType::Bool));
        QCOMPARE(c.get<uint8_t>(), uint8_t(1));
        QCOMPARE(c.str(), std::string("tokenizer.ggml.tokens"));
        QCOMPARE(c.get<uint32_t>(), uint32_t(ValueType::Array));
        QCOMPARE(c.get<uint32_t>(), uint32_t(ValueType::String));
        QCOMPARE(c.get<uint64_t>(), uint64_t(3));
        QCOMPARE(c.str(), std::string("a"));
        QCOMPARE(c.str(), std::string("bc"));
        QCOMPARE(c.str(), std::string(""));
        QCOMPARE(c.str(), std::string("tokenizer.ggml.token_type"));
        QCOMPARE(c.get<uint32_t>(), uint32_t(ValueType::Array));
        QCOMPARE(c.get<uint32_t>(), uint32_t(ValueType::I32));
        QCOMPARE(c.get<uint64_t>(), uint64_t(3));
        QCOMPARE(c.get<int32_t>(), 1);
        QCOMPARE(c.get<int32_t>(), 3);
        QCOMPARE(c.get<int32_t>(), 5);
        QCOMPARE(c.str(), std::string("tokenizer.ggml.scores"));
        c.at += 4 + 4 + 8 + 12;
        // tensor infos
        QCOMPARE(c.str(), std::string("a"));
        QCOMPARE(c.get<uint32_t>(), 1u);
        QCOMPARE(c.get<uint64_t>(), uint64_t(3));
        QCOMPARE(c.get<uint32_t>(), uint32_t(GgmlType::F32));
        QCOMPARE(c.get<uint64_t>(), uint64_t(0));
        QCOMPARE(c.str(), std::string("b"));
        QCOMPARE(c.get<uint32_t>(), 2u);
        QCOMPARE(c.get<uint64_t>(), uint64_t(8));
        QCOMPARE(c.get<uint64_t>(), uint64_t(2));
        QCOMPARE(c.get<uint32_t>(), uint32_t(GgmlType::F32));
        QCOMPARE(c.get<uint64_t>(), uint64_t(32));  // 12 bytes padded to the alignment
        const size_t data = (c.at + 31) / 32 * 32;
        for (size_t i = c.at; i < data; ++i) QCOMPARE(bytes[i], '\0');
        float v;
        std::memcpy(&v, bytes.data() + data + 8, 4);
        QCOMPARE(v, 3.0f);
        std::memcpy(&v, bytes.data() + data + 32 + 60, 4);
        QCOMPARE(v, 7.0f);
        QCOMPARE(bytes.size(), data + 32 + 64);
    }

    void badInputLeavesNoFile() {
        QTemporaryDir tmp;
        const fs::path file = fs::path(tmp.path().toStdString()) / "m.gguf";
        QVERIFY_THROWS_EXCEPTION(fts::FormatError,
                                 writeGguf(file, {{"k", MetadataValue::u32(1)}, {"k", MetadataValue::u32(2)}}, {}));
        QVERIFY_THROWS_EXCEPTION(fts::FormatError,
                                 writeGguf(file, {}, {floatTensor("t", {1}, {1}), floatTensor("t", {1}, {1})}));
        TensorInfo shortOne = floatTensor("s", {1, 2}, {3});  // declares 3 values, produces 2
        QVERIFY_THROWS_EXCEPTION(fts::FormatError, writeGguf(file, {}, {shortOne}));
        TensorInfo block = floatTensor("q", std::vector<float>(48), {48});
        block.type = GgmlType::Q8_0;  // 48 is not a whole number of 32-blocks
        QVERIFY_THROWS_EXCEPTION(fts::FormatError, writeGguf(file, {}, {block}));
        QVERIFY(!fs::exists(file));
        QCOMPARE(std::distance(fs::directory_iterator(tmp.path().toStdString()), fs::directory_iterator{}), 0);
    }

    void ggufDecodesOurBlocksAsWeDo() {
        // every block type: random rows, our encoding, and beside it our decoding as float32
        QTemporaryDir tmp;
        const fs::path file = fs::path(tmp.path().toStdString()) / "blocks.gguf";
        std::mt19937 rng(5);
        std::normal_distribution<float> dist(0.0f, 0.1f);
        std::vector<TensorInfo> tensors;
        for (GgmlType type : {GgmlType::F16, GgmlType::BF16, GgmlType::Q4_0, GgmlType::Q4_1, GgmlType::Q5_0,
                              GgmlType::Q5_1, GgmlType::Q8_0, GgmlType::Q4_K, GgmlType::Q5_K, GgmlType::Q6_K}) {
            const int64_t rows = 3, cols = 512;
            std::vector<float> x(static_cast<size_t>(rows * cols));
            for (float& v : x) v = dist(rng);
            x[7] = 0.0f;  // a few exact values and an outlier
            x[100] = 2.5f;
            std::vector<uint8_t> encoded(rowBytes(type, rows * cols));
            quantizeRow(type, x.data(), rows * cols, encoded.data());
            std::vector<float> decoded(x.size());
            dequantizeRow(type, encoded.data(), rows * cols, decoded.data());
            TensorInfo t;
            t.name = std::string(typeName(type));
            t.ne = {cols, rows};
            t.type = type;
            t.produce = [encoded](const TensorSink& sink) { sink(encoded.data(), encoded.size()); };
            tensors.push_back(t);
            tensors.push_back(floatTensor(t.name + ".decoded", decoded, {cols, rows}));
        }
        writeGguf(file, {{"general.architecture", MetadataValue::string("test")}}, tensors);
        QProcess p;
        p.start(QString::fromUtf8(FTS_TEST_PYTHON),
                {(QString::fromUtf8(FTS_TEST_DATA_DIR) + QStringLiteral("/gguf/check_gguf.py")), "decode",
                 QString::fromStdString(file.string())});
        QVERIFY(p.waitForFinished(120000));
        const QByteArray out = p.readAllStandardOutput();
        QVERIFY2(p.exitCode() == 0, (out + p.readAllStandardError()).right(3000).constData());
        QVERIFY2(out.contains("\"checked\": 10"), out.constData());
    }
};

QTEST_MAIN(TestGgufWriter)
#include "test_gguf_writer.moc"
