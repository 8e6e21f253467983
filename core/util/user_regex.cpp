// The checks before std::regex compiles a user's pattern; see user_regex.h.
#include "core/util/user_regex.h"

#include <stdexcept>

namespace fts {

namespace {

constexpr size_t kMaxLength = 4096;
constexpr int kMaxDepth = 64;
constexpr long kMaxCount = 1000;

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// The digits from `i` on, as a number (capped past kMaxCount); `i` moves past them.
long readCount(const std::string& p, size_t& i) {
    long value = 0;
    for (; i < p.size() && isDigit(p[i]); ++i)
        if (value <= kMaxCount) value = value * 10 + (p[i] - '0');
    return value;
}

void check(const std::string& p) {
    if (p.size() > kMaxLength) throw std::invalid_argument("longer than " + std::to_string(kMaxLength) + " characters");
    int depth = 0;
    bool inClass = false;
    for (size_t i = 0; i < p.size(); ++i) {
        const char c = p[i];
        if (c == '\\') {
            size_t j = i + 1;
            while (j < p.size() && isDigit(p[j])) ++j;
            if (j - (i + 1) > 2) throw std::invalid_argument("a backreference of more than 2 digits");
            i = j > i + 1 ? j - 1 : i + 1;  // past the digits, or past the escaped character
            continue;
        }
        if (inClass) {
            inClass = c != ']';
            continue;
        }
        if (c == '[') {
            inClass = true;
        } else if (c == '(') {
            if (++depth > kMaxDepth)
                throw std::invalid_argument("more than " + std::to_string(kMaxDepth) + " nested groups");
        } else if (c == ')') {
            depth = depth > 0 ? depth - 1 : 0;
        } else if (c == '{') {
            size_t j = i + 1;
            long low = readCount(p, j), high = 0;
            if (j < p.size() && p[j] == ',') {
                ++j;
                high = readCount(p, j);
            }
            if (low > kMaxCount || high > kMaxCount)
                throw std::invalid_argument("a repetition count above " + std::to_string(kMaxCount));
            i = j - 1;
        }
    }
}

}  // namespace

std::regex compileUserRegex(const std::string& pattern) {
    check(pattern);
    return std::regex(pattern, std::regex::ECMAScript);
}

}  // namespace fts
