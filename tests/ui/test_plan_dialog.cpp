// PlanDialog through the real `fts plan` (the quick-start at 32 tokens, micro-batch 8, on one CPU rank, with a memory
// per rank set so micro-batch 8 does not fit): the dialog stays responsive while the child runs, fills the table with
// the variants that fit (probed ones with their measured peak and speed), proposes the fastest probed one and lists
// the keys it changes; Apply hands those changes over, and the main window writes exactly those keys into the
// editor's config (train_batch_size unchanged).
#include <QComboBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include <nlohmann/json.hpp>

#include "core/config/memory_estimate.h"
#include "core/config/train_config.h"
#include "core/util/atomic_file.h"
#include "ui/config_editor.h"
#include "ui/main_window.h"
#include "ui/app_translations.h"
#include "ui/plan_dialog.h"
#include "tests/ui/latin_words.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

json planConfig(const fs::path& dir) {
    const fs::path qs = fs::path(FTS_SOURCE_DIR) / "resources" / "quickstart";
    json cfg = json::parse(fts::readFile(qs / "quickstart.json"));
    cfg["model"]["path"] = (qs / "model").string();
    cfg["data"]["train"] = (qs / "sample_stories.jsonl").string();
    cfg["data"]["max_length"] = 32;
    cfg["training"]["output_dir"] = (dir / "out").string();
    cfg["training"]["device"] = "cpu";
    cfg["deepspeed"]["train_micro_batch_size_per_gpu"] = 8;
    cfg["deepspeed"]["gradient_accumulation_steps"] = 1;
    return cfg;
}

// The estimate of the config as it is, from `fts plan --probes 0`: the capacity below it forces a change.
int64_t currentEstimate(const QString& config, const QString& store) {
    QProcess p;
    p.start(QString::fromUtf8(FTS_CLI_PATH), {QStringLiteral("plan"), config, QStringLiteral("--capacity"),
                                              QStringLiteral("64GiB"), QStringLiteral("--probes"), QStringLiteral("0"),
                                              QStringLiteral("--json"), QStringLiteral("--store"), store});
    if (!p.waitForFinished(120000)) return 0;
    const json r = json::parse(p.readAllStandardOutput().toStdString(), nullptr, false);
    if (!r.is_object()) return 0;
    for (const json& c : r.at("candidates"))
        if (!c.contains("invalid") && c.at("train_micro_batch_size_per_gpu") == 8 &&
            !c.at("activation_checkpointing").get<bool>() && c.at("chunked_loss").get<bool>())
            return c.at("estimate_bytes").get<int64_t>();
    return 0;
}

}  // namespace

class TestPlanDialog : public QObject {
    Q_OBJECT
private slots:
    void plansProposesAndApplies() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const json cfg = planConfig(dir);
        const fs::path config = dir / "plan.json";
        std::ofstream(config) << cfg.dump(2);
        const QString store = QString::fromStdString((dir / "runs.sqlite").string());
        const int64_t current = currentEstimate(QString::fromStdString(config.string()), store);
        QVERIFY(current > 0);

