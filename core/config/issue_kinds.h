// The kinds of config and path messages a translated UI can say in its own words: the core (Qt-free, English)
// builds these messages with the functions below and splits them back into a kind and its arguments, so the
// studio's catalogue (ui/issue_text.*) keys its translations by kind. Invariant: splitIssueMessage of a message
// made here returns the kind and arguments it was made from; any other message is IssueKind::Other.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace fts {

enum class IssueKind {
    Other,       // no arguments: shown as written
    Expected,    // {what was expected, the value found}: "expected a positive integer, got 0"
    UnknownKey,  // {key, suggested key or "", note or ""}: "unknown key "lr_rate" (ignored), did you mean "lr"?"
    NotFound,    // {path, what was expected there or ""}: "/data/x.jsonl: not found"
    Template,    // {the template (message_templates.h), its %1.. values}: "/tmp/a: cannot be created (/tmp is ...)"
};

struct IssueParts {
    IssueKind kind = IssueKind::Other;
    std::vector<std::string> args;
};

std::string expectedMessage(std::string_view what, std::string_view found);
std::string unknownKeyMessage(std::string_view key, std::string_view suggestion, std::string_view note);
std::string notFoundMessage(std::string_view path, std::string_view expectation);
IssueParts splitIssueMessage(const std::string& message);

}  // namespace fts
