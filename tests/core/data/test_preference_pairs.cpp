// Preference pairs: the layouts users have (TRL explicit and implicit prompts, text and messages; LLaMA-Factory's
// alpaca and sharegpt ranking rows) read into the same pair; the DPO and CPO/ORPO tokenizations (a prompt that fills
// max_length dropped, keep_end, older TRL's max_prompt_length, BOS/EOS); bad rows counted with their lines under both
// policies. Token-level equality with TRL itself: integration_test_train_preference.
#include "core/data/preference_pairs.h"
#include "core/data/unpaired_examples.h"
#include "core/data/tokenizer.h"
#include "core/util/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
using nlohmann::json;

namespace {

const Tokenizer& pairTokenizer() {
    static auto t = Tokenizer::fromFile((std::string(FTS_SOURCE_DIR) + "/tests/data/preference/model/tokenizer.json"));
    return *t;
}

std::filesystem::path writeRows(const QTemporaryDir& dir, const std::vector<json>& rows) {
    const std::filesystem::path file = dir.filePath("pairs.jsonl").toStdString();
    std::ofstream out(file);
    for (const json& r : rows) out << r.dump() << "\n";
    return file;
}

PreferenceOptions options(const std::filesystem::path& file) {
    PreferenceOptions o;
    o.files.trainPath = file;
    o.files.chatTemplate = "chatml";
    o.files.maxLength = 64;
    o.files.shuffle = false;
    return o;
}

std::string text(const std::vector<int32_t>& ids, int64_t from, int64_t to) {
    return pairTokenizer().decode(std::vector<int32_t>(ids.begin() + from, ids.begin() + to), false);
}

}  // namespace

class TestPreferencePairs : public QObject {
    Q_OBJECT
private slots:
    // The same exchange in four layouts gives the same prompt and completions (conversational ones through the
    // chat template).
    void layoutsAgree() {
        const json messages = {
            {"prompt", {{{"role", "system"}, {"content", "Be brief."}}, {{"role", "user"}, {"content", "Sky?"}}}},
            {"chosen", {{{"role", "assistant"}, {"content", "It is blue."}}}},
            {"rejected", {{{"role", "assistant"}, {"content", "It is green."}}}}};
        const json implicitMessages = {{"chosen",
                                        {{{"role", "system"}, {"content", "Be brief."}},
                                         {{"role", "user"}, {"content", "Sky?"}},
                                         {{"role", "assistant"}, {"content", "It is blue."}}}},
                                       {"rejected",
                                        {{{"role", "system"}, {"content", "Be brief."}},
                                         {{"role", "user"}, {"content", "Sky?"}},
                                         {{"role", "assistant"}, {"content", "It is green."}}}}};
        const json alpaca = {{"instruction", "Sky?"},
                             {"input", ""},
                             {"system", "Be brief."},
                             {"chosen", "It is blue."},
                             {"rejected", "It is green."}};
        const json sharegpt = {{"conversations", {{{"from", "human"}, {"value", "Sky?"}}}},
                               {"system", "Be brief."},
                               {"chosen", {{"from", "gpt"}, {"value", "It is blue."}}},
                               {"rejected", {{"from", "gpt"}, {"value", "It is green."}}}};
        QTemporaryDir dir;
        const PreferenceData d = buildPreferenceData(
            options(writeRows(dir, {messages, implicitMessages, alpaca, sharegpt})), pairTokenizer());
        QCOMPARE(d.train.size(), size_t(4));
        QVERIFY(d.stats.conversational);
        QCOMPARE(d.stats.layout, std::string("trl+alpaca+sharegpt"));
        for (const PreferencePair& p : d.train) {
            QCOMPARE(p.chosen.ids, d.train[0].chosen.ids);
            QCOMPARE(p.rejected.ids, d.train[0].rejected.ids);
            QCOMPARE(p.chosen.promptLength, d.train[0].chosen.promptLength);
        }
        const PreferencePair& p = d.train[0];
        QCOMPARE(text(p.chosen.ids, 0, p.chosen.promptLength),
                 std::string("<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nSky?<|im_end|>\n"
                             "<|im_start|>assistant\n"));
        QCOMPARE(text(p.chosen.ids, p.chosen.promptLength, int64_t(p.chosen.ids.size())),
                 std::string("It is blue.<|im_end|>\n"));
        QCOMPARE(text(p.rejected.ids, p.rejected.promptLength, int64_t(p.rejected.ids.size())),
                 std::string("It is green.<|im_end|>\n"));
    }

