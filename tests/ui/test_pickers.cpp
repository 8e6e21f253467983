// Model picker and data preview: a model's architecture, parameter count, dtype, vocab and context length
// as the dialog shows them, checked against the safetensors library (venv python) reading the same files;
// HF cache entries listed by id; the data preview renders samples with the prompt spans marked and the
// core's token statistics, off the UI thread.
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QProcess>
#include <QProgressBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>

#include "core/data/classification_dataset.h"
#include "core/data/sft_dataset.h"
#include "core/data/tokenizer.h"
#include "ui/data_preview.h"
#include "ui/model_info.h"
#include "ui/model_picker.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

namespace {

const QString kModels = (QString::fromUtf8(FTS_TEST_DATA_DIR) + QStringLiteral("/models"));

// {parameters, most common dtype} of a safetensors file, from the safetensors library.
std::pair<qint64, QString> pythonReference(const QString& file) {
    QProcess p;
    p.start(QString::fromUtf8(FTS_TEST_PYTHON),
            {QStringLiteral("-c"),
             QStringLiteral("import sys, math, collections\n"
                            "from safetensors import safe_open\n"
                            "f = safe_open(sys.argv[1], 'np')\n"
                            "n = 0; per = collections.Counter()\n"
                            "for k in f.keys():\n"
                            "    s = f.get_slice(k); c = math.prod(s.get_shape()); n += c; per[s.get_dtype()] += c\n"
                            "print(n, per.most_common(1)[0][0])\n"),
             file});
    if (!p.waitForFinished(60000) || p.exitCode() != 0) return {-1, QString::fromUtf8(p.readAllStandardError())};
    const QStringList parts = QString::fromUtf8(p.readAllStandardOutput()).trimmed().split(QLatin1Char(' '));
    return {parts.value(0).toLongLong(), parts.value(1)};
}

int rowOf(QTableWidget* t, const QString& name) {
    for (int r = 0; r < t->rowCount(); ++r)
        if (t->item(r, ModelPicker::NameColumn)->text() == name) return r;
    return -1;
}

}  // namespace

