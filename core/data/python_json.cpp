// Python-style JSON text (see python_json.h).
#include "core/data/python_json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace fts {
namespace {

void dumpString(const std::string& s, std::string& out) {
    out += '"';
    for (unsigned char c : s) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\b':
                out += "\\b";
                break;
            case '\f':
                out += "\\f";
                break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += char(c);
                }
        }
    }
    out += '"';
}

// Python's float repr: the shortest text that reads back the same double; exponent form below 1e-4 or from 1e16.
std::string floatRepr(double d) {
    if (std::isnan(d)) return "NaN";
    if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
    char buf[40];
    int precision = 1;
    for (; precision <= 17; ++precision) {
        std::snprintf(buf, sizeof buf, "%.*e", precision - 1, d);
        if (std::strtod(buf, nullptr) == d) break;
    }
    // buf: d.ddde[+-]XX with `precision` significant digits
    std::string mant(buf, std::strchr(buf, 'e'));
    const int exp = std::atoi(std::strchr(buf, 'e') + 1);
    std::string digits;
    const bool negative = mant[0] == '-';
    for (char c : mant)
        if (c >= '0' && c <= '9') digits += c;
    std::string out = negative ? "-" : "";
    if (exp < -4 || exp >= 16) {
        out += digits.substr(0, 1);
        if (digits.size() > 1) out += "." + digits.substr(1);
        char e[8];
        std::snprintf(e, sizeof e, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
        return out + e;
    }
    if (exp < 0) return out + "0." + std::string(size_t(-exp - 1), '0') + digits;
    if (int(digits.size()) <= exp + 1)
        return out + digits + std::string(size_t(exp + 1 - int(digits.size())), '0') + ".0";
    return out + digits.substr(0, size_t(exp + 1)) + "." + digits.substr(size_t(exp + 1));
}

void dump(const nlohmann::ordered_json& v, std::string& out) {
    switch (v.type()) {
        case nlohmann::ordered_json::value_t::object: {
            out += '{';
            bool first = true;
            for (auto it = v.begin(); it != v.end(); ++it) {
                if (!first) out += ", ";
                first = false;
                dumpString(it.key(), out);
                out += ": ";
                dump(it.value(), out);
            }
            out += '}';
            break;
        }
        case nlohmann::ordered_json::value_t::array: {
            out += '[';
            for (size_t i = 0; i < v.size(); ++i) {
                if (i) out += ", ";
                dump(v[i], out);
            }
            out += ']';
            break;
        }
        case nlohmann::ordered_json::value_t::string:
            dumpString(v.get_ref<const std::string&>(), out);
            break;
        case nlohmann::ordered_json::value_t::boolean:
            out += v.get<bool>() ? "true" : "false";
            break;
        case nlohmann::ordered_json::value_t::number_float:
            out += floatRepr(v.get<double>());
            break;
        case nlohmann::ordered_json::value_t::null:
        case nlohmann::ordered_json::value_t::discarded:
            out += "null";
            break;
        default:
            out += v.dump();
            break;  // integers
    }
}

}  // namespace

std::string pythonJsonDumps(const nlohmann::ordered_json& value) {
    std::string out;
    dump(value, out);
    return out;
}

}  // namespace fts
