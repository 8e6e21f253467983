// logLineText in Chinese over the log of a real run's life: the quick-start trained a few steps by `fts train`,
// stopped by its step limit, then resumed for a few more (node and worker start, the model states table, the data,
// checkpoints, resume, the first step): no line keeps an English word; in English every line reads as fts wrote it.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include <nlohmann/json.hpp>

#include "core/store/run_store.h"
#include "core/util/atomic_file.h"
#include "ui/app_translations.h"
#include "ui/log_line_text.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program
#include "tests/ui/latin_words.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// `fts train` of the quick-start on the CPU for `steps` steps (a checkpoint every 2), into `store`.
bool train(const fs::path& dir, const QString& store, int steps, bool resume) {
    const fs::path qs = fs::path(FTS_SOURCE_DIR) / "resources" / "quickstart";
    json cfg = json::parse(fts::readFile(qs / "quickstart.json"));
    cfg["model"]["path"] = (qs / "model").string();
    cfg["data"]["train"] = (qs / "sample_stories.jsonl").string();
    cfg["data"]["max_length"] = 32;
    cfg["training"].update({{"max_steps", steps},
                            {"eval_interval", 0},
                            {"save_interval", 2},
                            {"device", "cpu"},
                            {"output_dir", (dir / "out").string()}});
    cfg["deepspeed"]["train_micro_batch_size_per_gpu"] = 2;
    const fs::path file = dir / "run.json";
    std::ofstream(file) << cfg.dump(2);
    QStringList args{QStringLiteral("train"), QString::fromStdString(file.string()), QStringLiteral("--store"), store};
    if (resume) args << QStringLiteral("--resume");
    QProcess p;
    p.start(QString::fromUtf8(FTS_CLI_PATH), args);
    return p.waitForFinished(120000) && p.exitCode() == 0;
}

}  // namespace

class TestLogLineText : public QObject {
    Q_OBJECT
private slots:
    void aRunsLifeInChinese() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const QString store = QString::fromStdString((dir / "runs.sqlite").string());
        QVERIFY(train(dir, store, 4, false));
        QVERIFY(train(dir, store, 6, true));
        fts::RunStore s(store.toStdString(), true);
        const auto runs = s.listRuns();
        QCOMPARE(runs.size(), size_t(1));
        const auto lines = s.logs(runs.front().id, 0);
        QVERIFY(lines.size() >= 8);
        bool resumed = false, table = false;
        QStringList english;
        QVERIFY(fts::installStudioTranslations(QStringLiteral("zh_CN")).startsWith(QLatin1String("zh")));
        for (const fts::LogLine& l : lines) {
            const QString message = QString::fromStdString(l.message);
            resumed = resumed || message.startsWith(QLatin1String("resumed from"));
            table = table || message.contains(QLatin1String("model states"));
            QString zh = fts::logLineText(QStringLiteral("12:00:00"), l.rank, QString::fromStdString(l.level), message);
            // host names are the user's data
            zh.remove(QStringLiteral("localhost")).remove(QString::fromStdString(fts::RunStore::localHostName()));
            if (!fts::test::englishWords(zh).isEmpty()) english << zh;
        }
        fts::installStudioTranslations(QStringLiteral("en"));
        QVERIFY(resumed && table);
        QVERIFY2(english.isEmpty(), qPrintable(english.join(QLatin1Char('\n'))));
        // in English: the level and the message as written
        const fts::LogLine& first = lines.front();
        QCOMPARE(fts::logLineText(QStringLiteral("12:00:00"), first.rank, QString::fromStdString(first.level),
                                  QString::fromStdString(first.message)),
                 QStringLiteral("12:00:00 %1 %2: %3")
                     .arg(first.rank < 0 ? QStringLiteral("supervisor") : QStringLiteral("rank %1").arg(first.rank),
                          QString::fromStdString(first.level), QString::fromStdString(first.message)));
    }
};

QTEST_MAIN(TestLogLineText)
#include "test_log_line_text.moc"
