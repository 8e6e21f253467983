// JSON from files and streams we do not control, parsed with bounded nesting and numbers in range. nlohmann's parser and the DOM it
// builds recurse once per level, so a document nested 100,000 deep overflows the stack (a crash, not an error);
// every reader of user-supplied JSON (configs, model folders, tokenizers, datasets, checkpoints, event lines)
// parses through here. Invariant: text that passes is parsed exactly as nlohmann::json::parse would, and
// every failure is a nlohmann::json::parse_error.
#pragma once
#include <nlohmann/json.hpp>

#include <string_view>

namespace fts {

// Deeper than any config, tokenizer, chat record or JSON Schema of a tool call we have seen (those stay under 20),
// far below what the parser's recursion can take on a 1 MiB thread stack.
inline constexpr int kMaxJsonDepth = 512;

// Throws nlohmann::json::parse_error (id 101, at the byte at fault) when `text` nests arrays and objects more
// than `maxDepth` deep, or holds a number beyond a double's range (which nlohmann reports as out_of_range 406,
// an exception its callers' `catch (parse_error&)` missed: a config with 1e99999 crashed the parse). Callers
// report it with their file and line like any other syntax error. Text inside strings is skipped. Linear.
void checkJsonLimits(std::string_view text, int maxDepth = kMaxJsonDepth);

// checkJsonLimits, then nlohmann::json::parse. Throws nlohmann::json::parse_error only.
nlohmann::json parseJson(std::string_view text);
nlohmann::ordered_json parseOrderedJson(std::string_view text);
// The non-throwing form (nlohmann's allow_exceptions = false): a discarded value when invalid or too deep.
nlohmann::json parseJsonOrDiscarded(std::string_view text);
nlohmann::ordered_json parseOrderedJsonOrDiscarded(std::string_view text);

}  // namespace fts
