// Unit tests of fts::Tokenizer and its components on hand-made tokenizer.json files whose results can
// be worked out by hand (BPE merge order, unk/byte fallback, added-token options, templates), the
// Split behaviours, the Oniguruma -> PCRE2 class rewrite, lossy UTF-8, eos lookup, and bad files.
#include "core/data/pre_tokenizer.h"
#include "core/data/tokenizer.h"
#include "core/data/tokenizer_regex.h"
#include "core/data/unicode_text.h"
#include "core/util/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <thread>

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using fts::Tokenizer;
using nlohmann::json;
using Ids = std::vector<int32_t>;

Q_DECLARE_METATYPE(Ids)

namespace {

const std::string kData = (std::string(FTS_TEST_DATA_DIR) + "/tokenizers/");

// A small BPE over plain characters: ab, bc, abc, aa are reachable through the merges below.
json toyTokenizer() {
    return json::parse(R"({
      "version": "1.0", "truncation": null, "padding": null,
      "added_tokens": [
        {"id": 12, "content": "<s>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
        {"id": 13, "content": "</s>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
        {"id": 14, "content": "<m>", "single_word": false, "lstrip": true, "rstrip": false, "normalized": false, "special": true},
        {"id": 15, "content": "<r>", "single_word": false, "lstrip": false, "rstrip": true, "normalized": false, "special": false},
        {"id": 16, "content": "cc", "single_word": true, "lstrip": false, "rstrip": false, "normalized": false, "special": false},
        {"id": 17, "content": "\u00e9", "single_word": false, "lstrip": false, "rstrip": false, "normalized": true, "special": false},
        {"id": 18, "content": "<ml>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": false},
        {"id": 19, "content": "<ml>x", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": false}
      ],
      "normalizer": {"type": "NFC"},
      "pre_tokenizer": null,
      "post_processor": {"type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                   {"SpecialToken": {"id": "</s>", "type_id": 0}}],
        "pair": [],
        "special_tokens": {"<s>": {"id": "<s>", "ids": [12], "tokens": ["<s>"]},
                           "</s>": {"id": "</s>", "ids": [13], "tokens": ["</s>"]}}},
      "decoder": null,
      "model": {"type": "BPE", "dropout": null, "unk_token": "<unk>", "continuing_subword_prefix": null,
        "end_of_word_suffix": null, "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
        "vocab": {"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4, "abc": 5, "<unk>": 6, "aa": 7, " ": 8, "e": 9,
                  "<0x78>": 10, "<0xC3>": 11},
        "merges": ["b c", "a b", "a bc", "a a"]}
    })");
}

class Files {
public:
    std::string write(const std::string& name, const std::string& text) {
        const std::string path = m_dir.filePath(QString::fromStdString(name)).toStdString();
        std::filesystem::create_directories(std::filesystem::path(path).parent_path());
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }
    std::string write(const std::string& name, const json& doc) { return write(name, doc.dump()); }

private:
    QTemporaryDir m_dir;
};

std::string show(const Ids& ids) { return json(ids).dump(); }

}  // namespace

class TestTokenizer : public QObject {
    Q_OBJECT

private slots:
    // --- BPE model -------------------------------------------------------------------------------
    void bpeMerges_data() {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("text");
        QTest::addColumn<Ids>("expected");
        // (b,c) has rank 0, so "abc" -> a|bc -> abc even though (a,b) is also mergeable.
        QTest::newRow("lowest rank first") << ""
                                           << "abc" << Ids{5};
        // Equal ranks: the leftmost pair merges first: aaa -> aa|a.
        QTest::newRow("leftmost on ties") << ""
                                          << "aaa" << Ids{7, 0};
        QTest::newRow("array-form merges") << "array"
                                           << "abc" << Ids{5};
        // Only (a,b): abc -> ab|c; with ignore_merges the whole piece is a vocabulary token.
        QTest::newRow("without the merge") << "ab-only"
                                           << "abc" << Ids{3, 2};
        QTest::newRow("ignore_merges") << "ab-only+ignore"
                                       << "abc" << Ids{5};
        // Unknown characters: an unk each, fused into one, or byte-fallback tokens.
        QTest::newRow("unk per char") << ""
                                      << "axxb" << Ids{0, 6, 6, 1};
        QTest::newRow("fuse_unk") << "fuse"
                                  << "axxb" << Ids{0, 6, 1};
        QTest::newRow("byte_fallback") << "fallback"
                                       << "axb" << Ids{0, 10, 1};
        // 'ä' is C3 A4: <0xA4> is missing, so the whole character falls back to unk.
        QTest::newRow("byte_fallback partial -> unk") << "fallback"
                                                      << "a\xC3\xA4" << Ids{0, 6};
        // Without unk_token the unknown character vanishes and its neighbours can merge (HF does this).
        QTest::newRow("no unk token drops") << "no-unk"
                                            << "axb" << Ids{3};
        QTest::newRow("empty") << ""
                               << "" << Ids{};
    }
    void bpeMerges() {
        QFETCH(QString, variant);
        QFETCH(QString, text);
        QFETCH(Ids, expected);
        json doc = toyTokenizer();
        auto& model = doc["model"];
        if (variant == "array") model["merges"] = json::parse(R"([["b","c"],["a","b"],["a","bc"],["a","a"]])");
        if (variant.startsWith("ab-only")) model["merges"] = json::array({"a b"});
        if (variant == "ab-only+ignore") model["ignore_merges"] = true;
        if (variant == "fuse") model["fuse_unk"] = true;
        if (variant == "fallback") model["byte_fallback"] = true;
        if (variant == "no-unk") model["unk_token"] = nullptr;
        Files files;
        auto tok = Tokenizer::fromFile(files.write("tokenizer.json", doc));
        const Ids got = tok->encode(text.toStdString());
        QVERIFY2(got == expected, (show(got) + " != " + show(expected)).c_str());
    }

    void subwordPrefixAndSuffix() {
        json doc = toyTokenizer();
        doc["model"]["continuing_subword_prefix"] = "##";
        doc["model"]["end_of_word_suffix"] = "</w>";
        doc["model"]["vocab"] = {{"a", 0},       {"##b", 1},   {"##c</w>", 2}, {"ab", 3},
                                 {"abc</w>", 4}, {"<unk>", 6}, {"##b</w>", 7}};
        doc["model"]["merges"] = json::array({"a ##b", "ab ##c</w>"});
        Files files;
        auto tok = Tokenizer::fromFile(files.write("tokenizer.json", doc));
        QCOMPARE(tok->encode("abc"), (Ids{4}));
        QCOMPARE(tok->encode("ab"), (Ids{0, 7}));  // "ab</w>" is not reachable: a + ##b</w>
        QCOMPARE(tok->encode("abb"), (Ids{3, 7}));
    }

    // --- Added tokens ----------------------------------------------------------------------------
    void addedTokens_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<Ids>("expected");
        QTest::newRow("special in text") << "ab<s>c" << Ids{3, 12, 2};
        QTest::newRow("lstrip eats spaces on the left") << "a  <m>b" << Ids{0, 14, 1};
        QTest::newRow("rstrip eats spaces on the right") << "a<r>  b" << Ids{0, 15, 1};
        QTest::newRow("no strip keeps spaces") << "a <s> b" << Ids{0, 8, 12, 8, 1};
        QTest::newRow("single_word alone") << "cc a" << Ids{16, 8, 0};
        QTest::newRow("single_word inside a word") << "acc" << Ids{0, 2, 2};
        QTest::newRow("single_word after punctuation") << "<s>cc" << Ids{12, 16};
        QTest::newRow("normalized token matches NFD input") << "e\xCC\x81" << Ids{17};
        QTest::newRow("normalized token matches NFC input") << "\xC3\xA9" << Ids{17};
        QTest::newRow("longest match wins") << "<ml>x" << Ids{19};
        QTest::newRow("shorter when the longer is absent") << "<ml>a" << Ids{18, 0};
        QTest::newRow("look-alike is text") << "<s" << Ids{6, 6};
    }
    void addedTokens() {
        QFETCH(QString, text);
        QFETCH(Ids, expected);
        Files files;
        auto tok = Tokenizer::fromFile(files.write("tokenizer.json", toyTokenizer()));
        const Ids got = tok->encode(text.toStdString());
        QVERIFY2(got == expected, (show(got) + " != " + show(expected)).c_str());
    }

    void templateAndDecode() {
        Files files;
        auto tok = Tokenizer::fromFile(files.write("tokenizer.json", toyTokenizer()));
        QCOMPARE(tok->encode("abc", true), (Ids{12, 5, 13}));
        QCOMPARE(tok->encode("", true), (Ids{12, 13}));
        QCOMPARE(tok->encode("abc", false), (Ids{5}));
        // No decoder: HF joins the tokens with spaces; unknown ids are dropped.
        QCOMPARE(tok->decode({12, 5, 8, 0, 13}), std::string("<s> abc   a </s>"));
        QCOMPARE(tok->decode({12, 5, 999, 13}, true), std::string("abc"));
        QCOMPARE(tok->decode({15, 0}, true), std::string("<r> a"));  // <r> is not special
        QVERIFY(tok->isSpecialToken(12));
        QVERIFY(!tok->isSpecialToken(15));
        QCOMPARE(tok->vocabSize(), 20);
        QCOMPARE(tok->tokenToId("<m>"), std::optional<int32_t>(14));
        QCOMPARE(tok->tokenToId("abc"), std::optional<int32_t>(5));
        QVERIFY(!tok->tokenToId("zzz"));
        QCOMPARE(tok->idToToken(4), std::string("bc"));
        QCOMPARE(tok->idToToken(18), std::string("<ml>"));
        QVERIFY_THROWS_EXCEPTION(fts::Error, tok->idToToken(20));
        QVERIFY_THROWS_EXCEPTION(fts::FormatError, tok->encode(std::string("a\xFF")));
    }

    // Ids of added tokens follow HF's loading rules, not the "id" written in the file.
    void addedTokenIds() {
        json doc = toyTokenizer();
        doc["added_tokens"] = json::parse(R"([
          {"id": 40, "content": "<x>", "special": true, "normalized": false},
          {"id": 3, "content": "bc", "special": true, "normalized": false},
          {"id": 41, "content": "<y>", "special": false, "normalized": false},
          {"id": 42, "content": "<x>", "special": true, "normalized": false},
          {"id": 43, "content": "", "special": true}
        ])");
        doc["post_processor"] = nullptr;
        Files files;
        auto tok = Tokenizer::fromFile(files.write("tokenizer.json", doc));
        QCOMPARE(tok->tokenToId("<x>"), std::optional<int32_t>(12));  // first id after the 12 model entries
        QCOMPARE(tok->tokenToId("bc"), std::optional<int32_t>(4));    // content the model knows keeps its id
        QCOMPARE(tok->tokenToId("<y>"), std::optional<int32_t>(13));
        QCOMPARE(tok->vocabSize(), 14);
        QCOMPARE(tok->encode("a<x>bc"), (Ids{0, 12, 4}));
        QVERIFY(tok->isSpecialToken(4));
        QCOMPARE(tok->decode({0, 12, 4}, true), std::string("a"));
    }

