// Typed reads of fields in JSON that came from a file or a stream we do not control (adapters, checkpoints, model
// folders, event lines from other processes and hosts). nlohmann's value(key, default), at() and get<T>() throw
// type_error / out_of_range with messages that name neither the file nor the key (docs/fuzzing.md, finding 5):
// here a field of the wrong kind is either a FormatError naming the place and the key, or, for event lines, as
// good as absent.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/util/error.h"

namespace fts {

// Whether `v` is of T's JSON kind: bool, an integer within T's range (integral T), a number (floating T), a
// string (std::string), an object or array (nlohmann::json::object_t / array_t as T is not used: use
// nlohmann::json for "anything").
template <class T>
bool jsonHolds(const nlohmann::json& v) {
    if constexpr (std::is_same_v<T, bool>) {
        return v.is_boolean();
    } else if constexpr (std::is_integral_v<T>) {
        if (v.is_number_unsigned()) return v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<T>::max());
        if (!v.is_number_integer()) return false;
        const int64_t x = v.get<int64_t>();
        if constexpr (std::is_signed_v<T>)
            return x >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
                   x <= static_cast<int64_t>(std::numeric_limits<T>::max());
        else
            return x >= 0 && static_cast<uint64_t>(x) <= static_cast<uint64_t>(std::numeric_limits<T>::max());
    } else if constexpr (std::is_floating_point_v<T>) {
        return v.is_number();
    } else if constexpr (std::is_same_v<T, std::string>) {
        return v.is_string();
    } else {
        static_assert(std::is_same_v<T, nlohmann::json>, "jsonHolds: bool, integers, floating point, string, json");
        return true;
    }
}

// What a field of T must be, for messages: "true or false", "an integer", "a number", "a string".
template <class T>
const char* jsonKindName() {
    if constexpr (std::is_same_v<T, bool>)
        return "true or false";
    else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
        return "an integer";
    else if constexpr (std::is_integral_v<T>)
        return "an integer >= 0";
    else if constexpr (std::is_floating_point_v<T>)
        return "a number";
    else if constexpr (std::is_same_v<T, std::string>)
        return "a string";
    else
        return "a JSON value";
}

// The value as it appears in a message: its JSON text (invalid UTF-8 replaced), cut to 60 characters. The one
// implementation; config_reader's describeValue forwards here.
inline std::string jsonForMessage(const nlohmann::json& v) {
    std::string text;
    try {
        text = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    } catch (const std::exception&) {
        text = "(unprintable value)";
    }
    constexpr size_t kMax = 60;
    if (text.size() > kMax) text = text.substr(0, kMax - 3) + "...";
    return text;
}

// obj[key] as T; nothing when obj is not an object or the key is absent or null. A value of another kind throws
// FormatError "<where>: key "<key>" must be <kind>, found <value>" (where: the file, or the file and a path).
template <class T>
std::optional<T> optionalField(const nlohmann::json& obj, std::string_view key, std::string_view where) {
    if (!obj.is_object()) return std::nullopt;
    const auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return std::nullopt;
    if (!jsonHolds<T>(*it))
        throw FormatError(std::string(where) + ": key \"" + std::string(key) + "\" must be " + jsonKindName<T>() +
                          ", found " + jsonForMessage(*it));
    return it->template get<T>();
}

// As optionalField, but a missing (or null) key, or obj not an object, throws FormatError naming the key.
template <class T>
T requiredField(const nlohmann::json& obj, std::string_view key, std::string_view where) {
    if (!obj.is_object())
        throw FormatError(std::string(where) + ": expected a JSON object, found " + jsonForMessage(obj));
    if (std::optional<T> v = optionalField<T>(obj, key, where)) return *std::move(v);
    throw FormatError(std::string(where) + ": key \"" + std::string(key) + "\" is missing (expected " +
                      jsonKindName<T>() + ")");
}

// Lenient: obj[key] as T, or `fallback` when obj is not an object or the key is absent, null or of another kind.
// Only for lines between our own processes (events, probes), where one malformed field must not end the run.
template <class T>
T fieldOr(const nlohmann::json& obj, std::string_view key, const T& fallback) {
    if (!obj.is_object()) return fallback;
    const auto it = obj.find(key);
    if (it == obj.end() || !jsonHolds<T>(*it)) return fallback;
    return it->template get<T>();
}
inline std::string fieldOr(const nlohmann::json& obj, std::string_view key, const char* fallback) {
    return fieldOr<std::string>(obj, key, std::string(fallback));
}

}  // namespace fts
