// Issue kinds: the messages the config parser and the path checks write split back into their kind and
// arguments (what the studio's catalogue translates), for messages made by the real parser and preflight; any
// other message stays Other. Preflight names each missing path at its key.
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include "core/config/issue_kinds.h"
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
