// Issue kinds: the messages the config parser and the path checks write split back into their kind and
// arguments (what the studio's catalogue translates), for messages made by the real parser and preflight; any
// other message stays Other. Preflight names each missing path at its key.
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <set>

#include "core/config/issue_kinds.h"
#include "core/config/message_templates.h"
#include "core/config/model_shape.h"
#include "core/config/preflight.h"
#include "core/config/train_config.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
namespace fs = std::filesystem;

class TestIssueKinds : public QObject {
    Q_OBJECT
private slots:
    void builtMessagesSplitBack() {
        IssueParts p = splitIssueMessage(expectedMessage("a positive integer", "0"));
        QCOMPARE(int(p.kind), int(IssueKind::Expected));
        QCOMPARE(p.args, (std::vector<std::string>{"a positive integer", "0"}));
        p = splitIssueMessage(unknownKeyMessage("lr_rate", "lr", ""));
        QCOMPARE(int(p.kind), int(IssueKind::UnknownKey));
        QCOMPARE(p.args, (std::vector<std::string>{"lr_rate", "lr", ""}));
        p = splitIssueMessage(unknownKeyMessage("x", "", "DeepSpeed ignores it too"));
        QCOMPARE(p.args, (std::vector<std::string>{"x", "", "DeepSpeed ignores it too"}));
        p = splitIssueMessage(unknownKeyMessage("lr_rate", "lr", "see docs/config.md"));
        QCOMPARE(p.args, (std::vector<std::string>{"lr_rate", "lr", "see docs/config.md"}));
        p = splitIssueMessage(notFoundMessage("/d/train.jsonl", ""));
        QCOMPARE(int(p.kind), int(IssueKind::NotFound));
        QCOMPARE(p.args, (std::vector<std::string>{"/d/train.jsonl", ""}));
        p = splitIssueMessage(notFoundMessage("/m", "expected a Hugging Face model folder"));
        QCOMPARE(p.args, (std::vector<std::string>{"/m", "expected a Hugging Face model folder"}));
        QCOMPARE(int(splitIssueMessage("WarmupLR does not take \"total_num_steps\"").kind), int(IssueKind::Other));
    }

    // Every template filled with distinct values splits back into itself and those values (so no template's
    // shape hides another's: the list's order puts the specific first), and filling leaves a lone % alone.
    void everyTemplateSplitsBack() {
        QCOMPARE(fillTemplate("%1 of %2, 100% %3", {"a", "b"}), std::string("a of b, 100% "));
        std::set<std::string_view> seen;
        for (std::string_view t : messageTemplates()) {
            QVERIFY2(seen.insert(t).second, std::string(t).c_str());  // listed once
            int count = 0;
            for (size_t i = 0; i + 1 < t.size(); ++i)
                if (t[i] == '%' && t[i + 1] >= '1' && t[i + 1] <= '9') count = std::max(count, t[i + 1] - '0');
            const std::vector<std::string> values{"/runs/a b.txt", "q_proj", "1.5 GiB", "x (y)", "7"};
            std::vector<std::string_view> args(values.begin(), values.begin() + count);
            std::string filled;
            switch (count) {
                case 0:
                    filled = fillTemplate(t, {});
                    break;
                case 1:
                    filled = fillTemplate(t, {args[0]});
                    break;
                case 2:
                    filled = fillTemplate(t, {args[0], args[1]});
                    break;
                case 3:
                    filled = fillTemplate(t, {args[0], args[1], args[2]});
                    break;
                case 4:
                    filled = fillTemplate(t, {args[0], args[1], args[2], args[3]});
                    break;
                default:
                    QFAIL("a template with more than four values: extend this test");
            }
            const IssueParts p = splitIssueMessage(filled);
            QVERIFY2(p.kind == IssueKind::Template && !p.args.empty() && p.args[0] == t, filled.c_str());
            QCOMPARE(p.args.size(), size_t(count) + 1);
            for (int i = 0; i < count; ++i) QCOMPARE(p.args[size_t(i) + 1], values[size_t(i)]);
        }
    }

