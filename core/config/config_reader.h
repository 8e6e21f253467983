// Internal helpers of the config parser: typed reads of JSON fields that record an issue (key path, what
// was found, what was expected) instead of throwing, so one pass reports every problem in the file.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/config/train_config.h"

namespace fts::config_detail {

using nlohmann::json;

// Collects errors and warnings; key paths are dotted ("deepspeed.optimizer.params.lr").
class IssueList {
public:
    void error(std::string keyPath, std::string message) {
        m_issues.push_back({std::move(keyPath), std::move(message), true});
    }
    void warning(std::string keyPath, std::string message) {
        m_issues.push_back({std::move(keyPath), std::move(message), false});
    }
    bool hasErrors() const;
    std::vector<ConfigIssue> take();  // sorted by key path (stable: same-key issues keep their order)

private:
    std::vector<ConfigIssue> m_issues;
};

std::string joinKey(std::string_view parent, std::string_view key);
// A JSON value as the user wrote it, shortened for messages: "abc" keeps its quotes, 3, true, {...}.
std::string describeValue(const json& value);
// ", did you mean \"x\"?" when a candidate is within a small edit distance, else "".
std::string didYouMean(std::string_view key, const std::vector<std::string>& candidates);
// That candidate itself ("" when none is close).
std::string closestName(std::string_view key, const std::vector<std::string>& candidates);
// "a, b, c"
std::string joinNames(const std::vector<std::string>& names);

inline bool isAuto(const json& v) { return v.is_string() && v.get_ref<const std::string&>() == "auto"; }

// The field `key` of `obj`, or nullptr when absent. With autoMeansAbsent, the string "auto" counts as
// absent too (Hugging Face writes "auto" for values it fills in itself).
const json* findField(const json& obj, const char* key, bool autoMeansAbsent = false);

// Integer reads: accept JSON integers and floats with an integral value (8.0); record a type error
// ("expected <what>, got <value>") or a range error (value < minValue / > maxValue) otherwise.
// Return the value when it is usable.
std::optional<int64_t> readInt(IssueList& issues, const json& v, const std::string& keyPath, int64_t minValue,
                               int64_t maxValue, const char* what);
std::optional<double> readNumber(IssueList& issues, const json& v, const std::string& keyPath, double minValue,
                                 double maxValue, const char* what);
std::optional<bool> readBool(IssueList& issues, const json& v, const std::string& keyPath);
std::optional<std::string> readString(IssueList& issues, const json& v, const std::string& keyPath,
                                      bool allowEmpty = false);

// Requires `v` to be an object; records a type error otherwise.
bool expectObject(IssueList& issues, const json& v, const std::string& keyPath);

// Warns about each key of `obj` not in `known` ("unknown key ... (ignored)", with a suggestion).
void warnUnknownKeys(IssueList& issues, const json& obj, const std::string& keyPath,
                     const std::vector<std::string>& known, std::string_view note = {});

// "~/x" -> $HOME/x; relative -> baseDir/x; made absolute and lexically normal.
std::filesystem::path resolvePath(const std::string& text, const std::filesystem::path& baseDir);

}  // namespace fts::config_detail
