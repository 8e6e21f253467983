// Run launching helpers: relative config paths made absolute through the JSON (resolving to the same
// files as before, checked with the real config parser), where the launched config is written, and the
// error when the CLI is missing.
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <nlohmann/json.hpp>

#include "core/config/train_config.h"
#include "ui/run_launcher.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

namespace {

const char* kConfig = R"({
  "model": { "path": "model", "init": "random" },
  "data": { "train": "data/train.jsonl", "eval": "/abs/eval.jsonl", "max_length": 64 },
  "training": { "max_steps": 3, "output_dir": "out/run", "device": "cpu" },
  "deepspeed": { "train_micro_batch_size_per_gpu": 2 }
}
)";

QString qs(const std::filesystem::path& p) { return QString::fromStdString(p.string()); }

nlohmann::json parse(const QString& text) { return nlohmann::json::parse(text.toStdString()); }

QString readAll(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(f.readAll());
}

}  // namespace

class TestRunLauncher : public QObject {
    Q_OBJECT
private slots:
    void absolutize_data() {
        QTest::addColumn<QString>("key");  // JSON pointer
        QTest::addColumn<QString>("value");
        QTest::addColumn<bool>("makeFolder");   // create <base>/<value> first
        QTest::addColumn<QString>("expected");  // "" = unchanged; else relative to base
        QTest::newRow("data.train relative") << "/data/train"
                                             << "d/t.jsonl" << false << "d/t.jsonl";
        QTest::newRow("output_dir dot-dot") << "/training/output_dir"
                                            << "../outs/x" << false << "../outs/x";
        QTest::newRow("absolute kept") << "/data/eval"
                                       << "/srv/e.jsonl" << false << "";
        QTest::newRow("home kept") << "/training/output_dir"
                                   << "~/runs/q" << false << "";
        QTest::newRow("model folder") << "/model/path"
                                      << "tiny" << true << "tiny";
        QTest::newRow("model id kept") << "/model/path"
                                       << "org/some-model" << false << "";
        QTest::newRow("tokenizer") << "/model/tokenizer"
                                   << "tok/tokenizer.json" << false << "tok/tokenizer.json";
    }
    void absolutize() {
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(bool, makeFolder);
        QFETCH(QString, expected);
        QTemporaryDir base;
        QVERIFY(base.isValid());
        if (makeFolder) QVERIFY(QDir(base.path()).mkpath(value));
        nlohmann::json doc = parse(QString::fromUtf8(kConfig));
        doc[nlohmann::json::json_pointer(key.toStdString())] = value.toStdString();
        QString error;
        const auto out = fts::absolutizeConfigPaths(QString::fromStdString(doc.dump()), base.path(), &error);
        QVERIFY2(out, qPrintable(error));
        const nlohmann::json moved = parse(*out);
        const QString got =
            QString::fromStdString(moved[nlohmann::json::json_pointer(key.toStdString())].get<std::string>());
        const QString want = expected.isEmpty() ? value : QDir::cleanPath(QDir(base.path()).absoluteFilePath(expected));
        QCOMPARE(got, want);
        // Values that are not relative paths are untouched.
        if (key != QLatin1String("/data/eval")) QVERIFY(moved["data"]["eval"] == doc["data"]["eval"]);
        QVERIFY(moved["model"]["init"] == doc["model"]["init"]);
        QVERIFY(moved["training"]["max_steps"] == doc["training"]["max_steps"]);
        QVERIFY(moved["deepspeed"] == doc["deepspeed"]);
    }

    void absolutizeRejectsNonObjects() {
        QString error;
        QVERIFY(!fts::absolutizeConfigPaths(QStringLiteral("[1, 2"), QDir::tempPath(), &error));
        QVERIFY(!error.isEmpty());
    }

