// Parity of fts::Tokenizer with Hugging Face tokenizers: the stored golden outputs (tokenizers 0.23.2)
// on the stress corpus, and, when FTS_TEST_PYTHON can import `tokenizers`, the live library on the
// corpus plus seeded random texts, with and without special tokens, for the real and toy tokenizers.
#include "core/data/tokenizer.h"
#include "core/data/tokenizer_regex.h"
#include "core/data/unicode_text.h"
#include "core/util/error.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using fts::Tokenizer;
using nlohmann::json;

namespace {

const std::string kData = (std::string(FTS_TEST_DATA_DIR) + "/tokenizers/");

// JSONL lines split on '\n' only (the corpus has raw U+2028/U+2029/U+0085 inside strings).
std::vector<json> readJsonl(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path);
    std::vector<json> rows;
    std::string line;
    while (std::getline(in, line, '\n'))
        if (!line.empty()) rows.push_back(json::parse(line));
    return rows;
}

std::string idsText(const std::vector<int32_t>& ids) { return json(ids).dump(); }

// Seeded random texts built from fragments that stress every step (whitespace classes, contractions,
// NFC/NFD, scripts, emoji/ZWJ, digits, special-token look-alikes, control characters).
std::vector<std::string> randomTexts(uint64_t seed, int count) {
    static const char* const kFragments[] = {
        "a",
        "Z",
        "hello",
        " world",
        " ",
        "  ",
        "   ",
        "\t",
        "\n",
        "\r\n",
        "\r",
        "\xC2\xA0",
        "\xC2\x85",
        "\xE2\x80\xA8",
        "\xE2\x80\xA9",
        "\xE3\x80\x80",
        "'s",
        "'S",
        "'ll",
        "'LL",
        "\xC5\xBF",
        "\xE2\x80\x99s",
        "caf\xC3\xA9",
        "cafe\xCC\x81",
        "\xC3\x85",
        "A\xCC\x8A",
        "\xE4\xB8\xAD\xE6\x96\x87",
        "\xE3\x81\x8B\xE3\x81\xAA",
        "\xF0\x9F\x98\x80",
        "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9",
        "\xF0\x9F\x87\xA8\xF0\x9F\x87\xB3",
        "123",
        "4",
        "2024",
        "\xC2\xB2",
        "\xE2\x85\xAB",
        "!",
        "...",
        "?!",
        "_",
        "-",
        "(",
        "\"",
        "\xC7\x85",
        "\xC4\xB0",
        "\xEF\xAC\x81",
        "\xE2\x80\x8D",
        "\xEF\xBB\xBF",
        "\x01",
        "\x7F",
        "\xF0\x9D\x95\xB3",
        "<|endoftext|>",
        "<|im_end|>",
        "<|im_start|>",
        "<|endoftext|",
        "</s>",
        "<s>",
        "<think>",
        "<tool_call>",
        "\xF0\xB1\x8D\x90",
        "\xE1\xB2\x89",
        "\xF0\x90\xB5\x80",
        "\xE0\xB3\xB3",
        "\xD8\xA7\xD9\x84",
        "\xE0\xA4\xA8\xE0\xA4\xAE",
        "\xD0\x9F\xD1\x80\xD0\xB8",
        "x\xCC\xB0",
        "\xCE\xA3\xCE\x91\xCE\xA3",
        "\xE1\xBA\x9E",
        "\xD9\xA3",
        "\xE2\x96\x81",
        "\xE2\x96\x81\xE2\x96\x81",
        "<0x41>",
        "<0xE2>",
        "##",
        "[x]",
        " [x] ",
        "<sep>",
        "[MASK]",
        " [MASK]",
        "[UNK]",
        " word ",
        "words",
        " don't",
        " do not",
        " 's",
        " ,",
        "supercalifragilistic",
        "\xEF\xBC\xA1\xEF\xBC\x91",
        "\xE2\x91\xA0",
        "\xEF\xBF\xBD",
        "\x00",
        "\xC2\xAD",
        "\xEE\x80\x80",
        "e\xE0\xA4\x83",
        "e\xE2\x83\x9D",
        "$+<=>^`|~",
        "\xC2\xBF\xE2\x80\x94",
    };
    const size_t n = sizeof(kFragments) / sizeof(kFragments[0]);
    uint64_t state = seed;
    auto next = [&state]() {  // splitmix64
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    };
    std::vector<std::string> texts;
    for (int i = 0; i < count; ++i) {
        std::string t;
        const int len = 1 + static_cast<int>(next() % 24);
        for (int j = 0; j < len; ++j) t += kFragments[next() % n];
        texts.push_back(t);
    }
    return texts;
}

}  // namespace

