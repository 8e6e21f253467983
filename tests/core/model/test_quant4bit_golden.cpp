// bitsandbytes' 4-bit format (kernels/cpu/bnb4bit.h, core/model/quant4bit.h) against bitsandbytes 0.50 itself on
// the CPU, bit for bit: the NF4/FP4 codebooks and the 8-bit dynamic map; then for tensors of awkward sizes (one
// partial block, an odd count, an all-zero block, more than 256 blocks, rows not a multiple of the blocksize), in
// float32, bfloat16 and float16, NF4 and FP4, with and without double quantization: the packed codes, the absmax
// (or its 8-bit codes, nested absmax and offset) and the dequantized weight. The reference runs
// tests/data/model/bnb_quantize.py with the test Python (skipped when bitsandbytes is not installed there).
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <torch/torch.h>

#include "core/arch/hf_config.h"
#include "core/model/quant4bit.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/model/safetensors_torch.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
namespace fs = std::filesystem;

namespace {

// Awkward tensors: exact integer-derived values (so any reader regenerates them) and seeded normals.
std::vector<std::pair<std::string, torch::Tensor>> inputs() {
    std::vector<std::pair<std::string, torch::Tensor>> out;
    auto ramp = [](int64_t n) {
        torch::Tensor i = torch::arange(n, torch::kInt64);
        return ((i * 37).remainder(201) - 100).mul((i.div(50, "floor")).remainder(9) + 1).to(torch::kFloat32) / 7.0f;
    };
    out.emplace_back("ramp_5x11", ramp(55).reshape({5, 11}));         // one partial block, odd count
    out.emplace_back("ramp_10x100", ramp(1000).reshape({10, 100}));   // rows not a multiple of 64, last block partial
    out.emplace_back("ramp_300x64", ramp(19200).reshape({300, 64}));  // 300 blocks: two nested blocks
    torch::manual_seed(3);
    torch::Tensor z = torch::randn({8, 64});
    z.narrow(0, 2, 1).zero_();  // an all-zero block
    out.emplace_back("randn_zero_block", z);
    out.emplace_back("randn_640x96", torch::randn({640, 96}) * 0.02);  // 960 blocks, 4 nested blocks
    out.emplace_back("randn_bf16", (torch::randn({96, 128}) * 0.05).to(torch::kBFloat16));
    out.emplace_back("randn_fp16", (torch::randn({33, 64}) * 3.0).to(torch::kFloat16));
    out.emplace_back("randn_vector", torch::randn({4099}));
    return out;
}

// Same shape, dtype and values (+0 and -0 alike: bitsandbytes' FP4 code 8 decodes to either, by code path).
bool sameBits(const torch::Tensor& a, const torch::Tensor& b) {
    return a.sizes() == b.sizes() && a.scalar_type() == b.scalar_type() && torch::equal(a, b);
}

}  // namespace

class TestQuant4bitGolden : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    std::map<std::string, torch::Tensor> m_ref;

