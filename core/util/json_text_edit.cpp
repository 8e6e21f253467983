// editJsonText (see json_text_edit.h): a scanner that records where each object and member sits in the text, and
// the three edits on those spans.
#include "core/util/json_text_edit.h"

#include "core/util/json_parse.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace fts {

namespace {

using OrderedJson = nlohmann::ordered_json;

struct Member {
    std::string key;  // decoded
    size_t keyBegin = 0, valueBegin = 0, valueEnd = 0;
    int child = -1;  // the object the value is, or -1
};

struct Object {
    size_t open = 0, close = 0;  // the braces
    std::vector<Member> members;
};

// Recursive descent over JSON text: spans of every object and member; false on anything that is not JSON.
class Scanner {
public:
    explicit Scanner(const std::string& s) : m_s(s) {}
    std::vector<Object> objects;

    // The root object's index (0), or -1 when the text is not one JSON object.
    int root() {
        skipSpace();
        size_t begin = 0, end = 0;
        const int r = value(begin, end, 0);
        skipSpace();
        return r == 0 && m_i == m_s.size() ? 0 : -1;
    }

private:
    const std::string& m_s;
    size_t m_i = 0;
    bool m_failed = false;

    void skipSpace() {
        while (m_i < m_s.size() && (m_s[m_i] == ' ' || m_s[m_i] == '\t' || m_s[m_i] == '\n' || m_s[m_i] == '\r')) ++m_i;
    }
    bool fail() {
        m_failed = true;
        return false;
    }

