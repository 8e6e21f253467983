// MainWindow pages that need no training process: runs written to a temp store through RunStore, then
// multi-select + Compare shows the overlay and the config diff of exactly the selected runs. Writes
// screenshots of these pages to <build>/screenshots/ (with ui_test_main_window's, the ui_screenshots set).
#include <QAction>
#include <functional>
#include <QFile>
#include <QRegularExpression>
#include <QAbstractButton>
#include <QGroupBox>
#include <QTabBar>
#include <QHeaderView>
#include <QXmlStreamReader>
#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalSpy>
#include <QDir>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QPushButton>
#include <cmath>
#include <atomic>
#include <chrono>
#include <thread>
#include <QDateTime>
#include <QEventLoop>
#include <QTimer>
#include <fstream>
#include <set>
#include <nlohmann/json.hpp>

#include "ui/chart_widget.h"
#include "ui/config_editor.h"
#include "ui/config_form.h"
#include "ui/data_preview.h"
#include "ui/model_picker.h"
#include "ui/settings_dialog.h"
#include "ui/studio_settings.h"
#include "ui/app_translations.h"
#include <QDialogButtonBox>
#include <QMenu>
#include <QSpinBox>
#include <QTabWidget>
#include <QApplication>
#include "ui/compare_view.h"
#include "ui/elided_label.h"
#include "ui/main_window.h"
#include "ui/queue_page.h"
#include "ui/run_view.h"
#include "ui/runs_filter_proxy.h"
#include "ui/runs_table_model.h"
#include "tests/ui/latin_words.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

namespace {

QString screenshotDir() { return (QString::fromUtf8(FTS_BINARY_DIR) + QStringLiteral("/screenshots")); }

void saveScreenshot(QWidget* w, const QString& name) {
    QDir().mkpath(screenshotDir());
    w->grab().save(QDir(screenshotDir()).filePath(name + QStringLiteral(".png")));
}

// The window's options over a fresh store in `dir` (runs written through RunStore before the window opens);
// the poller ticks every pollMs (fast for the tests, the default for the benchmarks).
StudioOptions pageOptions(const QTemporaryDir& dir, int pollMs = 20) {
    StudioOptions o;
    o.storePath = dir.filePath(QStringLiteral("runs.sqlite"));
    o.resourcesDir = (QString::fromUtf8(FTS_SOURCE_DIR) + QStringLiteral("/resources"));
    o.dataDir = dir.filePath(QStringLiteral("data"));
    o.cliPath = QString::fromUtf8(FTS_CLI_PATH);
    o.pollIntervalMs = pollMs;
    return o;
}

nlohmann::json quickStart() {
    std::ifstream in((std::string(FTS_SOURCE_DIR) + "/resources/quickstart/quickstart.json"));
    return nlohmann::json::parse(in);
}

// A finished run with a noisy decaying loss curve, evals every 20 steps and one memory sample.
int64_t writeRun(RunStore& store, const std::string& name, const nlohmann::json& config, double lr, double t0) {
    RunRecord r;
    r.name = name;
    r.configJson = config.dump();
    r.configPath = (std::string(FTS_SOURCE_DIR) + "/resources/quickstart/") + name + ".json";
    r.model = (std::string(FTS_SOURCE_DIR) + "/resources/quickstart/model");
    r.dataset = (std::string(FTS_SOURCE_DIR) + "/resources/quickstart/sample_stories.jsonl");
    r.totalSteps = 200;
    r.createdAt = t0;
    const int64_t id = store.createRun(r);
    store.markStarted(id, 0, t0);
    std::vector<MetricPoint> points;
    uint32_t seed = uint32_t(id) * 2654435761u;
    for (int64_t s = 1; s <= 200; ++s) {
        seed = seed * 1664525u + 1013904223u;
        const double noise = (double(seed >> 8) / double(1u << 24) - 0.5) * 0.3;
        const double t = t0 + 0.4 * double(s);
        const double loss = 1.8 + 8.0 * std::exp(-double(s) * lr * 8.0) + noise;
        points.push_back({s, "loss", loss, t});
        points.push_back({s, "lr", lr, t});
        points.push_back({s, "tokens_seen", 2048.0 * double(s), t});
        points.push_back({s, "tokens_per_s", 5000.0 + 100 * noise, t});
        if (s % 20 == 0) points.push_back({s, "eval_loss", 2.0 + 8.0 * std::exp(-double(s) * lr * 8.0), t});
    }
    store.addMetrics(id, points);
    DeviceSample d;
    d.step = 200;
    d.device = "cpu";
    d.allocated = 200ll << 20;
    d.peak = 300ll << 20;
    store.addDeviceSamples(id, {d});
    store.finishRun(id, RunStatus::Completed, t0 + 82, R"({"loss": 2.0})", "");
    return id;
}

}  // namespace