    void unknownVersion() {
        json doc = toyTokenizer();
        doc["version"] = "2.0";
        Files files;
        const std::string path = files.write("tokenizer.json", doc);
        QVERIFY_THROWS_EXCEPTION(fts::FormatError, Tokenizer::fromFile(path));
    }

    void templateStringForm() {
        json doc = toyTokenizer();
        doc["post_processor"]["single"] = "<s> $A </s>:1";
        Files files;
        auto tok = Tokenizer::fromFile(files.write("tokenizer.json", doc));
        QCOMPARE(tok->encode("ab", true), (Ids{12, 3, 13}));
    }

    // --- GPT-2 / Qwen3 specifics -------------------------------------------------------------------
    void realTokenizerFacts() {
        auto gpt2 = Tokenizer::fromFile(kData + "gpt2/tokenizer.json");
        QCOMPARE(gpt2->vocabSize(), 50257);
        QCOMPARE(gpt2->eosTokenId(), std::optional<int32_t>(50256));  // no tokenizer_config.json: <|endoftext|>
        QCOMPARE(gpt2->encode("Hello world"), (Ids{15496, 995}));
        // A lone byte of a multi-byte character decodes to U+FFFD, as HF's from_utf8_lossy.
        const auto lead = gpt2->tokenToId("\xC3\xA2");  // 'â' stands for byte 0xE2
        QVERIFY(lead.has_value());
        QCOMPARE(gpt2->decode({*lead}), std::string("\xEF\xBF\xBD"));
        QCOMPARE(gpt2->decode({15496, 50256, 995}, true), std::string("Hello world"));

        auto qwen = Tokenizer::fromFile(kData + "qwen3/tokenizer.json");
        QCOMPARE(qwen->vocabSize(), 151669);
        QCOMPARE(qwen->eosTokenId(), std::optional<int32_t>(151645));  // tokenizer_config.json: <|im_end|>
    }

