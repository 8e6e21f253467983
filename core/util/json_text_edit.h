// One key of a JSON document edited in its text, every other byte left as the user wrote it (layout, one-line
// objects, number spellings such as 1e-8): the studio's form edits and `fts plan --apply` go through here, so an
// edit changes only the value it edits (docs/gui.md, docs/plan.md). Set replaces the value's text, or inserts the
// member (and any missing parent objects) after the last member of the deepest object that exists, in that
// object's layout; remove deletes the member with its separator and prunes parents left empty.
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fts {

// The text with the value at keyPath ("a.b.c", object members only) set to `value`, or removed when nullopt.
// nullopt when the text is not a JSON object or the path runs through something that is not an object; the
// caller then writes the whole document instead.
std::optional<std::string> editJsonText(std::string_view text, std::string_view keyPath,
                                        const std::optional<nlohmann::ordered_json>& value);

// The text of a document that changed from `before` to `after` in (at most) `keys`: each changed key edited in place
// in `text`; the whole of `after` written out (2-space indent) when a key cannot be edited in place or the edited
// text would not read back as `after`.
std::string editedJsonText(const std::string& text, const nlohmann::ordered_json& before,
                           const nlohmann::ordered_json& after, const std::vector<std::string>& keys);

// A value as the edit writes it: compact with ", " and ": " (as a one-line object reads), numbers in the shortest
// spelling that reads back the same (1e-8, not 1e-08).
std::string jsonValueText(const nlohmann::ordered_json& value);

}  // namespace fts
