// editJsonText / editedJsonText (core/util/json_text_edit.h, through ui/json_text_edit.h): one key's value edited in the text, every other byte as
// written: replaced in place, inserted in the object's layout (one line or one member per line, missing parents
// created), removed with its separator (empty parents pruned as removeJsonAt prunes them); numbers in their short
// spelling; the whole document written out only where an edit cannot be made in place.
#include <QTest>

#include "core/util/json_parse.h"
#include "ui/json_text_edit.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

namespace {

const char* kDoc = R"({
  "model": {"path": "model", "init": "random"},
  "training": {
    "max_steps": 200,
    "output_dir": "out"
  },
  "deepspeed": {
    "bf16": { "enabled": false },
    "optimizer": {"type": "AdamW", "params": {"lr": 0.003, "eps": 1e-8}},
    "zero_optimization": {"stage": 0}
  }
}
)";

QString edit(const QString& text, const char* key, const std::optional<OrderedJson>& value) {
    const std::optional<QString> out = editJsonText(text, QString::fromUtf8(key), value);
    return out ? *out : QStringLiteral("<nullopt>");
}

// The edited text reads back as the document with the same edit made by setJsonAt / removeJsonAt.
bool sameAsDocumentEdit(const QString& text, const QString& edited, const char* key,
                        const std::optional<OrderedJson>& value) {
    OrderedJson doc = parseOrderedJsonOrDiscarded(text.toStdString());
    if (value)
        setJsonAt(doc, QString::fromLatin1(key), *value);
    else
        removeJsonAt(doc, QString::fromLatin1(key));
    return parseOrderedJsonOrDiscarded(edited.toStdString()) == doc;
}

}  // namespace

class TestJsonTextEdit : public QObject {
    Q_OBJECT
private slots:
    void replacesOnlyTheValue() {
        const QString doc = QString::fromLatin1(kDoc);
        const QString out = edit(doc, "deepspeed.optimizer.params.lr", OrderedJson(0.0001));
        QString want = doc;
        want.replace(QStringLiteral("\"lr\": 0.003"), QStringLiteral("\"lr\": 0.0001"));
        QCOMPARE(out, want);  // "1e-8", the one-line objects, the spaces inside { "enabled": false } all kept
        QCOMPARE(edit(doc, "training.max_steps", OrderedJson(50)),
                 QString(doc).replace(QStringLiteral("200"), QStringLiteral("50")));
        QCOMPARE(
            edit(doc, "deepspeed.bf16.enabled", OrderedJson(true)),
            QString(doc).replace(QStringLiteral("{ \"enabled\": false }"), QStringLiteral("{ \"enabled\": true }")));
    }

    void insertsInTheObjectsLayout() {
        const QString doc = QString::fromLatin1(kDoc);
        // one member per line: a new line with the same indentation
        QString out = edit(doc, "training.seed", OrderedJson(7));
        QVERIFY2(out.contains(QStringLiteral("\"output_dir\": \"out\",\n    \"seed\": 7\n  }")), qPrintable(out));
        QVERIFY(sameAsDocumentEdit(doc, out, "training.seed", OrderedJson(7)));
        // a one-line object: ", " and the member
        out = edit(doc, "model.tokenizer", OrderedJson("tok.json"));
        QVERIFY2(
            out.contains(QStringLiteral("{\"path\": \"model\", \"init\": \"random\", \"tokenizer\": \"tok.json\"}")),
            qPrintable(out));
        // missing parents become one nested value
        out = edit(doc, "deepspeed.zero_optimization.offload_optimizer.device", OrderedJson("cpu"));
        QVERIFY2(out.contains(QStringLiteral("{\"stage\": 0, \"offload_optimizer\": {\"device\": \"cpu\"}}")),
                 qPrintable(out));
        out = edit(doc, "data.train", OrderedJson("train.jsonl"));
        QVERIFY(sameAsDocumentEdit(doc, out, "data.train", OrderedJson("train.jsonl")));
        QVERIFY2(out.contains(QStringLiteral("},\n  \"data\": {\"train\": \"train.jsonl\"}\n}")), qPrintable(out));
        QCOMPARE(edit(QStringLiteral("{}"), "a.b", OrderedJson(1)), QStringLiteral("{\"a\": {\"b\": 1}}"));
    }

