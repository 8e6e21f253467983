// Bounded JSON parsing (see json_parse.h): a pre-scan of the bracket depth and the numbers, then nlohmann's parser.
#include "core/util/json_parse.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace fts {

namespace {

bool isNumberChar(char c) { return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'; }

// A number token that nlohmann would refuse with out_of_range 406 ("number overflow"): beyond a double's range.
// Only tokens with an exponent or of many digits can be; the rest skip the strtod.
bool numberOverflows(std::string_view token) {
    if (token.size() < 300 && token.find_first_of("eE") == std::string_view::npos) return false;
    const std::string text(token);
    errno = 0;
    const double v = std::strtod(text.c_str(), nullptr);
    return errno == ERANGE && std::isinf(v);
}

}  // namespace

void checkJsonLimits(std::string_view text, int maxDepth) {
    int depth = 0;
    bool inString = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;  // the escaped character cannot end the string
            else if (c == '"')
                inString = false;
            continue;
        }
        switch (c) {
            case '"':
                inString = true;
                break;
            case '[':
            case '{':
                if (++depth > maxDepth)
                    throw nlohmann::json::parse_error::create(101, i + 1,
                                                              "syntax error: arrays and objects nested more than " +
                                                                  std::to_string(maxDepth) +
                                                                  " levels deep (the limit for JSON input)",
                                                              nullptr);
                break;
            case ']':
            case '}':
                if (depth > 0) --depth;  // unbalanced text is the parser's error to report
                break;
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    size_t end = i;
                    while (end < text.size() && isNumberChar(text[end])) ++end;
                    if (numberOverflows(text.substr(i, end - i)))
                        throw nlohmann::json::parse_error::create(
                            101, i + 1,
                            "syntax error: number " + std::string(text.substr(i, std::min<size_t>(end - i, 40))) +
                                " is out of range (beyond a 64-bit float)",
                            nullptr);
                    i = end - 1;
                }
                break;
        }
    }
}

namespace {

// The four entry points are these two, for nlohmann::json and nlohmann::ordered_json.
template <class Json>
Json parseChecked(std::string_view text) {
    checkJsonLimits(text);
    return Json::parse(text);
}

template <class Json>
Json parseOrDiscarded(std::string_view text) {
    try {
        checkJsonLimits(text);
    } catch (const nlohmann::json::parse_error&) {
        return Json::value_t::discarded;
    }
    return Json::parse(text, nullptr, /*allow_exceptions=*/false);
}

}  // namespace

nlohmann::json parseJson(std::string_view text) { return parseChecked<nlohmann::json>(text); }
nlohmann::ordered_json parseOrderedJson(std::string_view text) { return parseChecked<nlohmann::ordered_json>(text); }
nlohmann::json parseJsonOrDiscarded(std::string_view text) { return parseOrDiscarded<nlohmann::json>(text); }
nlohmann::ordered_json parseOrderedJsonOrDiscarded(std::string_view text) {
    return parseOrDiscarded<nlohmann::ordered_json>(text);
}

}  // namespace fts
