// The Queue page through the real `fts queue` (quick-start runs on the CPU): it lists what `fts queue add` queued,
// moves a waiting entry up, cancels one, starts the queue runner (which outlives nothing here: it ends when the queue
// is empty) and shows every run done; a 2 x 2 sweep's "Compare this sweep" hands over its four runs, and the compare
// page plots the sweep's metric against a swept value with one point per run. The main window's "Add to queue"
// queues the editor's config.
#include <QComboBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "core/store/run_queue.h"
#include "core/store/run_store.h"
#include "core/util/atomic_file.h"
#include "ui/config_form.h"
#include "ui/run_compare.h"
#include "ui/compare_view.h"
#include "ui/config_editor.h"
#include "ui/main_window.h"
#include "ui/queue_page.h"
#include "ui/sweep_plot.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

fs::path writeConfig(const fs::path& dir, const std::string& name, const json& patch = json::object()) {
    const fs::path qs = fs::path(FTS_SOURCE_DIR) / "resources" / "quickstart";
    json cfg = json::parse(fts::readFile(qs / "quickstart.json"));
    cfg["model"]["path"] = (qs / "model").string();
    cfg["data"]["train"] = (qs / "sample_stories.jsonl").string();
    cfg["data"]["max_length"] = 32;
    cfg["data"]["eval_fraction"] = 0;
    cfg["training"].update({{"max_steps", 8},
                            {"eval_interval", 0},
                            {"save_interval", 0},
                            {"device", "cpu"},
                            {"output_dir", (dir / (name + "-out")).string()},
                            {"run_name", name}});
    cfg["deepspeed"]["train_micro_batch_size_per_gpu"] = 4;
    cfg.merge_patch(patch);
    const fs::path file = dir / (name + ".json");
    std::ofstream(file) << cfg.dump(2);
    return file;
}

bool queueAdd(const fs::path& config, const QString& store) {
    QProcess p;
    p.start(QString::fromUtf8(FTS_CLI_PATH),
            {QStringLiteral("queue"), QStringLiteral("add"), QString::fromStdString(config.string()),
             QStringLiteral("--devices"), QStringLiteral("cpu"), QStringLiteral("--store"), store});
    return p.waitForFinished(60000) && p.exitCode() == 0;
}

int rowNamed(const fts::QueuePage& page, const QString& name) {
    for (int r = 0; r < page.table()->rowCount(); ++r)
        if (page.table()->item(r, 0)->text() == name) return r;
    return -1;
}

QString stateOf(const fts::QueuePage& page, const QString& name) {
    const int r = rowNamed(page, name);
    return r < 0 ? QString() : page.table()->item(r, 1)->text();
}

// "Compare this sweep" on a row: the runs it hands over (empty when the button is off or says nothing).
QList<qint64> compareSweepOfRow(fts::QueuePage& page, int row) {
    page.table()->selectRow(row);
    if (!page.compareButton()->isEnabled()) return {};
    QSignalSpy compare(&page, &fts::QueuePage::compareRequested);
    page.compareButton()->click();
    return compare.size() == 1 ? compare.at(0).at(0).value<QList<qint64>>() : QList<qint64>();
}

// The window's options over a fresh store in `tmp` and the real fts.
fts::StudioOptions studioOptions(const QTemporaryDir& tmp) {
    fts::StudioOptions o;
    o.storePath = tmp.filePath(QStringLiteral("runs.sqlite"));
    o.resourcesDir = (QString::fromUtf8(FTS_SOURCE_DIR) + QStringLiteral("/resources"));
    o.dataDir = tmp.filePath(QStringLiteral("data"));
    o.cliPath = QString::fromUtf8(FTS_CLI_PATH);
    return o;
}

// `cfg` as the editor's text, validated.
bool editConfig(fts::MainWindow& w, const json& cfg) {
    w.configEditor()->textEdit()->setPlainText(QString::fromStdString(cfg.dump(2)));
    return QTest::qWaitFor([&] { return w.configEditor()->isValidated(); }, 10000);
}

}  // namespace