    // Plain text: the EOS text after each completion, an implicit prompt split where the completions part (one
    // space backed off), columns renamed.
    void plainText() {
        QTemporaryDir dir;
        PreferenceOptions o = options(writeRows(dir, {{{"q", "The sky is"}, {"good", " blue."}, {"bad", " green."}},
                                                      {{"good", "The sky is blue."}, {"bad", "The sky is green."}}}));
        o.promptField = "q";
        o.chosenField = "good";
        o.rejectedField = "bad";
        const PreferenceData d = buildPreferenceData(o, pairTokenizer());
        QCOMPARE(d.train.size(), size_t(2));
        QVERIFY(!d.stats.conversational);
        for (const PreferencePair& p : d.train) {
            QCOMPARE(text(p.chosen.ids, 0, p.chosen.promptLength), std::string("The sky is"));
            QCOMPARE(text(p.chosen.ids, p.chosen.promptLength, int64_t(p.chosen.ids.size())),
                     std::string(" blue.<|endoftext|>"));
            QCOMPARE(text(p.rejected.ids, p.rejected.promptLength, int64_t(p.rejected.ids.size())),
                     std::string(" green.<|endoftext|>"));
        }
    }

    // DPO's cuts: keep_start drops a pair whose prompt fills max_length; keep_end keeps the ends; older TRL's
    // max_prompt_length keeps the prompt's last tokens. CPO's: BOS and EOS ids, the answer cut, the prompt never.
    void truncation() {
        QTemporaryDir dir;
        const std::string longPrompt = "The sky over the sea is the sky over the sea is the sky over the sea is";
        const std::filesystem::path file =
            writeRows(dir, {{{"prompt", longPrompt}, {"chosen", " blue and calm today."}, {"rejected", " green."}}});
        const int64_t promptTokens = int64_t(pairTokenizer().encode(longPrompt, true).size());
        PreferenceOptions o = options(file);
        o.files.maxLength = promptTokens;                                                // the prompt alone fills it
        QVERIFY_THROWS_EXCEPTION(FormatError, buildPreferenceData(o, pairTokenizer()));  // no pair left
        o.keepEnd = true;
        PreferenceData d = buildPreferenceData(o, pairTokenizer());
        QCOMPARE(int64_t(d.train[0].chosen.ids.size()), promptTokens);
        QCOMPARE(text(d.train[0].chosen.ids, d.train[0].chosen.promptLength, promptTokens),
                 std::string(" blue and calm today.<|endoftext|>"));
        QCOMPARE(d.stats.truncated, 2);
        o.keepEnd = false;
        o.maxPromptLength = 3;
        d = buildPreferenceData(o, pairTokenizer());
        QCOMPARE(d.train[0].chosen.promptLength, 3);
        QCOMPARE(text(d.train[0].chosen.ids, 0, 3), std::string(pairTokenizer().decode(
                                                        [&] {
                                                            auto ids = pairTokenizer().encode(longPrompt, true);
                                                            return std::vector<int32_t>(ids.end() - 3, ids.end());
                                                        }(),
                                                        false)));
        PreferenceOptions cpo = options(file);
        cpo.tokenization = PairTokenization::Cpo;
        d = buildPreferenceData(cpo, pairTokenizer());
        for (const PairSequence* side : {&d.train[0].chosen, &d.train[0].rejected}) {
            QCOMPARE(side->ids.front(), *pairTokenizer().bosTokenId());
            QCOMPARE(side->ids.back(), *pairTokenizer().eosTokenId());
            QCOMPARE(side->promptLength, promptTokens + 1);
        }
        cpo.files.maxLength = promptTokens + 3;
        d = buildPreferenceData(cpo, pairTokenizer());
        QCOMPARE(int64_t(d.train[0].chosen.ids.size()), promptTokens + 3);  // the answer cut to 2 tokens
        QCOMPARE(d.train[0].chosen.promptLength, promptTokens + 1);         // the prompt never
    }

