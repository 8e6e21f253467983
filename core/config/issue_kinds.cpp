// Message kinds: building and splitting (see issue_kinds.h).
#include "core/config/issue_kinds.h"

#include <regex>

#include "core/config/message_templates.h"

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

namespace {

// One pattern per template: its text literal, each %N any non-empty text (the last one greedy).
struct TemplatePattern {
    std::string_view text;
    std::regex pattern;
    std::vector<int> order;  // the %N of each capture group, 0-based
};

const std::vector<TemplatePattern>& templatePatterns() {
    static const std::vector<TemplatePattern> all = [] {
        std::vector<TemplatePattern> out;
        static const std::string special = R"(\^$.|?*+()[]{}/)";
        for (std::string_view t : messageTemplates()) {
            std::string re = "^";
            std::vector<int> order;
            for (size_t i = 0; i < t.size(); ++i) {
                if (t[i] == '%' && i + 1 < t.size() && t[i + 1] >= '1' && t[i + 1] <= '9') {
                    order.push_back(t[i + 1] - '1');
                    re += i + 2 == t.size() ? "([\\s\\S]+)" : "([\\s\\S]+?)";
                    ++i;
                    continue;
                }
                if (special.find(t[i]) != std::string::npos) re += '\\';
                re += t[i];
            }
            out.push_back({t, std::regex(re + "$"), std::move(order)});
        }
        return out;
    }();
    return all;
}

}  // namespace

IssueParts splitIssueMessage(const std::string& message) {
    static const std::regex expected(R"(^expected (.+?), got (.+)$)");
    static const std::regex unknownKey(
        R"re(^unknown key "(.*?)" \(ignored\)(?:, did you mean "(.*?)"\?)?(?:(?:; | )(.*))?$)re");
    static const std::regex notFound(R"(^(.+): not found(?: \((.*)\))?$)");
    std::smatch m;
    if (std::regex_match(message, m, expected)) return {IssueKind::Expected, {m[1].str(), m[2].str()}};
    if (std::regex_match(message, m, unknownKey)) return {IssueKind::UnknownKey, {m[1].str(), m[2].str(), m[3].str()}};
    if (std::regex_match(message, m, notFound)) return {IssueKind::NotFound, {m[1].str(), m[2].str()}};
    for (const TemplatePattern& t : templatePatterns()) {
        if (!std::regex_match(message, m, t.pattern)) continue;
        IssueParts parts{IssueKind::Template, {std::string(t.text)}};
        int count = 0;
        for (int n : t.order) count = std::max(count, n + 1);
        parts.args.resize(size_t(count) + 1);
        for (size_t g = 0; g < t.order.size(); ++g) parts.args[size_t(t.order[g]) + 1] = m[int(g) + 1].str();
        return parts;
    }
    return {};
}

}  // namespace fts