        fts::PlanDialog d(QString::fromUtf8(FTS_CLI_PATH), QString::fromStdString(config.string()), store, {});
        d.capacityEdit()->setText(QString::number(int64_t(double(current - 1) / 0.9)));
        d.probesSpin()->setValue(2);
        QSignalSpy done(&d, &fts::PlanDialog::finishedPlan);
        d.start();
        QVERIFY(d.isRunning());
        QVERIFY(!d.statusLabel()->text().isEmpty());
        QVERIFY(done.wait(300000));
        QVERIFY2(done.at(0).at(0).toBool(), qPrintable(d.statusLabel()->text() + d.proposalLabel()->text()));
        QVERIFY(d.table()->rowCount() >= 2);
        int probed = 0, proposals = 0;
        for (int r = 0; r < d.table()->rowCount(); ++r) {
            if (!d.table()->item(r, 3)->text().isEmpty()) ++probed;
            if (d.table()->item(r, 4)->text() == fts::PlanDialog::tr("proposal")) ++proposals;
            QVERIFY(!d.table()->item(r, 0)->text().contains(QLatin1String("micro-batch 8 × 1")) ||
                    d.table()->item(r, 0)->text().contains(QLatin1String("checkpointing")));  // over the capacity
        }
        QCOMPARE(probed, 2);
        QCOMPARE(proposals, 1);
        QVERIFY(
            d.proposalLabel()->text().contains(fts::PlanDialog::tr("Proposal: %1.").section(QLatin1Char('%'), 0, 0)));
        QVERIFY(d.applyButton()->isEnabled());
        QVERIFY(!d.changes().empty());
        QSignalSpy applied(&d, &fts::PlanDialog::applyRequested);
        d.applyButton()->click();
        QCOMPARE(applied.size(), 1);

