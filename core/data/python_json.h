// JSON text as Python's json.dumps(x, ensure_ascii=False) writes it, which is what the chat templates' `tojson`
// filter prints in transformers: ", " and ": " separators, keys in the order given, non-ASCII kept, control
// characters escaped as \uXXXX (\n, \t, ... by name), floats in their shortest round-trip form.
#pragma once
#include <nlohmann/json.hpp>

#include <string>

namespace fts {

std::string pythonJsonDumps(const nlohmann::ordered_json& value);

}  // namespace fts
