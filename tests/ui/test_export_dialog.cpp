// ExportDialog through the real `fts export`: a GGUF export of a small GPT-2 folder (quantization chosen in the
// dialog) writes the file and the Modelfile, fills the progress bar and shows the file and the `ollama create`
// command; the HF choice shows the precision instead of the quantization and writes a model folder; a failing
// export (no tokenizer) shows the CLI's reason and leaves no file. The arguments follow the choices.
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

#include "ui/app_translations.h"
#include "ui/export_dialog.h"
#include "tests/ui/latin_words.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

namespace fs = std::filesystem;

namespace {

const fs::path kGpt2 = fs::path(FTS_TEST_DATA_DIR) / "models" / "gpt2";  // config, weights, tokenizer.json

void chooseData(QComboBox* box, const QString& data) {
    const int i = box->findData(data);
    QVERIFY(i >= 0);
    box->setCurrentIndex(i);
}

}  // namespace

class TestExportDialog : public QObject {
    Q_OBJECT
private slots:
    void ggufExportWritesFileAndModelfile() {
        QTemporaryDir tmp;
        const fs::path out = fs::path(tmp.path().toStdString()) / "export";
        fts::ExportDialog d(QString::fromUtf8(FTS_CLI_PATH), QString::fromStdString(kGpt2.string()),
                            QStringLiteral("My Run #1"));
        QVERIFY(d.quantBox()->isVisibleTo(&d));
        QVERIFY(!d.dtypeBox()->isVisibleTo(&d));
        QCOMPARE(d.quantBox()->currentData().toString(), QStringLiteral("q4_k_m"));  // the usual choice first
        chooseData(d.quantBox(), QStringLiteral("q8_0"));
        d.destinationEdit()->setText(QString::fromStdString(out.string()));
        const QStringList args = d.exportArguments();
        QVERIFY(args.contains(QStringLiteral("--quant")) && args.contains(QStringLiteral("q8_0")));
        QVERIFY2(args.contains(QString::fromStdString((out / "my-run-1-q8_0.gguf").string())),
                 qPrintable(args.join(' ')));
        QSignalSpy done(&d, &fts::ExportDialog::finishedExport);
        d.show();
        d.start();
        QVERIFY(d.isRunning());
        QVERIFY(!d.exportButton()->isEnabled());
        QVERIFY(d.cancelButton()->isEnabled());
        QVERIFY(done.wait(120000));
        QVERIFY2(done.at(0).at(0).toBool(), qPrintable(d.statusLabel()->text()));
        QVERIFY(fs::exists(out / "my-run-1-q8_0.gguf"));
        QVERIFY(fs::exists(out / "Modelfile"));
        QCOMPARE(d.progressBar()->value(), 100);
        const QString result = d.resultText()->toPlainText();
        QVERIFY2(result.contains(QStringLiteral("my-run-1-q8_0.gguf")), qPrintable(result));
        QVERIFY2(result.contains(QStringLiteral("ollama create my-run-1 -f Modelfile")), qPrintable(result));
        // the result does not squeeze the quantization hint above it: the hint keeps the height its lines need
        QCoreApplication::processEvents();
        const QLabel* hint = d.quantHint();
        QVERIFY2(hint->height() >= hint->heightForWidth(hint->width()),
                 qPrintable(QStringLiteral("%1 < %2").arg(hint->height()).arg(hint->heightForWidth(hint->width()))));
        // in Chinese the result's words are too (the tensor types and paths stay as they are)
        QVERIFY(fts::installStudioTranslations(QStringLiteral("zh_CN")).startsWith(QLatin1String("zh")));
        d.destinationEdit()->setText(QString::fromStdString((out / "again").string()));
        d.start();
        QVERIFY(done.wait(120000));
        const QStringList english =
            fts::test::englishWords(d.resultText()->toPlainText().section(QLatin1Char('\n'), 0, 1));
        fts::installStudioTranslations(QStringLiteral("en"));
        QVERIFY2(english.isEmpty(),
                 qPrintable(english.join(QLatin1Char(' ')) + QLatin1Char('\n') + d.resultText()->toPlainText()));
        QVERIFY(d.exportButton()->isEnabled());
        QVERIFY(!d.cancelButton()->isEnabled());
    }

    void hfExportUsesThePrecision() {
        QTemporaryDir tmp;
        const fs::path out = fs::path(tmp.path().toStdString()) / "hf";
        fts::ExportDialog d(QString::fromUtf8(FTS_CLI_PATH), QString::fromStdString(kGpt2.string()),
                            QStringLiteral("r"));
        chooseData(d.formatBox(), QStringLiteral("hf"));
        QVERIFY(!d.quantBox()->isVisibleTo(&d));
        QVERIFY(d.dtypeBox()->isVisibleTo(&d));
        QVERIFY(!d.modelfileCheck()->isVisibleTo(&d));
        chooseData(d.dtypeBox(), QStringLiteral("bfloat16"));
        d.destinationEdit()->setText(QString::fromStdString(out.string()));
        QSignalSpy done(&d, &fts::ExportDialog::finishedExport);
        d.start();
        QVERIFY(done.wait(120000));
        QVERIFY2(done.at(0).at(0).toBool(), qPrintable(d.statusLabel()->text()));
        QVERIFY(fs::exists(out / "model.safetensors"));
        QVERIFY(fs::exists(out / "config.json"));
    }

    void failureShowsTheReason() {
        QTemporaryDir tmp;
        const fs::path model = fs::path(tmp.path().toStdString()) / "no-tokenizer";
        fs::create_directories(model);
        for (const char* f : {"config.json", "model.safetensors"}) fs::copy_file(kGpt2 / f, model / f);
        const fs::path out = fs::path(tmp.path().toStdString()) / "out";
        fts::ExportDialog d(QString::fromUtf8(FTS_CLI_PATH), QString::fromStdString(model.string()),
                            QStringLiteral("r"));
        d.destinationEdit()->setText(QString::fromStdString(out.string()));
        d.modelfileCheck()->setChecked(false);
        QVERIFY(d.exportArguments().contains(QStringLiteral("--no-modelfile")));
        QSignalSpy done(&d, &fts::ExportDialog::finishedExport);
        d.start();
        QVERIFY(done.wait(120000));
        QVERIFY(!done.at(0).at(0).toBool());
        QVERIFY2(d.statusLabel()->text().contains(QStringLiteral("tokenizer.json")),
                 qPrintable(d.statusLabel()->text()));
        QVERIFY(!fs::exists(out / "r-q4_k_m.gguf"));
    }
};

QTEST_MAIN(TestExportDialog)
#include "test_export_dialog.moc"
