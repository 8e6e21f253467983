// Classification data: sentence pairs with token types and longest_first truncation equal transformers'
// tokenizer (pair_encodings.json, make_goldens.py), the label column typed and ordered as run_glue.py /
// run_classification.py do for every file kind, hold-out splits, bad rows and errors naming file, line and column.
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/data/classification_dataset.h"
#include "core/data/tokenizer.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

namespace fs = std::filesystem;
using namespace fts;
using nlohmann::json;

namespace {
const fs::path kData = fs::path(FTS_TEST_DATA_DIR) / "classification";

std::unique_ptr<Tokenizer> bertTokenizer() { return Tokenizer::fromFile(kData / "tokenizer" / "tokenizer.json"); }

ClassificationOptions options(const std::string& train, const std::string& eval = "") {
    ClassificationOptions o;
    o.trainPath = kData / train;
    if (!eval.empty()) o.evalPath = kData / eval;
    o.maxLength = 64;
    return o;
}

fs::path write(const fs::path& dir, const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return dir / name;
}

std::vector<std::string> names(std::initializer_list<const char*> l) { return {l.begin(), l.end()}; }
}  // namespace

class TestClassificationDataset : public QObject {
    Q_OBJECT
private slots:
    void pairsEqualTransformers();
    void labelKindsAndOrder();
    void modelLabelOrderWins();
    void holdsOutEvalRows();
    void badRowsAndErrors();
    void columnTypingAndLimits();
};

void TestClassificationDataset::pairsEqualTransformers() {
    auto tok = bertTokenizer();
    const json cases = json::parse(readFile(kData / "pair_encodings.json"));
    QVERIFY(cases.size() > 200);
    int truncatedPairs = 0;
    for (const json& c : cases) {
        std::optional<std::string_view> pair;
        const std::string b = c["text_pair"].is_null() ? "" : c["text_pair"].get<std::string>();
        if (!c["text_pair"].is_null()) pair = b;
        const Tokenizer::Encoded e =
            tok->encodeTruncated(c["text"].get<std::string>(), pair, c["max_length"].get<int64_t>());
        const auto ids = c["ids"].get<std::vector<int32_t>>();
        const auto types = c["token_type_ids"].get<std::vector<int>>();
        QCOMPARE(e.ids, ids);
        QCOMPARE(std::vector<int>(e.typeIds.begin(), e.typeIds.end()), types);
        truncatedPairs += (pair && e.truncated) ? 1 : 0;
    }
    QVERIFY(truncatedPairs > 50);  // the golden exercises longest_first, not only short rows
    QVERIFY_THROWS_EXCEPTION(FormatError,
                             tok->encodeTruncated("a b", std::string_view("c"), 3));  // no room after [CLS] [SEP] [SEP]
}

void TestClassificationDataset::labelKindsAndOrder() {
    auto tok = bertTokenizer();
    // TSV, integers read from text: classes 0 and 1 in numeric order; pairs with token types.
    ClassificationOptions o = options("mrpc_train.tsv", "mrpc_eval.tsv");
    o.columns = {"#1 String", "#2 String", "Quality"};
    ClassificationData d = buildClassificationData(o, *tok);
    QCOMPARE(int(d.kind), int(LabelKind::SingleLabel));
    QCOMPARE(d.labelNames, names({"0", "1"}));
    QVERIFY(d.pairs);
    QCOMPARE(d.train.size(), int64_t(64));
    QCOMPARE(d.eval.size(), int64_t(16));
    QCOMPARE(d.badRows, int64_t(0));
    QCOMPARE(d.trainLabelCounts[0] + d.trainLabelCounts[1], int64_t(64));
    QVERIFY(std::count(d.train.typeIds.begin(), d.train.typeIds.end(), 1) > 64);
    // Strings sort by code point: equivalent (0) before not_equivalent (1).
    o = options("mrpc_strings_train.tsv", "mrpc_strings_eval.tsv");
    o.columns = {"#1 String", "#2 String", "Quality"};
    d = buildClassificationData(o, *tok);
    QCOMPARE(d.labelNames, names({"equivalent", "not_equivalent"}));
    // The same rows from CSV, a JSON array and JSONL give the same ids and targets.
    ClassificationData csv = buildClassificationData(options("imdb_train.csv"), *tok);
    ClassificationData array = buildClassificationData(options("imdb_train.json"), *tok);
    ClassificationData lines = buildClassificationData(options("imdb_train.jsonl"), *tok);
    QVERIFY(!csv.pairs);
    QCOMPARE(csv.labelNames, names({"0", "1"}));
    QCOMPARE(csv.train.inputIds, array.train.inputIds);
    QCOMPARE(csv.train.inputIds, lines.train.inputIds);
    QCOMPARE(csv.train.targets, lines.train.targets);
    QCOMPARE(array.train.targets, lines.train.targets);
    QCOMPARE(csv.train.lines.front(), int64_t(2));  // the header is line 1
    // Floats: regression, one value per row, no label names.
    d = buildClassificationData(options("regression_train.jsonl"), *tok);
    QCOMPARE(int(d.kind), int(LabelKind::Regression));
    QVERIFY(d.labelNames.empty());
    QCOMPARE(d.numLabels(), int64_t(1));
    QCOMPARE(d.train.targets.size(), size_t(d.train.size()));
    QCOMPARE(d.train.targets[0], 5.0f);
    // Lists: multi-label indicators over the sorted names.
    d = buildClassificationData(options("multilabel_train.jsonl"), *tok);
    QCOMPARE(int(d.kind), int(LabelKind::MultiLabel));
    QCOMPARE(d.targetWidth, int64_t(d.labelNames.size()));
    QVERIFY(std::is_sorted(d.labelNames.begin(), d.labelNames.end()));
    const auto sports = std::find(d.labelNames.begin(), d.labelNames.end(), "sports") - d.labelNames.begin();
    QCOMPARE(d.train.targets[size_t(sports)], 1.0f);  // row 1: ["sports"]
    float row1 = 0.0f;
    for (int64_t k = 0; k < d.targetWidth; ++k) row1 += d.train.targets[size_t(k)];
    QCOMPARE(row1, 1.0f);
}