// Skips the calling test when FTS_TEST_PYTHON cannot import `tokenizers`.
#define REQUIRE_HF_TOKENIZERS()                                                                                   \
    do {                                                                                                          \
        QProcess probe;                                                                                           \
        probe.start(QString::fromUtf8(FTS_TEST_PYTHON), {"-c", "import tokenizers"});                             \
        if (!probe.waitForFinished(60000) || probe.exitStatus() != QProcess::NormalExit || probe.exitCode() != 0) \
            QSKIP(qPrintable(QStringLiteral("the live HF reference needs the Python package `tokenizers` in "     \
                                            "FTS_TEST_PYTHON (") +                                                \
                             QString::fromUtf8(FTS_TEST_PYTHON) +                                                 \
                             "); install packaging/requirements.txt into that environment"));                     \
    } while (0)

class TestTokenizerGolden : public QObject {
    Q_OBJECT

private slots:
    void storedGolden_data() {
        QTest::addColumn<QString>("name");
        QTest::newRow("gpt2") << "gpt2";
        QTest::newRow("qwen3") << "qwen3";
        QTest::newRow("mistral-7b") << "mistral-7b";
        QTest::newRow("bert-base-uncased") << "bert-base-uncased";
    }

    // Every corpus line: ids equal HF's and decode(ids) equals HF's decoded text.
    void storedGolden() {
        QFETCH(QString, name);
        const std::string n = name.toStdString();
        auto tok = Tokenizer::fromFile(kData + n + "/tokenizer.json");
        const auto corpus = readJsonl(kData + "corpus.jsonl");
        const auto expected = readJsonl(kData + "expected/" + n + ".corpus.jsonl");
        QCOMPARE(corpus.size(), expected.size());
        QVERIFY(corpus.size() >= 60);
        int failures = 0;
        std::string report;
        for (size_t i = 0; i < corpus.size(); ++i) {
            const std::string text = corpus[i]["text"].get<std::string>();
            const auto wantIds = expected[i]["ids"].get<std::vector<int32_t>>();
            const auto gotIds = tok->encode(text);
            const std::string gotText = tok->decode(gotIds);
            const std::string wantText = expected[i]["decoded"].get<std::string>();
            if (gotIds != wantIds || gotText != wantText) {
                if (++failures <= 5)
                    report += "\n  line " + std::to_string(i + 1) + " " + json(text).dump() + "\n    got  " +
                              idsText(gotIds) + " " + json(gotText).dump() + "\n    want " + idsText(wantIds) + " " +
                              json(wantText).dump();
            }
        }
        QVERIFY2(
            failures == 0,
            (std::to_string(failures) + " of " + std::to_string(corpus.size()) + " lines differ:" + report).c_str());
    }

    void liveReference_data() {
        QTest::addColumn<QString>("tokenizer");
        QTest::newRow("gpt2") << "gpt2/tokenizer.json";
        QTest::newRow("qwen3") << "qwen3/tokenizer.json";
        QTest::newRow("mistral-7b") << "mistral-7b/tokenizer.json";
        QTest::newRow("bert-base-uncased") << "bert-base-uncased/tokenizer.json";
        QTest::newRow("toy-split-template") << "toy/split_template.json";
        QTest::newRow("toy-added-tokens") << "toy/added_tokens.json";
        QTest::newRow("toy-byte-fallback") << "toy/byte_fallback.json";
        QTest::newRow("toy-unk-prefix") << "toy/unk_prefix.json";
        QTest::newRow("toy-llama3-style") << "toy/llama3_style.json";
        QTest::newRow("toy-metaspace-first") << "toy/metaspace_first.json";
        QTest::newRow("toy-metaspace-always") << "toy/metaspace_always.json";
        QTest::newRow("toy-wordpiece-nfd") << "toy/wordpiece_nfd.json";
        QTest::newRow("toy-bert-variants") << "toy/bert_variants.json";
    }

