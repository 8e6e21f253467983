// The new-run form against the real core parser: the JSON follows typing in the form (and back), clearing a
// field removes its key, an invalid value shows the core's own message under its field, placeholders are
// the core's resolved defaults, scheduler parameters follow the scheduler type; the value helpers.
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTest>
#include <QToolButton>

#include "core/config/memory_estimate.h"
#include "core/config/train_config.h"
#include "ui/memory_bars.h"
#include "ui/collapsible_section.h"
#include "ui/config_editor.h"
#include "ui/config_field_values.h"
#include "ui/config_form.h"

using fts::ConfigEditor;
using fts::ConfigForm;
using fts::OrderedJson;

namespace {

const QString kDir = QStringLiteral(FTS_TEST_DATA_DIR "/config");

QString readFile(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(f.readAll());
}

OrderedJson editorJson(const ConfigEditor& e) { return OrderedJson::parse(e.text().toStdString(), nullptr, false); }

// Clicks into a line edit, selects everything and types `text` (as a person would).
void typeInto(QLineEdit* edit, const QString& text) {
    QVERIFY(edit);
    edit->setFocus();
    QTest::mouseClick(edit, Qt::LeftButton);
    edit->selectAll();
    if (text.isEmpty())
        QTest::keyClick(edit, Qt::Key_Backspace);
    else
        QTest::keyClicks(edit, text);
}

// The core's resolved value for a key of a config text (what the placeholders must show).
nlohmann::json coreResolved(const QString& text, const QString& key) {
    const auto result = fts::parseTrainConfigText(text.toStdString(), kDir.toStdString());
    if (!result.ok()) return nullptr;
    const nlohmann::json resolved = fts::configToResolvedJson(*result.config);
    const nlohmann::json* at = fts::jsonAt(resolved, key);
    return at ? *at : nlohmann::json();
}

}  // namespace

class TestConfigForm : public QObject {
    Q_OBJECT
private slots:
    void formFollowsJson() {
        ConfigEditor editor;
        ConfigForm form(&editor);
        editor.setConfigText(readFile(kDir + "/full_example.json"), kDir);
        QTRY_COMPARE(form.fieldText("deepspeed.optimizer.params.lr"), QStringLiteral("0.0003"));
        QCOMPARE(form.fieldText("deepspeed.optimizer.params.betas"), QStringLiteral("0.9, 0.95"));
        QCOMPARE(form.fieldText("deepspeed.bf16.enabled"), QStringLiteral("true"));
        QCOMPARE(form.fieldText("deepspeed.scheduler.type"), QStringLiteral("WarmupCosineLR"));
        QCOMPARE(form.fieldText("deepspeed.gradient_accumulation_steps"), QStringLiteral("auto"));
        QCOMPARE(form.fieldText("training.run_name"), QStringLiteral("full-example"));
        QCOMPARE(form.fieldText("data.max_length"), QStringLiteral("256"));

        // Typing in the JSON editor: the form follows.
        QPlainTextEdit* text = editor.textEdit();
        const int pos = static_cast<int>(text->toPlainText().indexOf(QStringLiteral("\"max_length\": 256")));
        QVERIFY(pos > 0);
        QTextCursor c = text->textCursor();
        c.setPosition(pos + 14);
        c.setPosition(pos + 17, QTextCursor::KeepAnchor);
        text->setTextCursor(c);
        text->setFocus();
        QTest::keyClicks(text, QStringLiteral("512"));
        QTRY_COMPARE(form.fieldText("data.max_length"), QStringLiteral("512"));
        QVERIFY(!form.jsonBroken());
        // Broken JSON: the form says so and waits.
        QTest::keyClicks(text, QStringLiteral(",,"));
        QTRY_VERIFY(form.jsonBroken());
        QTest::keyClick(text, Qt::Key_Backspace);
        QTest::keyClick(text, Qt::Key_Backspace);
        QTRY_VERIFY(!form.jsonBroken());
    }