    void eosLookup_data() {
        QTest::addColumn<QString>("config");
        QTest::addColumn<int>("expected");  // -1: none; -2: FormatError
        QTest::newRow("no config: conventional </s>") << "" << 13;
        QTest::newRow("config names a token") << R"({"eos_token": "<s>"})" << 12;
        QTest::newRow("config AddedToken form") << R"({"eos_token": {"content": "<m>", "special": true}})" << 14;
        QTest::newRow("config without eos_token") << R"({"bos_token": "<s>"})" << 13;
        QTest::newRow("config eos_token null") << R"({"eos_token": null})" << 13;
        QTest::newRow("config names a missing token") << R"({"eos_token": "<eos>"})" << -2;
        QTest::newRow("config is not JSON") << "{oops" << -2;
    }
    void eosLookup() {
        QFETCH(QString, config);
        QFETCH(int, expected);
        Files files;
        const std::string path = files.write("tok/tokenizer.json", toyTokenizer());
        if (!config.isEmpty()) files.write("tok/tokenizer_config.json", config.toStdString());
        if (expected == -2) {
            try {
                Tokenizer::fromFile(path);
                QFAIL("expected a FormatError");
            } catch (const fts::FormatError& e) {
                QVERIFY2(std::string(e.what()).find("tokenizer_config.json") != std::string::npos, e.what());
            }
            return;
        }
        auto tok = Tokenizer::fromFile(path);
        if (expected < 0)
            QVERIFY(!tok->eosTokenId().has_value());
        else
            QCOMPARE(tok->eosTokenId(), std::optional<int32_t>(expected));
    }