class TestMainWindowPages : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);  // QSettings away from the user's
        QSettings().clear();                       // and from earlier runs of this test
    }

    // The new-run page: the form over the quick-start, the model picker and the data preview opened from
    // the form's buttons, and "Start from this run" copying a stored run's config into the editor.
    void newRunFormAndPickers() {
        QTemporaryDir dir;
        const StudioOptions o = pageOptions(dir);
        int64_t past = 0;
        nlohmann::json pastConfig = quickStart();
        pastConfig["deepspeed"]["optimizer"]["params"]["lr"] = 0.0007;
        {
            RunStore store(o.storePath.toStdString());
            past = writeRun(store, "lr-7e-4", pastConfig, 0.0007, 1.7e9);
        }
        QSettings().remove(QStringLiteral("modelFolders"));
        MainWindow w(o);
        w.resize(1400, 900);
        w.show();
        QTRY_COMPARE_WITH_TIMEOUT(w.runsModel()->rowCount(), 1, 10000);
        QVERIFY(w.newRunFromQuickStart());
        ConfigForm* form = w.configForm();
        QTRY_VERIFY(w.configEditor()->isValidated());
        QTRY_COMPARE(form->fieldText(QStringLiteral("deepspeed.optimizer.params.lr")), QStringLiteral("0.003"));
        saveScreenshot(&w, QStringLiteral("new_run_form"));

        // Model picker from the form's button: lists the quick-start model; picking it fills model.path.
        QTest::mouseClick(form->pickModelButton(), Qt::LeftButton);
        ModelPicker* picker = w.modelPicker();
        QVERIFY(picker);
        QTRY_VERIFY_WITH_TIMEOUT(!picker->isScanning(), 20000);
        int row = -1;
        for (int r = 0; r < picker->table()->rowCount(); ++r)
            if (picker->table()->item(r, ModelPicker::NameColumn)->text() == QLatin1String("model")) row = r;
        QVERIFY(row >= 0);
        QCOMPARE(picker->table()->item(row, ModelPicker::ArchitectureColumn)->text(),
                 QStringLiteral("GPT2LMHeadModel"));  // resources/quickstart/model/config.json
        saveScreenshot(picker, QStringLiteral("model_picker"));
        picker->table()->selectRow(row);
        picker->accept();
        const QString modelDir = (QString::fromUtf8(FTS_SOURCE_DIR) + QStringLiteral("/resources/quickstart/model"));
        QCOMPARE(QDir(form->fieldText(QStringLiteral("model.path"))), QDir(modelDir));
        const auto doc = nlohmann::json::parse(w.configEditor()->text().toStdString());
        QCOMPARE(QDir(QString::fromStdString(doc["model"]["path"].get<std::string>())), QDir(modelDir));

        // Data preview from the form's button (the quick-start's plain-text stories: nothing masked).
        QTRY_VERIFY(w.configEditor()->isValidated() && !w.configEditor()->hasErrors());
        QTest::mouseClick(form->previewDataButton(), Qt::LeftButton);
        DataPreviewDialog* preview = w.dataPreview();
        QVERIFY(preview);
        QTRY_VERIFY_WITH_TIMEOUT(!preview->isRunning(), 20000);
        QVERIFY2(preview->result().ok, qPrintable(preview->result().error));
        QVERIFY(preview->result().samples > 0);
        QCOMPARE(preview->result().maskedSpans, 0);
        saveScreenshot(preview, QStringLiteral("data_preview"));
        preview->close();

        // Start from a past run: its config (lr 7e-4) in the editor and the form, unsaved.
        w.configEditor()->setModified(false);
        QVERIFY(w.newRunFromRun(past));
        QCOMPARE(w.currentPage(), MainWindow::Page::Editor);
        QCOMPARE(nlohmann::json::parse(w.configEditor()->text().toStdString()), pastConfig);
        QTRY_COMPARE(form->fieldText(QStringLiteral("deepspeed.optimizer.params.lr")), QStringLiteral("0.0007"));
        QVERIFY(w.configEditor()->isModified());
        w.configEditor()->setModified(false);  // no save prompt on close
    }

    // A laptop screen: at 1024x640 every page fits (the window's minimum size is no larger), the form and Start
    // are on screen side by side without overlap, and the run page shows its charts.
    void fitsA1024x640Screen() {
        QTemporaryDir dir;
        const StudioOptions o = pageOptions(dir);
        {
            RunStore store(o.storePath.toStdString());
            writeRun(store, "a-finished-run-with-a-long-name", quickStart(), 0.003, 1.7e9);
        }
        MainWindow w(o);
        const QSize minimum = w.minimumSizeHint().expandedTo(w.minimumSize());
        QString parts;
        for (QWidget* c : w.findChildren<QWidget*>())
            if (c->minimumSizeHint().width() > 300 || c->minimumSizeHint().height() > 250)
                parts += QStringLiteral(" [%1]").arg(c->objectName()) + QStringLiteral(" %1:%2x%3")
                                                                            .arg(c->metaObject()->className())
                                                                            .arg(c->minimumSizeHint().width())
                                                                            .arg(c->minimumSizeHint().height());
        QVERIFY2(minimum.width() <= 1024 && minimum.height() <= 640,
                 qPrintable(QStringLiteral("minimum %1x%2;%3").arg(minimum.width()).arg(minimum.height()).arg(parts)));
        w.resize(1024, 640);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTRY_COMPARE_WITH_TIMEOUT(w.runsModel()->rowCount(), 1, 10000);
        QVERIFY(w.newRunFromQuickStart());
        QTRY_VERIFY(w.configEditor()->isValidated());
        QCOMPARE(w.size(), QSize(1024, 640));
        auto* start = w.findChild<QPushButton*>(QStringLiteral("startButton"));
        QVERIFY(start && start->isVisible());
        const QRect window = w.rect();
        const QRect startRect(start->mapTo(&w, QPoint()), start->size());
        QVERIFY2(window.contains(startRect), "Start is cut off");
        auto* formScroll = w.findChild<QWidget*>(QStringLiteral("configFormScroll"));
        const QRect formRect(formScroll->mapTo(&w, QPoint()), formScroll->size());
        QVERIFY2(window.contains(formRect) && formRect.width() >= 250 && formRect.height() >= 250,
                 qPrintable(QStringLiteral("form %1x%2").arg(formRect.width()).arg(formRect.height())));
        QVERIFY(!formRect.intersects(startRect));
        saveScreenshot(&w, QStringLiteral("editor_1024x640"));
        w.selectRun(w.runsModel()->runs().front().id);
        QTRY_COMPARE(w.currentPage(), MainWindow::Page::Run);
        QCOMPARE(w.size(), QSize(1024, 640));
        saveScreenshot(&w, QStringLiteral("run_1024x640"));
        // The run page at 1024x600 (a netbook, or 640 less a title bar): the window may be that small, and every
        // chart in view keeps a readable height with its legend outside the plot when it is short.
        const QSize withRunPage = w.minimumSizeHint().expandedTo(w.minimumSize());
        qInfo("window minimum with the run page: %dx%d", withRunPage.width(), withRunPage.height());
        QVERIFY2(
            withRunPage.height() <= 600 && withRunPage.width() <= 1024,
            qPrintable(
                QStringLiteral("minimum with the run page %1x%2").arg(withRunPage.width()).arg(withRunPage.height())));
        w.resize(1024, 600);
        QTRY_COMPARE(w.size(), QSize(1024, 600));
        int charts = 0;
        for (SeriesChart* c : w.findChildren<SeriesChart*>()) {
            if (!c->isVisible()) continue;
            ++charts;
            QVERIFY2(c->height() >= 120, qPrintable(QStringLiteral("%1 px tall").arg(c->height())));
            const QRect plot = c->axisRect()->rect();
            if (c->legend->visible() && c->legend->itemCount() > 0 && c->height() < 260)
                QVERIFY2(!plot.intersects(c->legend->outerRect()), "the legend covers a short chart's plot");
        }
        QVERIFY(charts >= 2);  // the loss chart and the open tab's
        saveScreenshot(&w, QStringLiteral("run_1024x600"));
    }

    // No text sets the window wider than a 1024-pixel screen: a stopped-and-resumed run's "took … of training, over
    // … (stopped and resumed)", a long run name and a banner with a long path, in English and in Chinese, leave the
    // window's minimum within 1024x640 and a 1024x640 window at that size (long facts are elided, whole in their
    // tooltips); a banner about one run goes when another run's page opens.
    void longTextsKeepTheWindowOnScreen() {
        QTemporaryDir dir;
        const StudioOptions o = pageOptions(dir);
        int64_t resumed = 0, other = 0;
        {
            RunStore store(o.storePath.toStdString());
            other = writeRun(store, "another-run", quickStart(), 0.003, 1.7e9);
            resumed = writeRun(store, "a resumed run whose name is long: lr=0.0003 r=16 alpha=32 seed=1234 warmup=100",
                               quickStart(), 0.003, 1.7e9 + 86400 * 3);
            // stopped, resumed two days later for its last ten minutes: 3h05m of training over two days
            store.markStarted(resumed, 0, 1.7e9 + 86400 * 5 - 600);
            store.finishRun(resumed, RunStatus::Completed, 1.7e9 + 86400 * 5, R"({"loss": 2.0, "elapsed_s": 11100})",
                            "");
        }
        for (const QString lang : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
            installStudioTranslations(lang);
            MainWindow w(o);
            w.resize(1024, 640);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QTRY_COMPARE_WITH_TIMEOUT(w.runsModel()->rowCount(), 2, 10000);
            w.selectRun(resumed);
            QTRY_COMPARE(w.currentPage(), MainWindow::Page::Run);
            QCoreApplication::processEvents();
            // "took 3 h 5 min of training, over 48 h 0 min (stopped and resumed)"
            QTRY_VERIFY2(w.runView()->etaText().contains(QStringLiteral("48")), qPrintable(w.runView()->etaText()));
            w.showMessage(QStringLiteral("Could not write /home/someone/.local/share/finetune-studio/configs/"
                                         "quickstart-queued-20261128-101010-123.hostfile-with-a-long-name.json"),
                          true, resumed);
            QCoreApplication::processEvents();
            const QSize minimum = w.minimumSizeHint().expandedTo(w.minimumSize());
            QString wide;
            for (QWidget* c : w.findChildren<QWidget*>())
                if (c->isVisibleTo(&w) && c->minimumSizeHint().width() > 500)
                    wide += QStringLiteral(" [%1 %2 %3]")
                                .arg(c->metaObject()->className(), c->objectName())
                                .arg(c->minimumSizeHint().width());
            QVERIFY2(minimum.width() <= 1024 && minimum.height() <= 640,
                     qPrintable(QStringLiteral("%1: minimum %2x%3;%4")
                                    .arg(lang)
                                    .arg(minimum.width())
                                    .arg(minimum.height())
                                    .arg(wide)));
            QTRY_COMPARE(w.size(), QSize(1024, 640));
            // the runs list: the long name is elided and Status stays in view beside it
            auto* list = w.findChild<QTableView*>(QStringLiteral("runsView"));
            QHeaderView* header = list->horizontalHeader();
            QTRY_VERIFY2(header->sectionViewportPosition(RunsTableModel::StatusColumn) +
                                 header->sectionSize(RunsTableModel::StatusColumn) <=
                             list->viewport()->width(),
                         qPrintable(QStringLiteral("name %1 px, status at %2, list %3 px wide")
                                        .arg(header->sectionSize(RunsTableModel::NameColumn))
                                        .arg(header->sectionViewportPosition(RunsTableModel::StatusColumn))
                                        .arg(list->viewport()->width())));
            saveScreenshot(&w, QStringLiteral("resumed_run_%1_1024x640").arg(lang));
            w.selectRun(other);  // another run's page: the first run's banner goes
            QVERIFY(w.lastMessage().isEmpty());
            // the editor's header: a long config path gives way in its middle, "(modified)" stays in view
            QVERIFY(w.newRunFromQuickStart());
            QTRY_VERIFY(w.configEditor()->isValidated());
            w.configEditor()->setModified(true);
            auto* fileLabel = w.findChild<ElidedLabel*>(QStringLiteral("editorFileLabel"));
            QVERIFY(fileLabel);
            QCoreApplication::processEvents();
            QVERIFY2(fileLabel->shownText().endsWith(MainWindow::tr(" (modified)")),
                     qPrintable(fileLabel->shownText() + QStringLiteral(" | ") + fileLabel->text()));
            w.configEditor()->setModified(false);
        }
        installStudioTranslations(QStringLiteral("en"));
    }

    // The probe's "Use this variant": only deepspeed.zero_optimization's stage and offload keys change (the diff is
    // returned to show), everything else in the config is as it was; the same variant again changes nothing.
    void probeVariantWritesOnlyItsKeys() {
        QTemporaryDir dir;
        MainWindow w(pageOptions(dir));
        QVERIFY(w.newRunFromQuickStart());
        QTRY_VERIFY(w.configEditor()->isValidated());
        const nlohmann::json before = nlohmann::json::parse(w.configEditor()->text().toStdString());
        const QString variant =
            QStringLiteral(R"({"stage": 2, "offload_optimizer": "cpu", "offload_param": "none", "peak_bytes": 1})");
        const QStringList changes = w.applyProbeVariant(variant);
        QCOMPARE(changes.size(), 2);  // the stage and offload_optimizer
        QVERIFY2(changes.join(QLatin1Char('\n')).contains(QStringLiteral("zero_optimization.stage: 0 → 2")),
                 qPrintable(changes.join(QLatin1Char('\n'))));
        nlohmann::json after = nlohmann::json::parse(w.configEditor()->text().toStdString());
        QCOMPARE(after["deepspeed"]["zero_optimization"]["stage"].get<int>(), 2);
        QCOMPARE(after["deepspeed"]["zero_optimization"]["offload_optimizer"]["device"].get<std::string>(),
                 std::string("cpu"));
        after["deepspeed"]["zero_optimization"] = before["deepspeed"]["zero_optimization"];
        QCOMPARE(after, before);
        QVERIFY(w.applyProbeVariant(variant).isEmpty());
    }

    // The welcome page's "New run with a model folder": the quick-start's settings with that model's weights,
    // its name and a folder of its own; a folder without weights is an error before Start.
    void newRunWithAModelFolder() {
        QTemporaryDir dir;
        MainWindow w(pageOptions(dir));
        QCOMPARE(QDir(w.docsFolder()), QDir((QString::fromUtf8(FTS_SOURCE_DIR) + QStringLiteral("/docs"))));
        const QString model = (QString::fromUtf8(FTS_SOURCE_DIR) + QStringLiteral("/tests/data/models/gpt2"));
        QVERIFY(w.newRunForModel(model));
        QTRY_VERIFY(w.configEditor()->isValidated());
        const auto doc = nlohmann::json::parse(w.configEditor()->text().toStdString());
        QCOMPARE(QString::fromStdString(doc["model"]["path"].get<std::string>()), QDir::cleanPath(model));
        QCOMPARE(doc["model"]["init"].get<std::string>(), std::string("pretrained"));
        QCOMPARE(doc["training"]["run_name"].get<std::string>(), std::string("gpt2"));
        QVERIFY(QString::fromStdString(doc["training"]["output_dir"].get<std::string>())
                    .endsWith(QLatin1String("/outputs/gpt2")));
        QVERIFY2(!w.configEditor()->hasErrors(), qPrintable(w.configEditor()->issues().value(0).message));
        // The quick-start's own model folder has no weights: said at model.path before Start.
        QVERIFY(w.newRunForModel((QString::fromUtf8(FTS_SOURCE_DIR) + QStringLiteral("/resources/quickstart/model"))));
        QTRY_VERIFY(w.configEditor()->isValidated());
        QVERIFY(w.configEditor()->hasErrors());
        QCOMPARE(w.configEditor()->issues().value(0).keyPath, QStringLiteral("model.path"));
        QVERIFY(w.configEditor()->issues().value(0).message.contains(QLatin1String("no model.safetensors")));
        QVERIFY(!w.startAction()->isEnabled());
        w.configEditor()->setModified(false);
    }

    // zh_CN leaves no English behind: on every page (welcome, new-run form, a run, compare) each visible text
    // of the window's own widgets (labels, buttons, tabs, group titles, headers, menus, placeholders) differs
    // from the English one, unless the catalogue keeps it on purpose (source = translation, e.g. "F1", "MiB").
    // Texts that are the user's data (run names, paths, numbers) are left out.
    void zhLeavesNoEnglishOnAnyPage() {
        QSet<QString> keptOnPurpose;
        {
            QFile ts((QString::fromUtf8(FTS_SOURCE_DIR) + QStringLiteral("/translations/finetune-studio_zh_CN.ts")));
            QVERIFY(ts.open(QIODevice::ReadOnly));
            QXmlStreamReader xml(&ts);
            QString source;
            while (!xml.atEnd()) {
                xml.readNext();
                if (!xml.isStartElement()) continue;
                if (xml.name() == QLatin1String("source"))
                    source = xml.readElementText();
                else if (xml.name() == QLatin1String("translation") &&
                         xml.readElementText(QXmlStreamReader::IncludeChildElements) == source)
                    keptOnPurpose << source;
            }
        }
        QTemporaryDir dir;
        const StudioOptions o = pageOptions(dir);
        int64_t a = 0, b = 0;
        {
            RunStore store(o.storePath.toStdString());
            a = writeRun(store, "run-a", quickStart(), 0.003, 1.7e9);
            b = writeRun(store, "run-b", quickStart(), 0.001, 1.7e9 + 100);
        }
        installStudioTranslations(QStringLiteral("en"));
        MainWindow w(o);
        w.resize(1400, 900);
        w.show();
        QTRY_COMPARE_WITH_TIMEOUT(w.runsModel()->rowCount(), 2, 10000);
        // Every text a person reads, by widget and role.
        const auto texts = [&w]() {
            QMap<QString, QString> out;
            const auto put = [&](QObject* o, const QString& role, const QString& text) {
                if (!text.trimmed().isEmpty())
                    out.insert(QStringLiteral("%1/%2/%3").arg(quintptr(o)).arg(o->objectName(), role), text);
            };
            for (QWidget* x : w.findChildren<QWidget*>()) {
                if (!x->isVisibleTo(&w)) continue;
                put(x, QStringLiteral("tooltip"), x->toolTip());
                if (auto* l = qobject_cast<QLabel*>(x)) put(x, QStringLiteral("label"), l->text());
                if (auto* bt = qobject_cast<QAbstractButton*>(x)) put(x, QStringLiteral("button"), bt->text());
                if (auto* g = qobject_cast<QGroupBox*>(x)) put(x, QStringLiteral("group"), g->title());
                if (auto* e = qobject_cast<QLineEdit*>(x)) put(x, QStringLiteral("placeholder"), e->placeholderText());
                if (auto* t = qobject_cast<QTabBar*>(x))
                    for (int i = 0; i < t->count(); ++i) put(x, QStringLiteral("tab%1").arg(i), t->tabText(i));
                if (auto* h = qobject_cast<QHeaderView*>(x); h && h->model())
                    for (int i = 0; i < h->count(); ++i)
                        put(x, QStringLiteral("header%1").arg(i),
                            h->model()->headerData(i, h->orientation()).toString());
            }
            for (QAction* act : w.findChildren<QAction*>()) put(act, QStringLiteral("action"), act->text());
            for (QListWidget* l : w.findChildren<QListWidget*>())  // the config's errors and warnings
                if (l->isVisibleTo(&w))
                    for (int i = 0; i < l->count(); ++i) put(l, QStringLiteral("item%1").arg(i), l->item(i)->text());
            return out;
        };
        // The user's data and what is not a word: run names, paths, numbers and units.
        const QRegularExpression word(QStringLiteral("[A-Za-z]{3,}"));
        const auto isData = [](const QString& t) {
            return t.contains(QLatin1Char('/')) || t.startsWith(QLatin1String("run-")) ||
                   t.contains(QLatin1String("quickstart")) || t == QLatin1String("model") ||
                   t.contains(QLatin1String("sample_stories"));
        };
        QStringList english, halfEnglish;
        const auto check = [&](const QString& page, const std::function<void()>& show) {
            installStudioTranslations(QStringLiteral("en"));
            show();
            QCoreApplication::processEvents();
            const auto en = texts();
            installStudioTranslations(QStringLiteral("zh_CN"));
            QCoreApplication::processEvents();
            show();
            QCoreApplication::processEvents();
            const auto zh = texts();
            // Half-translated texts: Latin words left in a Chinese text (beside the names users read as they are).
            for (auto it = zh.constBegin(); it != zh.constEnd(); ++it)
                if (!isData(it.value()) &&  // a placeholder of one word shows a value (a column name, a key)
                    !(it.key().endsWith(QLatin1String("/placeholder")) && !it.value().contains(QLatin1Char(' '))))
                    if (const QStringList left = fts::test::englishWords(it.value()); !left.isEmpty())
                        halfEnglish << page + QStringLiteral(": ") + it.key().section(QLatin1Char('/'), 1) +
                                           QStringLiteral(" \"") + it.value() + QStringLiteral("\" (") +
                                           left.join(QLatin1Char(' ')) + QLatin1Char(')');
            for (auto it = en.constBegin(); it != en.constEnd(); ++it) {
                const QString t = it.value();
                QString plain = t;
                plain.remove(QLatin1Char('&'));
                const bool value = it.key().endsWith(QLatin1String("/placeholder")) && !t.contains(QLatin1Char(' '));
                if (!zh.contains(it.key()) || zh.value(it.key()) != t || !word.match(t).hasMatch() || isData(t) ||
                    value || keptOnPurpose.contains(t))
                    continue;
                english << page + QStringLiteral(": ") + it.key().section(QLatin1Char('/'), 1) + QStringLiteral(" \"") +
                               t + QLatin1Char('"');
            }
        };
        check(QStringLiteral("welcome"), [&] {});
        check(QStringLiteral("editor"), [&] {
            if (w.currentPage() != MainWindow::Page::Editor) QVERIFY(w.newRunFromQuickStart());
            QTRY_VERIFY(w.configEditor()->isValidated());
        });
        // The form with errors of every kind: a missing model folder, a value of the wrong type, LoRA over a random
        // initialisation (a cross-key error), an estimate that cannot be made.
        check(QStringLiteral("editor with errors"), [&] {
            nlohmann::json c = nlohmann::json::parse(w.configEditor()->text().toStdString());
            c["model"]["path"] = "no-such-model";
            c["model"]["init"] = "random";
            c["model"]["lora"] = {{"r", 8}};
            c["data"]["eval_fraction"] = "abc";
            const QString text = QString::fromStdString(c.dump(2));
            if (w.configEditor()->text() != text) w.configEditor()->textEdit()->setPlainText(text);
            QTRY_VERIFY(w.configEditor()->isValidated());
            QVERIFY(w.configEditor()->issues().size() >= 3);
        });
        {  // the errors were on screen, in Chinese: the cross-key one among them
            bool shown = false;
            for (const QString& t : texts())
                shown = shown || (t.contains(QLatin1String("model.init")) && t.contains(QStringLiteral("预训练权重")));
            QVERIFY(shown);
            const QSize size = w.size();
            w.resize(1024, 640);
            QCoreApplication::processEvents();
            saveScreenshot(&w, QStringLiteral("zh_editor_errors_1024x640"));
            w.resize(size);
        }
        check(QStringLiteral("run"), [&] { w.selectRun(a); });
        check(QStringLiteral("chat"), [&] { w.openChat(); });
        check(QStringLiteral("compare"), [&] {
            w.selectRuns({a, b});
            w.compareSelectedRuns();
            QTRY_VERIFY_WITH_TIMEOUT(!w.compareView()->isLoading(), 10000);
        });
        check(QStringLiteral("queue"), [&] {
            QSignalSpy listed(w.queuePage(), &QueuePage::listed);
            w.showQueuePage();
            QVERIFY(listed.wait(20000));
        });
        installStudioTranslations(QStringLiteral("en"));
        w.configEditor()->setModified(false);
        english.removeDuplicates();
        QVERIFY2(english.isEmpty(), qPrintable(english.join(QLatin1Char('\n'))));
        halfEnglish.removeDuplicates();
        for (const QString& line : halfEnglish) qWarning().noquote() << "half English:" << line;  // every one
        QVERIFY2(halfEnglish.isEmpty(), qPrintable(QStringLiteral("%1 half-English text(s)").arg(halfEnglish.size())));
    }

    // Screenshots of every page in English and Chinese at 1024x640 and 1600x1000 (the ui_screenshots target
    // writes them to <build>/screenshots/pages/): welcome, new run, a run, compare (curves and config diff).
    void screenshotsOfEveryPage() {
        QTemporaryDir dir;
        const StudioOptions o = pageOptions(dir);
        int64_t a = 0, b = 0;
        {
            RunStore store(o.storePath.toStdString());
            nlohmann::json cfgB = quickStart();
            cfgB["deepspeed"]["optimizer"]["params"]["lr"] = 0.001;
            cfgB["deepspeed"]["scheduler"]["params"]["warmup_max_lr"] = 0.001;
            a = writeRun(store, "lr-3e-3", quickStart(), 0.003, 1.7e9);
            b = writeRun(store, "lr-1e-3", cfgB, 0.001, 1.7e9 + 100);
        }
        const QString out = screenshotDir() + QStringLiteral("/pages");
        QDir().mkpath(out);
        for (const QString& lang : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
            installStudioTranslations(lang);
            for (const QSize size : {QSize(1024, 640), QSize(1600, 1000)}) {
                MainWindow w(o);
                w.resize(size);
                w.show();
                QVERIFY(QTest::qWaitForWindowExposed(&w));
                QTRY_COMPARE_WITH_TIMEOUT(w.runsModel()->rowCount(), 2, 10000);
                const QString suffix = QStringLiteral("_%1_%2x%3").arg(lang).arg(size.width()).arg(size.height());
                const auto shoot = [&](const QString& page) {
                    QCoreApplication::processEvents();
                    QVERIFY(w.grab().save(QDir(out).filePath(page + suffix + QStringLiteral(".png"))));
                };
                shoot(QStringLiteral("welcome"));
                QVERIFY(w.newRunFromQuickStart());
                QTRY_VERIFY(w.configEditor()->isValidated());
                shoot(QStringLiteral("new_run"));
                w.configEditor()->setModified(false);
                w.selectRun(a);
                QTRY_VERIFY_WITH_TIMEOUT(w.runView()->lossChart()->pointCount(QStringLiteral("loss")) > 0, 10000);
                shoot(QStringLiteral("run"));
                w.selectRuns({a, b});
                QVERIFY(w.compareSelectedRuns());
                QTRY_VERIFY_WITH_TIMEOUT(!w.compareView()->isLoading() && w.compareView()->runIds().size() == 2, 10000);
                w.compareView()->tabs()->setCurrentIndex(0);
                shoot(QStringLiteral("compare"));
                w.compareView()->tabs()->setCurrentIndex(1);
                shoot(QStringLiteral("compare_diff"));
                QCOMPARE(w.size(), size);  // every page fits the window
            }
        }
        installStudioTranslations(QStringLiteral("en"));
        QCOMPARE(QDir(out).entryList({QStringLiteral("*.png")}).size(), 20);
    }

    // A run seen running that fails: a banner with its reason (the tray message too where there is a tray).
    void notifiesWhenARunEnds() {
        QTemporaryDir dir;
        const StudioOptions o = pageOptions(dir);
        RunStore store(o.storePath.toStdString());
        RunRecord r;
        r.name = "doomed";
        r.configJson = quickStart().dump();
        r.totalSteps = 10;
        const int64_t id = store.createRun(r);
        store.markStarted(id, QCoreApplication::applicationPid(), 1.7e9);
        MainWindow w(o);
        QSignalSpy ended(&w, &MainWindow::runEnded);
        w.show();
        QTRY_COMPARE_WITH_TIMEOUT(w.runsModel()->rowCount(), 1, 10000);
        QVERIFY(w.lastNotification().isEmpty());
        store.finishRun(id, RunStatus::Failed, 1.7e9 + 5, "{}", "rank 1 exited with code 9");
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 10000);
        QVERIFY2(w.lastNotification().contains(QStringLiteral("rank 1 exited with code 9")),
                 qPrintable(w.lastNotification()));
        QVERIFY(w.findChild<QLabel*>(QStringLiteral("messageBar"))->isVisible());
    }

    // Settings: language and theme apply at once (menus, form labels, palette); window geometry and the last
    // run shown come back in the next window.
    void settingsAndRememberedWindow() {
        QTemporaryDir dir;
        const StudioOptions o = pageOptions(dir);
        for (const char* k : {"language", "theme", "window/geometry", "last/runId", "last/ranks"})
            QSettings().remove(QLatin1String(k));
        int64_t older = 0;
        {
            RunStore store(o.storePath.toStdString());
            older = writeRun(store, "older", quickStart(), 0.003, 1.7e9);
            writeRun(store, "newer", quickStart(), 0.003, 1.7e9 + 100);
        }
        // a size the test screen holds with a frame's room (a saved size larger than the screen is shrunk to it)
        QSize remembered(1500, 877);
        {
            MainWindow w(o);
            w.show();
            QTRY_COMPARE_WITH_TIMEOUT(w.runsModel()->rowCount(), 2, 10000);
            if (const QScreen* sc = w.screen())
                remembered = remembered.boundedTo(sc->availableGeometry().size() - QSize(20, 60));
            w.resize(remembered);
            remembered = w.size();  // (no smaller than the window's minimum)
            w.selectRun(older);
            w.configForm()->ranksSpin()->setValue(3);
            QVERIFY(w.close());
        }
        MainWindow w(o);
        w.show();
        QTRY_COMPARE(w.size(), remembered);
        QCOMPARE(w.configForm()->ranksSpin()->value(), 3);
        QTRY_COMPARE_WITH_TIMEOUT(w.selectedRunId(), qint64(older), 10000);

        w.settingsAction()->trigger();
        auto* dialog = w.findChild<SettingsDialog*>();
        QVERIFY(dialog);
        // this window's store (--store) is not the one the setting names: the dialog says which it uses
        auto* inUse = dialog->findChild<QLabel*>(QStringLiteral("settingsStoreInUse"));
        QVERIFY(inUse && !inUse->isHidden());
        QVERIFY2(inUse->text().contains(QDir::toNativeSeparators(o.storePath)), qPrintable(inUse->text()));
        dialog->languageCombo()->setCurrentIndex(dialog->languageCombo()->findData(QStringLiteral("zh_CN")));
        dialog->themeCombo()->setCurrentIndex(dialog->themeCombo()->findData(QStringLiteral("dark")));
        saveScreenshot(dialog, QStringLiteral("settings"));
        QTest::mouseClick(dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok), Qt::LeftButton);
        QTRY_COMPARE(w.fileMenu()->title(), QStringLiteral("文件(&F)"));
        QTRY_COMPARE(w.configForm()->fieldLabel(QStringLiteral("deepspeed.optimizer.params.lr"))->text(),
                     QStringLiteral("学习率"));
        // The run and compare pages switch too (they were built in English).
        QCOMPARE(w.runView()->chartTabs()->tabText(0), QStringLiteral("学习率"));
        QCOMPARE(w.runView()->stopNowButton()->text(), QStringLiteral("立即停止"));
        QCOMPARE(w.runView()->lossChart()->title(), QStringLiteral("损失"));
        auto* metric = w.compareView()->findChild<QComboBox*>(QStringLiteral("compareMetric"));
        QCOMPARE(metric->itemText(metric->findData(QStringLiteral("eval_loss"))), QStringLiteral("验证损失"));
        QCOMPARE(w.compareView()->tabs()->tabText(1), QStringLiteral("配置差异"));
        QVERIFY(qApp->palette().color(QPalette::Window).lightness() < 80);
        QCOMPARE(QSettings().value(QStringLiteral("language")).toString(), QStringLiteral("zh_CN"));
        QVERIFY(w.newRunFromQuickStart());
        QTRY_VERIFY(w.configEditor()->isValidated());
        saveScreenshot(&w, QStringLiteral("new_run_form_dark_zh"));
        // Back to English and the platform look for the other tests.
        installStudioTranslations(QStringLiteral("en"));
        applyTheme(QString());
        for (const char* k : {"language", "theme"}) QSettings().remove(QLatin1String(k));
    }

    void compareSelectedRuns() {
        QTemporaryDir dir;
        const StudioOptions o = pageOptions(dir);
        int64_t a = 0, b = 0, c = 0;
        {
            RunStore store(o.storePath.toStdString());
            nlohmann::json cfgA = quickStart(), cfgB = quickStart(), cfgC = quickStart();
            cfgB["deepspeed"]["optimizer"]["params"]["lr"] = 0.001;
            cfgB["deepspeed"]["scheduler"]["params"]["warmup_max_lr"] = 0.001;
            cfgC["training"]["seed"] = 7;
            a = writeRun(store, "lr-3e-3", cfgA, 0.003, 1.7e9);
            b = writeRun(store, "lr-1e-3", cfgB, 0.001, 1.7e9 + 100);
            c = writeRun(store, "seed-7", cfgC, 0.003, 1.7e9 + 200);
        }
        MainWindow w(o);
        w.resize(1400, 860);
        w.show();
        QTRY_COMPARE_WITH_TIMEOUT(w.runsModel()->rowCount(), 3, 10000);

        // One run selected: Compare is off. Two: on, and it shows exactly those two.
        w.selectRuns({a});
        QVERIFY(!w.compareAction()->isEnabled());
        w.selectRuns({a, b});
        QCOMPARE(w.selectedRunIds().size(), 2);
        QVERIFY(w.compareAction()->isEnabled());
        w.compareAction()->trigger();
        QCOMPARE(w.currentPage(), MainWindow::Page::Compare);
        QTRY_VERIFY_WITH_TIMEOUT(!w.compareView()->isLoading(), 10000);
        QList<qint64> ids = w.compareView()->runIds();
        std::sort(ids.begin(), ids.end());
        QCOMPARE(ids, (QList<qint64>{a, b}));

        std::set<QString> keys;
        const QTableWidget* diff = w.compareView()->diffTable();
        for (int r = 0; r < diff->rowCount(); ++r) keys.insert(diff->item(r, 0)->text());
        QCOMPARE(keys,
                 (std::set<QString>{"deepspeed.optimizer.params.lr", "deepspeed.scheduler.params.warmup_max_lr"}));
        QCOMPARE(w.compareView()->chart()->pointCount(QStringLiteral("run:0")), 200);
        saveScreenshot(&w, QStringLiteral("compare"));
        w.compareView()->tabs()->setCurrentIndex(1);
        saveScreenshot(&w, QStringLiteral("compare_config_diff"));

        // A compared run that is still training: new points show up without a click (live compare).
        {
            RunStore store(o.storePath.toStdString());
            std::vector<MetricPoint> more;
            for (int64_t step = 201; step <= 210; ++step)
                more.push_back({step, "loss", 1.5, 1.7e9 + 90.0 + double(step)});
            store.addMetrics(a, more);
        }
        QTRY_COMPARE_WITH_TIMEOUT(w.compareView()->chart()->pointCount(QStringLiteral("run:0")) +
                                      w.compareView()->chart()->pointCount(QStringLiteral("run:1")),
                                  410, 10000);

        // The page follows a changed selection; a list refresh keeps the multi-selection.
        w.selectRuns({a, c});
        QTRY_VERIFY_WITH_TIMEOUT(!w.compareView()->isLoading() && w.compareView()->runIds().contains(c), 10000);
        keys.clear();
        for (int r = 0; r < diff->rowCount(); ++r) keys.insert(diff->item(r, 0)->text());
        QCOMPARE(keys, (std::set<QString>{"training.seed"}));
    }

    // History: rename, tags and notes go through the writer thread and come back through the poller;
    // search and the tag filter narrow the list; delete removes the run.
    void historyEditsAndFilters() {
        QTemporaryDir dir;
        const StudioOptions o = pageOptions(dir);
        int64_t a = 0, b = 0, c = 0;
        {
            RunStore store(o.storePath.toStdString());
            a = writeRun(store, "first", quickStart(), 0.003, 1.7e9);
            b = writeRun(store, "second", quickStart(), 0.002, 1.7e9 + 100);
            c = writeRun(store, "third", quickStart(), 0.001, 1.7e9 + 200);
        }
        MainWindow w(o);
        w.resize(1400, 860);
        w.show();
        QTRY_COMPARE_WITH_TIMEOUT(w.runsModel()->rowCount(), 3, 10000);
        // Best eval loss arrives from the store (the smallest eval_loss point, not the last).
        QTRY_VERIFY(w.runsModel()->bestEvalLoss(w.runsModel()->rowOfRun(a)).has_value());

        QSignalSpy edited(&w, &MainWindow::storeEdited);
        w.renameRun(b, QStringLiteral("second (lr 2e-3)"));
        w.setRunTags(b, {QStringLiteral("sweep"), QStringLiteral("keep")});
        w.setRunTags(c, {QStringLiteral("sweep")});
        w.setRunNotes(c, QStringLiteral("lowest lr"));
        QTRY_COMPARE(edited.count(), 4);
        for (const auto& e : edited) QVERIFY2(e.at(0).toBool(), qPrintable(e.at(1).toString()));
        QTRY_COMPARE(w.runsModel()->runById(b)->name, std::string("second (lr 2e-3)"));
        QTRY_COMPARE(w.runsModel()->runById(c)->notes, std::string("lowest lr"));

        w.searchEdit()->setText(QStringLiteral("lowest"));  // notes are searched
        QCOMPARE(w.runsProxy()->rowCount(), 1);
        w.searchEdit()->clear();
        QTRY_COMPARE(w.tagFilter()->count(), 3);  // all + keep + sweep
        w.tagFilter()->setCurrentIndex(w.tagFilter()->findData(QStringLiteral("sweep")));
        QCOMPARE(w.runsProxy()->rowCount(), 2);
        w.statusFilter()->setCurrentIndex(w.statusFilter()->findData(int(RunStatus::Failed)));
        QCOMPARE(w.runsProxy()->rowCount(), 0);
        w.statusFilter()->setCurrentIndex(0);
        saveScreenshot(&w, QStringLiteral("history_filtered"));
        w.tagFilter()->setCurrentIndex(0);

        w.deleteRuns({a}, /*deleteFiles=*/false);
        QTRY_COMPARE_WITH_TIMEOUT(w.runsModel()->rowCount(), 2, 10000);
        QCOMPARE(w.runsModel()->rowOfRun(a), -1);
        w.selectRun(c);
        saveScreenshot(&w, QStringLiteral("history"));
    }

    // Benchmark (figures printed, nothing asserted about speed): a store with FTS_BENCH_RUNS runs (default
    // 10,000); time from the window's construction until the list shows them all, then search, filter and
    // sort times on the UI thread. Run: ui_test_main_window_pages benchHistory (it is skipped unless
    // FTS_BENCH=1).
    // Live streaming: a 4-rank run writing 10 events/s per rank (rank 0: loss, lr, grad norm, tokens/s,
    // tokens seen; every rank: a device sample and a log line) from another thread through its own store
    // connection, while the window shows that run next to FTS_BENCH_RUNS finished runs (default 10,000).
    // Prints the longest event-loop stall (gap between 2 ms timer ticks, minus 2 ms) over FTS_BENCH_SECONDS
    // (default 60). Skipped unless FTS_BENCH=1.
    void benchLiveStream() {
        if (qEnvironmentVariableIntValue("FTS_BENCH") != 1) QSKIP("benchmark: set FTS_BENCH=1");
        const int history =
            qEnvironmentVariableIsSet("FTS_BENCH_RUNS") ? qEnvironmentVariableIntValue("FTS_BENCH_RUNS") : 10000;
        const int seconds =
            qEnvironmentVariableIsSet("FTS_BENCH_SECONDS") ? qEnvironmentVariableIntValue("FTS_BENCH_SECONDS") : 60;
        QTemporaryDir dir;
        const StudioOptions o = pageOptions(dir, StudioOptions().pollIntervalMs);
        int64_t live = 0;
        {
            RunStore store(o.storePath.toStdString());
            const std::string config = quickStart().dump();
            for (int i = 0; i < history; ++i) {
                RunRecord r;
                r.name = "run " + std::to_string(i);
                r.configJson = config;
                r.model = "/models/m" + std::to_string(i % 7);
                r.dataset = "/data/d" + std::to_string(i % 5) + ".jsonl";
                const int64_t id = store.createRun(r);
                store.markStarted(id, 0, 1.7e9 + i);
                store.addMetrics(id, {{10, "eval_loss", 3.0 - i * 1e-4, 1.7e9 + i}});
                store.finishRun(id, RunStatus::Completed, 1.7e9 + i + 60, R"({"loss": 2.5, "eval_loss": 2.6})", "");
            }
            RunRecord r;
            r.name = "live 4 ranks";
            r.configJson = config;
            r.worldSize = 4;
            r.totalSteps = 1000000;
            live = store.createRun(r);
            store.markStarted(live, QCoreApplication::applicationPid(), 1.7e9 + history + 100);
        }
        MainWindow w(o);
        w.resize(1400, 900);
        w.show();
        QTRY_COMPARE_WITH_TIMEOUT(w.runsModel()->rowCount(), history + 1, 120000);
        w.selectRun(live);
        QCOMPARE(w.currentPage(), MainWindow::Page::Run);

        std::atomic<bool> stop{false};
        std::atomic<int64_t> events{0};
        std::thread writer([&] {
            RunStore store(o.storePath.toStdString());
            int64_t step = 0;
            auto next = std::chrono::steady_clock::now();
            while (!stop) {
                ++step;
                const double t = double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
                store.addMetrics(live, {{step, "loss", 3.0 / std::sqrt(double(step)), t},
                                        {step, "lr", 1e-3, t},
                                        {step, "grad_norm", 1.0, t},
                                        {step, "tokens_per_s", 5000, t},
                                        {step, "tokens_seen", 2048.0 * double(step), t}});
                std::vector<DeviceSample> samples;
                std::vector<LogLine> logs;
                for (int rank = 0; rank < 4; ++rank) {
                    DeviceSample d;
                    d.step = step;
                    d.time = t;
                    d.rank = rank;
                    d.device = "cuda:" + std::to_string(rank);
                    d.allocated = (int64_t(1) << 30) + step * 4096;
                    d.reserved = int64_t(2) << 30;
                    d.peak = int64_t(3) << 30;
                    d.capacity = int64_t(80) << 30;
                    samples.push_back(d);
                    logs.push_back({t, rank, "info", "step " + std::to_string(step) + " rank " + std::to_string(rank)});
                }
                store.addDeviceSamples(live, samples);
                store.addLogs(live, logs);
                events += 4;  // one event per rank per tick
                next += std::chrono::milliseconds(100);
                std::this_thread::sleep_until(next);
            }
        });

        QElapsedTimer clock;
        clock.start();
        qint64 last = clock.nsecsElapsed(), longest = 0;
        int ticks = 0, over16 = 0, over50 = 0;
        QTimer tick;
        tick.setTimerType(Qt::PreciseTimer);
        tick.setInterval(2);
        connect(&tick, &QTimer::timeout, this, [&] {
            const qint64 now = clock.nsecsElapsed();
            longest = std::max(longest, now - last);
            if (now - last > 18'000'000) ++over16;
            if (now - last > 52'000'000) ++over50;
            last = now;
            ++ticks;
        });
        tick.start();
        QEventLoop loop;
        QTimer::singleShot(seconds * 1000, &loop, &QEventLoop::quit);
        loop.exec();
        tick.stop();
        stop = true;
        writer.join();
        const int replots = w.runView()->replotCount();
        std::printf(
            "live stream bench: %d history runs, 4 ranks x 10 events/s for %d s (%lld events written): longest "
            "event-loop stall %.1f ms (timer gap minus its 2 ms interval), stalls > 16 ms: %d, > 50 ms: %d, %d ticks, %d replots, %d loss points shown\n",
            history, seconds, (long long)events.load(), double(longest) / 1e6 - 2.0, over16, over50, ticks, replots,
            w.runView()->lossChart()->pointCount(QStringLiteral("loss")));
        QVERIFY(w.runView()->lossChart()->pointCount(QStringLiteral("loss")) > 0);
    }

    void benchHistory() {
        if (qEnvironmentVariableIntValue("FTS_BENCH") != 1) QSKIP("benchmark: set FTS_BENCH=1");
        const int n =
            qEnvironmentVariableIsSet("FTS_BENCH_RUNS") ? qEnvironmentVariableIntValue("FTS_BENCH_RUNS") : 10000;
        QTemporaryDir dir;
        const StudioOptions o = pageOptions(dir, StudioOptions().pollIntervalMs);
        {
            RunStore store(o.storePath.toStdString());
            const std::string config = quickStart().dump();
            for (int i = 0; i < n; ++i) {
                RunRecord r;
                r.name = "run " + std::to_string(i);
                r.configJson = config;
                r.model = "/models/m" + std::to_string(i % 7);
                r.dataset = "/data/d" + std::to_string(i % 5) + ".jsonl";
                const int64_t id = store.createRun(r);
                store.markStarted(id, 0, 1.7e9 + i);
                store.addMetrics(id, {{10, "eval_loss", 3.0 - i * 1e-4, 1.7e9 + i}});
                store.finishRun(id, i % 10 == 0 ? RunStatus::Failed : RunStatus::Completed, 1.7e9 + i + 60,
                                R"({"loss": 2.5, "eval_loss": 2.6, "tokens_seen": 123456})", "");
                if (i % 50 == 0) store.setRunTags(id, {"tag" + std::to_string(i % 3)});
            }
        }
        QElapsedTimer t;
        t.start();
        MainWindow w(o);
        w.resize(1400, 860);
        w.show();
        QTRY_COMPARE_WITH_TIMEOUT(w.runsModel()->rowCount(), n, 60000);
        const qint64 listed = t.elapsed();
        // The longest stall of the event loop while the list is refreshed 20 times (same ids: dataChanged).
        qint64 longest = 0;
        for (int i = 0; i < 20; ++i) {
            QElapsedTimer s;
            s.start();
            w.runsModel()->setRuns(w.runsModel()->runs());
            QCoreApplication::processEvents();
            longest = std::max(longest, s.elapsed());
        }
        QElapsedTimer f;
        f.start();
        w.searchEdit()->setText(QStringLiteral("run 99"));
        const qint64 search = f.elapsed();
        f.restart();
        w.searchEdit()->clear();
        w.statusFilter()->setCurrentIndex(w.statusFilter()->findData(int(RunStatus::Failed)));
        const qint64 filter = f.elapsed();
        w.statusFilter()->setCurrentIndex(0);
        f.restart();
        w.runsView()->sortByColumn(RunsTableModel::BestEvalColumn, Qt::AscendingOrder);
        const qint64 sort = f.elapsed();
        std::printf(
            "history bench, %d runs: listed %lld ms after the window was created; refresh (same ids) "
            "longest %lld ms; search %lld ms; status filter %lld ms; sort by best eval %lld ms\n",
            n, listed, longest, search, filter, sort);
    }
};

QTEST_MAIN(TestMainWindowPages)
#include "test_main_window_pages.moc"
