// Classification rows (see classification_dataset.h): read every record's text, pair and raw label, decide the
// label kind from the training file as run_glue.py does (pandas / Arrow typing: a CSV field is a number when it
// parses as one), map labels to ids, tokenize with truncation, then hold out the eval rows when no eval file is
// given.
#include "core/data/classification_dataset.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "core/data/record_reader.h"
#include "core/data/seeded_shuffle.h"
#include "core/data/tokenizer.h"
#include "core/util/error.h"

namespace fts {
namespace {

using nlohmann::json;
constexpr uint64_t kClassificationSplitStream = 0xC1A55u;

enum class RawKind { Int, Float, String, List };

struct RawRow {
    int64_t line = 0;
    std::string text;
    std::optional<std::string> pair;
    RawKind kind = RawKind::Int;
    int64_t i = 0;
    double f = 0.0;
    std::string s;
    std::vector<std::string> list;
};

bool parseInt(const std::string& t, int64_t& out) {
    if (t.empty()) return false;
    const char* b = t.data() + (t[0] == '+' ? 1 : 0);
    auto [p, ec] = std::from_chars(b, t.data() + t.size(), out);
    return ec == std::errc() && p == t.data() + t.size();
}

bool parseDouble(const std::string& t, double& out) {
    if (t.empty()) return false;
    auto [p, ec] = std::from_chars(t.data() + (t[0] == '+' ? 1 : 0), t.data() + t.size(), out);
    return ec == std::errc() && p == t.data() + t.size() && std::isfinite(out);
}

const char* kindName(RawKind k) {
    switch (k) {
        case RawKind::Int:
            return "an integer";
        case RawKind::Float:
            return "a number";
        case RawKind::String:
            return "a string";
        case RawKind::List:
            return "a list";
    }
    return "?";
}

// The label of one record as its file types it; false (and `why`) when it has none usable.
bool readLabel(const json& v, bool textFile, RawRow& row, std::string& why) {
    if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX))
        return why = "the label " + v.dump() + " is out of range", false;
    if (v.is_number_integer()) {
        row.kind = RawKind::Int;
        row.i = v.get<int64_t>();
        return true;
    }
    if (v.is_number_float()) {
        row.kind = RawKind::Float;
        row.f = v.get<double>();
        if (!std::isfinite(row.f)) return why = "the label is not a finite number", false;
        return true;
    }
    if (v.is_string()) {
        const std::string& t = v.get_ref<const std::string&>();
        if (t.empty()) return why = "the label is empty", false;
        row.s = t;  // a text file's number keeps its text: a column with any non-number is all strings (pandas)
        if (textFile && parseInt(t, row.i)) return row.kind = RawKind::Int, true;
        if (textFile && parseDouble(t, row.f)) return row.kind = RawKind::Float, true;
        row.kind = RawKind::String;
        return true;
    }
    if (v.is_array()) {
        row.kind = RawKind::List;
        for (const json& item : v) {
            if (item.is_string())
                row.list.push_back(item.get<std::string>());
            else if (item.is_number_unsigned())  // as written: 2^64-1 must not wrap to "-1"
                row.list.push_back(std::to_string(item.get<uint64_t>()));
            else if (item.is_number_integer())
                row.list.push_back(std::to_string(item.get<int64_t>()));
            else
                return why = "a multi-label list holds strings or integers, found " + item.dump(), false;
        }
        return true;
    }
    why = v.is_null() ? "the label is null" : "expected a number, a string or a list as the label, found " + v.dump();
    return false;
}

// The class name of a row: a string label's text; an integer's decimal form, or its text when the training
// column holds strings (stringClasses).
std::string labelName(const RawRow& r, bool stringClasses) {
    if (r.kind == RawKind::Int && !(stringClasses && !r.s.empty())) return std::to_string(r.i);
    return r.s;
}

class Reader {
public:
    Reader(const ClassificationOptions& o, ClassificationData& d) : m_o(o), m_d(d) {}

    void bad(const std::string& message) {
        m_d.badRows += 1;
        if (int64_t(m_d.badRowMessages.size()) < m_o.maxBadRowsShown) m_d.badRowMessages.push_back(message);
        if (m_o.badRows == BadRowPolicy::Stop)
            throw FormatError(message + " (data.on_bad_row is \"stop\"; \"skip\" leaves such rows out)");
    }