void TestClassificationDataset::modelLabelOrderWins() {
    auto tok = bertTokenizer();
    ClassificationOptions o = options("mrpc_strings_train.tsv");
    o.columns = {"#1 String", "#2 String", "Quality"};
    o.modelLabelOrder = {"not_equivalent", "equivalent"};  // the model's id2label names exactly the data's labels
    ClassificationData d = buildClassificationData(o, *tok);
    QCOMPARE(d.labelNames, o.modelLabelOrder);
    o.modelLabelOrder = {"NOT_EQUIVALENT",
                         "Equivalent"};  // compared without case (run_glue lowercases), data spelling kept
    d = buildClassificationData(o, *tok);
    QCOMPARE(d.labelNames, names({"not_equivalent", "equivalent"}));
    o.modelLabelOrder = {"no", "yes"};  // other names: the sorted order
    d = buildClassificationData(o, *tok);
    QCOMPARE(d.labelNames, names({"equivalent", "not_equivalent"}));
}

void TestClassificationDataset::holdsOutEvalRows() {
    auto tok = bertTokenizer();
    ClassificationOptions o = options("imdb_train.jsonl");
    o.evalFraction = 0.25;
    ClassificationData a = buildClassificationData(o, *tok), b = buildClassificationData(o, *tok);
    QCOMPARE(a.eval.size(), int64_t(16));
    QCOMPARE(a.train.size(), int64_t(48));
    QCOMPARE(a.eval.lines, b.eval.lines);  // seeded
    o.seed = 7;
    ClassificationData c = buildClassificationData(o, *tok);
    QVERIFY(c.eval.lines != a.eval.lines);
    for (int64_t line : a.eval.lines)
        QVERIFY(std::find(a.train.lines.begin(), a.train.lines.end(), line) == a.train.lines.end());
}

void TestClassificationDataset::badRowsAndErrors() {
    auto tok = bertTokenizer();
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    // Bad rows are counted with file:line; an eval label the training rows lack is one of them.
    const fs::path train =
        write(dir, "t.jsonl",
              "{\"text\": \"good\", \"label\": \"pos\"}\n{\"text\": \"bad\", \"label\": \"neg\"}\n"
              "{\"text\": \"none\"}\n{\"label\": \"pos\"}\nnot json\n{\"text\": \"x\", \"label\": null}\n"
              "{\"text\": \"\", \"label\": \"pos\"}\n");
    const fs::path eval =
        write(dir, "e.jsonl", "{\"text\": \"fine\", \"label\": \"neutral\"}\n{\"text\": \"ok\", \"label\": \"pos\"}\n");
    ClassificationOptions o;
    o.trainPath = train;
    o.evalPath = eval;
    o.maxBadRowsShown = 10;
    ClassificationData d = buildClassificationData(o, *tok);
    QCOMPARE(d.train.size(), int64_t(2));
    QCOMPARE(d.eval.size(), int64_t(1));
    QCOMPARE(d.badRows, int64_t(6));
    QVERIFY(d.badRowMessages[0].find("t.jsonl:3: no 'label' field") != std::string::npos);
    QVERIFY(d.badRowMessages[1].find("t.jsonl:4: no 'text' field") != std::string::npos);
    QVERIFY(d.badRowMessages[4].find("t.jsonl:7: 'text' is empty") != std::string::npos);
    bool unknown = false;
    for (const auto& m : d.badRowMessages)
        unknown |= m.find("e.jsonl:1: label 'neutral' is not among the training labels") != std::string::npos;
    QVERIFY(unknown);
    // on_bad_row "stop" stops at the first, naming it.
    o.badRows = BadRowPolicy::Stop;
    try {
        buildClassificationData(o, *tok);
        QFAIL("expected a FormatError");
    } catch (const FormatError& e) {
        QVERIFY2(std::string(e.what()).find("t.jsonl:3") != std::string::npos, e.what());
    }
    // A label column mixing numbers and strings names both lines.
    o = ClassificationOptions();
    o.trainPath = write(dir, "mixed.jsonl", "{\"text\": \"a\", \"label\": 1}\n{\"text\": \"b\", \"label\": \"pos\"}\n");
    try {
        buildClassificationData(o, *tok);
        QFAIL("expected a FormatError");
    } catch (const FormatError& e) {
        const std::string m = e.what();
        QVERIFY2(m.find("mixed.jsonl") != std::string::npos && m.find("line 1") != std::string::npos &&
                     m.find("line 2") != std::string::npos,
                 e.what());
    }
    // A column no record has is an error naming it (not a file of bad rows).
    o = options("imdb_train.csv");
    o.columns.label = "sentiment";
    try {
        buildClassificationData(o, *tok);
        QFAIL("expected a FormatError");
    } catch (const FormatError& e) {
        QVERIFY2(std::string(e.what()).find("'sentiment'") != std::string::npos, e.what());
    }
    o = options("imdb_train.csv");
    o.columns.textPair = "premise";
    o.textPairNamed = true;
    QVERIFY_THROWS_EXCEPTION(FormatError, buildClassificationData(o, *tok));
    // A CSV label "1.5" among integers makes the column a regression target, as pandas types it.
    o = ClassificationOptions();
    o.trainPath = write(dir, "r.csv", "text,label\na,1\nb,1.5\n");
    QCOMPARE(int(buildClassificationData(o, *tok).kind), int(LabelKind::Regression));
}