    // Messages the real readers write are of a template: LoRA over a random init (a cross-key error), two columns
    // with one role, a model config.json's bad key and its nested expected value.
    void readersWriteTemplates() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const auto doc = nlohmann::json::parse(R"({"model": {"path": "model", "init": "random", "lora": {"r": 8}},
            "data": {"train": "t.jsonl", "format": "classification", "columns": {"text": "a", "label": "a"}},
            "training": {"output_dir": "out", "max_steps": 1}, "deepspeed": {"train_micro_batch_size_per_gpu": 2}})");
        const ConfigParseResult r = parseTrainConfig(doc, dir, 1);
        std::set<std::string_view> templates;
        for (const ConfigIssue& i : r.issues)
            if (const IssueParts p = splitIssueMessage(i.message); p.kind == IssueKind::Template)
                templates.insert(std::string_view(p.args[0]) == msg::kLoraOverRandomInit ? msg::kLoraOverRandomInit
                                 : std::string_view(p.args[0]) == msg::kColumnTwoRoles   ? msg::kColumnTwoRoles
                                                                                         : std::string_view());
        QVERIFY(templates.count(msg::kLoraOverRandomInit));
        QVERIFY(templates.count(msg::kColumnTwoRoles));
        try {
            modelShapeFromJson(nlohmann::json::parse(R"({"model_type": "llama", "hidden_size": -3})"), "m/config.json");
            QFAIL("a negative hidden size was accepted");
        } catch (const std::exception& e) {
            const IssueParts p = splitIssueMessage(e.what());
            QVERIFY2(p.kind == IssueKind::Template && p.args[0] == msg::kModelConfigKey, e.what());
            QCOMPARE(p.args[1], std::string("m/config.json"));
            QCOMPARE(p.args[2], std::string("hidden_size"));
            const IssueParts inner = splitIssueMessage(p.args[3]);
            QCOMPARE(int(inner.kind), int(IssueKind::Expected));
            QCOMPARE(inner.args, (std::vector<std::string>{"a positive integer", "-3"}));
        }
    }

    // The parser's own messages (a type error, an unknown key with a suggestion) and preflight's are of a kind.
    void parserAndPreflightMessagesHaveKinds() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        const auto doc = nlohmann::json::parse(R"({"model": {"path": "model"}, "data": {"train": "train.jsonl"},
            "training": {"output_dir": "out", "max_steps": 0, "epochs": "two", "sed": 3},
            "deepspeed": {"train_micro_batch_size_per_gpu": 2}})");
        const ConfigParseResult r = parseTrainConfig(doc, dir, 1);
        bool sawExpected = false, sawUnknown = false;
        for (const ConfigIssue& i : r.issues) {
            const IssueParts p = splitIssueMessage(i.message);
            if (i.keyPath == "training.epochs") sawExpected = p.kind == IssueKind::Expected && p.args[1] == "\"two\"";
            if (i.keyPath == "training.sed") sawUnknown = p.kind == IssueKind::UnknownKey && p.args[1] == "seed";
        }
        QVERIFY(sawExpected);
        QVERIFY(sawUnknown);

        const auto ok = nlohmann::json::parse(R"({"model": {"path": "model", "init": "random"},
            "data": {"train": "train.jsonl", "eval": "eval.jsonl"}, "training": {"output_dir": "out/run", "max_steps": 2},
            "deepspeed": {"train_micro_batch_size_per_gpu": 2}})");
        const ConfigParseResult parsed = parseTrainConfig(ok, dir, 1);
        QVERIFY(parsed.ok());
        std::vector<ConfigIssue> missing = preflightPaths(*parsed.config);
        QCOMPARE(missing.size(), size_t(3));  // model folder, train, eval (the output folder can be created)
        QCOMPARE(missing[0].keyPath, std::string("model.path"));
        QCOMPARE(int(splitIssueMessage(missing[0].message).kind), int(IssueKind::NotFound));
        QCOMPARE(missing[1].keyPath, std::string("data.train"));
        QCOMPARE(missing[1].message, (dir / "train.jsonl").string() + ": not found");
        QCOMPARE(missing[2].keyPath, std::string("data.eval"));
        // With the folder, its config.json (random init needs no weights), the tokenizer and the data: nothing.
        fs::create_directories(dir / "model");
        std::ofstream(dir / "model" / "config.json") << "{}";
        std::ofstream(dir / "model" / "tokenizer.json") << "{}";
        std::ofstream(dir / "train.jsonl") << "{}\n";
        std::ofstream(dir / "eval.jsonl") << "{}\n";
        QVERIFY(preflightPaths(*parsed.config).empty());
        // Pretrained weights are needed unless init is random; a .bin is named as unsupported.
        TrainConfig pretrained = *parsed.config;
        pretrained.model.init = "pretrained";
        std::ofstream(dir / "model" / "pytorch_model.bin") << "x";
        missing = preflightPaths(pretrained);
        QCOMPARE(missing.size(), size_t(1));
        QVERIFY2(missing[0].message.find("has pytorch_model.bin but only safetensors") != std::string::npos,
                 missing[0].message.c_str());
        // An output folder under a file cannot be created.
        std::ofstream(dir / "out") << "a file";
        missing = preflightPaths(*parsed.config);
        QCOMPARE(missing.size(), size_t(1));
        QCOMPARE(missing[0].keyPath, std::string("training.output_dir"));
    }
};

QTEST_GUILESS_MAIN(TestIssueKinds)
#include "test_issue_kinds.moc"
