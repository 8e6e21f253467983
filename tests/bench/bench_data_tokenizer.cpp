// Benchmarks of the data pipeline (label bench; prints figures, asserts nothing about speed):
// 1. tokenize + template + pack a generated ~200 MB Alpaca JSONL into the token cache, as the trainer does
//    (loadOrBuildSftData: streaming, samples spilled to disk): MB/s, peak RSS (run first, so the peak is its own);
// 2. tokenizer throughput, one thread, on the golden corpus repeated to ~50 MB: fts::Tokenizer vs HF
//    tokenizers' encode_batch with RAYON_NUM_THREADS=1, interleaved (fts, HF, fts, HF, ... FTS_BENCH_ROUNDS
//    rounds) so both sides see the same machine load; bytes/s of each, the ratio per round and of the bests.
// Sizes can be scaled with FTS_BENCH_MB (tokenizer corpus) and FTS_BENCH_SFT_MB. The load average is printed.
#include "tests/support/test_paths.h"
#include "core/data/sft_dataset.h"
#include "core/data/token_cache.h"
#include "core/data/tokenizer.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>

using namespace fts;
using nlohmann::json;

namespace {

const std::string kData = (std::string(FTS_TEST_DATA_DIR) + "/tokenizers/");

double envMb(const char* name, double fallback) {
    const char* v = std::getenv(name);
    return v ? std::atof(v) : fallback;
}

std::vector<std::string> corpusTexts() {
    std::ifstream in(kData + "corpus.jsonl", std::ios::binary);
    std::vector<std::string> texts;
    std::string line;
    while (std::getline(in, line, '\n'))
        if (!line.empty()) texts.push_back(json::parse(line)["text"].get<std::string>());
    return texts;
}

std::string loadAverage() {
    std::ifstream in("/proc/loadavg");
    std::string a, b, c;
    in >> a >> b >> c;
    return a + " " + b + " " + c;
}

double peakRssMb() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;
}

}  // namespace

class BenchDataTokenizer : public QObject {
    Q_OBJECT

private slots:
    void sftPipelineThroughput() {
        const double targetMb = envMb("FTS_BENCH_SFT_MB", 200);
        const auto base = corpusTexts();
        QTemporaryDir dir;
        const std::string path = dir.filePath("alpaca.jsonl").toStdString();
        size_t bytes = 0;
        {
            std::ofstream out(path, std::ios::binary);
            for (size_t i = 0; bytes < targetMb * 1e6; ++i) {
                const std::string& a = base[i % base.size()];
                const std::string& b = base[(i * 7 + 3) % base.size()];
                const std::string line = json{{"instruction", a + " #" + std::to_string(i)},
                                              {"input", i % 3 ? "" : b},
                                              {"output", b + " " + a}}
                                             .dump() +
                                         "\n";
                out << line;
                bytes += line.size();
            }
        }
        auto tok = Tokenizer::fromFile(kData + "qwen3/tokenizer.json");
        SftOptions o;
        o.trainPath = path;
        o.chatTemplate = "chatml";
        o.maxLength = 2048;
        o.packing = true;
        const double rssBefore = peakRssMb();
        const std::string loadBefore = loadAverage();
        const auto start = std::chrono::steady_clock::now();
        auto d = loadOrBuildSftData(o, *tok, dir.filePath("cache").toStdString());
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        QVERIFY(!d->fromCache());
        const double arraysMb = static_cast<double>(d->stats().trainTokens) * 12 / 1e6;
        std::printf(
            "BENCH sft-pipeline %.1f MB JSONL (Alpaca -> ChatML, Qwen3 tokenizer, packed to %lld, into the "
            "token cache): %.2f MB/s, %.1f s, %lld samples, %lld tokens, %lld sequences, peak RSS %.0f MB "
            "(before %.0f MB; the token arrays alone would be %.0f MB), load average %s -> %s\n",
            static_cast<double>(bytes) / 1e6, static_cast<long long>(o.maxLength),
            static_cast<double>(bytes) / 1e6 / seconds, seconds, static_cast<long long>(d->stats().samples),
            static_cast<long long>(d->stats().trainTokens), static_cast<long long>(d->train().size()), peakRssMb(),
            rssBefore, arraysMb, loadBefore.c_str(), loadAverage().c_str());
        std::fflush(stdout);
    }