    // KTO: pairs are unpaired as TRL does (a chunk's chosen, then its rejected), labels read from booleans or text;
    // each example's KL sequence is its prompt with the completion of the example before it in its micro-batch
    // chunk (the chunk's first takes its last).
    void ktoExamples() {
        QTemporaryDir dir;
        const std::filesystem::path file =
            writeRows(dir, {{{"prompt", "The sky is"}, {"chosen", " blue."}, {"rejected", " green."}},
                            {{"prompt", "It is"}, {"chosen", " calm."}, {"rejected", " loud."}},
                            {{"prompt", "The sea is"}, {"chosen", " wet."}, {"rejected", " dry."}}});
        const UnpairedData d = buildUnpairedData(options(file), pairTokenizer(), 2);
        QCOMPARE(d.train.size(), size_t(6));
        QCOMPARE(d.desirable, 3);
        const std::vector<std::string> completions{" blue.", " calm.", " wet.", " green.", " loud.", " dry."};
        const std::vector<std::string> prompts{"The sky is", "It is", "The sea is",
                                               "The sky is", "It is", "The sea is"};
        const std::vector<size_t> klFrom{1, 0, 3, 2, 5, 4};  // chunks of two: each takes the other's completion
        for (size_t i = 0; i < 6; ++i) {
            const UnpairedExample& e = d.train[i];
            QCOMPARE(e.desirable, i < 3);
            QCOMPARE(text(e.sequence.ids, 0, e.sequence.promptLength), prompts[i]);
            QCOMPARE(text(e.sequence.ids, e.sequence.promptLength, int64_t(e.sequence.ids.size())),
                     completions[i] + "<|endoftext|>");
            QCOMPARE(text(e.kl.ids, 0, e.kl.promptLength), prompts[i]);
            QCOMPARE(text(e.kl.ids, e.kl.promptLength, int64_t(e.kl.ids.size())),
                     completions[klFrom[i]] + "<|endoftext|>");
        }
        // prompt / completion / label rows; a label as text; a row without its label is a bad row
        QTemporaryDir dir2;
        const UnpairedData u = buildUnpairedData(
            options(writeRows(dir2, {{{"prompt", "The sky is"}, {"completion", " blue."}, {"label", true}},
                                     {{"prompt", "The sky is"}, {"completion", " green."}, {"label", "false"}},
                                     {{"prompt", "The sky is"}, {"completion", " red."}}})),
            pairTokenizer(), 2);
        QCOMPARE(u.train.size(), size_t(2));
        QCOMPARE(u.undesirable, 1);
        QCOMPARE(u.stats.badRows, 1);
        QVERIFY2(u.stats.badRowMessages[0].find(":3: missing field 'label'") != std::string::npos,
                 u.stats.badRowMessages[0].c_str());
    }

    // Bad rows: a row without "rejected", an empty completion, a conversation without an assistant reply, a
    // prompt that fills max_length, broken JSON: each counted with its line; "stop" names the first.
    void badRows() {
        QTemporaryDir dir;
        const std::filesystem::path file = dir.filePath("pairs.jsonl").toStdString();
        {
            std::ofstream out(file);
            out << json{{"prompt", "The sky is"}, {"chosen", " blue."}, {"rejected", " green."}}.dump() << "\n";
            out << json{{"prompt", "The sky is"}, {"chosen", " blue."}}.dump() << "\n";
            out << json{{"prompt", "The sky is"}, {"chosen", ""}, {"rejected", " green."}}.dump() << "\n";
            out << json{{"chosen", {{{"role", "user"}, {"content", "a"}}, {{"role", "assistant"}, {"content", "x"}}}},
                        {"rejected", {{{"role", "user"}, {"content", "a"}}, {{"role", "user"}, {"content", "b"}}}}}
                       .dump()
                << "\n";
            out << json{{"prompt", "the sky is the sky is the sky is the sky is the sky is the sky is"},
                        {"chosen", " blue."},
                        {"rejected", " green."}}
                       .dump()
                << "\n";
            out << "{not json\n";
        }
        PreferenceOptions o = options(file);
        o.files.maxLength = 8;
        const PreferenceData d = buildPreferenceData(o, pairTokenizer());
        QCOMPARE(d.train.size(), size_t(1));
        QCOMPARE(d.stats.badRows, 5);
        QCOMPARE(d.stats.promptTooLong, 1);
        const auto& m = d.stats.badRowMessages;
        QCOMPARE(m.size(), size_t(5));
        QVERIFY2(m[0].find("pairs.jsonl:2: missing field 'rejected'") != std::string::npos, m[0].c_str());
        QVERIFY2(m[1].find(":3: an empty completion") != std::string::npos, m[1].c_str());
        QVERIFY2(m[2].find(":4: ") != std::string::npos && m[2].find("assistant") != std::string::npos, m[2].c_str());
        QVERIFY2(m[3].find(":5: the prompt alone is") != std::string::npos, m[3].c_str());
        QVERIFY2(m[4].find(":6") != std::string::npos, m[4].c_str());
        o.files.badRows = BadRowPolicy::Stop;
        try {
            buildPreferenceData(o, pairTokenizer());
            QFAIL("a bad row did not stop the build");
        } catch (const FormatError& e) {
            QVERIFY2(std::string(e.what()).find("pairs.jsonl:2: missing field 'rejected'") != std::string::npos,
                     e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestPreferencePairs)
#include "test_preference_pairs.moc"
