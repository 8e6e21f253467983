// The new-run form against the real core parser: the JSON follows typing in the form (and back), clearing a
// field removes its key, an invalid value shows the core's own message under its field, placeholders are
// the core's resolved defaults, scheduler parameters follow the scheduler type; the value helpers.
#include <QApplication>
#include <cmath>
#include <functional>
#include <QComboBox>
#include <QHBoxLayout>
#include <QScrollArea>
#include <QScrollBar>
#include <QWheelEvent>
#include <QDir>
#include <QTemporaryDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTest>
#include <QToolButton>

#include <nlohmann/json.hpp>

#include "core/config/memory_estimate.h"
#include "core/config/train_config.h"
#include "ui/memory_bars.h"
#include "ui/collapsible_section.h"
#include "ui/config_editor.h"
#include "ui/config_field_values.h"
#include "ui/app_translations.h"
#include "ui/chart_widget.h"
#include "ui/config_form.h"
#include "ui/wheel_guard.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using fts::ConfigEditor;
using fts::ConfigForm;
using fts::OrderedJson;

namespace {

const QString kDir = (QString::fromUtf8(FTS_TEST_DATA_DIR) + QStringLiteral("/config"));

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

// A 10-step config of the golden GPT-2: AdamW at `lr`, WarmupDecayLR peaking at `lr` after 2 steps, plus `params`.
QString warmupDecayConfig(double lr, const nlohmann::json& params) {
    nlohmann::json doc = nlohmann::json::parse(R"({"model": {"path": "../models/gpt2"},
      "data": {"train": "train.jsonl"}, "training": {"output_dir": "out", "max_steps": 10},
      "deepspeed": {"train_micro_batch_size_per_gpu": 2, "optimizer": {"type": "AdamW"},
                    "scheduler": {"type": "WarmupDecayLR", "params": {"warmup_num_steps": 2}}}})");
    doc["deepspeed"]["optimizer"]["params"] = {{"lr", lr}};
    doc["deepspeed"]["scheduler"]["params"]["warmup_max_lr"] = lr;
    if (params.is_object()) doc["deepspeed"]["scheduler"]["params"].update(params);
    return QString::fromStdString(doc.dump(2));
}

}  // namespace

class TestConfigForm : public QObject {
    Q_OBJECT
private slots:
    // An "auto" decided at run start is explained for its own field: Data > Format's says the data decides, never
    // the precision's words (bf16), which stay with the precision's fields.
    void autoHintsSayWhatTheirFieldDecides() {
        ConfigEditor editor;
        ConfigForm form(&editor);
        nlohmann::json doc = nlohmann::json::parse(readFile(kDir + "/full_example.json").toStdString());
        doc["data"]["format"] = "auto";
        editor.setConfigText(QString::fromStdString(doc.dump(2)), kDir);
        QTRY_VERIFY(editor.isValidated());
        QTRY_COMPARE(form.fieldText("data.format"), QStringLiteral("auto"));
        QLabel* format = form.fieldErrorLabel(QStringLiteral("data.format"));
        QVERIFY(format);
        QTRY_VERIFY(!format->isHidden() && !format->text().isEmpty());
        QVERIFY2(!format->text().contains(QLatin1String("bf16")), qPrintable(format->text()));
        QVERIFY2(format->text().contains(QLatin1String("data")), qPrintable(format->text()));
        QVERIFY(
            ConfigForm::autoAtRunStartText(QStringLiteral("deepspeed.bf16.enabled")).contains(QLatin1String("bf16")));
    }

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

        typeInto(qobject_cast<QLineEdit*>(form.fieldWidget("deepspeed.optimizer.params.betas")),
                 QStringLiteral("0.8, 0.9"));
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
        QTest::newRow("text in a number") << "data.max_length"
                                          << "abc";
        QTest::newRow("out of range") << "data.eval_fraction"
                                      << "1.5";
        QTest::newRow("bad choice") << "training.device"
                                    << "tpu";
        QTest::newRow("bad batch") << "deepspeed.train_batch_size"
                                   << "7";
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

        typeInto(qobject_cast<QLineEdit*>(form.fieldWidget("deepspeed.train_micro_batch_size_per_gpu")),
                 QStringLiteral("64"));
        QTRY_VERIFY(editor.isValidated() && form.estimateBars()->bars().value(0).allocated != small);
        QCOMPARE(form.estimateBars()->bars()[0].allocated, coreTotal().perRank.total);
        QVERIFY(form.estimateBars()->bars()[0].allocated > small);