    void tokenizerThroughput_data() {
        QTest::addColumn<QString>("name");
        for (const char* n : {"gpt2", "qwen3", "mistral-7b", "bert-base-uncased"}) QTest::newRow(n) << n;
    }

    void tokenizerThroughput() {
        QFETCH(QString, name);
        const double targetMb = envMb("FTS_BENCH_MB", 50);
        const auto base = corpusTexts();
        // Repeat the corpus, each copy varied (a copy number appended) so caches see new words too.
        std::vector<std::string> texts;
        size_t bytes = 0;
        for (int copy = 0; bytes < targetMb * 1e6; ++copy)
            for (const std::string& t : base) {
                texts.push_back(t + " " + std::to_string(copy));
                bytes += texts.back().size();
            }
        QTemporaryDir dir;
        const std::string corpus = dir.filePath("corpus.jsonl").toStdString();
        {
            std::ofstream out(corpus, std::ios::binary);
            for (const std::string& t : texts) out << json({{"text", t}}).dump() << '\n';
        }
        const std::string tokPath = kData + name.toStdString() + "/tokenizer.json";
        auto tok = Tokenizer::fromFile(tokPath);
        auto runOurs = [&](size_t& tokens) {
            std::vector<int32_t> ids;
            tokens = 0;
            const auto start = std::chrono::steady_clock::now();
            for (const std::string& t : texts) {
                ids.clear();
                tok->encodeAppend(t, ids, false);
                tokens += ids.size();
            }
            return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        };
        auto runHf = [&]() -> json {
            QProcess py;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert("RAYON_NUM_THREADS", "1");
            env.insert("TOKENIZERS_PARALLELISM", "false");
            py.setProcessEnvironment(env);
            py.start(QString::fromUtf8(FTS_TEST_PYTHON),
                     {QString::fromStdString(kData + "hf_throughput.py"), QString::fromStdString(tokPath),
                      QString::fromStdString(corpus)});
            if (!py.waitForFinished(1800000) || py.exitCode() != 0) return nullptr;
            return json::parse(py.readAllStandardOutput().toStdString());
        };
        const int rounds = std::max(1, static_cast<int>(envMb("FTS_BENCH_ROUNDS", 2)));
        double bestOurs = 0, bestHf = 0;
        for (int r = 0; r < rounds; ++r) {
            const std::string load = loadAverage();
            size_t tokens = 0;
            const double ours = runOurs(tokens);
            const json hf = runHf();
            QVERIFY2(!hf.is_null(), "the HF tokenizers reference failed (is `tokenizers` in the venv?)");
            QCOMPARE(hf["tokens"].get<size_t>(), tokens);  // same work on both sides
            const double oursRate = static_cast<double>(bytes) / ours,
                         hfRate = hf["bytes"].get<double>() / hf["seconds"].get<double>();
            bestOurs = std::max(bestOurs, oursRate);
            bestHf = std::max(bestHf, hfRate);
            std::printf(
                "BENCH tokenizer %-18s round %d  %.1f MB  fts %.2f MB/s  HF tokenizers (1 thread, encode_batch) "
                "%.2f MB/s  ratio fts/HF %.2f  (load average %s)\n",
                name.toUtf8().constData(), r + 1, static_cast<double>(bytes) / 1e6, oursRate / 1e6, hfRate / 1e6,
                oursRate / hfRate, load.c_str());
            std::fflush(stdout);
        }
        std::printf("BENCH tokenizer %-18s best of %d  fts %.2f MB/s  HF %.2f MB/s  ratio %.2f\n",
                    name.toUtf8().constData(), rounds, bestOurs / 1e6, bestHf / 1e6, bestOurs / bestHf);
        std::fflush(stdout);
    }
};

// QtTest's watchdog stops a test function after 5 minutes; HF on 50 MB takes longer on a shared machine.
int main(int argc, char** argv) {
    if (!qEnvironmentVariableIsSet("QTEST_FUNCTION_TIMEOUT")) qputenv("QTEST_FUNCTION_TIMEOUT", "7200000");
    BenchDataTokenizer bench;
    return QTest::qExec(&bench, argc, argv);
}
#include "bench_data_tokenizer.moc"