    void removesWithItsSeparator() {
        const QString doc = QString::fromLatin1(kDoc);
        QCOMPARE(edit(doc, "model.path", std::nullopt),
                 QString(doc).replace(QStringLiteral("{\"path\": \"model\", \"init\""), QStringLiteral("{\"init\"")));
        QCOMPARE(edit(doc, "model.init", std::nullopt),
                 QString(doc).replace(QStringLiteral(", \"init\": \"random\""), QString()));
        // the only member of zero_optimization: the object goes too (as removeJsonAt prunes it)
        const QString out = edit(doc, "deepspeed.zero_optimization.stage", std::nullopt);
        QVERIFY(!out.contains(QLatin1String("zero_optimization")));
        QVERIFY(sameAsDocumentEdit(doc, out, "deepspeed.zero_optimization.stage", std::nullopt));
        QCOMPARE(edit(doc, "no.such.key", std::nullopt), doc);
        for (const char* key : {"training.output_dir", "deepspeed.bf16.enabled", "deepspeed.optimizer"})
            QVERIFY2(sameAsDocumentEdit(doc, edit(doc, key, std::nullopt), key, std::nullopt), key);
    }

    void whatCannotBeEditedInPlace() {
        QCOMPARE(edit(QStringLiteral("{\"a\": 3}"), "a.b", OrderedJson(1)), QStringLiteral("<nullopt>"));
        QCOMPARE(edit(QStringLiteral("[1, 2]"), "a", OrderedJson(1)), QStringLiteral("<nullopt>"));
        QCOMPARE(edit(QStringLiteral("{\"a\": }"), "a", OrderedJson(1)), QStringLiteral("<nullopt>"));
        // escaped and non-ASCII keys are matched decoded
        QCOMPARE(edit(QStringLiteral("{\"caf\\u00e9\": 1, \"q\\\"\": 2}"), "café", OrderedJson(5)),
                 QStringLiteral("{\"caf\\u00e9\": 5, \"q\\\"\": 2}"));
        // editedJsonText: in place where it can, the whole document where it cannot
        const OrderedJson before = parseOrderedJsonOrDiscarded("{\"a\": 3, \"b\": 1e-8}");
        OrderedJson after = before;
        after["a"] = 4;
        QCOMPARE(editedJsonText(QStringLiteral("{\"a\": 3, \"b\": 1e-8}"), before, after, {QStringLiteral("a")}),
                 QStringLiteral("{\"a\": 4, \"b\": 1e-8}"));
        after["b"] = 2;  // changed, but not among the keys named: the text would not read back as `after`
        QCOMPARE(editedJsonText(QStringLiteral("{\"a\": 3, \"b\": 1e-8}"), before, after, {QStringLiteral("a")}),
                 QString::fromStdString(after.dump(2)) + QLatin1Char('\n'));
    }

    void numbersInTheirShortSpelling() {
        QCOMPARE(jsonValueText(OrderedJson(1e-8)), std::string("1e-8"));
        QCOMPARE(jsonValueText(OrderedJson(0.003)), std::string("0.003"));
        QCOMPARE(jsonValueText(OrderedJson(2.0)), std::string("2.0"));
        QCOMPARE(jsonValueText(OrderedJson(1e20)), std::string("1e20"));
        QCOMPARE(jsonValueText(OrderedJson(-2.5e-5)), std::string("-2.5e-5"));
        QCOMPARE(jsonValueText(OrderedJson(16)), std::string("16"));
        QCOMPARE(jsonValueText(OrderedJson::parse(R"({"betas": [0.9, 0.95], "x": null})")),
                 std::string("{\"betas\": [0.9, 0.95], \"x\": null}"));
    }
};

QTEST_MAIN(TestJsonTextEdit)
#include "test_json_text_edit.moc"