    void conventionalEos() {
        json doc = toyTokenizer();
        doc["added_tokens"][1]["special"] = false;  // "</s>" not special: not an eos candidate
        Files files;
        auto none = Tokenizer::fromFile(files.write("a/tokenizer.json", doc));
        QVERIFY(!none->eosTokenId().has_value());
        doc["added_tokens"].push_back(
            {{"id", 20}, {"content", "<|im_end|>"}, {"special", true}, {"normalized", false}});
        auto tok = Tokenizer::fromFile(files.write("b/tokenizer.json", doc));
        QCOMPARE(tok->eosTokenId(), std::optional<int32_t>(20));
    }

    // --- Components --------------------------------------------------------------------------------
    void splitBehaviors_data() {
        QTest::addColumn<int>("behavior");
        QTest::addColumn<bool>("invert");
        QTest::addColumn<QStringList>("expected");
        using B = fts::tok::SplitBehavior;
        // HF's documented example: "the-final--countdown" split on "-".
        QTest::newRow("removed") << int(B::Removed) << false << QStringList{"the", "final", "countdown"};
        QTest::newRow("isolated") << int(B::Isolated) << false
                                  << QStringList{"the", "-", "final", "-", "-", "countdown"};
        QTest::newRow("merged with previous")
            << int(B::MergedWithPrevious) << false << QStringList{"the-", "final-", "-", "countdown"};
        QTest::newRow("merged with next")
            << int(B::MergedWithNext) << false << QStringList{"the", "-final", "-", "-countdown"};
        QTest::newRow("contiguous") << int(B::Contiguous) << false
                                    << QStringList{"the", "-", "final", "--", "countdown"};
        QTest::newRow("removed inverted") << int(B::Removed) << true << QStringList{"-", "-", "-"};
    }
    void splitBehaviors() {
        QFETCH(int, behavior);
        QFETCH(bool, invert);
        QFETCH(QStringList, expected);
        const fts::tok::JsonContext ctx("test", "pattern");
        auto re = fts::tok::TokenizerRegex::literal("-", ctx);
        const std::string text = "the-final--countdown";
        std::vector<fts::tok::RegexMatch> matches;
        re->findAll(text, matches);
        std::vector<fts::tok::Piece> pieces;
        fts::tok::splitByMatches(text, matches, static_cast<fts::tok::SplitBehavior>(behavior), invert, 0, pieces);
        QStringList got;
        for (const auto& p : pieces) got << QString::fromStdString(text.substr(p.begin, p.end - p.begin));
        QCOMPARE(got, expected);
    }

