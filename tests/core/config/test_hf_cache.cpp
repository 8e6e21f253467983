// Model lookup by Hugging Face id in a fake hub cache built in a temp dir with huggingface_hub's real layout
// (models--org--name/{blobs, refs/main, snapshots/<commit>/ with symlinks into blobs}), env precedence
// (HF_HUB_CACHE, HF_HOME, XDG_CACHE_HOME, HOME), revisions, error messages, and model.path in the train config.
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include "core/config/hf_cache.h"
#include "core/config/train_config.h"
#include "core/util/error.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
namespace fs = std::filesystem;

namespace {

void writeText(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
}

// <cache>/models--<org>--<name> with one snapshot per commit; refs/main -> mainCommit (if not empty).
void makeCachedModel(const fs::path& cache, const std::string& org, const std::string& name,
                     const std::vector<std::string>& commits, const std::string& mainCommit) {
    const fs::path repo = cache / ("models--" + org + "--" + name);
    for (const auto& c : commits) {
        const std::string blob = "blob" + c;
        writeText(repo / "blobs" / blob, "{\"model_type\": \"gpt2\", \"commit\": \"" + c + "\"}");
        fs::create_directories(repo / "snapshots" / c);
        fs::create_symlink(fs::path("..") / ".." / "blobs" / blob, repo / "snapshots" / c / "config.json");
    }
    if (!mainCommit.empty()) writeText(repo / "refs" / "main", mainCommit);  // huggingface_hub writes no newline
}

std::string commitOf(const fs::path& snapshot) {
    std::ifstream in(snapshot / "config.json");
    std::string s((std::istreambuf_iterator<char>(in)), {});
    auto at = s.find("\"commit\": \"");
    return at == std::string::npos ? "" : s.substr(at + 11, s.find('"', at + 11) - at - 11);
}

}  // namespace

class TestHfCache : public QObject {
    Q_OBJECT

private slots:
    void idShapes_data();
    void idShapes();
    void cacheDirPrecedence();
    void resolvesRefsAndCommits();
    void errorsListWhereItLooked();
    void trainConfigModelPathById();
};

void TestHfCache::idShapes_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("isId");
    QTest::newRow("org/name") << "Qwen/Qwen2.5-0.5B" << true;
    QTest::newRow("with revision") << "meta-llama/Llama-3.2-1B@main" << true;
    QTest::newRow("bare name") << "gpt2" << false;
    QTest::newRow("absolute") << "/models/gpt2" << false;
    QTest::newRow("relative dot") << "./models/gpt2" << false;
    QTest::newRow("three parts") << "a/b/c" << false;
    QTest::newRow("parent") << "../gpt2" << false;
    QTest::newRow("empty revision") << "a/b@" << false;
    QTest::newRow("space") << "a/b c" << false;
}

void TestHfCache::idShapes() {
    QFETCH(QString, text);
    QFETCH(bool, isId);
    QCOMPARE(looksLikeHfModelId(text.toStdString()), isId);
}

void TestHfCache::cacheDirPrecedence() {
    std::map<std::string, std::string> env{{"HOME", "/home/u"}};
    QCOMPARE(hfHubCacheDirs(&env), std::vector<fs::path>{"/home/u/.cache/huggingface/hub"});
    env["XDG_CACHE_HOME"] = "/xdg";
    QCOMPARE(hfHubCacheDirs(&env), std::vector<fs::path>{"/xdg/huggingface/hub"});
    env["HF_HOME"] = "/hfhome";
    env["HF_HUB_CACHE"] = "/hubcache";
    const std::vector<fs::path> want{"/hubcache", "/hfhome/hub", "/xdg/huggingface/hub"};
    QCOMPARE(hfHubCacheDirs(&env), want);
}

void TestHfCache::resolvesRefsAndCommits() {
    QTemporaryDir tmp;
    const fs::path root(tmp.path().toStdString());
    makeCachedModel(root / "hfhome" / "hub", "org", "tiny", {"aaa111", "bbb222"}, "bbb222");
    makeCachedModel(root / "hubcache", "org", "tiny", {"ccc333"}, "ccc333");
    std::map<std::string, std::string> env{{"HF_HOME", (root / "hfhome").string()}};
    // HF_HOME/hub: refs/main picks the snapshot; a commit hash picks another; files are readable through the symlinks.
    fs::path snap = resolveHfCachedModel("org/tiny", &env);
    QCOMPARE(snap, root / "hfhome" / "hub" / "models--org--tiny" / "snapshots" / "bbb222");
    QCOMPARE(commitOf(snap), std::string("bbb222"));
    QCOMPARE(commitOf(resolveHfCachedModel("org/tiny@aaa111", &env)), std::string("aaa111"));
    // HF_HUB_CACHE wins over HF_HOME.
    env["HF_HUB_CACHE"] = (root / "hubcache").string();
    QCOMPARE(commitOf(resolveHfCachedModel("org/tiny", &env)), std::string("ccc333"));
    // ... but a revision only HF_HOME has is still found there.
    QCOMPARE(commitOf(resolveHfCachedModel("org/tiny@aaa111", &env)), std::string("aaa111"));
}