    // Every record of `file` with its text, pair and label; rows without them are bad rows.
    std::vector<RawRow> read(const std::filesystem::path& file) {
        RecordReader reader(file);
        const bool textFile = reader.format() == RecordFileFormat::Csv || reader.format() == RecordFileFormat::Tsv;
        const ClassificationColumns& c = m_o.columns;
        std::vector<RawRow> rows;
        Record rec;
        BadRow badRow;
        bool sawText = false, sawLabel = false, sawPair = false;
        int64_t count = 0;
        for (;;) {
            const RecordReader::Status st = reader.next(rec, badRow);
            if (st == RecordReader::Status::End) break;
            m_d.records += 1;
            count += 1;
            if (st == RecordReader::Status::Bad) {
                bad(badRow.message);
                continue;
            }
            const std::string where = file.string() + ":" + std::to_string(rec.line) + ": ";
            const json& obj = rec.value;
            RawRow row;
            row.line = rec.line;
            auto text = obj.find(c.text);
            auto label = obj.find(c.label);
            auto pair = obj.find(c.textPair);
            sawText |= text != obj.end();
            sawLabel |= label != obj.end();
            sawPair |= pair != obj.end();
            if (text == obj.end() || !text->is_string()) {
                bad(where + (text == obj.end() ? "no '" + c.text + "' field" : "'" + c.text + "' is not a string"));
                continue;
            }
            row.text = text->get<std::string>();
            if (row.text.empty()) {  // nothing to classify (tokenizers would give [CLS] [SEP] alone)
                bad(where + "'" + c.text + "' is empty");
                continue;
            }
            if (pair != obj.end()) {
                if (!pair->is_string()) {
                    bad(where + "'" + c.textPair + "' is not a string");
                    continue;
                }
                row.pair = pair->get<std::string>();
            }
            std::string why;
            if (label == obj.end()) {
                bad(where + "no '" + c.label + "' field");
                continue;
            }
            if (!readLabel(*label, textFile, row, why)) {
                bad(where + "'" + c.label + "': " + why);
                continue;
            }
            rows.push_back(std::move(row));
        }
        const struct {
            bool missing;
            const char* role;
            const std::string& column;
            const char* why;
        } required[] = {
            {!sawText, "text", c.text, "data.columns.text names it"},
            {!sawLabel, "label", c.label, "data.columns.label names it"},
            {(m_o.textPairNamed || m_d.pairs) && !sawPair, "text_pair", c.textPair,
             m_o.textPairNamed ? "data.columns.text_pair names it" : "the training rows are sentence pairs"}};
        for (const auto& r : required)
            if (count > 0 && r.missing)
                throw FormatError(file.string() + ": no record has the " + r.role + " column '" + r.column + "' (" +
                                  r.why + ")");
        m_sawPair = sawPair;
        return rows;
    }

    bool sawPair() const { return m_sawPair; }  // a record of the last file read has the pair column

private:
    const ClassificationOptions& m_o;
    ClassificationData& m_d;
    bool m_sawPair = false;
};

// The label kind of the training rows; FormatError when they mix kinds (a column Arrow could not type).
LabelKind decideKind(std::vector<RawRow>& rows, const std::filesystem::path& file, const std::string& column) {
    // CSV / TSV: a column with any non-number is a column of strings, numbers included (pandas' typing).
    const RecordFileFormat format = recordFileFormat(file);
    if (format == RecordFileFormat::Csv || format == RecordFileFormat::Tsv) {
        bool anyString = false;
        for (const RawRow& r : rows) anyString = anyString || r.kind == RawKind::String;
        if (anyString)
            for (RawRow& r : rows)
                if (r.kind == RawKind::Int || r.kind == RawKind::Float) r.kind = RawKind::String;
    }
    const RawRow* first[4] = {nullptr, nullptr, nullptr, nullptr};
    for (const RawRow& r : rows)
        if (!first[int(r.kind)]) first[int(r.kind)] = &r;
    const RawRow *ints = first[0], *floats = first[1], *strings = first[2], *lists = first[3];
    auto mixed = [&](const RawRow* a, const RawRow* b) {
        throw FormatError(file.string() + ": the label column '" + column + "' mixes kinds: line " +
                          std::to_string(a->line) + " has " + kindName(a->kind) + ", line " + std::to_string(b->line) +
                          " " + kindName(b->kind) +
                          " (integers or strings are classes, numbers with a fraction a "
                          "regression target, lists multi-label)");
    };
    const RawRow* number = ints ? ints : floats;
    if (lists && (number || strings)) mixed(lists, number ? number : strings);
    if (strings && number) mixed(number, strings);
    if (lists) return LabelKind::MultiLabel;
    if (floats) return LabelKind::Regression;
    return LabelKind::SingleLabel;
}

std::vector<std::string> sortedLabelNames(const std::vector<RawRow>& rows, LabelKind kind) {
    if (kind == LabelKind::MultiLabel) {
        std::set<std::string> names;
        for (const RawRow& r : rows) names.insert(r.list.begin(), r.list.end());
        return {names.begin(), names.end()};
    }
    bool numeric = !rows.empty() && rows.front().kind == RawKind::Int;
    if (numeric) {
        std::set<int64_t> ids;
        for (const RawRow& r : rows) ids.insert(r.i);
        std::vector<std::string> out;
        for (int64_t v : ids) out.push_back(std::to_string(v));
        return out;
    }
    std::set<std::string> names;
    for (const RawRow& r : rows) names.insert(r.s);
    return {names.begin(), names.end()};
}