    static void appendUtf8(std::string& out, unsigned cp) {
        if (cp < 0x80) {
            out += char(cp);
        } else if (cp < 0x800) {
            out += char(0xC0 | (cp >> 6));
            out += char(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += char(0xE0 | (cp >> 12));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        } else {
            out += char(0xF0 | (cp >> 18));
            out += char(0x80 | ((cp >> 12) & 0x3F));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        }
    }

    bool string(std::string* decoded) {
        if (m_i >= m_s.size() || m_s[m_i] != '"') return fail();
        ++m_i;
        while (m_i < m_s.size() && m_s[m_i] != '"') {
            const char c = m_s[m_i++];
            if (c != '\\') {
                if (decoded) *decoded += c;
                continue;
            }
            if (m_i >= m_s.size()) return fail();
            const char e = m_s[m_i++];
            if (e == 'u') {
                if (m_i + 4 > m_s.size()) return fail();
                unsigned cp = unsigned(std::strtoul(m_s.substr(m_i, 4).c_str(), nullptr, 16));
                m_i += 4;
                if (cp >= 0xD800 && cp < 0xDC00 && m_i + 6 <= m_s.size() && m_s[m_i] == '\\' && m_s[m_i + 1] == 'u') {
                    const unsigned low = unsigned(std::strtoul(m_s.substr(m_i + 2, 4).c_str(), nullptr, 16));
                    m_i += 6;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                }
                if (decoded) appendUtf8(*decoded, cp);
            } else if (decoded) {
                const char* from = "\"\\/bfnrt";
                const char* to = "\"\\/\b\f\n\r\t";
                const char* at = std::strchr(from, e);
                if (!at) return fail();
                *decoded += to[at - from];
            }
        }
        if (m_i >= m_s.size()) return fail();
        ++m_i;
        return true;
    }

    // One value from m_i: its span; the object index when it is an object, -1 otherwise, -2 on an error.
    int value(size_t& begin, size_t& end, int depth) {
        if (depth > 512) return -2;
        skipSpace();
        begin = m_i;
        if (m_i >= m_s.size()) return -2;
        const char c = m_s[m_i];
        int result = -1;
        if (c == '{') {
            result = int(objects.size());
            objects.push_back(Object{m_i, 0, {}});
            ++m_i;
            skipSpace();
            if (m_i < m_s.size() && m_s[m_i] == '}') {
                objects[size_t(result)].close = m_i++;
            } else {
                while (true) {
                    skipSpace();
                    Member m;
                    m.keyBegin = m_i;
                    if (!string(&m.key)) return -2;
                    skipSpace();
                    if (m_i >= m_s.size() || m_s[m_i] != ':') return -2;
                    ++m_i;
                    m.child = value(m.valueBegin, m.valueEnd, depth + 1);
                    if (m.child == -2) return -2;
                    objects[size_t(result)].members.push_back(std::move(m));
                    skipSpace();
                    if (m_i < m_s.size() && m_s[m_i] == ',') {
                        ++m_i;
                        continue;
                    }
                    if (m_i < m_s.size() && m_s[m_i] == '}') {
                        objects[size_t(result)].close = m_i++;
                        break;
                    }
                    return -2;
                }
            }
        } else if (c == '[') {
            ++m_i;
            skipSpace();
            if (m_i < m_s.size() && m_s[m_i] == ']') {
                ++m_i;
            } else {
                while (true) {
                    size_t b = 0, e = 0;
                    if (value(b, e, depth + 1) == -2) return -2;
                    skipSpace();
                    if (m_i < m_s.size() && m_s[m_i] == ',') {
                        ++m_i;
                        continue;
                    }
                    if (m_i < m_s.size() && m_s[m_i] == ']') {
                        ++m_i;
                        break;
                    }
                    return -2;
                }
            }
        } else if (c == '"') {
            if (!string(nullptr)) return -2;
        } else {
            const size_t from = m_i;
            while (m_i < m_s.size() && std::strchr("+-0123456789.eEtrufalsn", m_s[m_i]) && m_s[m_i] != '\0') ++m_i;
            if (m_i == from) return -2;
        }
        end = m_i;
        return m_failed ? -2 : result;
    }
};

std::string quoted(const std::string& key) { return OrderedJson(key).dump(); }

std::string numberText(double v) {
    if (!std::isfinite(v)) return OrderedJson(v).dump();  // null, as nlohmann writes it
    char buf[40];
    for (int precision = 1; precision <= 17; ++precision) {
        std::snprintf(buf, sizeof buf, "%.*g", precision, v);
        if (std::strtod(buf, nullptr) == v) break;
    }
    std::string t = buf;
    const size_t e = t.find('e');
    if (e == std::string::npos) {
        if (t.find('.') == std::string::npos) t += ".0";  // still reads as a float
        return t;
    }
    // the exponent without '+' and leading zeros: 1e-08 -> 1e-8, 1e+20 -> 1e20
    std::string mantissa = t.substr(0, e), exponent = t.substr(e + 1);
    const bool negative = !exponent.empty() && exponent[0] == '-';
    if (!exponent.empty() && (exponent[0] == '-' || exponent[0] == '+')) exponent.erase(0, 1);
    while (exponent.size() > 1 && exponent[0] == '0') exponent.erase(0, 1);
    return mantissa + "e" + (negative ? "-" : "") + exponent;
}

std::string valueText(const OrderedJson& v) {
    if (v.is_object()) {
        std::string out = "{";
        bool first = true;
        for (const auto& [k, x] : v.items()) {
            out += (first ? "" : ", ") + quoted(k) + ": " + valueText(x);
            first = false;
        }
        return out + "}";
    }
    if (v.is_array()) {
        std::string out = "[";
        for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + valueText(v[i]);
        return out + "]";
    }
    if (v.is_number_float()) return numberText(v.get<double>());
    return v.dump();
}

std::vector<std::string> splitPath(std::string_view keyPath) {
    std::vector<std::string> out;
    for (size_t from = 0;;) {
        const size_t dot = keyPath.find('.', from);
        out.emplace_back(keyPath.substr(from, dot == std::string_view::npos ? std::string_view::npos : dot - from));
        if (dot == std::string_view::npos) return out;
        from = dot + 1;
    }
}

// The value at "a.b.c" (objects only), or nullptr.
const OrderedJson* valueAt(const OrderedJson& doc, std::string_view keyPath) {
    const OrderedJson* at = &doc;
    for (const std::string& part : splitPath(keyPath)) {
        if (!at->is_object()) return nullptr;
        const auto it = at->find(part);
        if (it == at->end()) return nullptr;
        at = &*it;
    }
    return at;
}

int memberIndex(const Object& o, const std::string& key) {
    // the last one with that key, as a JSON parser keeps it
    for (int i = int(o.members.size()) - 1; i >= 0; --i)
        if (o.members[size_t(i)].key == key) return i;
    return -1;
}

}  // namespace

std::string jsonValueText(const OrderedJson& value) { return valueText(value); }

std::string editedJsonText(const std::string& text, const OrderedJson& before, const OrderedJson& after,
                           const std::vector<std::string>& keys) {
    const std::string whole = after.dump(2) + "\n";
    std::string out = text;
    for (const std::string& key : keys) {
        const OrderedJson* was = valueAt(before, key);
        const OrderedJson* now = valueAt(after, key);
        if (!was && !now) continue;
        if (was && now && *was == *now && was->type() == now->type()) continue;
        const std::optional<std::string> edited =
            editJsonText(out, key, now ? std::optional<OrderedJson>(*now) : std::nullopt);
        if (!edited) return whole;
        out = *edited;
    }
    const OrderedJson reread = parseOrderedJsonOrDiscarded(out);
    return !reread.is_discarded() && reread == after ? out : whole;
}

std::optional<std::string> editJsonText(std::string_view text, std::string_view keyPath,
                                        const std::optional<OrderedJson>& value) {
    std::string s(text);
    Scanner scan(s);
    if (scan.root() != 0) return std::nullopt;
    const std::vector<Object>& objects = scan.objects;
    const std::vector<std::string> path = splitPath(keyPath);
    if (path.empty()) return std::nullopt;
    // Walk down: the chain of (object, member) pairs that exist.
    std::vector<std::pair<int, int>> chain;
    int obj = 0;
    size_t depth = 0;
    for (; depth < path.size(); ++depth) {
        const int m = memberIndex(objects[size_t(obj)], path[depth]);
        if (m < 0) break;
        chain.push_back({obj, m});
        if (depth + 1 == path.size()) break;
        const int child = objects[size_t(obj)].members[size_t(m)].child;
        if (child < 0) return std::nullopt;  // the path runs through a value that is not an object
        obj = child;
    }
    const bool found = depth < path.size() && chain.size() == path.size();

    if (!value) {  // remove, pruning parents it leaves empty
        if (!found) return s;
        size_t level = chain.size() - 1;
        while (level > 0 && objects[size_t(chain[level].first)].members.size() == 1) --level;
        const Object& o = objects[size_t(chain[level].first)];
        const size_t m = size_t(chain[level].second);
        if (o.members.size() == 1) {
            s.erase(o.open + 1, o.close - o.open - 1);  // the root left empty: {}
        } else if (m + 1 < o.members.size()) {
            s.erase(o.members[m].keyBegin, o.members[m + 1].keyBegin - o.members[m].keyBegin);
        } else {
            s.erase(o.members[m - 1].valueEnd, o.members[m].valueEnd - o.members[m - 1].valueEnd);
        }
        return s;
    }

    if (found) {  // replace the value's text
        const Member& m = objects[size_t(obj)].members[size_t(chain.back().second)];
        s.replace(m.valueBegin, m.valueEnd - m.valueBegin, valueText(*value));
        return s;
    }
    // insert path[depth] into `obj`, holding the rest of the path as nested objects
    OrderedJson nested = *value;
    for (size_t k = path.size() - 1; k > depth; --k) nested = OrderedJson{{path[k], nested}};
    const std::string member = quoted(path[depth]) + ": " + valueText(nested);
    const Object& o = objects[size_t(obj)];
    if (o.members.empty()) {
        s.insert(o.open + 1, member);
        return s;
    }
    const Member& last = o.members.back();
    const bool multiLine = s.find('\n', o.open) < last.keyBegin;
    if (!multiLine) {
        s.insert(last.valueEnd, ", " + member);
    } else {
        const size_t lineStart = s.rfind('\n', last.keyBegin) + 1;
        s.insert(last.valueEnd, ",\n" + s.substr(lineStart, last.keyBegin - lineStart) + member);
    }
    return s;
}

}  // namespace fts
