// Message kinds: building and splitting (see issue_kinds.h).
#include "core/config/issue_kinds.h"

#include <regex>

namespace fts {

std::string expectedMessage(std::string_view what, std::string_view found) {
    return "expected " + std::string(what) + ", got " + std::string(found);
}

std::string unknownKeyMessage(std::string_view key, std::string_view suggestion, std::string_view note) {
    std::string msg = "unknown key \"" + std::string(key) + "\" (ignored)";
    if (!suggestion.empty()) msg += ", did you mean \"" + std::string(suggestion) + "\"?";
    if (!note.empty()) msg += (suggestion.empty() ? "; " : " ") + std::string(note);
    return msg;
}

std::string notFoundMessage(std::string_view path, std::string_view expectation) {
    std::string msg = std::string(path) + ": not found";
    if (!expectation.empty()) msg += " (" + std::string(expectation) + ")";
    return msg;
}

IssueParts splitIssueMessage(const std::string& message) {
    static const std::regex expected(R"(^expected (.+?), got (.+)$)");
    static const std::regex unknownKey(
        R"re(^unknown key "(.*?)" \(ignored\)(?:, did you mean "(.*?)"\?)?(?:(?:; | )(.*))?$)re");
    static const std::regex notFound(R"(^(.+): not found(?: \((.*)\))?$)");
    std::smatch m;
    if (std::regex_match(message, m, expected)) return {IssueKind::Expected, {m[1].str(), m[2].str()}};
    if (std::regex_match(message, m, unknownKey)) return {IssueKind::UnknownKey, {m[1].str(), m[2].str(), m[3].str()}};
    if (std::regex_match(message, m, notFound)) return {IssueKind::NotFound, {m[1].str(), m[2].str()}};
    return {};
}

}  // namespace fts