// max_length must leave room for text after the special tokens, and pairs need the tokenizer's pair template:
// checked once, before any row, as a config error instead of a file of bad rows.
void checkRoomForText(const Tokenizer& tokenizer, bool pairs, const ClassificationOptions& o) {
    try {
        tokenizer.encodeTruncated("a", pairs ? std::optional<std::string_view>("b") : std::nullopt, o.maxLength);
    } catch (const FormatError& e) {
        throw ConfigError(
            std::string("data.max_length / the tokenizer: ") + e.what() +
            (pairs ? " (the rows are sentence pairs: column '" + o.columns.textPair + "')" : std::string()));
    }
}

constexpr size_t kMaxLabels = 100000;

void checkLabelCount(const ClassificationData& d, const ClassificationOptions& o) {
    const std::string where = o.trainPath.string() + ": the label column '" + o.columns.label + "' ";
    if (d.kind == LabelKind::SingleLabel && d.labelNames.size() < 2)
        throw FormatError(where + "holds one class ('" + d.labelNames.front() +
                          "'); a classifier needs two or more "
                          "(numbers with a fraction make a regression target)");
    if (d.kind == LabelKind::MultiLabel && d.labelNames.empty())
        throw FormatError(where + "holds only empty lists; a multi-label classifier needs at least one label");
    if (d.labelNames.size() > kMaxLabels)
        throw FormatError(where + "holds " + std::to_string(d.labelNames.size()) + " distinct labels (at most " +
                          std::to_string(kMaxLabels) + "); is it an id column, or a regression target?");
}

std::string lowered(std::string s) {
    for (char& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    return s;
}

// The model's label order when it names the data's labels (compared without case, as run_glue.py lowercases the
// model's label2id), with the data's spelling; else the sorted names.
std::vector<std::string> inModelOrder(const std::vector<std::string>& names, const std::vector<std::string>& model) {
    if (model.size() != names.size()) return names;
    std::map<std::string, std::string> byLower;
    for (const std::string& n : names)
        if (!byLower.emplace(lowered(n), n).second) return names;  // names equal but for case: keep the sorted order
    std::vector<std::string> out;
    std::set<std::string> used;
    for (const std::string& m : model) {
        auto it = byLower.find(lowered(m));
        if (it == byLower.end() || !used.insert(it->first).second) return names;
        out.push_back(it->second);
    }
    return out;
}

}  // namespace

ClassificationColumns classificationColumns(const std::string& textField,
                                            const std::map<std::string, std::string>& columns, bool& textPairNamed) {
    ClassificationColumns c;
    c.text = textField;
    const auto role = [&](const char* name, std::string& to) {
        if (auto it = columns.find(name); it != columns.end()) to = it->second;
    };
    role("text", c.text);
    role("text_pair", c.textPair);
    role("label", c.label);
    textPairNamed = columns.count("text_pair") > 0;
    return c;
}

const char* problemTypeName(LabelKind kind) {
    switch (kind) {
        case LabelKind::SingleLabel:
            return "single_label_classification";
        case LabelKind::MultiLabel:
            return "multi_label_classification";
        case LabelKind::Regression:
            return "regression";
    }
    return "single_label_classification";
}

