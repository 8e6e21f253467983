// One key of a JSON document edited in its text, every other byte left as the user wrote it (layout, one-line
// objects, number spellings such as 1e-8): the form's edits go through here, so an edit changes only the value it
// edits (docs/gui.md). Set replaces the value's text, or inserts the member (and any missing parent objects) after
// the last member of the deepest object that exists, in that object's layout; remove deletes the member with its
// separator and prunes parents left empty (as removeJsonAt does on the parsed document).
#pragma once
#include <QString>
#include <QStringList>

#include <optional>

#include "ui/config_field_values.h"  // OrderedJson

namespace fts {

// The text with the value at keyPath ("a.b.c", object members only) set to `value`, or removed when nullopt.
// nullopt when the text is not a JSON object or the path runs through something that is not an object; the
// caller then writes the whole document instead.
std::optional<QString> editJsonText(const QString& text, const QString& keyPath,
                                    const std::optional<OrderedJson>& value);

// The text of a document that changed from `before` to `after` in (at most) `keys`: each changed key edited in place
// in `text`; the whole of `after` written out (2-space indent) when a key cannot be edited in place or the edited
// text would not read back as `after`.
QString editedJsonText(const QString& text, const OrderedJson& before, const OrderedJson& after,
                       const QStringList& keys);

// A value as the edit writes it: compact with ", " and ": " (as a one-line object reads), numbers in the shortest
// spelling that reads back the same (1e-8, not 1e-08).
QString jsonValueText(const OrderedJson& value);

}  // namespace fts
