// Tests of the safetensors reader/writer: round trips of every dtype, the reference header layout, one
// FormatError per malformed file (naming the file), and cross-checks with the Python `safetensors` package.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <fstream>

#include "core/weights/safetensors.h"
#include "core/model/safetensors_torch.h"
#include "core/util/error.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
namespace fs = std::filesystem;

namespace {

std::string u64le(uint64_t n) {
    std::string s(8, '\0');
    std::memcpy(s.data(), &n, 8);
    return s;
}

// A file: 8-byte length, header text as given (no padding), then `dataBytes` bytes of 0x5a.
std::string rawFile(const std::string& header, size_t dataBytes) {
    return u64le(header.size()) + header + std::string(dataBytes, '\x5a');
}

void writeBytes(const fs::path& p, const std::string& bytes) {
    std::ofstream f(p, std::ios::binary);
    f.write(bytes.data(), std::streamsize(bytes.size()));
}

std::string readBytes(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

// Deterministic non-trivial bytes for a view.
std::vector<unsigned char> patternBytes(size_t n, unsigned seed) {
    std::vector<unsigned char> b(n);
    for (size_t i = 0; i < n; ++i) b[i] = static_cast<unsigned char>((i * 131 + seed * 17 + 7) & 0xff);
    return b;
}

}  // namespace

class TestSafetensors : public QObject {
    Q_OBJECT

private slots:
    void roundTripAllDtypes();
    void headerLayoutMatchesReference();
    void streamingFillIsChecked();
    void writerRejectsBadInput();
    void badFiles_data();
    void badFiles();
    void missingFileIsIoError();
    void torchRoundTrip();
    void zeroCopyViewKeepsMappingAlive();
    void pythonCrossCheck();
};

void TestSafetensors::roundTripAllDtypes() {
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const fs::path path = fs::path(tmp.path().toStdString()) / "all.safetensors";
    const SafetensorsDtype all[] = {SafetensorsDtype::Bool,   SafetensorsDtype::U8,     SafetensorsDtype::I8,
                                    SafetensorsDtype::F8E5M2, SafetensorsDtype::F8E4M3, SafetensorsDtype::I16,
                                    SafetensorsDtype::U16,    SafetensorsDtype::F16,    SafetensorsDtype::BF16,
                                    SafetensorsDtype::I32,    SafetensorsDtype::U32,    SafetensorsDtype::F32,
                                    SafetensorsDtype::F64,    SafetensorsDtype::I64,    SafetensorsDtype::U64};
    std::vector<std::vector<unsigned char>> storage;
    std::vector<TensorView> views;
    unsigned seed = 1;
    for (SafetensorsDtype d : all) {
        TensorView v;
        v.name = "t." + std::string(dtypeName(d));
        v.dtype = d;
        v.shape = {3, 5};
        storage.push_back(patternBytes(15 * dtypeSize(d), seed++));
        views.push_back(v);
    }
    // Scalar, empty tensor, 1-D of odd length.
    views.push_back({"scalar", SafetensorsDtype::F32, {}, nullptr, {}});
    storage.push_back(patternBytes(4, 99));
    views.push_back({"empty", SafetensorsDtype::F16, {0, 7}, nullptr, {}});
    storage.push_back({});
    views.push_back({"odd", SafetensorsDtype::I8, {13}, nullptr, {}});
    storage.push_back(patternBytes(13, 5));
    for (size_t i = 0; i < views.size(); ++i) views[i].data = storage[i].empty() ? nullptr : storage[i].data();
    const std::map<std::string, std::string> meta{{"format", "pt"}, {"note", "ünïcode \"quoted\"\n"}};
    writeSafetensors(path, views, meta);

    auto file = SafetensorsFile::open(path);
    QCOMPARE(file->tensors().size(), views.size());
    QCOMPARE(file->metadata(), meta);
    QCOMPARE(file->headerSize() % 8, uint64_t(0));
    for (size_t i = 0; i < views.size(); ++i) {
        const TensorEntry* e = file->find(views[i].name);
        QVERIFY2(e, views[i].name.c_str());
        QCOMPARE(e->dtype, views[i].dtype);
        QCOMPARE(e->shape, views[i].shape);
        QCOMPARE(e->nbytes(), uint64_t(storage[i].size()));
        if (!storage[i].empty()) QVERIFY(std::memcmp(file->data(*e), storage[i].data(), storage[i].size()) == 0);
        // Written data is aligned for its element type (the point of the reference ordering + padding).
        QCOMPARE(reinterpret_cast<uintptr_t>(file->data(*e)) % dtypeSize(e->dtype), uintptr_t(0));
    }
    QVERIFY(file->find("nope") == nullptr);
    QCOMPARE(file->find("scalar")->numel(), int64_t(1));
    QCOMPARE(file->find("empty")->numel(), int64_t(0));
    // No temporary file left behind.
    int files = 0;
    for (const auto& entry : fs::directory_iterator(path.parent_path())) files += entry.is_regular_file() ? 1 : 0;
    QCOMPARE(files, 1);
}

void TestSafetensors::headerLayoutMatchesReference() {
    // Reference (huggingface/safetensors serialize): metadata first, then descending dtype alignment, then name;
    // compact JSON; spaces pad the header to a multiple of 8.
    std::vector<TensorView> views{{"b", SafetensorsDtype::F32, {2}, nullptr, {}},
                                  {"a", SafetensorsDtype::BF16, {1}, nullptr, {}},
                                  {"c", SafetensorsDtype::I64, {1}, nullptr, {}},
                                  {"a2", SafetensorsDtype::F32, {1}, nullptr, {}}};
    const std::string h = safetensorsHeader(views, {{"format", "pt"}});
    const std::string expect =
        "{\"__metadata__\":{\"format\":\"pt\"},\"c\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[0,8]},"
        "\"a2\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]},"
        "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[12,20]},"
        "\"a\":{\"dtype\":\"BF16\",\"shape\":[1],\"data_offsets\":[20,22]}}";
    QCOMPARE(h.substr(0, expect.size()), expect);
    QCOMPARE(h.size() % 8, size_t(0));
    QVERIFY(h.size() - expect.size() < 8);
    QVERIFY(h.find_first_not_of(' ', expect.size()) == std::string::npos);
    // The reference's own unit-test vector: one F32 tensor "attn.0" of shape [1,2,3], no metadata -> N = 64.
    const std::string one = safetensorsHeader({{"attn.0", SafetensorsDtype::F32, {1, 2, 3}, nullptr, {}}}, {});
    QCOMPARE(one.size(), size_t(64));
    QCOMPARE(safetensorsHeader({}, {}), std::string("{}      "));
}

void TestSafetensors::streamingFillIsChecked() {
    QTemporaryDir tmp;
    const fs::path path = fs::path(tmp.path().toStdString()) / "fill.safetensors";
    std::vector<float> values{1.5f, -2.0f, 3.25f, 4.0f};
    TensorView v{"x", SafetensorsDtype::F32, {2, 2}, nullptr, {}};
    v.fill = [&](const ByteSink& sink) {
        sink(values.data(), 8);  // in two pieces
        sink(values.data() + 2, 8);
    };
    writeSafetensors(path, {v}, {});
    auto file = SafetensorsFile::open(path);
    QVERIFY(std::memcmp(file->data(*file->find("x")), values.data(), 16) == 0);

    // A fill that produces too few bytes fails and leaves the previous file untouched.
    const std::string before = readBytes(path);
    TensorView bad{"x", SafetensorsDtype::F32, {2, 2}, nullptr, {}};
    bad.fill = [&](const ByteSink& sink) { sink(values.data(), 12); };
    QVERIFY_THROWS_EXCEPTION(FormatError, writeSafetensors(path, {bad}, {}));
    QCOMPARE(readBytes(path), before);
}

void TestSafetensors::writerRejectsBadInput() {
    std::vector<float> x(4);
    QVERIFY_THROWS_EXCEPTION(FormatError, safetensorsHeader({{"a", SafetensorsDtype::F32, {1}, x.data(), {}},
                                                             {"a", SafetensorsDtype::F32, {1}, x.data(), {}}},
                                                            {}));
    QVERIFY_THROWS_EXCEPTION(FormatError, safetensorsHeader({{"", SafetensorsDtype::F32, {1}, x.data(), {}}}, {}));
    QVERIFY_THROWS_EXCEPTION(FormatError,
                             safetensorsHeader({{"__metadata__", SafetensorsDtype::F32, {1}, x.data(), {}}}, {}));
    QVERIFY_THROWS_EXCEPTION(FormatError, safetensorsHeader({{"a", SafetensorsDtype::F32, {-1}, x.data(), {}}}, {}));
}

void TestSafetensors::badFiles_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");  // a fragment the message must contain (besides the file name)