    void jsonFollowsForm() {
        ConfigEditor editor;
        ConfigForm form(&editor);
        editor.setConfigText(readFile(kDir + "/valid_minimal.json"), kDir);
        QTRY_VERIFY(editor.isValidated());
        QVERIFY2(!editor.hasErrors(), qPrintable(editor.issues().value(0).message));

        typeInto(qobject_cast<QLineEdit*>(form.fieldWidget("deepspeed.optimizer.params.lr")), QStringLiteral("5e-4"));
        OrderedJson doc = editorJson(editor);
        QVERIFY(!doc.is_discarded());
        const double lr = doc["deepspeed"]["optimizer"]["params"]["lr"].get<double>();
        QCOMPARE(lr, 5e-4);
        // Keys the user wrote keep their order; the new block is appended to its parent.
        QCOMPARE(QString::fromStdString(doc.begin().key()), QStringLiteral("model"));
        QVERIFY(editor.isModified());

        typeInto(qobject_cast<QLineEdit*>(form.fieldWidget("deepspeed.optimizer.params.betas")), QStringLiteral("0.8, 0.9"));
        doc = editorJson(editor);
        QVERIFY(doc["deepspeed"]["optimizer"]["params"]["betas"] == OrderedJson::parse("[0.8, 0.9]"));

        // A choice through the keyboard: ZeRO stage 0 -> a number in the JSON.
        auto* stage = qobject_cast<QComboBox*>(form.fieldWidget("deepspeed.zero_optimization.stage"));
        QVERIFY(stage);
        stage->setFocus();
        QTest::keyClick(stage, Qt::Key_Down);  // "0" (after "default: ...")
        doc = editorJson(editor);
        QVERIFY(doc["deepspeed"]["zero_optimization"]["stage"].is_number_integer());
        const int stageValue = doc["deepspeed"]["zero_optimization"]["stage"].get<int>();
        QCOMPARE(stageValue, 0);
        QTest::keyClick(stage, Qt::Key_Up);  // back to "default": the key and its emptied block go
        doc = editorJson(editor);
        QVERIFY(!doc["deepspeed"].contains("zero_optimization"));

        // Clearing a field removes the key (and only it).
        typeInto(qobject_cast<QLineEdit*>(form.fieldWidget("deepspeed.optimizer.params.lr")), QString());
        doc = editorJson(editor);
        QVERIFY(!doc["deepspeed"]["optimizer"]["params"].contains("lr"));
        QVERIFY(doc["deepspeed"]["optimizer"]["params"].contains("betas"));

        // An optimizer block needs its type (the core's rule): the error shows on the type's field until
        // one is picked.
        QTRY_VERIFY(editor.isValidated());
        QTRY_VERIFY(form.fieldErrorLabel("deepspeed.optimizer.type")->isVisibleTo(&form));
        auto* type = qobject_cast<QComboBox*>(form.fieldWidget("deepspeed.optimizer.type"));
        type->setFocus();
        QTest::keyClick(type, Qt::Key_Down);
        QCOMPARE(QString::fromStdString(editorJson(editor)["deepspeed"]["optimizer"]["type"].get<std::string>()),
                 QStringLiteral("AdamW"));
        // The edited config is valid for the core.
        QTRY_VERIFY(editor.isValidated());
        QVERIFY2(!editor.hasErrors(), qPrintable(editor.issues().value(0).message));
    }