    // Oniguruma's classes as HF tokenizers sees them (measured code point by code point).
    void onigClasses_data() {
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("matches");
        QTest::newRow("\\s has NEL") << "\\s" << QString::fromUtf8("\xC2\x85") << 1;
        QTest::newRow("\\s lacks U+180E") << "\\s" << QString::fromUtf8("\xE1\xA0\x8E") << 0;
        QTest::newRow("class \\s has NEL") << "[^\\s\\p{L}]" << QString::fromUtf8("\xC2\x85") << 0;
        QTest::newRow("\\w has superscript two") << "\\w" << QString::fromUtf8("\xC2\xB2") << 1;
        QTest::newRow("class \\w lacks superscript two") << "[\\w]" << QString::fromUtf8("\xC2\xB2") << 0;
        QTest::newRow("\\w has roman numeral") << "\\w" << QString::fromUtf8("\xE2\x85\xA0") << 1;
        QTest::newRow("\\w has combining mark") << "\\w" << QString::fromUtf8("\xCC\xB0") << 1;
        QTest::newRow("\\w lacks ZWJ") << "\\w" << QString::fromUtf8("\xE2\x80\x8D") << 0;
        QTest::newRow("\\w lacks circled digit") << "\\w" << QString::fromUtf8("\xE2\x91\xA0") << 0;
        // Unicode 15-16 code points (PCRE2 10.42 has Unicode 14): classes follow HF's Oniguruma.
        QTest::newRow("\\p{L} has a Unicode 16 letter") << "\\p{L}" << QString::fromUtf8("\xE1\xB2\x89") << 1;
        QTest::newRow("\\P{L} lacks it") << "\\P{L}" << QString::fromUtf8("\xE1\xB2\x89") << 0;
        QTest::newRow("CJK Ext H is a letter in brackets")
            << "[^\\s\\p{L}\\p{N}]" << QString::fromUtf8("\xF0\xB1\x8D\x90") << 0;
        QTest::newRow("\\d has a Unicode 16 digit") << "\\d" << QString::fromUtf8("\xF0\x90\xB5\x80") << 1;
        QTest::newRow("\\w has a Unicode 15 mark") << "\\w" << QString::fromUtf8("\xE0\xB3\xB3") << 1;
        QTest::newRow("\\S") << "\\S+"
                             << "a b" << 2;
        QTest::newRow("caseless contraction") << "(?i:'s)"
                                              << "'S 's" << 2;
        // onig's find_iter: an empty match right after the previous match is skipped.
        QTest::newRow("empty matches") << "x*"
                                       << "ab" << 3;
        QTest::newRow("literal metacharacters") << "\\.\\*"
                                                << "a.*b" << 1;
    }
    void onigClasses() {
        QFETCH(QString, pattern);
        QFETCH(QString, text);
        QFETCH(int, matches);
        auto re = fts::tok::TokenizerRegex::compile(pattern.toStdString(), fts::tok::JsonContext("test", "p"));
        std::vector<fts::tok::RegexMatch> found;
        const std::string s = text.toStdString();
        re->findAll(s, found);
        QCOMPARE(int(found.size()), matches);
    }