        typeInto(qobject_cast<QLineEdit*>(form.fieldWidget("deepspeed.train_micro_batch_size_per_gpu")),
                 QStringLiteral("4000000"));
        QTRY_VERIFY(editor.isValidated() && form.estimateBars()->bars().value(0).allocated > fts::hostMemory().second);
        const fts::MemoryEstimate e = coreTotal();
        QVERIFY(!e.fits);
        QVERIFY(!e.suggestions.empty());
        QVERIFY2(form.estimateText()->text().contains(
                     QString::fromStdString(e.suggestions.front().description).toHtmlEscaped()),
                 qPrintable(form.estimateText()->text()));
    }

    // No estimate for a model folder without config.json: in Chinese the reason is Chinese (the core's not-found
    // message, said from the catalogue), not "无法估算：… cannot read the model's config.json".
    void estimateReasonInChinese() {
        fts::installStudioTranslations(QStringLiteral("zh_CN"));
        ConfigEditor editor;
        ConfigForm form(&editor);
        QTemporaryDir dir;
        QDir(dir.path()).mkpath(QStringLiteral("empty-model"));
        nlohmann::json doc = nlohmann::json::parse(readFile(kDir + "/valid_minimal.json").toStdString());
        doc["model"]["path"] = dir.filePath(QStringLiteral("empty-model")).toStdString();
        editor.setConfigText(QString::fromStdString(doc.dump(2)), kDir);
        QTRY_VERIFY(editor.isValidated());
        QTRY_VERIFY(!form.estimateText()->text().isEmpty());
        const QString text = form.estimateText()->text();
        fts::installStudioTranslations(QStringLiteral("en"));
        QVERIFY2(text.contains(QStringLiteral("未找到")) && text.contains(QStringLiteral("模型文件夹需要 config.json")),
                 qPrintable(text));
        QVERIFY2(!text.contains(QLatin1String("cannot")) && !text.contains(QLatin1String("not found")),
                 qPrintable(text));
    }

    // An edit in the form changes only its key's text: a one-line object, "1e-8" and the file's layout stay byte for
    // byte (the whole file used to be written out again, expanded and with 1e-08). A new key goes in after its
    // siblings in their layout.
    void oneEditLeavesTheRestOfTheText() {
        ConfigEditor editor;
        ConfigForm form(&editor);
        const QString text = QStringLiteral(R"({
  "model": {"path": "model", "init": "random"},
  "data": {"train": "train.jsonl", "max_length": 64},
  "training": {"output_dir": "out", "max_steps": 20},
  "deepspeed": {
    "train_micro_batch_size_per_gpu": 2,
    "optimizer": {"type": "AdamW", "params": {"lr": 0.003, "eps": 1e-8}},
    "zero_optimization": { "stage": 0 }
  }
}
)");
        editor.setConfigText(text, kDir);
        QTRY_VERIFY(editor.isValidated());
        form.setFieldText("training.max_steps", QStringLiteral("35"));
        QTRY_COMPARE(editor.text(),
                     QString(text).replace(QStringLiteral("\"max_steps\": 20"), QStringLiteral("\"max_steps\": 35")));
        form.setFieldText("training.seed", QStringLiteral("7"));
        QTRY_COMPARE(
            editor.text(),
            QString(text)
                .replace(QStringLiteral("\"max_steps\": 20"), QStringLiteral("\"max_steps\": 35"))
                .replace(QStringLiteral("\"max_steps\": 35}"), QStringLiteral("\"max_steps\": 35, \"seed\": 7}")));
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

    // Method: choosing LoRA writes model.lora and shows its rows; its keys follow typing; the core's error on
    // a LoRA key shows under it; back to full fine-tuning removes the block and hides the rows.
    void loraRowsFollowTheMethod() {
        ConfigEditor editor;
        ConfigForm form(&editor);
        editor.setConfigText(readFile(kDir + "/valid_minimal.json"), kDir);
        QTRY_VERIFY(editor.isValidated());
        QVERIFY(!form.isFieldShown("model.lora.r"));
        auto* method = qobject_cast<QComboBox*>(form.fieldWidget("model.lora"));
        QVERIFY(method);
        QCOMPARE(method->currentIndex(), 0);
        method->setFocus();
        QTest::keyClick(method, Qt::Key_Down);  // "LoRA adapters"
        OrderedJson doc = editorJson(editor);
        QVERIFY(doc["model"]["lora"] == OrderedJson::object());
        QTRY_VERIFY(form.isFieldShown("model.lora.r") && form.isFieldShown("model.lora.target_modules"));
        // The core's defaults for an empty block are the placeholders.
        QTRY_VERIFY(editor.isValidated());
        QVERIFY2(!editor.hasErrors(), qPrintable(editor.issues().value(0).message));
        const nlohmann::json coreR = coreResolved(editor.text(), "model.lora.r");
        QVERIFY(coreR.is_number_integer());
        QTRY_COMPARE(qobject_cast<QLineEdit*>(form.fieldWidget("model.lora.r"))->placeholderText(),
                     QString::fromStdString(coreR.dump()));

        typeInto(qobject_cast<QLineEdit*>(form.fieldWidget("model.lora.r")), QStringLiteral("16"));
        typeInto(qobject_cast<QLineEdit*>(form.fieldWidget("model.lora.target_modules")),
                 QStringLiteral("c_attn, c_proj"));
        doc = editorJson(editor);
        QCOMPARE(doc["model"]["lora"]["r"].get<int>(), 16);
        QVERIFY(doc["model"]["lora"]["target_modules"] == OrderedJson::parse(R"(["c_attn", "c_proj"])"));
        QCOMPARE(QString::fromStdString(doc.begin().key()), QStringLiteral("model"));  // order kept
        // The method combo keeps the block (it never overwrites the keys typed so far).
        QTRY_VERIFY(editor.isValidated());
        QCOMPARE(method->currentIndex(), 1);

        // An invalid value: the core's own message under the field.
        typeInto(qobject_cast<QLineEdit*>(form.fieldWidget("model.lora.lora_dropout")), QStringLiteral("1.5"));
        QTRY_VERIFY(editor.isValidated() && editor.hasErrors());
        const auto result = fts::parseTrainConfigText(editor.text().toStdString(), kDir.toStdString());
        QString coreMessage;
        for (const auto& issue : result.issues)
            if (issue.isError && issue.keyPath == "model.lora.lora_dropout")
                coreMessage = QString::fromStdString(issue.message);
        QVERIFY(!coreMessage.isEmpty());
        QTRY_VERIFY(form.fieldErrorLabel("model.lora.lora_dropout")->isVisibleTo(&form));
        QVERIFY2(form.fieldErrorLabel("model.lora.lora_dropout")->text().contains(coreMessage),
                 qPrintable(form.fieldErrorLabel("model.lora.lora_dropout")->text()));

        // The JSON side: a regex target typed in the editor shows as typed.
        doc = editorJson(editor);
        doc["model"]["lora"]["target_modules"] = ".*\\.(c_attn|c_proj)";
        doc["model"]["lora"].erase("lora_dropout");
        editor.replaceText(QString::fromStdString(doc.dump(2)));
        QTRY_COMPARE(form.fieldText("model.lora.target_modules"), QStringLiteral(".*\\.(c_attn|c_proj)"));

        // Back to full fine-tuning: the block goes, the rows hide.
        method->setFocus();
        QTest::keyClick(method, Qt::Key_Up);
        doc = editorJson(editor);
        QVERIFY(!doc["model"].contains("lora"));
        QTRY_VERIFY(!form.isFieldShown("model.lora.r"));
    }

    // The instruction-data rows appear with an instruction format and write their keys (columns included).
    void instructionDataRows() {
        ConfigEditor editor;
        ConfigForm form(&editor);
        editor.setConfigText(readFile(kDir + "/valid_minimal.json"), kDir);
        QTRY_VERIFY(editor.isValidated());
        QVERIFY(!form.isFieldShown("data.template"));
        QVERIFY(!form.isFieldShown("data.columns.output"));
        form.setFieldText("data.format", QStringLiteral("alpaca"));
        QTRY_VERIFY(form.isFieldShown("data.template") && form.isFieldShown("data.columns.output"));
        typeInto(qobject_cast<QLineEdit*>(form.fieldWidget("data.columns.output")), QStringLiteral("response"));
        auto* packing = qobject_cast<QComboBox*>(form.fieldWidget("data.packing"));
        packing->setFocus();
        QTest::keyClick(packing, Qt::Key_Down);  // "true"
        const OrderedJson doc = editorJson(editor);
        QCOMPARE(QString::fromStdString(doc["data"]["format"].get<std::string>()), QStringLiteral("alpaca"));
        QCOMPARE(QString::fromStdString(doc["data"]["columns"]["output"].get<std::string>()),
                 QStringLiteral("response"));
        QCOMPARE(doc["data"]["packing"].get<bool>(), true);
        QTRY_VERIFY(editor.isValidated());
        QVERIFY2(!editor.hasErrors(), qPrintable(editor.issues().value(0).message));
    }

    // Every key of the core's resolved config has a form row: configs that switch on each optional part
    // (LoRA, instruction data with every column, fp16, each scheduler) are resolved by the core and walked.
    void everyCoreKeyHasARow_data() {
        QTest::addColumn<QString>("patch");  // merged into valid_minimal.json
        QTest::newRow("minimal") << "{}";
        QTest::newRow("lora") << R"({"model": {"lora": {"r": 4, "target_modules": ["c_attn"]}}})";
        QTest::newRow("instruction data") << R"({"data": {"format": "alpaca", "seed": 3, "eval": "train.jsonl",
            "columns": {"instruction": "q", "input": "i", "output": "a", "system": "s", "messages": "m",
                        "role": "r", "content": "c"}}, "training": {"run_name": "x"}})";
        QTest::newRow("fp16 + WarmupDecayLR") << R"({"deepspeed": {"fp16": {"enabled": true},
            "scheduler": {"type": "WarmupDecayLR"}}})";
        QTest::newRow("WarmupCosineLR") << R"({"deepspeed": {"scheduler": {"type": "WarmupCosineLR"}}})";
        QTest::newRow("qlora, profile") << R"({"model": {"lora": {"r": 4}, "quantization": {"load_in_4bit": true,
            "llm_int8_skip_modules": ["mlp"]}}, "training": {"profile": {"wait": 2}},
            "deepspeed": {"wall_clock_breakdown": true}})";
        QTest::newRow("dpo") << R"({"training": {"objective": "dpo"}, "data": {"format": "trl", "packing": false,
            "columns": {"prompt": "q", "chosen": "good", "rejected": "bad"}},
            "preference": {"loss_type": ["sigmoid", "discopop"], "loss_weights": [1, 0.5], "max_prompt_length": 64,
            "ref_model": "model"}})";
        QTest::newRow("simpo") << R"({"training": {"objective": "simpo"}, "data": {"packing": false}})";
        QTest::newRow("kto") << R"({"training": {"objective": "kto"}, "data": {"packing": false},
            "preference": {"undesirable_weight": 1.5, "ref_model": "model"}})";
        QTest::newRow("offload") << R"({"deepspeed": {"zero_optimization": {"stage": 3,
            "offload_optimizer": {"device": "nvme", "nvme_path": "swap"}, "offload_param": {"device": "cpu"}}}})";
    }
    void everyCoreKeyHasARow() {
        QFETCH(QString, patch);
        nlohmann::json doc = nlohmann::json::parse(readFile(kDir + "/valid_minimal.json").toStdString());
        doc.merge_patch(nlohmann::json::parse(patch.toStdString()));
        const auto result = fts::parseTrainConfigText(doc.dump(), kDir.toStdString());
        QVERIFY2(result.ok(), result.errorText().c_str());
        QStringList missing;
        std::function<void(const nlohmann::json&, const QString&)> walk = [&](const nlohmann::json& j,
                                                                              const QString& key) {
            if (j.is_object() && !j.empty()) {
                for (auto it = j.begin(); it != j.end(); ++it)
                    walk(it.value(), key.isEmpty() ? QString::fromStdString(it.key())
                                                   : key + QLatin1Char('.') + QString::fromStdString(it.key()));
                return;
            }
            if (!fts::findConfigField(key)) missing << key;
        };
        walk(fts::configToResolvedJson(*result.config), QString());
        QVERIFY2(missing.isEmpty(), qPrintable(missing.join(", ")));
    }

    void fieldForIssue_data() {
        QTest::addColumn<QString>("issue");
        QTest::addColumn<QString>("field");
        QTest::newRow("exact") << "data.max_length"
                               << "data.max_length";
        QTest::newRow("array element") << "deepspeed.optimizer.params.betas[1]"
                                       << "deepspeed.optimizer.params.betas";
        QTest::newRow("block") << "deepspeed.fp16"
                               << "deepspeed.fp16.enabled";
        QTest::newRow("unknown") << "deepspeed.wandb"
                                 << "";
        QTest::newRow("empty") << ""
                               << "";
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
        QTest::newRow("int") << int(K::Integer) << "8"
                             << "8";
        QTest::newRow("auto") << int(K::Integer) << "auto"
                              << "\"auto\"";
        QTest::newRow("garbage stays a string") << int(K::Number) << "1e-"
                                                << "\"1e-\"";
        QTest::newRow("double") << int(K::Number) << "3e-4"
                                << "0.0003";
        QTest::newRow("empty = absent") << int(K::Number) << "  "
                                        << "";
        QTest::newRow("list") << int(K::NumberList) << "0.9, 0.95"
                              << "[0.9,0.95]";
        QTest::newRow("bool") << int(K::Boolean) << "true"
                              << "true";
        QTest::newRow("path with spaces") << int(K::FilePath) << "a b/c.json"
                                          << "\"a b/c.json\"";
        QTest::newRow("numeric choice") << int(K::Choice) << "2"
                                        << "2";
        QTest::newRow("text choice") << int(K::Choice) << "cpu"
                                     << "\"cpu\"";
        QTest::newRow("names") << int(K::StringList) << "q_proj, v_proj"
                               << "[\"q_proj\",\"v_proj\"]";
        QTest::newRow("one name is a list") << int(K::StringList) << "c_attn"
                                            << "[\"c_attn\"]";
        QTest::newRow("dotted suffix") << int(K::StringList) << "attn.c_attn"
                                       << "[\"attn.c_attn\"]";
        QTest::newRow("all-linear") << int(K::StringList) << "all-linear"
                                    << "\"all-linear\"";
        QTest::newRow("regex with a comma") << int(K::StringList) << ".*(q|v){1,2}_proj"
                                            << "\".*(q|v){1,2}_proj\"";
        QTest::newRow("quoted plain string") << int(K::StringList) << "\"q_proj\""
                                             << "\"q_proj\"";
        QTest::newRow("block on") << int(K::Block) << "on"
                                  << "{}";
    }
    void valueHelpers() {
        QFETCH(int, kind);
        QFETCH(QString, text);
        QFETCH(QString, json);
        const auto value = fts::jsonFromFieldText(fts::FieldKind(kind), text);
        QCOMPARE(value ? QString::fromStdString(value->dump()) : QString(), json);
        if (value)
            QCOMPARE(fts::fieldTextFromJson(fts::FieldKind(kind), *value).remove(' '),
                     text.trimmed().remove(' ') == "3e-4" ? "0.0003" : text.trimmed().remove(' '));
    }

    // One peak learning rate: under WarmupDecayLR the Learning rate field and the scheduler's warm-up peak set
    // each other (the scheduler owns the peak); under WarmupCosineLR they stay independent.
    void learningRateLinksTheSchedulerPeak() {
        ConfigEditor editor;
        ConfigForm form(&editor);
        editor.setConfigText(warmupDecayConfig(0.003, nlohmann::json::object()), kDir);
        QTRY_VERIFY(editor.isValidated());
        const auto peak = [&] { return editorJson(editor)["deepspeed"]["scheduler"]["params"]["warmup_max_lr"]; };
        const auto lr = [&] { return editorJson(editor)["deepspeed"]["optimizer"]["params"]["lr"]; };
        typeInto(qobject_cast<QLineEdit*>(form.fieldWidget("deepspeed.optimizer.params.lr")), QStringLiteral("0.001"));
        QCOMPARE(lr().get<double>(), 0.001);
        QCOMPARE(peak().get<double>(), 0.001);
        typeInto(qobject_cast<QLineEdit*>(form.fieldWidget("deepspeed.scheduler.params.warmup_max_lr")),
                 QStringLiteral("0.0005"));
        QCOMPARE(lr().get<double>(), 0.0005);
        QCOMPARE(peak().get<double>(), 0.0005);
        QTRY_VERIFY(editor.isValidated());
        QVERIFY(!form.fieldErrorLabel("deepspeed.optimizer.params.lr")->isVisibleTo(&form));
        // "auto" stays "auto" (the Trainer fills it with the learning rate).
        OrderedJson doc = editorJson(editor);
        doc["deepspeed"]["scheduler"]["params"]["warmup_max_lr"] = "auto";
        editor.setConfigText(QString::fromStdString(doc.dump(2)), kDir);
        QTRY_COMPARE(form.fieldText("deepspeed.scheduler.params.warmup_max_lr"), QStringLiteral("auto"));
        typeInto(qobject_cast<QLineEdit*>(form.fieldWidget("deepspeed.optimizer.params.lr")), QStringLiteral("0.002"));
        QCOMPARE(lr().get<double>(), 0.002);
        QCOMPARE(QString::fromStdString(peak().get<std::string>()), QStringLiteral("auto"));
        // WarmupCosineLR: the optimizer's lr is the peak; nothing else is written.
        doc = editorJson(editor);
        doc["deepspeed"]["scheduler"] =
            OrderedJson::parse(R"({"type": "WarmupCosineLR", "params": {"total_num_steps": 10}})");
        editor.setConfigText(QString::fromStdString(doc.dump(2)), kDir);
        QTRY_COMPARE(form.fieldText("deepspeed.scheduler.type"), QStringLiteral("WarmupCosineLR"));
        typeInto(qobject_cast<QLineEdit*>(form.fieldWidget("deepspeed.optimizer.params.lr")), QStringLiteral("0.004"));
        QCOMPARE(lr().get<double>(), 0.004);
        QVERIFY(!editorJson(editor)["deepspeed"]["scheduler"]["params"].contains("warmup_max_lr"));
        // A JSON edit that makes them differ: the core's warning shows under Learning rate.
        doc = editorJson(editor);
        doc["deepspeed"]["scheduler"] =
            OrderedJson::parse(R"({"type": "WarmupDecayLR", "params": {"warmup_max_lr": 0.01}})");
        editor.setConfigText(QString::fromStdString(doc.dump(2)), kDir);
        QTRY_VERIFY(editor.isValidated());
        QTRY_VERIFY(form.fieldErrorLabel("deepspeed.optimizer.params.lr")->isVisibleTo(&form));
        QVERIFY2(form.fieldErrorLabel("deepspeed.optimizer.params.lr")->text().contains(QStringLiteral("not the peak")),
                 qPrintable(form.fieldErrorLabel("deepspeed.optimizer.params.lr")->text()));
    }

    // The lr schedule preview: the learning rate of every step before launch (WarmupDecayLR: 0 at the first
    // step, the peak after warm-up, linear decay to the end); hidden while the steps are unknown (epochs).
    void lrSchedulePreview() {
        ConfigEditor editor;
        ConfigForm form(&editor);
        editor.setConfigText(warmupDecayConfig(0.002, {{"warmup_type", "linear"}}), kDir);
        QTRY_VERIFY(editor.isValidated());
        const QVector<QPointF>& lr = editor.lrSchedule();
        QCOMPARE(lr.size(), 10);
        QCOMPARE(lr.first(), QPointF(1, 0.0));                         // update 0: warmup_min_lr
        QCOMPARE(lr[1], QPointF(2, 0.0));                              // i = 0 of the linear warm-up
        QCOMPARE(lr[2], QPointF(3, 0.001));                            // i = 1: half way
        QCOMPARE(lr[3].y(), 0.002);                                    // i = 2: the peak
        QVERIFY(std::abs(lr.last().y() - 0.002 * 2.0 / 8.0) < 1e-12);  // i = 8: (T - i) / (T - W)
        QCOMPARE(form.lrSchedulePreview()->pointCount(QStringLiteral("lr")), 10);
        QVERIFY(form.lrSchedulePreview()->isVisibleTo(&form));
        OrderedJson doc = editorJson(editor);
        doc["training"].erase("max_steps");
        doc["training"]["epochs"] = 2;
        doc["deepspeed"]["scheduler"]["params"].erase("warmup_max_lr");
        editor.setConfigText(QString::fromStdString(doc.dump(2)), kDir);
        QTRY_VERIFY(editor.isValidated());
        QVERIFY(editor.lrSchedule().isEmpty());
        QVERIFY(!form.lrSchedulePreview()->isVisibleTo(&form));
    }

    // A wheel turn over an unfocused combo box scrolls the form instead of changing the config (one notch once
    // turned AdamW into Adam); once the combo has the focus, the wheel steps through its values.
    void wheelOverUnfocusedComboLeavesTheValue() {
        fts::WheelGuard guard(nullptr);
        QWidget window;
        auto* editorWidget = new ConfigEditor(&window);
        ConfigEditor& editor = *editorWidget;
        auto* scroll = new QScrollArea(&window);
        auto* form = new ConfigForm(&editor);
        scroll->setWidget(form);
        scroll->setWidgetResizable(true);
        auto* layout = new QHBoxLayout(&window);
        layout->addWidget(scroll);
        layout->addWidget(&editor);
        window.resize(900, 400);
        editor.setConfigText(readFile(kDir + "/full_example.json"), kDir);
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        const QString key = QStringLiteral("deepspeed.optimizer.type");
        QTRY_COMPARE(form->fieldText(key), QStringLiteral("AdamW"));
        auto* combo = qobject_cast<QComboBox*>(form->fieldWidget(key));
        QVERIFY(combo);
        scroll->ensureWidgetVisible(combo);
        QCOMPARE(combo->focusPolicy(), Qt::StrongFocus);  // a wheel turn does not focus it either
        editor.textEdit()->setFocus();
        QTRY_VERIFY(editor.textEdit()->hasFocus());
        const QString before = editor.text();
        // A wheel turn over the combo. (Sent here, not spontaneous, so Qt does not pass an ignored one on to the
        // parents as it does with the window system's: the test checks it is left ignored, which is what makes
        // Qt pass it on, and that the scroll bar, a slider too, still takes its wheel events.)
        const auto wheel = [&](QWidget* target, int delta) {
            const QPoint at = target->rect().center();
            QWheelEvent e(at, target->mapToGlobal(at), QPoint(), QPoint(0, delta), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
            QApplication::sendEvent(target, &e);
            return e.isAccepted();
        };
        QVERIFY(!wheel(combo, -120));
        QCOMPARE(combo->currentText(), QStringLiteral("AdamW"));
        QCOMPARE(editor.text(), before);
        QScrollBar* bar = scroll->verticalScrollBar();
        QVERIFY(bar->maximum() > 0);
        const int scrolledFrom = bar->value();
        QVERIFY(wheel(bar, scrolledFrom > 0 ? 120 : -120));
        QVERIFY2(bar->value() != scrolledFrom, "the scroll bar ignored the wheel");
        combo->setFocus();
        QTRY_VERIFY(combo->hasFocus());
        QVERIFY(wheel(combo, combo->currentIndex() + 1 < combo->count() ? -120 : 120));
        QVERIFY(combo->currentText() != QStringLiteral("AdamW"));
    }

    // The learning-rate preview does not zoom: a wheel turn over it scrolls the form (it did nothing).
    void wheelOverTheLrPreviewScrollsTheForm() {
        QWidget window;
        auto* editor = new ConfigEditor(&window);
        auto* scroll = new QScrollArea(&window);
        auto* form = new ConfigForm(editor);
        scroll->setWidget(form);
        scroll->setWidgetResizable(true);
        auto* layout = new QHBoxLayout(&window);
        layout->addWidget(scroll);
        layout->addWidget(editor);
        window.resize(900, 400);
        editor->setConfigText(readFile(kDir + "/full_example.json"), kDir);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto* chart = form->findChild<fts::SeriesChart*>(QStringLiteral("lrSchedulePreview"));
        QVERIFY(chart);
        QScrollBar* bar = scroll->verticalScrollBar();
        QTRY_VERIFY(bar->maximum() > 0);
        // Asked again on every try: the form's layout may still settle (and move the chart) on a loaded machine.
        QTRY_VERIFY_WITH_TIMEOUT(
            (scroll->ensureWidgetVisible(chart), chart->visibleRegion().boundingRect().height() > 20), 20000);
        const int from = bar->value();
        const QPoint at = chart->visibleRegion().boundingRect().center();
        QWheelEvent e(at, chart->mapToGlobal(at), QPoint(), QPoint(0, from > 0 ? 120 : -120), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(chart, &e);
        QVERIFY2(bar->value() != from, "the form did not scroll");
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
