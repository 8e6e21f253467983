// The studio's QString face of core/util/json_text_edit.h: one key of the config edited in its text, every other
// byte as the user wrote it (docs/gui.md).
#pragma once
#include <QString>
#include <QStringList>

#include <optional>

#include "core/util/json_text_edit.h"
#include "ui/config_field_values.h"  // OrderedJson

namespace fts {

inline std::optional<QString> editJsonText(const QString& text, const QString& keyPath,
                                           const std::optional<OrderedJson>& value) {
    const std::optional<std::string> out = editJsonText(text.toStdString(), keyPath.toStdString(), value);
    return out ? std::optional<QString>(QString::fromStdString(*out)) : std::nullopt;
}

inline QString editedJsonText(const QString& text, const OrderedJson& before, const OrderedJson& after,
                              const QStringList& keys) {
    std::vector<std::string> paths;
    for (const QString& k : keys) paths.push_back(k.toStdString());
    return QString::fromStdString(editedJsonText(text.toStdString(), before, after, paths));
}

}  // namespace fts