class TestQueuePage : public QObject {
    Q_OBJECT
private slots:
    void listsMovesCancelsAndRuns() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const QString store = QString::fromStdString((dir / "runs.sqlite").string());
        for (const char* name : {"first", "second", "third"}) QVERIFY(queueAdd(writeConfig(dir, name), store));
        fts::QueuePage page(QString::fromUtf8(FTS_CLI_PATH), store);
        page.show();
        QTRY_COMPARE_WITH_TIMEOUT(page.table()->rowCount(), 3, 20000);
        QCOMPARE(stateOf(page, QStringLiteral("first")), fts::QueuePage::tr("waiting"));
        QVERIFY(page.runnerLabel()->text().contains(fts::QueuePage::tr("Queue runner: not running")));
        QVERIFY(page.startRunnerButton()->isEnabled());
        // the third moves up one place
        page.table()->selectRow(rowNamed(page, QStringLiteral("third")));
        QVERIFY(page.upButton()->isEnabled());
        page.upButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(rowNamed(page, QStringLiteral("third")) == 1, 20000);
        // the first is cancelled
        page.table()->selectRow(rowNamed(page, QStringLiteral("first")));
        page.cancelButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(page, QStringLiteral("first")), fts::QueuePage::tr("cancelled"), 20000);
        // the runner runs the other two (third before second) and ends with the queue
        QVERIFY(page.startRunner());
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(page, QStringLiteral("second")), fts::QueuePage::tr("done"), 120000);
        QCOMPARE(stateOf(page, QStringLiteral("third")), fts::QueuePage::tr("done"));
        const json& entries = page.entries();
        double thirdStart = 0, secondStart = 0;
        for (const json& e : entries) {
            if (e.at("name") == "third") thirdStart = e.at("started_at").get<double>();
            if (e.at("name") == "second") secondStart = e.at("started_at").get<double>();
        }
        QVERIFY(thirdStart > 0 && thirdStart < secondStart);  // in the order the page set
        QTRY_VERIFY_WITH_TIMEOUT(!page.hasRunner(), 20000);
        QVERIFY(page.clearButton()->isEnabled());
        page.clearButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(page.table()->rowCount(), 0, 20000);
    }

    void sweepComparesItsRuns() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const QString store = QString::fromStdString((dir / "runs.sqlite").string());
        const json sweep = {
            {"sweep",
             {{"name", "lr sweep"},
              {"metric", {{"name", "loss"}, {"goal", "minimize"}}},
              {"parameters",
               {{"deepspeed.optimizer.params.lr", {0.001, 0.003}}, {"deepspeed.gradient_clipping", {0.5, 1.0}}}}}}};
        QVERIFY(queueAdd(writeConfig(dir, "s", sweep), store));
        fts::QueuePage page(QString::fromUtf8(FTS_CLI_PATH), store);
        page.show();
        QTRY_COMPARE_WITH_TIMEOUT(page.table()->rowCount(), 4, 20000);
        QVERIFY(page.startRunner());
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                for (const json& e : page.entries())
                    if (e.at("status") != "done") return false;
                return page.entries().size() == 4;
            }(),
            180000);
        const QList<qint64> runs = compareSweepOfRow(page, 0);
        QCOMPARE(runs.size(), 4);
        fts::CompareView view;
        QSignalSpy loaded(&view, &fts::CompareView::loaded);
        view.compareRuns(store, runs);
        QVERIFY(loaded.wait(30000));
        QVERIFY(view.sweepTabShown());
        QCOMPARE(view.sweepPlot()->sweepName(), QStringLiteral("lr sweep"));
        QCOMPARE(view.sweepPlot()->keyCombo()->count(), 2);
        QCOMPARE(view.sweepPlot()->points().size(), size_t(4));
        for (const auto& [x, y] : view.sweepPlot()->points()) QVERIFY(std::isfinite(y) && y > 0);
        // two of its runs: still one sweep's; runs without a sweep entry: no Sweep tab
        view.compareRuns(store, runs.mid(0, 2));
        QVERIFY(loaded.wait(30000));
        QVERIFY(view.sweepTabShown());
        view.setSweeps({json(), json()});
        QVERIFY(!view.sweepTabShown());
    }

    // A sweep is one submission: the same sweep file queued twice is two sweeps, so "Compare this sweep" hands over
    // the selected submission's runs only, and the Sweep tab takes runs of two submissions as no one sweep.
    void sweepQueuedTwiceIsTwoSweeps() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const QString store = QString::fromStdString((dir / "runs.sqlite").string());
        const json sweep = {
            {"sweep", {{"name", "clip"}, {"parameters", {{"deepspeed.gradient_clipping", {0.5, 1.0}}}}}}};
        const fs::path config = writeConfig(dir, "twice", sweep);
        QVERIFY(queueAdd(config, store));
        QVERIFY(queueAdd(config, store));
        {
            fts::RunStore s(store.toStdString());
            fts::RunQueue q(s);
            int64_t run = 100;
            for (const fts::QueueEntry& e : q.list()) q.setRun(e.id, run++);  // as if each had started
        }
        fts::QueuePage page(QString::fromUtf8(FTS_CLI_PATH), store);
        page.show();
        QTRY_COMPARE_WITH_TIMEOUT(page.table()->rowCount(), 4, 20000);
        const int64_t first = page.entries()[0].at("submission").get<int64_t>();
        const QList<qint64> runs = compareSweepOfRow(page, 0);
        QCOMPARE(runs.size(), 2);
        for (const json& e : page.entries())
            if (runs.contains(e.at("run_id").get<int64_t>())) QCOMPARE(e.at("submission").get<int64_t>(), first);
        fts::SweepPlot plot;
        const std::vector<fts::CompareRunData> two(2);
        const json meta = {{"sweep", "clip"}, {"keys", {"deepspeed.gradient_clipping"}}, {"submission", first}};
        json other = meta;
        other["submission"] = first + 2;
        QVERIFY(plot.setRuns(two, {meta, meta}));
        QVERIFY(!plot.setRuns(two, {meta, other}));
    }

    // A config with a sweep block is queued, never started: Start is off, the form says why and offers Add to queue,
    // and a start asked for anyway is refused before any folder is made. Its Add to queue queues the runs (a swept
    // optimizer lr said to set the scheduler's peak too); a swept key the config overrides is refused by name.
    void sweepConfigIsQueuedNotStarted() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const fts::StudioOptions o = studioOptions(tmp);
        fts::MainWindow w(o);
        w.resize(1024, 640);
        w.show();
        QVERIFY(w.newRunFromQuickStart());
        // both lr keys swept apart: the optimizer's lr would do nothing
        json cfg =
            json::parse(fts::readFile(writeConfig(dir, "apart",
                                                  {{"sweep",
                                                    {{"parameters",
                                                      {{"deepspeed.optimizer.params.lr", {0.001, 0.003}},
                                                       {"deepspeed.scheduler.params.warmup_max_lr", {0.002}}}}}}})));
        QVERIFY(editConfig(w, cfg));
        QTRY_VERIFY(w.configForm()->hasSweep());
        QVERIFY(w.configForm()->sweepNotice()->isVisible());
        QVERIFY(!w.startAction()->isEnabled());
        QVERIFY(!w.findChild<QPushButton*>(QStringLiteral("startButton"))->isEnabled());
        QString error;
        QVERIFY(!w.startRun(&error));
        QVERIFY2(error.contains(QStringLiteral("sweep")), qPrintable(error));
        QVERIFY(!fs::exists(dir / "apart-out"));
        w.findChild<QPushButton*>(QStringLiteral("formSweepQueue"))->click();
        QTRY_VERIFY_WITH_TIMEOUT(w.lastMessage().startsWith(fts::MainWindow::tr("Not queued: %1").arg(QString())),
                                 30000);
        QVERIFY2(w.lastMessage().contains(QStringLiteral("deepspeed.optimizer.params.lr")),
                 qPrintable(w.lastMessage()));
        // the optimizer's lr alone: queued, each run's peak set with it, said
        cfg = json::parse(fts::readFile(writeConfig(
            dir, "lr", {{"sweep", {{"parameters", {{"deepspeed.optimizer.params.lr", {0.001, 0.003}}}}}}})));
        QVERIFY(editConfig(w, cfg));
        QVERIFY(w.addConfigToQueue());
        QTRY_VERIFY_WITH_TIMEOUT(w.lastMessage().contains(QStringLiteral("deepspeed.scheduler.params.warmup_max_lr")),
                                 30000);
        QTRY_COMPARE_WITH_TIMEOUT(int(w.queuePage()->entries().size()), 2, 30000);
        w.configEditor()->setModified(false);
    }

    // A runner the Queue page listed a moment ago may have left by the time a config is added (the queue was empty):
    // Add to queue starts one regardless, and the entry runs.
    void addStartsARunnerWhenTheListedOneLeft() {
        QTemporaryDir tmp;
        const fts::StudioOptions o = studioOptions(tmp);
        fts::MainWindow w(o);
        w.show();
        // a runner holds the queue (this process takes its lock, as a runner does) and the page lists it
        const std::string lockPath = o.storePath.toStdString() + ".queue-runner.lock";
        { fts::RunStore create(o.storePath.toStdString()); }
        const int fd = ::open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        QVERIFY(fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) == 0);
        const std::string pid = std::to_string(::getpid());
        QVERIFY(::write(fd, pid.data(), pid.size()) == ssize_t(pid.size()));
        w.showQueuePage();
        QTRY_VERIFY_WITH_TIMEOUT(w.queuePage()->hasRunner(), 20000);
        ::close(fd);  // ... and leaves, the queue being empty
        QVERIFY(w.newRunFromQuickStart());
        const json cfg = json::parse(fts::readFile(writeConfig(tmp.path().toStdString(), "after")));
        QVERIFY(editConfig(w, cfg));
        QVERIFY(w.addConfigToQueue());
        QTRY_VERIFY_WITH_TIMEOUT(rowNamed(*w.queuePage(), QStringLiteral("after")) >= 0, 30000);
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(*w.queuePage(), QStringLiteral("after")), fts::QueuePage::tr("done"), 120000);
        QVERIFY(!w.queuePage()
                     ->findChild<QLabel*>(QStringLiteral("queueStatus"))
                     ->text()
                     .contains(QStringLiteral("process")));
        w.configEditor()->setModified(false);
    }

    void mainWindowQueuesTheEditorsConfig() {
        QTemporaryDir tmp;
        const fts::StudioOptions o = studioOptions(tmp);
        fts::MainWindow w(o);
        w.show();  // the Queue page reads the queue while it is shown
        QVERIFY(w.newRunFromQuickStart());
        const json cfg = json::parse(fts::readFile(writeConfig(tmp.path().toStdString(), "editor")));
        QVERIFY(editConfig(w, cfg));
        QVERIFY(w.queueAddAction()->isEnabled());
        QVERIFY(w.addConfigToQueue());
        QTRY_VERIFY_WITH_TIMEOUT(w.currentPage() == fts::MainWindow::Page::Queue, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(rowNamed(*w.queuePage(), QStringLiteral("editor")) >= 0, 30000);
        // back to the config as it was, without a save prompt
        const QString edited = w.configEditor()->text();
        QVERIFY(w.queuePage()->backToEditorButton()->isVisible());
        w.queuePage()->backToEditorButton()->click();
        QCOMPARE(w.currentPage(), fts::MainWindow::Page::Editor);
        QCOMPARE(w.configEditor()->text(), edited);
        w.showQueuePage();
        // the runner the window started runs it
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(*w.queuePage(), QStringLiteral("editor")), fts::QueuePage::tr("done"),
                                  120000);
    }
};

QTEST_MAIN(TestQueuePage)
#include "test_queue_page.moc"