class TestPickers : public QObject {
    Q_OBJECT
private slots:
    void modelInfo_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("architecture");
        QTest::addColumn<qint64>("vocab");
        QTest::addColumn<qint64>("context");
        // architecture/vocab/context as written in each fixture's config.json
        QTest::newRow("gpt2") << "gpt2"
                              << "GPT2LMHeadModel" << qint64(1000) << qint64(128);
        QTest::newRow("llama") << "llama"
                               << "LlamaForCausalLM" << qint64(1000) << qint64(128);
        QTest::newRow("qwen2") << "qwen2"
                               << "Qwen2ForCausalLM" << qint64(1000) << qint64(128);
    }
    void modelInfo() {
        QFETCH(QString, model);
        QFETCH(QString, architecture);
        QFETCH(qint64, vocab);
        QFETCH(qint64, context);
        const QString dir = kModels + QLatin1Char('/') + model;
        const ModelFolderInfo info = readModelInfo(dir);
        QVERIFY2(info.error.isEmpty(), qPrintable(info.error));
        QCOMPARE(info.architecture, architecture);
        QCOMPARE(info.vocabSize, vocab);
        QCOMPARE(info.contextLength, context);
        const auto [params, dtype] = pythonReference(dir + QStringLiteral("/model.safetensors"));
        QVERIFY2(params > 0, qPrintable(dtype));
        QCOMPARE(info.parameters, params);
        QCOMPARE(info.dtype, dtype);
    }

    void pickerListsFoldersAndHfCache() {
        // A hub cache laid out as huggingface_hub writes it, holding a copy of the llama fixture.
        QTemporaryDir hub;
        const QString repo = hub.filePath(QStringLiteral("models--acme--tiny-llama"));
        const QString snap = repo + QStringLiteral("/snapshots/0123abcd");
        QVERIFY(QDir().mkpath(snap));
        QVERIFY(QDir().mkpath(repo + QStringLiteral("/refs")));
        QFile ref(repo + QStringLiteral("/refs/main"));
        QVERIFY(ref.open(QIODevice::WriteOnly));
        ref.write("0123abcd");
        ref.close();
        for (const char* f : {"config.json", "model.safetensors"})
            QVERIFY(QFile::copy(kModels + QStringLiteral("/llama/") + QLatin1String(f),
                                snap + QLatin1Char('/') + QLatin1String(f)));

        ModelPicker picker({kModels}, {hub.path()});
        picker.show();
        QTRY_VERIFY_WITH_TIMEOUT(!picker.isScanning(), 20000);
        QTableWidget* t = picker.table();
        const int gpt2 = rowOf(t, QStringLiteral("gpt2"));
        const int cached = rowOf(t, QStringLiteral("acme/tiny-llama"));
        QVERIFY(gpt2 >= 0);
        QVERIFY(cached >= 0);
        QCOMPARE(t->item(gpt2, ModelPicker::ArchitectureColumn)->text(), QStringLiteral("GPT2LMHeadModel"));
        const auto [params, dtype] = pythonReference(kModels + QStringLiteral("/gpt2/model.safetensors"));
        QCOMPARE(t->item(gpt2, ModelPicker::ParametersColumn)->text(), formatParameterCount(params));
        QCOMPARE(t->item(gpt2, ModelPicker::DtypeColumn)->text(), dtype);
        QCOMPARE(t->item(gpt2, ModelPicker::ContextColumn)->text(), QStringLiteral("128"));
        QCOMPARE(t->item(cached, ModelPicker::ArchitectureColumn)->text(), QStringLiteral("LlamaForCausalLM"));
        QCOMPARE(t->item(cached, ModelPicker::VocabColumn)->text(), QStringLiteral("1000"));
        // Picking the cached model gives its id (the core finds it in the cache); a folder gives its path.
        t->selectRow(cached);
        QCOMPARE(picker.selectedValue(), QStringLiteral("acme/tiny-llama"));
        t->selectRow(gpt2);
        QCOMPARE(QDir(picker.selectedValue()), QDir(kModels + QStringLiteral("/gpt2")));
    }

    // The picker reads weights with the core's loader: a truncated file shows as unreadable with the loader's
    // message (naming the file), a folder with only config.json as "no weights" without an error.
    void brokenWeightsShowTheLoadersMessage() {
        QTemporaryDir root;
        const QString broken = root.filePath(QStringLiteral("broken")), bare = root.filePath(QStringLiteral("bare"));
        QVERIFY(QDir().mkpath(broken) && QDir().mkpath(bare));
        for (const QString& d : {broken, bare})
            QVERIFY(QFile::copy(kModels + QStringLiteral("/gpt2/config.json"), d + QStringLiteral("/config.json")));
        QVERIFY(QFile::copy(kModels + QStringLiteral("/gpt2/model.safetensors"),
                            broken + QStringLiteral("/model.safetensors")));
        QFile weights(broken + QStringLiteral("/model.safetensors"));
        QVERIFY(weights.setPermissions(weights.permissions() | QFileDevice::WriteOwner));
        QVERIFY(weights.resize(weights.size() - 16));

        const ModelFolderInfo bad = readModelInfo(broken);
        QVERIFY(bad.error.isEmpty());
        QVERIFY2(bad.weightsError.contains(weights.fileName()), qPrintable(bad.weightsError));
        QCOMPARE(bad.parameters, int64_t(-1));
        const ModelFolderInfo none = readModelInfo(bare);
        QVERIFY2(none.weightsError.isEmpty(), qPrintable(none.weightsError));
        QCOMPARE(none.parameters, int64_t(-1));

        ModelPicker picker({root.path()}, {});
        picker.show();
        QTRY_VERIFY_WITH_TIMEOUT(!picker.isScanning(), 20000);
        QTableWidget* t = picker.table();
        const int b = rowOf(t, QStringLiteral("broken")), n = rowOf(t, QStringLiteral("bare"));
        QVERIFY(b >= 0 && n >= 0);
        QCOMPARE(t->item(b, ModelPicker::ParametersColumn)->text(), ModelPicker::tr("unreadable weights"));
        QCOMPARE(t->item(b, ModelPicker::ParametersColumn)->toolTip(), bad.weightsError);
        QCOMPARE(t->item(n, ModelPicker::ParametersColumn)->text(), ModelPicker::tr("no weights"));
    }

    // A folder saved 4-bit by bitsandbytes shows as "4-bit NF4" (its parameters counted from config.json's shapes,
    // not from the packed codes); another quantization method is the weights' error, naming the key.
    void quantizedFoldersSayWhatTheyAre() {
        QTemporaryDir root;
        const QString q4 = root.filePath(QStringLiteral("q4")), gptq = root.filePath(QStringLiteral("gptq"));
        QFile src(kModels + QStringLiteral("/gpt2/config.json"));
        QVERIFY(src.open(QIODevice::ReadOnly));
        const nlohmann::json base = nlohmann::json::parse(src.readAll().toStdString());
        nlohmann::json a = base, b = base;
        a["quantization_config"] = {{"quant_method", "bitsandbytes"},
                                    {"_load_in_4bit", true},
                                    {"load_in_4bit", true},
                                    {"bnb_4bit_quant_type", "nf4"}};
        b["quantization_config"] = {{"quant_method", "gptq"}, {"bits", 4}};
        for (const auto& [dir, cfg] : {std::pair{q4, a}, std::pair{gptq, b}}) {
            QVERIFY(QDir().mkpath(dir));
            QFile f(dir + QStringLiteral("/config.json"));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(cfg.dump()));
        }
        const ModelFolderInfo quantized = readModelInfo(q4);
        QCOMPARE(quantized.dtype, QStringLiteral("4-bit NF4"));
        QVERIFY(quantized.weightsError.isEmpty());
        const ModelFolderInfo other = readModelInfo(gptq);
        QVERIFY2(other.weightsError.contains(QStringLiteral("quantization_config")) &&
                     other.weightsError.contains(QStringLiteral("gptq")),
                 qPrintable(other.weightsError));
    }

    void parameterCountFormat_data() {
        QTest::addColumn<qint64>("n");
        QTest::addColumn<QString>("text");
        QTest::newRow("small") << qint64(950) << "950";
        QTest::newRow("K") << qint64(139456) << "139.5K";
        QTest::newRow("M") << qint64(124439808) << "124.4M";
        QTest::newRow("B") << qint64(7241732096) << "7.24B";
        QTest::newRow("unknown") << qint64(-1) << "?";
    }
    void parameterCountFormat() {
        QFETCH(qint64, n);
        QFETCH(QString, text);
        QCOMPARE(formatParameterCount(n), text);
    }

    void dataPreview() {
        DataPreviewRequest request;
        request.train = (QString::fromUtf8(FTS_TEST_DATA_DIR) + QStringLiteral("/ui/sft_alpaca.jsonl"));
        request.tokenizer = (QString::fromUtf8(FTS_TEST_DATA_DIR) + QStringLiteral("/tokenizers/gpt2/tokenizer.json"));
        request.format = QStringLiteral("alpaca");
        request.chatTemplate = QStringLiteral("alpaca");
        request.maxLength = 100;
        DataPreviewDialog dialog(request);
        dialog.show();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.isRunning(), 20000);
        const DataPreviewResult& r = dialog.result();
        QVERIFY2(r.ok, qPrintable(r.error));
        QVERIFY(dialog.progressBar()->isHidden());
        QVERIFY2(r.shown >= 3, qPrintable(r.statsText));
        QVERIFY(r.maskedSpans >= r.shown);  // every Alpaca prompt is masked
        const QString html = dialog.samplesView()->toHtml();
        QVERIFY(html.contains(QStringLiteral("Red is a primary colour.")));
        // The statistics are the core's over the whole file.
        const auto tokenizer = Tokenizer::fromFile(request.tokenizer.toStdString());
        SftOptions o;
        o.trainPath = request.train.toStdString();
        o.format = SampleFormat::Alpaca;
        o.chatTemplate = "alpaca";
        o.maxLength = 100;
        o.packing = false;
        const SftData data = buildSftData(o, *tokenizer);
        QCOMPARE(r.samples, data.stats.samples);
        QCOMPARE(r.truncated, data.stats.truncated);
        QVERIFY(r.truncated >= 1);
        QCOMPARE(r.maxTokens, data.stats.maxTokens);
        QCOMPARE(r.dropped, data.stats.dropped);
        QCOMPARE(qint64(r.shown), data.stats.samples);
        QVERIFY2(dialog.statsLabel()->text().contains(QStringLiteral("p95")), qPrintable(dialog.statsLabel()->text()));
    }

    // Classification data: the label distribution of the whole file (the core's counts) and the first rows with
    // their labels, sentence pairs joined.
    void dataPreviewClassification() {
        DataPreviewRequest request;
        request.train =
            (QString::fromUtf8(FTS_TEST_DATA_DIR) + QStringLiteral("/classification/mrpc_strings_train.tsv"));
        request.tokenizer =
            (QString::fromUtf8(FTS_TEST_DATA_DIR) + QStringLiteral("/classification/tokenizer/tokenizer.json"));
        request.format = QStringLiteral("classification");
        request.columns = {{QStringLiteral("text"), QStringLiteral("#1 String")},
                           {QStringLiteral("text_pair"), QStringLiteral("#2 String")},
                           {QStringLiteral("label"), QStringLiteral("Quality")}};
        request.maxLength = 64;
        DataPreviewDialog dialog(request);
        dialog.show();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.isRunning(), 20000);
        const DataPreviewResult& r = dialog.result();
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(r.labelNames, QStringList({QStringLiteral("equivalent"), QStringLiteral("not_equivalent")}));
        const auto tokenizer = Tokenizer::fromFile(request.tokenizer.toStdString());
        ClassificationOptions o;
        o.trainPath = request.train.toStdString();
        o.columns = {"#1 String", "#2 String", "Quality"};
        o.maxLength = 64;
        const ClassificationData data = buildClassificationData(o, *tokenizer);
        QCOMPARE(r.samples, data.train.size());
        QCOMPARE(r.labelCounts, QList<qint64>({data.trainLabelCounts[0], data.trainLabelCounts[1]}));
        QCOMPARE(r.labelCounts[0] + r.labelCounts[1], qint64(64));
        QCOMPARE(r.shown, 8);
        const QString html = dialog.samplesView()->toHtml();
        QVERIFY(html.contains(QStringLiteral("not_equivalent")));
        QVERIFY(html.contains(QStringLiteral("‖")));
        QVERIFY2(dialog.statsLabel()->text().contains(QStringLiteral("single_label_classification")),
                 qPrintable(dialog.statsLabel()->text()));
        QDir().mkpath((QString::fromUtf8(FTS_BINARY_DIR) + QStringLiteral("/screenshots")));
        dialog.grab().save(
            (QString::fromUtf8(FTS_BINARY_DIR) + QStringLiteral("/screenshots/data_preview_classification.png")));
    }

    // A preference run previews its pairs: the prompt, then the chosen and the rejected completion, each marked,
    // as DPO tokenizes them; the counts cover the whole file (a pair whose prompt fills max_length is dropped).
    void dataPreviewOfPairs() {
        QTemporaryDir tmp;
        const QString file = tmp.filePath(QStringLiteral("pairs.jsonl"));
        {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(R"({"prompt": "The sky over the sea is", "chosen": " blue and calm today.", "rejected": " green."})"
                    "\n");
            f.write(R"({"prompt": "The sky over the sea is the sky over the sea is the sky over the sea is the sky",)"
                    R"( "chosen": " blue.", "rejected": " green."})"
                    "\n");
            f.write(R"({"prompt": "x", "chosen": " y"})"
                    "\n");
        }
        DataPreviewRequest request;
        request.train = file;
        request.tokenizer =
            (QString::fromUtf8(FTS_SOURCE_DIR) + QStringLiteral("/tests/data/preference/model/tokenizer.json"));
        request.objective = QStringLiteral("dpo");
        request.format = QStringLiteral("trl");
        request.maxLength = 16;
        DataPreviewDialog dialog(request);
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.isRunning(), 20000);
        const DataPreviewResult& r = dialog.result();
        QVERIFY2(r.ok, qPrintable(r.error));
        QCOMPARE(r.samples, 1);
        QCOMPARE(r.dropped, 1);  // the long prompt
        QCOMPARE(r.badRows, 2);  // it, and the row without "rejected"
        QCOMPARE(r.shown, 1);
        QVERIFY(r.html.contains(QStringLiteral("#dff3dc\"> blue and calm today.&lt;|endoftext|&gt;")));
        QVERIFY(r.html.contains(QStringLiteral("#f6d8d8\"> green.&lt;|endoftext|&gt;")));
        QVERIFY2(dialog.statsLabel()->text().contains(QStringLiteral("pairs.jsonl:3")),
                 qPrintable(dialog.statsLabel()->text()));
        QDir().mkpath((QString::fromUtf8(FTS_BINARY_DIR) + QStringLiteral("/screenshots")));
        dialog.grab().save((QString::fromUtf8(FTS_BINARY_DIR) + QStringLiteral("/screenshots/data_preview_pairs.png")));
    }

    void dataPreviewReportsErrors() {
        DataPreviewRequest request;
        request.train = (QString::fromUtf8(FTS_TEST_DATA_DIR) + QStringLiteral("/ui/missing.jsonl"));
        request.tokenizer = (QString::fromUtf8(FTS_TEST_DATA_DIR) + QStringLiteral("/tokenizers/gpt2/tokenizer.json"));
        DataPreviewDialog dialog(request);
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.isRunning(), 20000);
        QVERIFY(!dialog.result().ok);
        QVERIFY2(dialog.result().error.contains(QStringLiteral("missing.jsonl")), qPrintable(dialog.result().error));
    }
};

QTEST_MAIN(TestPickers)
#include "test_pickers.moc"