    void unmodifiedOriginIsLaunchedAsIs() {
        QTemporaryDir dir;
        const QString origin = dir.filePath(QStringLiteral("my.json"));
        QFile f(origin);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kConfig);
        f.close();
        fts::LaunchConfigRequest r{QString::fromUtf8(kConfig), origin, false, dir.path(), dir.filePath("data"), {}};
        QString error;
        const auto path = fts::prepareLaunchConfig(r, &error);
        QVERIFY2(path, qPrintable(error));
        QCOMPARE(*path, QFileInfo(origin).absoluteFilePath());
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("my.json")});
    }

    void modifiedTextNeverGoesNextToTheOrigin() {
        // The origin's folder may be the source tree or a read-only install: a modified text goes to
        // <data>/configs, a new file per launch, with paths made absolute.
        QTemporaryDir dir;
        const QString origin = dir.filePath(QStringLiteral("quick.json"));
        QFile f(origin);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{}");
        f.close();
        const QString text = QString::fromUtf8(kConfig);
        fts::LaunchConfigRequest r{text, origin, true, dir.path(), dir.filePath("data"), {}};
        const auto first = fts::prepareLaunchConfig(r);
        const auto second = fts::prepareLaunchConfig(r);
        QVERIFY(first && second);
        QVERIFY(*first != *second);  // every launch gets its own file
        for (const QString& p : {*first, *second}) {
            QCOMPARE(QFileInfo(p).absolutePath(), QDir(dir.filePath(QStringLiteral("data/configs"))).absolutePath());
            QVERIFY(QFileInfo(p).fileName().startsWith(QLatin1String("quick.")));
            QCOMPARE(parse(readAll(p))["data"]["train"].get<std::string>(),
                     dir.filePath("data/train.jsonl").toStdString());
        }
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("quick.json")});
        QCOMPARE(readAll(origin), QStringLiteral("{}"));  // the origin is not overwritten
    }

    void elsewhereResolvesToTheSameFiles() {
        // The origin's folder is gone (or unwritable): the config goes to <data>/configs with absolute paths
        // that the real parser resolves to exactly what the original resolved to.
        QTemporaryDir dir;
        const QString originDir = dir.filePath(QStringLiteral("gone"));
        QVERIFY(QDir(originDir).mkpath(QStringLiteral("model")));
        const QString text = QString::fromUtf8(kConfig);
        fts::LaunchConfigRequest r{text,      originDir + QStringLiteral("/missing/q.json"), true,
                                   originDir, dir.filePath(QStringLiteral("data")),          {}};
        QString error;
        const auto path = fts::prepareLaunchConfig(r, &error);
        QVERIFY2(path, qPrintable(error));
        QCOMPARE(QFileInfo(*path).absolutePath(), QDir(dir.filePath(QStringLiteral("data/configs"))).absolutePath());
        const auto before = fts::parseTrainConfigText(text.toStdString(), originDir.toStdString());
        const auto after =
            fts::parseTrainConfigText(readAll(*path).toStdString(), QFileInfo(*path).absolutePath().toStdString());
        QVERIFY(before.ok());
        QVERIFY2(after.ok(), after.errorText().c_str());
        QCOMPARE(qs(after.config->model.path), qs(before.config->model.path));
        QCOMPARE(qs(after.config->model.tokenizer), qs(before.config->model.tokenizer));
        QCOMPARE(qs(after.config->data.train), qs(before.config->data.train));
        QCOMPARE(qs(after.config->data.eval), qs(before.config->data.eval));
        QCOMPARE(qs(after.config->training.outputDir), qs(before.config->training.outputDir));
        QCOMPARE(after.config->training.maxSteps, before.config->training.maxSteps);
    }

    void processAliveSeesExitAndZombies() {
        QVERIFY(fts::processAlive(QCoreApplication::applicationPid()));
        QVERIFY(!fts::processAlive(0));
        QProcess p;
        p.start(QStringLiteral("sleep"), {QStringLiteral("30")});
        QVERIFY(p.waitForStarted());
        const qint64 pid = p.processId();
        QVERIFY(fts::processAlive(pid));
        // SIGKILL it without reaping yet: a zombie until QProcess collects it; either way not alive.
        ::kill(static_cast<pid_t>(pid), SIGKILL);
        QTRY_VERIFY(!fts::processAlive(pid));
        p.waitForFinished();
    }

    void missingCliIsReported() {
        QTemporaryDir dir;
        QString error;
        const QString cli = dir.filePath(QStringLiteral("no-such-fts"));
        const auto started = fts::startTrainDetached(
            {cli, dir.filePath("c.json"), dir.filePath("s.sqlite"), dir.filePath("log.txt"), {}}, &error);
        QVERIFY(!started);
        QVERIFY2(error.contains(cli), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestRunLauncher)
#include "test_run_launcher.moc"