    void lossyUtf8_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QByteArray>("expected");
        const QByteArray r("\xEF\xBF\xBD");
        QTest::newRow("valid") << QByteArray("a\xC3\xA9") << QByteArray("a\xC3\xA9");
        QTest::newRow("truncated 4-byte") << QByteArray("\xF0\x9F\x98") << r;
        QTest::newRow("truncated then ascii") << QByteArray("\xE2\x82z") << r + "z";
        QTest::newRow("overlong C0") << QByteArray("\xC0\xAF") << r + r;
        QTest::newRow("E0 needs A0..BF") << QByteArray("\xE0\x80\x80") << r + r + r;
        QTest::newRow("surrogate") << QByteArray("\xED\xA0\x80") << r + r + r;
        QTest::newRow("above U+10FFFF") << QByteArray("\xF4\x90\x80\x80") << r + r + r + r;
        QTest::newRow("stray continuation") << QByteArray(
                                                   "a\x80"
                                                   "b")
                                            << "a" + r + "b";
    }
    void lossyUtf8() {
        QFETCH(QByteArray, bytes);
        QFETCH(QByteArray, expected);
        const std::string got = fts::unicode::fromUtf8Lossy(std::string_view(bytes.constData(), bytes.size()));
        QCOMPARE(QByteArray::fromStdString(got), expected);
        const bool valid = bytes == expected;
        QCOMPARE(
            fts::unicode::findInvalidUtf8(std::string_view(bytes.constData(), bytes.size())) == fts::unicode::kValid,
            valid);
    }

    // --- Bad files ---------------------------------------------------------------------------------
    void badFiles_data() {
        QTest::addColumn<QString>("content");
        QTest::addColumn<QStringList>("mentions");
        auto edit = [](auto&& f) {
            json doc = toyTokenizer();
            f(doc);
            return QString::fromStdString(doc.dump());
        };
        QTest::newRow("not JSON") << "{\"model\": " << QStringList{"not valid JSON"};
        QTest::newRow("not an object") << "[1, 2]" << QStringList{"expected a JSON object"};
        QTest::newRow("missing model") << R"({"version": "1.0"})" << QStringList{"missing key 'model'"};
        QTest::newRow("unknown model type") << edit([](json& d) {
            d["model"] = {{"type", "Unigram"}, {"vocab", json::array()}};
        }) << QStringList{"tokenizer.model", "model type 'Unigram'", "supported: BPE, WordPiece"};
        QTest::newRow("unknown pre-tokenizer") << edit([](json& d) {
            d["pre_tokenizer"] = {{"type", "UnicodeScripts"}};
        }) << QStringList{"tokenizer.pre_tokenizer", "pre-tokenizer type 'UnicodeScripts'"};
        QTest::newRow("unknown pre-tokenizer in a sequence") << edit([](json& d) {
            d["pre_tokenizer"] = {{"type", "Sequence"},
                                  {"pretokenizers", {{{"type", "ByteLevel"}}, {{"type", "CharDelimiterSplit"}}}}};
        }) << QStringList{"tokenizer.pre_tokenizer.pretokenizers[1]", "'CharDelimiterSplit'"};
        QTest::newRow("dropout set") << edit([](json& d) { d["model"]["dropout"] = 0.1; })
                                     << QStringList{"tokenizer.model.dropout", "dropout 0.1 is not supported"};
        QTest::newRow("unknown normalizer") << edit([](json& d) {
            d["normalizer"] = {{"type", "Precompiled"}, {"precompiled_charsmap", "AAAA"}};
        }) << QStringList{"tokenizer.normalizer", "normalizer type 'Precompiled'"};
        QTest::newRow("unknown decoder") << edit([](json& d) {
            d["decoder"] = {{"type", "CTC"}};
        }) << QStringList{"tokenizer.decoder", "decoder type 'CTC'"};
        QTest::newRow("unknown post-processor") << edit([](json& d) {
            d["post_processor"] = {{"type", "ByteLevelPlus"}};
        }) << QStringList{"tokenizer.post_processor", "post-processor type 'ByteLevelPlus'"};
        QTest::newRow("merge token missing")
            << edit([](json& d) { d["model"]["merges"] = {"a z"}; }) << QStringList{"tokenizer.model.merges[0]", "'z'"};
        QTest::newRow("merge without a space") << edit([](json& d) { d["model"]["merges"] = {"abc"}; })
                                               << QStringList{"tokenizer.model.merges[0]", "exactly one space"};
        QTest::newRow("bad regex") << edit([](json& d) {
            d["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "(a"}}}, {"behavior", "Isolated"}};
        }) << QStringList{"tokenizer.pre_tokenizer.pattern", "does not compile"};
        QTest::newRow("bad split behavior") << edit([](json& d) {
            d["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"String", "-"}}}, {"behavior", "Sideways"}};
        }) << QStringList{"tokenizer.pre_tokenizer.behavior", "Sideways"};
        QTest::newRow("template special token missing")
            << edit([](json& d) { d["post_processor"]["special_tokens"].erase("</s>"); })
            << QStringList{"tokenizer.post_processor.single[2]", "'</s>'"};
        QTest::newRow("added token without id") << edit([](json& d) { d["added_tokens"][0].erase("id"); })
                                                << QStringList{"tokenizer.added_tokens[0]", "missing key 'id'"};
    }
    void badFiles() {
        QFETCH(QString, content);
        QFETCH(QStringList, mentions);
        Files files;
        const std::string path = files.write("bad/tokenizer.json", content.toStdString());
        try {
            Tokenizer::fromFile(path);
            QFAIL("expected a FormatError");
        } catch (const fts::FormatError& e) {
            const std::string msg = e.what();
            QVERIFY2(msg.find(path) != std::string::npos, ("message does not name the file: " + msg).c_str());
            for (const QString& m : mentions)
                QVERIFY2(msg.find(m.toStdString()) != std::string::npos,
                         ("message lacks '" + m.toStdString() + "': " + msg).c_str());
        }
    }

    void missingFile() {
        QVERIFY_THROWS_EXCEPTION(fts::IoError, Tokenizer::fromFile("/nonexistent/tokenizer.json"));
        QVERIFY_THROWS_EXCEPTION(fts::IoError, Tokenizer::fromFile(kData + "gpt2"));  // a folder
    }

    // --- Concurrency -------------------------------------------------------------------------------
    // encode() is const and thread-safe: concurrent encodes (sharing the BPE cache) give the serial ids.
    void concurrentEncode() {
        auto tok = Tokenizer::fromFile(kData + "qwen3/tokenizer.json");
        std::vector<std::string> texts;
        std::ifstream in(kData + "corpus.jsonl", std::ios::binary);
        std::string line;
        while (std::getline(in, line, '\n'))
            if (!line.empty()) texts.push_back(json::parse(line)["text"].get<std::string>());
        std::vector<Ids> serial;
        for (const auto& t : texts) serial.push_back(tok->encode(t));
        std::vector<std::vector<Ids>> results(4);
        std::vector<std::thread> threads;
        for (int w = 0; w < 4; ++w)
            threads.emplace_back([&, w] {
                for (int round = 0; round < 20; ++round)
                    for (size_t i = 0; i < texts.size(); ++i) {
                        const size_t k =
                            (i * 7 + static_cast<size_t>(w) * 13 + static_cast<size_t>(round)) % texts.size();
                        if (round == 19)
                            results[w].push_back(tok->encode(texts[k]));
                        else
                            tok->encode(texts[k]);
                    }
            });
        for (auto& t : threads) t.join();
        for (int w = 0; w < 4; ++w)
            for (size_t i = 0; i < texts.size(); ++i) {
                const size_t k = (i * 7 + static_cast<size_t>(w) * 13 + 19) % texts.size();
                QCOMPARE(results[w][i], serial[k]);
            }
    }
};

QTEST_APPLESS_MAIN(TestTokenizer)
#include "test_tokenizer.moc"