void TestClassificationDataset::columnTypingAndLimits() {
    auto tok = bertTokenizer();
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    ClassificationOptions o;
    // A CSV column with any non-number is a column of strings (as pandas types it): "1", "2" and "neutral" are classes.
    o.trainPath = write(dir, "s.csv", "text,label\na,2\nb,neutral\nc,1\n");
    ClassificationData d = buildClassificationData(o, *tok);
    QCOMPARE(int(d.kind), int(LabelKind::SingleLabel));
    QCOMPARE(d.labelNames, names({"1", "2", "neutral"}));
    QCOMPARE(d.train.targets, std::vector<float>({1.0f, 2.0f, 0.0f}));
    // Multi-label integers are kept as written: 2^64-1 (beyond int64) is its own class, not "-1".
    o.trainPath = write(dir, "m.jsonl",
                        "{\"text\": \"a\", \"label\": [18446744073709551615, -1]}\n"
                        "{\"text\": \"b\", \"label\": [3]}\n");
    d = buildClassificationData(o, *tok);
    QCOMPARE(int(d.kind), int(LabelKind::MultiLabel));
    QCOMPARE(d.labelNames, names({"-1", "18446744073709551615", "3"}));
    // One class cannot train a classifier: refused naming the column.
    o.trainPath =
        write(dir, "one.jsonl", "{\"text\": \"a\", \"label\": \"pos\"}\n{\"text\": \"b\", \"label\": \"pos\"}\n");
    try {
        buildClassificationData(o, *tok);
        QFAIL("expected a FormatError");
    } catch (const FormatError& e) {
        QVERIFY2(std::string(e.what()).find("one class ('pos')") != std::string::npos, e.what());
    }
    // Any training record with the pair column makes pairs; a row without it is then a bad row.
    o.trainPath = write(dir, "p.jsonl",
                        "{\"text\": \"a\", \"label\": 0}\n{\"text\": \"b\", \"text_pair\": \"c\", \"label\": 1}\n"
                        "{\"text\": \"d\", \"text_pair\": \"e\", \"label\": 0}\n");
    d = buildClassificationData(o, *tok);
    QVERIFY(d.pairs);
    QCOMPARE(d.train.size(), int64_t(2));
    QCOMPARE(d.badRows, int64_t(1));
    QVERIFY2(d.badRowMessages[0].find("p.jsonl:1: no 'text_pair' field") != std::string::npos,
             d.badRowMessages[0].c_str());
    // An eval file without the pair column the training rows have is an error naming it.
    o.evalPath = write(dir, "e.jsonl", "{\"text\": \"a\", \"label\": 0}\n");
    QVERIFY_THROWS_EXCEPTION(FormatError, buildClassificationData(o, *tok));
    o.evalPath.clear();
    // A max_length without room for text after [CLS] A [SEP] B [SEP] is a config error before any row is read.
    o.maxLength = 3;
    try {
        buildClassificationData(o, *tok);
        QFAIL("expected a ConfigError");
    } catch (const ConfigError& e) {
        QVERIFY2(std::string(e.what()).find("data.max_length") != std::string::npos, e.what());
    }
}

QTEST_GUILESS_MAIN(TestClassificationDataset)
#include "test_classification_dataset.moc"