    auto add = [](const char* name, const std::string& bytes, const char* expected) {
        QTest::newRow(name) << QByteArray(bytes.data(), qsizetype(bytes.size())) << QString(expected);
    };
    const std::string okEntry = "\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}";
    add("empty file", "", "shorter than the 8-byte");
    add("5 bytes", "abcde", "shorter than the 8-byte");
    add("truncated header", u64le(200) + "{\"w\":{\"dtype\":", "runs past the end");
    add("absurd header length", u64le(uint64_t(1) << 40) + std::string(64, ' '), "100 MB");
    add("header length just over limit", u64le(100'000'001) + "{}", "100 MB");
    add("not json", rawFile("{\"w\": oops}", 0), "not valid JSON");
    add("not an object", rawFile("[1, 2, 3]", 0), "not a JSON object");
    add("leading garbage", rawFile("x{}", 0), "not a JSON object");
    add("invalid utf-8", rawFile("{\"\xff\xfe\":1}", 0), "not valid JSON");
    add("unknown dtype", rawFile("{\"w\":{\"dtype\":\"F128\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8),
        "unknown dtype \"F128\"");
    add("missing dtype", rawFile("{\"w\":{\"shape\":[2],\"data_offsets\":[0,8]}}", 8), "'w'");
    add("shape byte mismatch", rawFile("{\"w\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,8]}}", 8),
        "needs 16 bytes");
    add("negative dim", rawFile("{\"w\":{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,8]}}", 8),
        "non-negative");
    add("offsets out of range",
        rawFile("{" + okEntry + ",\"v\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[8,24]}}", 16),
        "'v': data_offsets end 24 is beyond");
    add("truncated data", rawFile("{" + okEntry + "}", 5), "beyond the data buffer");
    add("begin after end", rawFile("{\"w\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[8,4]}}", 8),
        "begin > end");
    add("overlapping tensors",
        rawFile("{" + okEntry + ",\"v\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", 12),
        "overlaps tensor 'w'");
    add("gap between tensors",
        rawFile("{" + okEntry + ",\"v\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[12,16]}}", 16),
        "belong to no tensor");
    add("trailing bytes", rawFile("{" + okEntry + "}", 12), "trailing bytes");
    add("duplicate names", rawFile("{" + okEntry + "," + okEntry + "}", 8), "duplicate tensor name 'w'");
    add("metadata not strings", rawFile("{\"__metadata__\":{\"format\":1}," + okEntry + "}", 8), "__metadata__");
    add("offsets not pair", rawFile("{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0]}}", 8),
        "data_offsets");
}

void TestSafetensors::badFiles() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    QTemporaryDir tmp;
    const fs::path path = fs::path(tmp.path().toStdString()) / "bad.safetensors";
    writeBytes(path, std::string(bytes.constData(), size_t(bytes.size())));
    try {
        SafetensorsFile::open(path);
        QFAIL("expected FormatError");
    } catch (const FormatError& e) {
        const QString msg = QString::fromUtf8(e.what());
        QVERIFY2(msg.contains(QString::fromStdString(path.string())), qPrintable("message lacks the file: " + msg));
        QVERIFY2(msg.contains(expected), qPrintable("message lacks '" + expected + "': " + msg));
    }
}