private slots:
    void initTestCase() {
        QProcess probe;
        probe.start(QString::fromUtf8(FTS_TEST_PYTHON), {"-c", "import bitsandbytes"});
        if (!probe.waitForFinished(120000) || probe.exitCode() != 0)
            QSKIP("bitsandbytes is not installed in the test Python (./packaging/setup-debian.sh --tests)");
        const fs::path in = fs::path(m_tmp.path().toStdString()) / "in.safetensors";
        const fs::path out = fs::path(m_tmp.path().toStdString()) / "out.safetensors";
        std::vector<NamedTensor> tensors;
        for (const auto& [name, t] : inputs()) tensors.push_back({name, t});
        saveSafetensors(in, tensors);
        QProcess p;
        p.start(QString::fromUtf8(FTS_TEST_PYTHON),
                {QString::fromUtf8(FTS_TEST_DATA_DIR) + "/model/bnb_quantize.py", QString::fromStdString(in.string()),
                 QString::fromStdString(out.string())});
        QVERIFY(p.waitForFinished(300000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        m_ref = loadSafetensors(out);
    }

    void codebooksAndDynamicMap() {
        const torch::Tensor nf4 = torch::from_blob(const_cast<float*>(kernels::quant4Codebook(Quant4Type::Nf4)), {16});
        const torch::Tensor fp4 = torch::from_blob(const_cast<float*>(kernels::quant4Codebook(Quant4Type::Fp4)), {16});
        const torch::Tensor map = torch::from_blob(const_cast<float*>(kernels::dynamicMap8bit()), {256});
        QVERIFY(torch::equal(nf4, m_ref.at("nf4_code")));
        QVERIFY(torch::equal(fp4, m_ref.at("fp4_code")));
        QVERIFY2(torch::equal(map, m_ref.at("dynamic_map")),
                 qPrintable(
                     QString("largest difference %1").arg((map - m_ref.at("dynamic_map")).abs().max().item<float>())));
    }

    void sameBitsAsBitsandbytes_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("type");
        QTest::addColumn<bool>("doubleQuant");
        for (const auto& [name, t] : inputs())
            for (int type : {0, 1})
                for (bool dq : {false, true})
                    QTest::newRow((name + (type == 0 ? ".nf4" : ".fp4") + (dq ? ".dq" : "")).c_str())
                        << QString::fromStdString(name) << type << dq;
    }
    void sameBitsAsBitsandbytes() {
        QFETCH(QString, name);
        QFETCH(int, type);
        QFETCH(bool, doubleQuant);
        torch::Tensor x;
        for (const auto& [n, t] : inputs())
            if (n == name.toStdString()) x = t;
        const Quant4Type qt = type == 0 ? Quant4Type::Nf4 : Quant4Type::Fp4;
        const std::string key = name.toStdString() + (type == 0 ? ".nf4." : ".fp4.") + (doubleQuant ? "1." : "0.");
        const Quant4Weight q = quantize4bit(x, qt, 64, doubleQuant);
        QVERIFY2(sameBits(q.packed, m_ref.at(key + "packed")), "packed codes differ");
        QVERIFY2(sameBits(q.absmax, m_ref.at(key + "absmax")), "absmax differs");
        if (doubleQuant) {
            QVERIFY2(sameBits(q.nestedAbsmax, m_ref.at(key + "nested_absmax")), "nested absmax differs");
            QCOMPARE(q.offset, m_ref.at(key + "offset").item<float>());
        }
        const torch::Tensor deq = dequantize4bit(q, x.scalar_type());
        const torch::Tensor want = m_ref.at(key + "dequant");
        QVERIFY2(sameBits(dequantize4bitOps(q, x.scalar_type()), want), "the LibTorch-ops path differs");
        QVERIFY2(sameBits(deq, want),
                 qPrintable(QString("dequantized weight differs: largest difference %1")
                                .arg((deq.to(torch::kFloat32) - want.to(torch::kFloat32)).abs().max().item<float>())));
    }

    // The layout transformers saves, both ways: every 4-bit weight of a tiny Llama saved by transformers (NF4 with
    // double quantization; FP4 without) reads back and decodes as bitsandbytes decodes it, and quantizing the
    // unquantized model's weight ourselves gives the saved tensors byte for byte, the quant_state JSON included.
    void transformersLayoutBothWays() {
        const fs::path dir = fs::path(m_tmp.path().toStdString()) / "tiny";
        QProcess p;
        p.start(QString::fromUtf8(FTS_TEST_PYTHON), {QString::fromUtf8(FTS_TEST_DATA_DIR) + "/model/bnb_save_tiny.py",
                                                     QString::fromStdString(dir.string())});
        QVERIFY(p.waitForFinished(300000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const auto base = loadSafetensors(dir / "base" / "model.safetensors");
        for (const auto& [variant, type, dq] :
             {std::tuple{"nf4dq", Quant4Type::Nf4, true}, std::tuple{"fp4", Quant4Type::Fp4, false}}) {
            const auto saved = loadSafetensors(dir / variant / "model.safetensors");
            const auto deq = loadSafetensors(dir / variant / "dequant.safetensors");
            auto find = [&](const std::string& k) { return saved.count(k) ? saved.at(k) : torch::Tensor(); };
            QCOMPARE(deq.size(), size_t(14));  // 7 Linear layers per block x 2 blocks; lm_head stays whole
            for (const auto& [key, want] : deq) {
                const std::optional<Quant4Weight> q = readQuant4Weight(key, find, "model.safetensors");
                QVERIFY2(q.has_value(), key.c_str());
                QVERIFY(q->type == type && q->nested() == dq && q->dtype == torch::kBFloat16);
                QVERIFY2(torch::equal(dequantize4bit(*q, q->dtype), want), (std::string(variant) + " " + key).c_str());
                const Quant4Weight mine = quantize4bit(base.at(key), type, 64, dq);
                for (const auto& [name, t] : quant4Tensors(key, mine)) {
                    QVERIFY2(saved.count(name), ("transformers saved no " + name).c_str());
                    const torch::Tensor s = saved.at(name);
                    QVERIFY2(s.scalar_type() == t.scalar_type() && s.sizes() == t.sizes() && torch::equal(s, t),
                             ("differs from transformers: " + name +
                              (t.scalar_type() == torch::kUInt8 && t.dim() == 1 &&
                                       name.find("quant_state") != std::string::npos
                                   ? "\n  ours:   " +
                                         std::string(reinterpret_cast<const char*>(t.data_ptr<uint8_t>()),
                                                     size_t(t.numel())) +
                                         "\n  theirs: " +
                                         std::string(reinterpret_cast<const char*>(s.contiguous().data_ptr<uint8_t>()),
                                                     size_t(s.numel()))
                                   : std::string()))
                                 .c_str());
                }
            }
            QVERIFY(!readQuant4Weight("lm_head.weight", find, "model.safetensors").has_value());
        }
    }

    // A folder saved quantized other than bitsandbytes' 4-bit (GPTQ, AWQ, 8-bit) is refused naming the key and the
    // method (docs/qlora.md), instead of failing later on integer weights; bitsandbytes 4-bit loads
    // (train_test_qlora_golden loads one transformers saved).
    void otherQuantizedFoldersAreRefusedByName() {
        const fs::path cfg = fs::path(m_tmp.path().toStdString()) / "config.json";
        for (const char* q :
             {R"({"quant_method": "gptq", "bits": 4})", R"({"quant_method": "bitsandbytes", "load_in_8bit": true})"}) {
            writeFileAtomic(cfg, std::string(R"({"model_type": "llama", "quantization_config": )") + q + "}");
            try {
                HfConfig::load(cfg);
                QFAIL(q);
            } catch (const FormatError& e) {
                const std::string what = e.what();
                QVERIFY2(what.find("quantization_config") != std::string::npos &&
                             what.find("only bitsandbytes' 4-bit format") != std::string::npos &&
                             what.find(cfg.string()) == 0,
                         e.what());
            }
        }
        writeFileAtomic(cfg, R"({"model_type": "llama", "quantization_config": {"quant_method": "bitsandbytes",
                                 "load_in_4bit": true, "bnb_4bit_quant_type": "nf4"}})");
        QVERIFY(HfConfig::load(cfg).has({"quantization_config"}));
    }

    // The dequantized weight is within one code step of the input: a check that does not need bitsandbytes.
    void roundTripIsCloseWithoutTheReference() {
        torch::manual_seed(9);
        const torch::Tensor w = torch::randn({64, 192});
        for (Quant4Type qt : {Quant4Type::Nf4, Quant4Type::Fp4}) {
            const Quant4Weight q = quantize4bit(w, qt, 64, true);
            const torch::Tensor d = dequantize4bit(q, torch::kFloat32);
            const torch::Tensor rel = (d - w).abs().reshape({-1, 64}).amax(1) / w.abs().reshape({-1, 64}).amax(1);
            QVERIFY2(rel.max().item<float>() < 0.35f, qPrintable(QString::number(rel.max().item<float>())));
        }
    }
};

QTEST_MAIN(TestQuant4bitGolden)
#include "test_quant4bit_golden.moc"
