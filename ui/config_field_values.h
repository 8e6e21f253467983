// Reading and writing one form field in the config JSON: key paths into an ordered document (the user's
// key order is kept), the text a field shows for a JSON value and the JSON a field's text stands for.
// Invariant: text -> JSON -> text is stable for what a field shows; an empty field means "key absent".
#pragma once
#include <QString>
#include <nlohmann/json.hpp>
#include <optional>

#include "ui/config_fields.h"

namespace fts {

using OrderedJson = nlohmann::ordered_json;

// The value at "a.b.c" (objects only), or nullptr.
const OrderedJson* jsonAt(const OrderedJson& doc, const QString& keyPath);
const nlohmann::json* jsonAt(const nlohmann::json& doc, const QString& keyPath);
// Sets "a.b.c", creating objects on the way (a non-object on the way is replaced).
void setJsonAt(OrderedJson& doc, const QString& keyPath, OrderedJson value);
// Removes "a.b.c" and then every parent object left empty by it. No-op when absent.
void removeJsonAt(OrderedJson& doc, const QString& keyPath);

// The text a field of this kind shows for a JSON value ("" for null).
QString fieldTextFromJson(FieldKind kind, const OrderedJson& value);
QString fieldTextFromJson(FieldKind kind, const nlohmann::json& value);
// The JSON a field's text stands for; nullopt = absent (empty text). Number kinds write numbers when the
// text is one, booleans true/false, "auto" stays a string, and anything else is written as the string typed,
// so the core's own validation reports it against the key. StringList: "a, b" is ["a","b"]; text holding a
// regex character (or "all-linear") is one string; text starting with [ or " is read as JSON. Block: "on"
// is an empty object (the form never overwrites an existing one).
std::optional<OrderedJson> jsonFromFieldText(FieldKind kind, const QString& text);

}  // namespace fts