void TestSafetensors::missingFileIsIoError() {
    QVERIFY_THROWS_EXCEPTION(IoError, SafetensorsFile::open("/nonexistent/dir/x.safetensors"));
    QTemporaryDir tmp;
    QVERIFY_THROWS_EXCEPTION(IoError, SafetensorsFile::open(tmp.path().toStdString()));  // a directory
}

void TestSafetensors::torchRoundTrip() {
    QTemporaryDir tmp;
    const fs::path path = fs::path(tmp.path().toStdString()) / "torch.safetensors";
    torch::manual_seed(3);
    std::vector<NamedTensor> in{
        {"f32", torch::randn({3, 4})},
        {"f64", torch::randn({5}, torch::kFloat64)},
        {"f16", torch::randn({2, 3}).to(torch::kFloat16)},
        {"bf16", torch::randn({2, 3}).to(torch::kBFloat16)},
        {"i64", torch::randint(-1000000, 1000000, {7}, torch::kInt64)},
        {"i32", torch::randint(-1000, 1000, {7}, torch::kInt32)},
        {"i16", torch::randint(-1000, 1000, {7}, torch::kInt16)},
        {"i8", torch::randint(-100, 100, {7}, torch::kInt8)},
        {"u8", torch::randint(0, 255, {7}, torch::kUInt8)},
        {"bool", torch::randint(0, 2, {7}).to(torch::kBool)},
        {"scalar", torch::tensor(2.5)},
        {"empty", torch::zeros({0, 3})},
        {"strided", torch::randn({4, 6}).t()},  // non-contiguous: written through the fill path
    };
    saveSafetensors(path, in, {{"format", "pt"}});
    auto out = loadSafetensors(path);
    QCOMPARE(out.size(), in.size());
    for (const auto& nt : in) {
        const auto& t = out.at(nt.name);
        QCOMPARE(t.scalar_type(), nt.tensor.scalar_type());
        QVERIFY2(torch::equal(t, nt.tensor), nt.name.c_str());
    }
    // Conversion on save: everything floating to bfloat16.
    const fs::path bf = fs::path(tmp.path().toStdString()) / "bf16.safetensors";
    saveSafetensors(bf, {{"a", in[0].tensor}, {"b", in[1].tensor}}, {}, torch::kBFloat16);
    auto file = SafetensorsFile::open(bf);
    QCOMPARE(file->find("a")->dtype, SafetensorsDtype::BF16);
    QVERIFY(torch::equal(tensorView(file, *file->find("a")), in[0].tensor.to(torch::kBFloat16)));
    // loadTensor converts into the requested dtype.
    auto a32 = loadTensor(file, *file->find("b"), torch::kFloat32);
    QCOMPARE(a32.scalar_type(), torch::kFloat32);
    QVERIFY(torch::equal(a32, in[1].tensor.to(torch::kBFloat16).to(torch::kFloat32)));
}