        // the main window writes those keys, and only those
        QTemporaryDir wdir;
        fts::StudioOptions o;
        o.storePath = wdir.filePath(QStringLiteral("runs.sqlite"));
        o.resourcesDir = (QString::fromUtf8(FTS_SOURCE_DIR) + QStringLiteral("/resources"));
        o.dataDir = wdir.filePath(QStringLiteral("data"));
        o.cliPath = QString::fromUtf8(FTS_CLI_PATH);
        fts::MainWindow w(o);
        QVERIFY(w.newRunFromQuickStart());
        w.configEditor()->textEdit()->setPlainText(QString::fromStdString(cfg.dump(2)));
        const json before = json::parse(w.configEditor()->text().toStdString());
        const QStringList lines = w.applyPlanChanges(applied.at(0).at(0).toString());
        QCOMPARE(lines.size(), int(d.changes().size()));
        const json after = json::parse(w.configEditor()->text().toStdString());
        json expected = before;
        for (const json& c : d.changes()) {
            json* at = &expected;
            std::string key = c.at("key").get<std::string>();
            for (size_t dot; (dot = key.find('.')) != std::string::npos; key = key.substr(dot + 1))
                at = &(*at)[key.substr(0, dot)];
            (*at)[key] = json::parse(c.at("after").get<std::string>());
        }
        QCOMPARE(QString::fromStdString(after.dump()), QString::fromStdString(expected.dump()));
        const fts::ConfigParseResult b = fts::parseTrainConfig(before, dir), a = fts::parseTrainConfig(after, dir);
        QVERIFY(a.ok() && b.ok());
        QCOMPARE(a.config->deepspeed.trainBatchSize, b.config->deepspeed.trainBatchSize);
        QVERIFY(a.config->deepspeed.microBatchPerGpu < 8 || a.config->model.activationCheckpointing ||
                !a.config->model.chunkedLoss);
    }

    // Nothing fits: no proposal, the reason, Apply off.
    void nothingFitsSaysSo() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const fs::path config = dir / "plan.json";
        std::ofstream(config) << planConfig(dir).dump(2);
        fts::PlanDialog d(QString::fromUtf8(FTS_CLI_PATH), QString::fromStdString(config.string()),
                          QString::fromStdString((dir / "runs.sqlite").string()), {});
        d.capacityEdit()->setText(QStringLiteral("64MiB"));
        QSignalSpy done(&d, &fts::PlanDialog::finishedPlan);
        d.start();
        QVERIFY(done.wait(120000));
        QVERIFY(!done.at(0).at(0).toBool());
        QVERIFY(!d.applyButton()->isEnabled());
        const QString text = d.proposalLabel()->text();
        QVERIFY2(text.contains(QLatin1String("smallest estimate")), qPrintable(text));
        // the advice in the studio's words, built from its parts: the variant as the table says it
        QVERIFY2(text.contains(QLatin1String("(Stage ")), qPrintable(text));
        QVERIFY2(!text.contains(QLatin1String("nothing fits:")), qPrintable(text));  // not the CLI's English line
        // the table shows every variant with its estimate, none of them a proposal
        QVERIFY(d.table()->rowCount() > 1);
        for (int row = 0; row < d.table()->rowCount(); ++row) {
            const QString state = d.table()->item(row, d.table()->columnCount() - 1)->text();
            QVERIFY2(state == QLatin1String("over the memory") || state == QLatin1String("the config now"),
                     qPrintable(state));
        }
    }

    // Every kind of advice `fts plan --json` gives is said from its parts, in English and in Chinese; an item of a
    // kind this studio does not know shows the CLI's line.
    void adviceInTheStudiosWords() {
        const json candidates = json::array({{{"zero_stage", 3},
                                              {"offload_optimizer", "cpu"},
                                              {"train_micro_batch_size_per_gpu", 1},
                                              {"gradient_accumulation_steps", 8},
                                              {"activation_checkpointing", true}}});
        const json items = json::array(
            {{{"kind", "nothing_fits"}, {"bytes", 3LL << 30}, {"usable_bytes", 1LL << 30}, {"candidate", 0}},
             {{"kind", "more_gpus"}, {"ranks", 4}, {"bytes", 900LL << 20}},
             {{"kind", "nvme"}, {"bytes", 800LL << 20}, {"fits", true}},
             {{"kind", "qlora"}, {"bytes", 2LL << 30}, {"fits", false}},
             {{"kind", "probes_failed"}, {"text", "every probe failed:\n  stage 3: out of memory"}},
             {{"kind", "later"}, {"text", "a line of a later fts"}}});
        const auto say = [&](size_t i) { return fts::PlanDialog::adviceText(items[i], candidates); };
        const auto bytes = [](int64_t b) { return QString::fromStdString(fts::formatBytes(b)); };
        QVERIFY2(say(0).contains(bytes(3LL << 30)) && say(0).contains(bytes(1LL << 30)) &&
                     say(0).contains(QStringLiteral("Stage 3, optimizer offload to CPU, micro-batch 1 × 8")),
                 qPrintable(say(0)));
        QVERIFY2(say(1).contains(QLatin1String("with 4 ranks")) && say(1).contains(bytes(900LL << 20)),
                 qPrintable(say(1)));
        QVERIFY2(say(2).startsWith(QLatin1String("Fits with NVMe")), qPrintable(say(2)));
        QVERIFY2(say(3).startsWith(QLatin1String("Still over as QLoRA")), qPrintable(say(3)));
        QVERIFY2(say(4).startsWith(QLatin1String("Every probe failed.\n  stage 3: out of memory")), qPrintable(say(4)));
        QCOMPARE(say(5), QStringLiteral("a line of a later fts"));
        QCOMPARE(fts::installStudioTranslations(QStringLiteral("zh_CN")), QStringLiteral("zh_CN"));
        QVERIFY2(say(0).contains(QStringLiteral("最小的估算")) && say(0).contains(QStringLiteral("阶段")),
                 qPrintable(say(0)));
        QVERIFY2(say(1).contains(QStringLiteral("更多 GPU")), qPrintable(say(1)));
        QVERIFY2(say(3).contains(QStringLiteral("仍然超出")), qPrintable(say(3)));
        // a variant in words, chunked or not, without an English word (not "logits")
        for (const bool chunked : {true, false}) {
            const QString v = fts::PlanDialog::describeVariant({{"zero_stage", 2},
                                                                {"offload_optimizer", "cpu"},
                                                                {"activation_checkpointing", true},
                                                                {"chunked_loss", chunked}});
            QVERIFY2(fts::test::englishWords(v).isEmpty(), qPrintable(v));
        }
        fts::installStudioTranslations(QStringLiteral("en"));
    }
};

QTEST_MAIN(TestPlanDialog)
#include "test_plan_dialog.moc"