ClassificationData buildClassificationData(const ClassificationOptions& o, const Tokenizer& tokenizer) {
    if (!(o.evalFraction >= 0.0 && o.evalFraction < 1.0))
        throw ConfigError("data.eval_fraction: must be in [0, 1), found " + std::to_string(o.evalFraction));
    ClassificationData d;
    Reader reader(o, d);
    std::vector<RawRow> trainRows = reader.read(o.trainPath);
    d.pairs = o.textPairNamed || reader.sawPair();  // any training record with the pair column makes pairs
    if (trainRows.empty())
        throw FormatError(o.trainPath.string() + ": no labelled row (" + std::to_string(d.badRows) + " bad row(s))");
    checkRoomForText(tokenizer, d.pairs, o);
    d.kind = decideKind(trainRows, o.trainPath, o.columns.label);
    const bool stringClasses = d.kind == LabelKind::SingleLabel && trainRows.front().kind == RawKind::String;
    if (d.kind != LabelKind::Regression) {
        d.labelNames = sortedLabelNames(trainRows, d.kind);
        checkLabelCount(d, o);
        d.labelNames = inModelOrder(d.labelNames, o.modelLabelOrder);
    }
    d.targetWidth = d.kind == LabelKind::MultiLabel ? int64_t(d.labelNames.size()) : 1;
    std::map<std::string, int64_t> idOf;
    for (size_t i = 0; i < d.labelNames.size(); ++i) idOf[d.labelNames[i]] = int64_t(i);

    // Appends a row to `split`; false (a bad row) when its label is not one of the training labels.
    auto add = [&](const RawRow& r, ClassificationSplit& split, std::vector<int64_t>& counts,
                   const std::filesystem::path& file) {
        const std::string where = file.string() + ":" + std::to_string(r.line) + ": ";
        std::vector<float> target(size_t(d.targetWidth), 0.0f);
        if (d.kind == LabelKind::Regression) {
            if (r.kind != RawKind::Int && r.kind != RawKind::Float)
                return reader.bad(where + "expected a number as the regression label, found " + kindName(r.kind)),
                       false;
            target[0] = float(r.kind == RawKind::Int ? double(r.i) : r.f);
        } else if (d.kind == LabelKind::MultiLabel) {
            if (r.kind != RawKind::List)
                return reader.bad(where + "expected a list of labels (multi-label), found " + kindName(r.kind)), false;
            for (const std::string& name : r.list) {
                auto it = idOf.find(name);
                if (it == idOf.end())
                    return reader.bad(where + "label '" + name + "' is not among the training labels"), false;
                target[size_t(it->second)] = 1.0f;
            }
        } else {
            if (r.kind != RawKind::Int && r.kind != RawKind::String)
                return reader.bad(where + "expected a class label (integer or string), found " + kindName(r.kind)),
                       false;
            auto it = idOf.find(labelName(r, stringClasses));
            if (it == idOf.end())
                return reader.bad(where + "label '" + labelName(r, stringClasses) +
                                  "' is not among the training labels"),
                       false;
            target[0] = float(it->second);
        }
        if (d.pairs && !r.pair)
            return reader.bad(where + "no '" + o.columns.textPair + "' field (the sentence pair)"), false;
        std::optional<std::string_view> pair;
        if (r.pair && d.pairs) pair = *r.pair;
        Tokenizer::Encoded e;
        try {
            e = tokenizer.encodeTruncated(r.text, pair, o.maxLength);
        } catch (const FormatError& err) {
            return reader.bad(where + err.what()), false;
        }
        d.truncated += e.truncated ? 1 : 0;
        split.inputIds.insert(split.inputIds.end(), e.ids.begin(), e.ids.end());
        split.typeIds.insert(split.typeIds.end(), e.typeIds.begin(), e.typeIds.end());
        split.offsets.push_back(int64_t(split.inputIds.size()));
        split.targets.insert(split.targets.end(), target.begin(), target.end());
        split.lines.push_back(r.line);
        if (d.kind == LabelKind::SingleLabel) counts[size_t(target[0])] += 1;
        if (d.kind == LabelKind::MultiLabel)
            for (size_t k = 0; k < target.size(); ++k) counts[k] += target[k] > 0.5f ? 1 : 0;
        return true;
    };
    d.trainLabelCounts.assign(d.labelNames.size(), 0);
    d.evalLabelCounts.assign(d.labelNames.size(), 0);

    if (!o.evalPath.empty()) {
        for (const RawRow& r : trainRows) add(r, d.train, d.trainLabelCounts, o.trainPath);
        std::vector<RawRow> evalRows = reader.read(o.evalPath);  // pairs: the file must have the pair column
        for (const RawRow& r : evalRows) add(r, d.eval, d.evalLabelCounts, o.evalPath);
    } else {
        const int64_t n = int64_t(trainRows.size());
        std::vector<uint8_t> isEval(size_t(n), 0);
        if (o.evalFraction > 0.0) {
            if (n < 2)
                throw FormatError(o.trainPath.string() +
                                  ": 1 labelled row: at least 2 are needed to hold out an eval "
                                  "split; give data.eval or more rows");
            const int64_t wanted = std::clamp<int64_t>(std::llround(o.evalFraction * double(n)), 1, n - 1);
            const auto order = seededPermutation<int64_t>(size_t(n), deriveSeed(o.seed, kClassificationSplitStream));
            for (int64_t k = 0; k < wanted; ++k) isEval[size_t(order[size_t(k)])] = 1;
        }
        for (int64_t i = 0; i < n; ++i)
            if (isEval[size_t(i)])
                add(trainRows[size_t(i)], d.eval, d.evalLabelCounts, o.trainPath);
            else
                add(trainRows[size_t(i)], d.train, d.trainLabelCounts, o.trainPath);
    }
    if (d.train.size() == 0) throw FormatError(o.trainPath.string() + ": no training row left");
    return d;
}

}  // namespace fts
