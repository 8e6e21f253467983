// The activation estimate (core/config/activation_estimate) of every decoder family against what our own model keeps
// for backward on the CPU: the host allocator's live bytes after a float32 training forward of the same model with
// 3 blocks and with 2 blocks differ by exactly one block's saved tensors, which the estimate's per-layer term must
// match within 5% (B = 3, T = 50: awkward sizes; a window shorter than T where the family has windows).
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include "core/arch/decoder_family.h"
#include "core/config/activation_estimate.h"
#include "core/config/model_shape.h"
#include "core/model/hf_model.h"
#include "core/train/host_allocator.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kB = 3, kT = 50;

nlohmann::json familyConfig(const std::string& type, int layers) {
    nlohmann::json c = {{"model_type", type},          {"vocab_size", 300},
                        {"hidden_size", 64},           {"intermediate_size", 160},
                        {"num_hidden_layers", layers}, {"num_attention_heads", 4},
                        {"num_key_value_heads", 2},    {"max_position_embeddings", 128},
                        {"tie_word_embeddings", false}};
    if (type == "qwen3" || type == "gemma2" || type == "gemma3_text") c["head_dim"] = 16;
    if (type == "gemma2" || type == "gemma3_text") c["query_pre_attn_scalar"] = 16;
    if (type == "qwen3_moe")
        c["output_router_logits"] = true, c["norm_topk_prob"] = true;  // the router's extra tensors
    return c;
}

}  // namespace

class TestFamilyActivations : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;

    // Live host bytes a training forward (logits and loss kept, graph alive) adds, for `layers` blocks.
    int64_t forwardBytes(const std::string& type, int layers) {
        const fs::path dir = fs::path(m_tmp.path().toStdString()) / (type + std::to_string(layers));
        fs::create_directories(dir);
        std::ofstream(dir / "config.json") << familyConfig(type, layers).dump();
        auto model = initModelFromConfig(dir / "config.json", 3, {});
        model->setTraining(true);
        torch::manual_seed(1);
        const torch::Tensor ids = torch::randint(1, 300, {kB, kT}, torch::kInt64);
        const int64_t before = hostAllocatorStats().liveBytes;
        const torch::Tensor loss = model->loss(model->forward(ids, torch::Tensor()), ids);
        const int64_t after = hostAllocatorStats().liveBytes;
        (void)loss;
        return after - before;
    }

private slots:
    void initTestCase() {
        torch::set_num_threads(1);
        installHostCachingAllocator(0);
    }

    void perLayerMatchesTheModel_data() {
        QTest::addColumn<QString>("family");
        for (const auto& f : decoderFamilies())
            QTest::newRow(std::string(f.modelType).c_str()) << QString::fromStdString(std::string(f.modelType));
    }
    void perLayerMatchesTheModel() {
        QFETCH(QString, family);
        const std::string type = family.toStdString();
        const int64_t measured = forwardBytes(type, 3) - forwardBytes(type, 2);
        const ModelShape shape = modelShapeFromJson(familyConfig(type, 3), "config.json");
        ActivationInputs in;
        in.batch = kB;
        in.seq = kT;
        in.mode = ForwardMode::Fp32;
        in.device = EstimateDevice::Cpu;
        const int64_t estimated = estimateActivations(shape, in).perLayer;
        qInfo("%s: one block keeps %lld bytes, estimated %lld (%.3f)", type.c_str(), (long long)measured,
              (long long)estimated, double(estimated) / double(measured));
        QVERIFY2(std::abs(double(estimated) / double(measured) - 1) <= 0.05,
                 qPrintable(QString("measured %1, estimated %2").arg(measured).arg(estimated)));
    }
};

QTEST_APPLESS_MAIN(TestFamilyActivations)
#include "test_family_activations.moc"