void TestHfCache::errorsListWhereItLooked() {
    QTemporaryDir tmp;
    const fs::path root(tmp.path().toStdString());
    makeCachedModel(root / "hub", "org", "noref", {"ddd444"}, "");
    makeCachedModel(root / "hub", "org", "dangling", {"eee555"}, "fff666");
    std::map<std::string, std::string> env{{"HF_HUB_CACHE", (root / "hub").string()},
                                           {"HOME", (root / "home").string()}};
    auto message = [&](const std::string& id) -> QString {
        try {
            resolveHfCachedModel(id, &env);
        } catch (const IoError& e) {
            return QString::fromUtf8(e.what());
        }
        return {};
    };
    const QString missing = message("org/absent");
    QVERIFY2(missing.contains(QString::fromStdString((root / "hub" / "models--org--absent").string())),
             qPrintable(missing));
    QVERIFY2(missing.contains(QString::fromStdString(
                 (root / "home" / ".cache" / "huggingface" / "hub" / "models--org--absent").string())),
             qPrintable(missing));
    const QString noref = message("org/noref");
    QVERIFY2(noref.contains("no refs/main") && noref.contains("ddd444"), qPrintable(noref));
    const QString dangling = message("org/dangling");
    QVERIFY2(dangling.contains("fff666") && dangling.contains("missing"), qPrintable(dangling));
}

void TestHfCache::trainConfigModelPathById() {
    QTemporaryDir tmp;
    const fs::path root(tmp.path().toStdString());
    makeCachedModel(root / "hub", "org", "tiny", {"abc123"}, "abc123");
    qputenv("HF_HUB_CACHE", QByteArray::fromStdString((root / "hub").string()));
    auto doc = nlohmann::json::parse(R"({"model": {"path": "org/tiny"}, "data": {"train": "train.jsonl"},
        "training": {"output_dir": "out", "max_steps": 10}, "deepspeed": {"train_micro_batch_size_per_gpu": 2}})");
    auto r = parseTrainConfig(doc, root / "cfg");
    QVERIFY2(r.ok(), r.errorText().c_str());
    QCOMPARE(r.config->model.path, root / "hub" / "models--org--tiny" / "snapshots" / "abc123");
    QCOMPARE(r.config->model.tokenizer, r.config->model.path / "tokenizer.json");
    // A folder of that name next to the config wins over the cache.
    fs::create_directories(root / "cfg" / "org" / "tiny");
    r = parseTrainConfig(doc, root / "cfg");
    QVERIFY(r.ok());
    QCOMPARE(r.config->model.path, root / "cfg" / "org" / "tiny");
    // Neither a folder nor cached: an error at model.path naming the folder and every cache folder searched.
    qputenv("HUGGINGFACE_HUB_CACHE", QByteArray::fromStdString((root / "legacy").string()));
    qputenv("HF_HOME", QByteArray::fromStdString((root / "hfhome").string()));
    qputenv("XDG_CACHE_HOME", QByteArray::fromStdString((root / "xdg").string()));
    doc["model"]["path"] = "org/other";
    r = parseTrainConfig(doc, root / "cfg");
    QVERIFY(!r.ok());
    const ConfigIssue* issue = nullptr;
    for (const auto& i : r.issues)
        if (i.keyPath == "model.path" && i.isError) issue = &i;
    QVERIFY2(issue, r.errorText().c_str());
    const QString msg = QString::fromStdString(issue->message);
    for (const fs::path& searched :
         {root / "cfg" / "org" / "other", root / "hub" / "models--org--other", root / "legacy" / "models--org--other",
          root / "hfhome" / "hub" / "models--org--other", root / "xdg" / "huggingface" / "hub" / "models--org--other"})
        QVERIFY2(msg.contains(QString::fromStdString(searched.string())), qPrintable(msg));
    // Without XDG_CACHE_HOME, huggingface_hub's default under HOME is the last place.
    qunsetenv("XDG_CACHE_HOME");
    r = parseTrainConfig(doc, root / "cfg");
    QVERIFY(!r.ok());
    const QString home = QString::fromLocal8Bit(qgetenv("HOME"));
    QVERIFY2(QString::fromStdString(r.errorText()).contains(home + "/.cache/huggingface/hub/models--org--other"),
             r.errorText().c_str());
    qunsetenv("HF_HUB_CACHE");
    qunsetenv("HUGGINGFACE_HUB_CACHE");
    qunsetenv("HF_HOME");
}

QTEST_APPLESS_MAIN(TestHfCache)
#include "test_hf_cache.moc"