void TestSafetensors::zeroCopyViewKeepsMappingAlive() {
    QTemporaryDir tmp;
    const fs::path path = fs::path(tmp.path().toStdString()) / "view.safetensors";
    auto src = torch::arange(64, torch::kFloat32).reshape({8, 8});
    saveSafetensors(path, {{"x", src}}, {});
    torch::Tensor view;
    {
        auto file = SafetensorsFile::open(path);
        view = tensorView(file, *file->find("x"));
        QCOMPARE(view.data_ptr(), const_cast<void*>(file->data(*file->find("x"))));  // no copy
    }
    QVERIFY(torch::equal(view, src));  // the file handle is gone; the view still owns the mapping
}

void TestSafetensors::pythonCrossCheck() {
    // Ours -> Python (load_file, then save_file again: must be byte-identical to ours),
    // Python -> ours (a file Python writes from scratch with known values).
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    const fs::path ours = dir / "ours.safetensors", resaved = dir / "resaved.safetensors",
                   fresh = dir / "fresh.safetensors";
    torch::manual_seed(11);
    std::vector<NamedTensor> in{
        {"model.embed.weight", torch::randn({10, 4})},
        {"h.0.bias", torch::randn({4}, torch::kFloat64)},
        {"h.0.w16", torch::randn({3, 3}).to(torch::kFloat16)},
        {"h.0.wbf", torch::randn({5}).to(torch::kBFloat16)},
        {"ids", torch::randint(-5, 50000, {2, 3}, torch::kInt64)},
        {"i32", torch::randint(-5, 5, {3}, torch::kInt32)},
        {"i16", torch::randint(-5, 5, {3}, torch::kInt16)},
        {"i8", torch::randint(-5, 5, {5}, torch::kInt8)},
        {"u8", torch::randint(0, 255, {5}, torch::kUInt8)},
        {"mask", torch::randint(0, 2, {5}).to(torch::kBool)},
        {"scalar", torch::tensor(1.25)},
        {"empty", torch::zeros({0, 2})},
    };
    saveSafetensors(ours, in, {{"format", "pt"}});

    const char* script = R"PY(
import sys, torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file
ours, resaved, fresh = sys.argv[1:4]
t = load_file(ours)
with safe_open(ours, "pt") as f:
    meta = f.metadata()
assert meta == {"format": "pt"}, meta
save_file(t, resaved, metadata=meta)
g = {
    "f32": torch.arange(12, dtype=torch.float32).reshape(3, 4) / 4 - 1,
    "f64": torch.arange(5, dtype=torch.float64) * 0.1,
    "f16": (torch.arange(6, dtype=torch.float32) / 3).to(torch.float16),
    "bf16": (torch.arange(6, dtype=torch.float32) / 3).to(torch.bfloat16),
    "i64": torch.arange(-3, 4, dtype=torch.int64) * 1000000007,
    "i32": torch.arange(-3, 4, dtype=torch.int32) * 1000,
    "i16": torch.arange(-3, 4, dtype=torch.int16) * 100,
    "i8": torch.arange(-3, 4, dtype=torch.int8),
    "u8": torch.arange(0, 7, dtype=torch.uint8) * 30,
    "bool": torch.arange(7) % 2 == 0,
    "scalar": torch.tensor(3.5),
    "empty": torch.zeros(0, 3),
}
save_file(g, fresh, metadata={"producer": "python"})
print("ok")
)PY";
    QProcess py;
    py.start(QString::fromUtf8(FTS_TEST_PYTHON),
             {"-c", script, QString::fromStdString(ours.string()), QString::fromStdString(resaved.string()),
              QString::fromStdString(fresh.string())});
    if (!py.waitForStarted(30000)) QSKIP("the test Python interpreter (FTS_TEST_PYTHON) cannot be started");
    QVERIFY(py.waitForFinished(180000));
    const QByteArray err = py.readAllStandardError();
    QVERIFY2(py.exitStatus() == QProcess::NormalExit && py.exitCode() == 0, err.constData());

    // Python's loader accepted ours, and its writer produces exactly our bytes.
    QCOMPARE(readBytes(resaved), readBytes(ours));

    auto file = SafetensorsFile::open(fresh);
    QCOMPARE(file->metadata().at("producer"), std::string("python"));
    std::map<std::string, torch::Tensor> expect{
        {"f32", torch::arange(12, torch::kFloat32).reshape({3, 4}) / 4 - 1},
        {"f64", torch::arange(5, torch::kFloat64) * 0.1},
        {"f16", (torch::arange(6, torch::kFloat32) / 3).to(torch::kFloat16)},
        {"bf16", (torch::arange(6, torch::kFloat32) / 3).to(torch::kBFloat16)},
        {"i64", torch::arange(-3, 4, torch::kInt64) * 1000000007LL},
        {"i32", torch::arange(-3, 4, torch::kInt32) * 1000},
        {"i16", torch::arange(-3, 4, torch::kInt16) * 100},
        {"i8", torch::arange(-3, 4, torch::kInt8)},
        {"u8", torch::arange(0, 7, torch::kUInt8) * 30},
        {"bool", torch::arange(7).remainder(2).eq(0)},
        {"scalar", torch::tensor(3.5f)},
        {"empty", torch::zeros({0, 3})},
    };
    QCOMPARE(file->tensors().size(), expect.size());
    for (const auto& [name, t] : expect) {
        const TensorEntry* e = file->find(name);
        QVERIFY2(e, name.c_str());
        torch::Tensor got = tensorView(file, *e);
        QCOMPARE(got.scalar_type(), t.scalar_type());
        QVERIFY2(torch::equal(got, t), name.c_str());
    }
}

QTEST_APPLESS_MAIN(TestSafetensors)
#include "test_safetensors.moc"