    void inlineError_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::newRow("text in a number") << "data.max_length" << "abc";
        QTest::newRow("out of range") << "data.eval_fraction" << "1.5";
        QTest::newRow("bad choice") << "training.device" << "tpu";
        QTest::newRow("bad batch") << "deepspeed.train_batch_size" << "7";
    }
    void inlineError() {
        QFETCH(QString, key);
        QFETCH(QString, value);
        ConfigEditor editor;
        ConfigForm form(&editor);
        editor.setConfigText(readFile(kDir + "/valid_minimal.json"), kDir);
        QTRY_VERIFY(editor.isValidated());
        QWidget* w = form.fieldWidget(key);
        if (auto* edit = qobject_cast<QLineEdit*>(w)) {
            typeInto(edit, value);
        } else {
            auto* combo = qobject_cast<QComboBox*>(w);
            QVERIFY(combo && combo->isEditable());
            typeInto(combo->lineEdit(), value);
        }
        QTRY_VERIFY(editor.isValidated());
        QVERIFY(editor.hasErrors());
        // The core's message for this key, shown under the field.
        const auto result = fts::parseTrainConfigText(editor.text().toStdString(), kDir.toStdString());
        QString coreMessage;
        for (const auto& issue : result.issues)
            if (issue.isError && ConfigForm::fieldForIssue(QString::fromStdString(issue.keyPath)) == key)
                coreMessage = QString::fromStdString(issue.message);
        QVERIFY2(!coreMessage.isEmpty(), "the core reports no error for this key");
        QLabel* error = form.fieldErrorLabel(key);
        QTRY_VERIFY(error->isVisibleTo(&form));
        QVERIFY2(error->text().contains(coreMessage), qPrintable(error->text()));
        const fts::ConfigField* field = fts::findConfigField(key);
        QVERIFY(form.section(field->section)->header()->text().contains(QLatin1Char('1')));
        // Fixing it clears the message.
        QWidget* w2 = form.fieldWidget(key);
        typeInto(qobject_cast<QLineEdit*>(w2) ? qobject_cast<QLineEdit*>(w2) : qobject_cast<QComboBox*>(w2)->lineEdit(),
                 QString());
        QTRY_VERIFY(editor.isValidated() && !editor.hasErrors());
        QTRY_VERIFY(!error->isVisibleTo(&form));
    }

    void placeholdersAreCoreDefaults_data() {
        QTest::addColumn<QString>("key");
        QTest::newRow("eval_fraction") << "data.eval_fraction";
        QTest::newRow("max_length") << "data.max_length";
        QTest::newRow("lr") << "deepspeed.optimizer.params.lr";
        QTest::newRow("accumulation (derived)") << "deepspeed.gradient_accumulation_steps";
        QTest::newRow("global batch (derived)") << "deepspeed.train_batch_size";
        QTest::newRow("keep_checkpoints") << "training.keep_checkpoints";
        QTest::newRow("clipping") << "deepspeed.gradient_clipping";
    }
    void placeholdersAreCoreDefaults() {
        QFETCH(QString, key);
        ConfigEditor editor;
        ConfigForm form(&editor);
        const QString text = readFile(kDir + "/valid_minimal.json");
        editor.setConfigText(text, kDir);
        QTRY_VERIFY(editor.isValidated());
        const nlohmann::json expected = coreResolved(text, key);
        QVERIFY(!expected.is_null());
        auto* edit = qobject_cast<QLineEdit*>(form.fieldWidget(key));
        QVERIFY(edit);
        QCOMPARE(edit->text(), QString());
        QCOMPARE(edit->placeholderText(), QString::fromStdString(expected.dump()));
    }

    // The estimate bar follows the fields: its total is the core's estimateMemory of the current config; a
    // micro-batch far too large for this host shows the core's suggestions.
    void memoryEstimateFollowsFields() {
        ConfigEditor editor;
        ConfigForm form(&editor);
        editor.setConfigText(readFile(kDir + "/valid_minimal.json"), kDir);
        const auto coreTotal = [&] {
            const auto result = fts::parseTrainConfigText(editor.text().toStdString(), kDir.toStdString());
            fts::EstimateOptions eo;
            eo.deviceCapacity = fts::hostMemory().second;
            return fts::estimateMemory(*result.config, eo);
        };
        QTRY_VERIFY(editor.isValidated() && !editor.estimateJson().isEmpty());
        QCOMPARE(form.estimateBars()->bars().size(), 1);
        QCOMPARE(form.estimateBars()->bars()[0].allocated, coreTotal().perRank.total);
        const int64_t small = form.estimateBars()->bars()[0].allocated;

        typeInto(qobject_cast<QLineEdit*>(form.fieldWidget("deepspeed.train_micro_batch_size_per_gpu")), QStringLiteral("64"));
        QTRY_VERIFY(editor.isValidated() && form.estimateBars()->bars().value(0).allocated != small);
        QCOMPARE(form.estimateBars()->bars()[0].allocated, coreTotal().perRank.total);
        QVERIFY(form.estimateBars()->bars()[0].allocated > small);

        typeInto(qobject_cast<QLineEdit*>(form.fieldWidget("deepspeed.train_micro_batch_size_per_gpu")), QStringLiteral("4000000"));
        QTRY_VERIFY(editor.isValidated() && form.estimateBars()->bars().value(0).allocated > fts::hostMemory().second);
        const fts::MemoryEstimate e = coreTotal();
        QVERIFY(!e.fits);
        QVERIFY(!e.suggestions.empty());
        QVERIFY2(form.estimateText()->text().contains(QString::fromStdString(e.suggestions.front().description).toHtmlEscaped()),
                 qPrintable(form.estimateText()->text()));
    }

    void schedulerParamsFollowType() {
        ConfigEditor editor;
        ConfigForm form(&editor);
        editor.setConfigText(readFile(kDir + "/valid_minimal.json"), kDir);
        QTRY_VERIFY(editor.isValidated());
        QVERIFY(!form.isFieldShown("deepspeed.scheduler.params.cos_min_ratio"));
        form.setFieldText("deepspeed.scheduler.type", QStringLiteral("WarmupCosineLR"));
        QTRY_VERIFY(form.isFieldShown("deepspeed.scheduler.params.cos_min_ratio"));
        QVERIFY(!form.isFieldShown("deepspeed.scheduler.params.warmup_min_lr"));
        form.setFieldText("deepspeed.scheduler.type", QStringLiteral("WarmupLR"));
        QTRY_VERIFY(form.isFieldShown("deepspeed.scheduler.params.warmup_min_lr"));
        QVERIFY(!form.isFieldShown("deepspeed.scheduler.params.cos_min_ratio"));
    }

    void fieldForIssue_data() {
        QTest::addColumn<QString>("issue");
        QTest::addColumn<QString>("field");
        QTest::newRow("exact") << "data.max_length" << "data.max_length";
        QTest::newRow("array element") << "deepspeed.optimizer.params.betas[1]" << "deepspeed.optimizer.params.betas";
        QTest::newRow("block") << "deepspeed.fp16" << "deepspeed.fp16.enabled";
        QTest::newRow("unknown") << "deepspeed.wandb" << "";
        QTest::newRow("empty") << "" << "";
    }
    void fieldForIssue() {
        QFETCH(QString, issue);
        QFETCH(QString, field);
        QCOMPARE(ConfigForm::fieldForIssue(issue), field);
    }

    void valueHelpers_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("json");  // "" = absent
        using K = fts::FieldKind;
        QTest::newRow("int") << int(K::Integer) << "8" << "8";
        QTest::newRow("auto") << int(K::Integer) << "auto" << "\"auto\"";
        QTest::newRow("garbage stays a string") << int(K::Number) << "1e-" << "\"1e-\"";
        QTest::newRow("double") << int(K::Number) << "3e-4" << "0.0003";
        QTest::newRow("empty = absent") << int(K::Number) << "  " << "";
        QTest::newRow("list") << int(K::NumberList) << "0.9, 0.95" << "[0.9,0.95]";
        QTest::newRow("bool") << int(K::Boolean) << "true" << "true";
        QTest::newRow("path with spaces") << int(K::FilePath) << "a b/c.json" << "\"a b/c.json\"";
        QTest::newRow("numeric choice") << int(K::Choice) << "2" << "2";
        QTest::newRow("text choice") << int(K::Choice) << "cpu" << "\"cpu\"";
    }
    void valueHelpers() {
        QFETCH(int, kind);
        QFETCH(QString, text);
        QFETCH(QString, json);
        const auto value = fts::jsonFromFieldText(fts::FieldKind(kind), text);
        QCOMPARE(value ? QString::fromStdString(value->dump()) : QString(), json);
        if (value) QCOMPARE(fts::fieldTextFromJson(fts::FieldKind(kind), *value).remove(' '), text.trimmed().remove(' ') == "3e-4" ? "0.0003" : text.trimmed().remove(' '));
    }

    void removePrunesEmptyParents() {
        OrderedJson doc = OrderedJson::parse(R"({"a": {"b": {"c": 1}}, "d": 2})");
        fts::removeJsonAt(doc, QStringLiteral("a.b.c"));
        QCOMPARE(QString::fromStdString(doc.dump()), QStringLiteral("{\"d\":2}"));
        fts::setJsonAt(doc, QStringLiteral("x.y"), 3);
        QCOMPARE(QString::fromStdString(doc.dump()), QStringLiteral("{\"d\":2,\"x\":{\"y\":3}}"));
        fts::removeJsonAt(doc, QStringLiteral("x.z"));  // absent: no change
        QCOMPARE(QString::fromStdString(doc.dump()), QStringLiteral("{\"d\":2,\"x\":{\"y\":3}}"));
    }
};

QTEST_MAIN(TestConfigForm)
#include "test_config_form.moc"