    // The live HF library on the corpus plus seeded random texts, with and without special tokens.
    void liveReference() {
        QFETCH(QString, tokenizer);
        const QString python = QString::fromUtf8(FTS_TEST_PYTHON);
        REQUIRE_HF_TOKENIZERS();
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string corpusPath = dir.filePath("corpus.jsonl").toStdString();
        std::vector<std::string> texts;
        for (const json& row : readJsonl(kData + "corpus.jsonl")) texts.push_back(row["text"].get<std::string>());
        for (std::string& t : randomTexts(0xC0FFEE ^ qHash(tokenizer), 300)) texts.push_back(std::move(t));
        {
            std::ofstream out(corpusPath, std::ios::binary);
            for (const std::string& t : texts) out << json({{"text", t}}).dump() << '\n';
        }
        const std::string tokPath = kData + tokenizer.toStdString();
        QProcess py;
        py.start(python, {QString::fromStdString(kData + "hf_reference.py"), QString::fromStdString(tokPath),
                          QString::fromStdString(corpusPath)});
        QVERIFY2(py.waitForFinished(240000), "hf_reference.py did not finish");
        QVERIFY2(py.exitCode() == 0, py.readAllStandardError().constData());
        std::vector<json> ref;
        {
            std::istringstream lines(py.readAllStandardOutput().toStdString());
            std::string line;
            while (std::getline(lines, line, '\n'))
                if (!line.empty()) ref.push_back(json::parse(line));
        }
        QCOMPARE(ref.size(), texts.size());

        auto tok = Tokenizer::fromFile(tokPath);
        int failures = 0;
        std::string report;
        for (size_t i = 0; i < texts.size(); ++i) {
            const auto plain = tok->encode(texts[i], false);
            const auto special = tok->encode(texts[i], true);
            const bool ok = plain == ref[i]["ids"].get<std::vector<int32_t>>() &&
                            special == ref[i]["ids_special"].get<std::vector<int32_t>>() &&
                            tok->decode(plain) == ref[i]["decoded"].get<std::string>() &&
                            tok->decode(special, true) == ref[i]["decoded_skip_special"].get<std::string>();
            if (!ok && ++failures <= 5)
                report += "\n  text " + std::to_string(i) + " " + json(texts[i]).dump() + "\n    got  " +
                          idsText(plain) + " / " + idsText(special) + " " + json(tok->decode(plain)).dump() +
                          "\n    want " + ref[i]["ids"].dump() + " / " + ref[i]["ids_special"].dump() + " " +
                          ref[i]["decoded"].dump();
        }
        QVERIFY2(failures == 0, (std::to_string(failures) + " of " + std::to_string(texts.size()) +
                                 " texts differ from HF tokenizers:" + report)
                                    .c_str());
    }

    // Every code point (U+0001..U+10FFFF) falls in the same regex classes as in HF's Oniguruma: the
    // escapes rewritten for PCRE2 and the code points newer than PCRE2's Unicode tables.
    void liveRegexClasses() {
        REQUIRE_HF_TOKENIZERS();
        const QStringList patterns = {"\\s",
                                      "\\S",
                                      "\\w",
                                      "[\\w]",
                                      "\\W",
                                      "\\d",
                                      "\\p{L}",
                                      "\\p{N}",
                                      "\\p{M}",
                                      "\\p{Lu}",
                                      "[^\\s\\p{L}\\p{N}]",
                                      "\\p{P}",
                                      "\\p{S}"};
        QProcess py;
        py.start(QString::fromUtf8(FTS_TEST_PYTHON),
                 QStringList{QString::fromStdString(kData + "hf_classes.py")} + patterns);
        QVERIFY2(py.waitForFinished(240000), "hf_classes.py did not finish");
        QVERIFY2(py.exitCode() == 0, py.readAllStandardError().constData());
        const json ref = json::parse(py.readAllStandardOutput().toStdString());
        for (const QString& pattern : patterns) {
            const std::string p = pattern.toStdString();
            std::vector<char> want(0x110000, 0);
            for (const auto& r : ref.at(p))
                for (uint32_t c = r[0].get<uint32_t>(); c <= r[1].get<uint32_t>(); ++c) want[c] = 1;
            auto re = fts::tok::TokenizerRegex::compile(p, fts::tok::JsonContext("test", "pattern"));
            std::vector<fts::tok::RegexMatch> found;
            std::string s;
            int differences = 0;
            std::string report;
            for (uint32_t c = 1; c < 0x110000; ++c) {
                if (c >= 0xD800 && c < 0xE000) continue;
                s.clear();
                fts::unicode::appendUtf8(s, c);
                found.clear();
                re->findAll(s, found);
                if (!found.empty() != (want[c] != 0) && ++differences <= 8) {
                    char hex[16];
                    std::snprintf(hex, sizeof(hex), " U+%04X", c);
                    report += hex;
                }
            }
            QVERIFY2(differences == 0,
                     (p + ": " + std::to_string(differences) + " code points differ from HF:" + report).c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TestTokenizerGolden)
#include "test_tokenizer_golden.moc"
