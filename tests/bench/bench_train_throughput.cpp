// Benchmark (label bench; prints figures, asserts nothing): training tokens/s per architecture on CPU, our engine
// (our model + our AdamW, in process) next to the same model trained by Hugging Face transformers with the same
// torch wheel (a plain PyTorch loop with torch.optim.AdamW(fused=True), the Trainer's default, in the venv), same batch, sequence, steps and thread
// count. The two sides run interleaved (ours, HF, ours, HF, ...) so that load from other processes on a shared
// machine hits both alike; the best round of each side is compared. Goal: ours / HF >= 1.2.
// Environment: FTS_BENCH_THREADS (default 2), FTS_BENCH_STEPS (default 8), FTS_BENCH_ROUNDS (default 2).
#include "tests/support/test_paths.h"
#include "core/model/block_ops.h"
#include "core/model/dense.h"
#include "core/model/language_model.h"
#include "core/optim/adamw.h"
#include "core/train/host_allocator.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace {

const QString kScript =
    (QString::fromUtf8(FTS_SOURCE_DIR) + QStringLiteral("/tests/bench/scripts/make_bench_models.py"));
constexpr int64_t kBatch = 8, kSeq = 128, kWarmup = 2, kVocab = 8192;

int envInt(const char* name, int fallback) {
    const char* v = std::getenv(name);
    return v ? std::atoi(v) : fallback;
}

// Our side: the engine's model and AdamW (lr 1e-4, weight decay 0.01), fp32, no clipping (as the HF loop).
double oursTokensPerSecond(const std::string& dir, int steps) {
    auto model = fts::loadPretrainedModel(dir, {});
    model->setTraining(true);
    std::vector<torch::Tensor> params;
    for (auto& p : model->parameters()) params.push_back(p.tensor);
    fts::OptimizerConfig oc;
    oc.lr = 1e-4;
    oc.weightDecay = 0.01;
    fts::AdamW opt(params, oc);
    torch::manual_seed(0);
    std::vector<torch::Tensor> batches;
    for (int i = 0; i < 4; ++i) batches.push_back(torch::randint(0, kVocab, {kBatch, kSeq}, torch::kInt64));
    std::chrono::steady_clock::time_point start;
    for (int64_t step = 0; step < kWarmup + steps; ++step) {
        if (step == kWarmup) start = std::chrono::steady_clock::now();
        const torch::Tensor& ids = batches[size_t(step) % batches.size()];
        model->loss(model->forward(ids, torch::Tensor()), ids).backward();
        opt.step(1e-4);
        opt.zeroGrad();
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return double(steps * kBatch * kSeq) / seconds;
}

double hfTokensPerSecond(const QString& dir, const QString& arch, int steps, int threads) {
    QProcess p;
    p.start(QString::fromUtf8(FTS_TEST_PYTHON),
            {kScript, "hf-train", dir, arch, QString::number(kBatch), QString::number(kSeq), QString::number(steps),
             QString::number(kWarmup), QString::number(threads)});
    if (!p.waitForFinished(900000) || p.exitCode() != 0) {
        qWarning("%s", p.readAllStandardError().right(2000).constData());
        return 0.0;
    }
    const QByteArray out = p.readAllStandardOutput().trimmed();  // the last line: other libraries may print first
    return nlohmann::json::parse(out.mid(out.lastIndexOf('\n') + 1).toStdString())["tokens_per_s"].get<double>();
}

}  // namespace

class BenchTrainThroughput : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        QProcess p;
        p.start(QString::fromUtf8(FTS_TEST_PYTHON), {kScript, "train", m_tmp.path()});
        QVERIFY(p.waitForFinished(600000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().right(2000).constData());
        m_threads = envInt("FTS_BENCH_THREADS", 2);
        fts::installHostCachingAllocator();  // as the trainer does at the start of every run
        torch::set_num_threads(m_threads);
        std::printf(
            "BENCH conditions: batch %lld x seq %lld, %d timed steps after %lld warm-up, %d threads on both sides, "
            "fp32, AdamW, random tokens, hidden 256, 4 layers, 4 heads, MLP 1024, vocab %lld\n",
            (long long)kBatch, (long long)kSeq, envInt("FTS_BENCH_STEPS", 8), (long long)kWarmup, m_threads,
            (long long)kVocab);
    }

    void tokensPerSecond_data() {
        QTest::addColumn<QString>("arch");
        for (const char* a : {"gpt2", "llama", "qwen2", "bert", "qwen3", "gemma2", "gemma3_text", "phi3", "olmo2",
                              "granite", "smollm3", "mixtral", "qwen3_moe", "qwen3_moe_128e", "gpt_oss"})
            QTest::newRow(a) << a;
    }

    void tokensPerSecond() {
        QFETCH(QString, arch);
        const QString dir = m_tmp.path() + "/" + arch;
        const int steps = envInt("FTS_BENCH_STEPS", 8), rounds = envInt("FTS_BENCH_ROUNDS", 2);
        // Our side also runs with LibTorch's own GEMM (MKL through addmm, FTS_CPU_GEMM=libtorch) and, for the Llama
        // family, without the fused RMSNorm/RoPE kernels (block_ops.h): what each engine choice gives on its own.
        const bool fusedOps = arch != "gpt2" && arch != "bert";
        double ours = 0, hf = 0, libtorchGemm = 0, unfused = 0;
        for (int r = 0; r < rounds; ++r) {
            const double o = oursTokensPerSecond(dir.toStdString(), steps);
            fts::setOneDnnGemmEnabled(false);
            const double g = oursTokensPerSecond(dir.toStdString(), steps);
            fts::setOneDnnGemmEnabled(true);
            double u = 0;
            if (fusedOps) {
                fts::setFusedBlockOpsEnabled(false);
                u = oursTokensPerSecond(dir.toStdString(), steps);
                fts::setFusedBlockOpsEnabled(true);
            }
            const double h = hfTokensPerSecond(dir, arch, steps, m_threads);
            std::printf(
                "BENCH   %s round %d: fts %.0f tokens/s, transformers %.0f tokens/s; fts with LibTorch's GEMM %.0f",
                qPrintable(arch), r + 1, o, h, g);
            if (fusedOps) std::printf(", fts without fused block ops %.0f", u);
            std::printf("\n");
            ours = std::max(ours, o);
            hf = std::max(hf, h);
            libtorchGemm = std::max(libtorchGemm, g);
            unfused = std::max(unfused, u);
        }
        auto ratio = [hf](double x) { return hf > 0 ? x / hf : 0.0; };
        std::printf(
            "BENCH train %s: fts %.0f tokens/s, transformers %.0f tokens/s, ratio %.2f (goal >= 1.2); with LibTorch's "
            "GEMM %.0f (ratio %.2f)",
            qPrintable(arch), ours, hf, ratio(ours), libtorchGemm, ratio(libtorchGemm));
        if (fusedOps) std::printf("; without the fused block ops %.0f (ratio %.2f)", unfused, ratio(unfused));
        std::printf("\n");
    }

private:
    QTemporaryDir m_tmp;
    int m_threads = 2;
};

int main(int argc, char** argv) {
    // One row runs 2 x (our loop + a Python process importing transformers): beyond QTest's 5-minute default on a busy machine.
    if (qEnvironmentVariableIsEmpty("QTEST_FUNCTION_TIMEOUT")) qputenv("QTEST_FUNCTION_TIMEOUT", "3600000");
    BenchTrainThroughput bench;
    return QTest::qExec(&bench, argc, argv);
}
#include "bench_train_throughput.moc"
