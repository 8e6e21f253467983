// Typed JSON field reads for the config parser (see config_reader.h). Every read that fails records one
// issue naming the key, the value found and what was expected; nothing here throws on bad input.
#include "core/config/config_reader.h"

#include "core/config/issue_kinds.h"
#include "core/util/json_fields.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace fts::config_detail {

bool IssueList::hasErrors() const {
    return std::any_of(m_issues.begin(), m_issues.end(), [](const ConfigIssue& i) { return i.isError; });
}

std::vector<ConfigIssue> IssueList::take() {
    std::stable_sort(m_issues.begin(), m_issues.end(),
                     [](const ConfigIssue& a, const ConfigIssue& b) { return a.keyPath < b.keyPath; });
    return std::move(m_issues);
}

std::string joinKey(std::string_view parent, std::string_view key) {
    if (parent.empty()) return std::string(key);
    std::string out(parent);
    out += '.';
    out += key;
    return out;
}

std::string describeValue(const json& value) { return jsonForMessage(value); }

namespace {

size_t editDistance(std::string_view a, std::string_view b) {
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                              std::tolower(static_cast<unsigned char>(b[j - 1]));
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

}  // namespace

std::string didYouMean(std::string_view key, const std::vector<std::string>& candidates) {
    const std::string name = closestName(key, candidates);
    return name.empty() ? std::string() : ", did you mean \"" + name + "\"?";
}

std::string closestName(std::string_view key, const std::vector<std::string>& candidates) {
    const size_t limit = std::max<size_t>(2, key.size() / 3);
    size_t best = limit + 1;
    const std::string* bestName = nullptr;
    for (const auto& c : candidates) {
        const size_t d = editDistance(key, c);
        if (d < best) {
            best = d;
            bestName = &c;
        }
    }
    return bestName ? *bestName : std::string();
}

std::string joinNames(const std::vector<std::string>& names) {
    std::string out;
    for (size_t i = 0; i < names.size(); ++i) {
        if (i) out += ", ";
        out += names[i];
    }
    return out;
}

const json* findField(const json& obj, const char* key, bool autoMeansAbsent) {
    if (!obj.is_object()) return nullptr;
    auto it = obj.find(key);
    if (it == obj.end()) return nullptr;
    if (autoMeansAbsent && isAuto(*it)) return nullptr;
    return &*it;
}

std::optional<int64_t> readInt(IssueList& issues, const json& v, const std::string& keyPath, int64_t minValue,
                               int64_t maxValue, const char* what) {
    std::optional<int64_t> value;
    if (v.is_number_integer() && !v.is_number_unsigned()) {
        value = v.get<int64_t>();
    } else if (v.is_number_unsigned()) {
        const uint64_t u = v.get<uint64_t>();
        if (u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) value = static_cast<int64_t>(u);
    } else if (v.is_number_float()) {
        const double d = v.get<double>();
        // 2^63 is exactly representable; anything at or beyond it does not fit int64.
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9223372036854775808.0)
            value = static_cast<int64_t>(d);
    }
    if (!value || *value < minValue || *value > maxValue) {
        issues.error(keyPath, expectedMessage(what, describeValue(v)));
        return std::nullopt;
    }
    return value;
}

std::optional<double> readNumber(IssueList& issues, const json& v, const std::string& keyPath, double minValue,
                                 double maxValue, const char* what) {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < minValue || v.get<double>() > maxValue) {
        issues.error(keyPath, expectedMessage(what, describeValue(v)));
        return std::nullopt;
    }
    return v.get<double>();
}

std::optional<bool> readBool(IssueList& issues, const json& v, const std::string& keyPath) {
    if (!v.is_boolean()) {
        issues.error(keyPath, expectedMessage("true or false", describeValue(v)));
        return std::nullopt;
    }
    return v.get<bool>();
}

std::optional<std::string> readString(IssueList& issues, const json& v, const std::string& keyPath, bool allowEmpty) {
    if (!v.is_string() || (!allowEmpty && v.get_ref<const std::string&>().empty())) {
        issues.error(keyPath, expectedMessage(allowEmpty ? "a string" : "a non-empty string", describeValue(v)));
        return std::nullopt;
    }
    return v.get<std::string>();
}

bool expectObject(IssueList& issues, const json& v, const std::string& keyPath) {
    if (v.is_object()) return true;
    issues.error(keyPath, expectedMessage("an object {...}", describeValue(v)));
    return false;
}

void warnUnknownKeys(IssueList& issues, const json& obj, const std::string& keyPath,
                     const std::vector<std::string>& known, std::string_view note) {
    if (!obj.is_object()) return;
    for (auto it = obj.begin(); it != obj.end(); ++it) {
        if (std::find(known.begin(), known.end(), it.key()) != known.end()) continue;
        issues.warning(joinKey(keyPath, it.key()), unknownKeyMessage(it.key(), closestName(it.key(), known), note));
    }
}

std::filesystem::path resolvePath(const std::string& text, const std::filesystem::path& baseDir) {
    namespace fs = std::filesystem;
    fs::path p;
    if (text == "~" || text.rfind("~/", 0) == 0) {
        const char* home = std::getenv("HOME");
        p = fs::path(home ? home : "") / text.substr(text.size() > 1 ? 2 : 1);
    } else {
        p = fs::path(text);
    }
    if (p.is_relative()) p = baseDir / p;
    std::error_code ec;
    fs::path abs = fs::absolute(p, ec);
    return (ec ? p : abs).lexically_normal();
}

}  // namespace fts::config_detail
