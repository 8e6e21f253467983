// The memory check before a run (core/launch/memory_preflight.h): nvidia-smi's free memory parsed, the free memory
// taken from FTS_DEVICE_MEMORY, a config that does not fit refused with its estimate, the free memory and the
// changes that fit (the cheapest first), and one that fits passed.
#include <QTemporaryDir>
#include <QtTest>

#include <cstdlib>
#include <fstream>

#include "core/launch/memory_preflight.h"
#include "core/util/error.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
namespace fs = std::filesystem;

namespace {

TrainConfig quickstart(const fs::path& out) {
    const fs::path q = fs::path(FTS_SOURCE_DIR) / "resources/quickstart";
    nlohmann::json doc = {{"model", {{"path", (q / "model").string()}, {"init", "random"}}},
                          {"data", {{"train", (q / "sample_stories.jsonl").string()}, {"max_length", 128}}},
                          {"training", {{"output_dir", out.string()}, {"device", "cpu"}}},
                          {"deepspeed", {{"train_micro_batch_size_per_gpu", 16}}}};
    ConfigParseResult r = parseTrainConfig(doc, q, 1);
    if (!r.ok()) throw ConfigError(r.errorText());
    return *r.config;
}

}  // namespace

class TestMemoryPreflight : public QObject {
    Q_OBJECT
private slots:
    void parsesNvidiaSmi() {
        const auto gpus = parseGpuFreeMemory("0, 80000\n1, 1024\nbad line\n2,x\n");
        QCOMPARE(gpus.size(), size_t(2));
        QCOMPARE(gpus[0].first, 0);
        QCOMPARE(gpus[0].second, int64_t(80000) << 20);
        QCOMPARE(gpus[1].second, int64_t(1024) << 20);
    }

    void refusesWhatDoesNotFit() {
        QTemporaryDir tmp;
        const TrainConfig cfg = quickstart(fs::path(tmp.path().toStdString()) / "out");
        const int64_t total = estimateMemory(cfg).perRank.total;
        qputenv("FTS_DEVICE_MEMORY", QByteArray::number(qlonglong(total - (total / 10))));
        const MemoryCheck tight = checkRunMemory(cfg, 1, {});
        QVERIFY(tight.judged);
        QVERIFY(!tight.fits);
        QCOMPARE(tight.source, std::string("FTS_DEVICE_MEMORY"));
        QCOMPARE(tight.estimate.perRank.total, total);
        const std::string text = describeMemoryRefusal(tight, "cfg.json");
        QVERIFY2(text.find("cfg.json: the memory estimate does not fit: " + formatBytes(total)) != std::string::npos,
                 text.c_str());
        QVERIFY2(text.find("changes that fit") != std::string::npos, text.c_str());
        // The cheapest first: checkpointing before a smaller micro-batch before LoRA.
        const size_t ck = text.find("activation_checkpointing"), mb = text.find("train_micro_batch_size_per_gpu"),
                     lora = text.find("model.lora");
        QVERIFY2(mb != std::string::npos, text.c_str());
        if (ck != std::string::npos) QVERIFY(ck < mb);
        if (lora != std::string::npos) QVERIFY(mb < lora);
        qputenv("FTS_DEVICE_MEMORY", QByteArray::number(qlonglong(total)));
        QVERIFY(checkRunMemory(cfg, 1, {}).fits);
        qputenv("FTS_DEVICE_MEMORY", "12 parsecs");
        QVERIFY_THROWS_EXCEPTION(ConfigError, checkRunMemory(cfg, 1, {}));
        qunsetenv("FTS_DEVICE_MEMORY");
        // CPU without the variable: the host's available memory, shared by the ranks.
        const MemoryCheck host = checkRunMemory(cfg, 2, {});
        QVERIFY(host.judged);
        QCOMPARE(host.source, std::string("MemAvailable / 2 ranks"));
    }

    void gpusFromNvidiaSmi();
};

void TestMemoryPreflight::gpusFromNvidiaSmi() {
    // A stand-in nvidia-smi first on PATH: GPU 0 has 8000 MiB free, GPU 1 1000 MiB.
    QTemporaryDir tmp;
    const fs::path bin = fs::path(tmp.path().toStdString());
    {
        std::ofstream f(bin / "nvidia-smi");
        f << "#!/bin/sh\nprintf '0, 8000\\n1, 1000\\n'\n";
    }
    fs::permissions(bin / "nvidia-smi", fs::perms::owner_all);
    const QByteArray path = qgetenv("PATH");
    qputenv("PATH", QByteArray(bin.c_str()) + ":" + path);
    qunsetenv("FTS_DEVICE_MEMORY");
    qunsetenv("CUDA_VISIBLE_DEVICES");
    TrainConfig cfg = quickstart(bin / "out");
    cfg.training.device = "auto";  // the trainer picks CUDA when there is a GPU: judged as CUDA
    MemoryCheck c = checkRunMemory(cfg, 1, {});
    QVERIFY(c.judged);
    QCOMPARE(c.device, std::string("cuda:0"));
    QCOMPARE(c.available, int64_t(8000) << 20);
    QCOMPARE(c.source, std::string("nvidia-smi memory.free"));
    QVERIFY(c.estimate.device == EstimateDevice::Cuda);
    // Two ranks: the smaller of GPUs 0 and 1; the plan's ids win; the caller's CUDA_VISIBLE_DEVICES maps the index.
    QCOMPARE(checkRunMemory(cfg, 2, {}).available, int64_t(1000) << 20);
    QCOMPARE(checkRunMemory(cfg, 1, {1}).device, std::string("cuda:1"));
    cfg.training.device = "cuda:0";
    qputenv("CUDA_VISIBLE_DEVICES", "1");
    QCOMPARE(checkRunMemory(cfg, 1, {}).device, std::string("cuda:1"));
    qputenv("CUDA_VISIBLE_DEVICES", "GPU-8a1b");  // a UUID: which GPU it is is not known here
    QVERIFY(!checkRunMemory(cfg, 1, {}).judged);
    qunsetenv("CUDA_VISIBLE_DEVICES");
    qputenv("PATH", path);
}

QTEST_APPLESS_MAIN(TestMemoryPreflight)
#include "test_memory_preflight.moc"
