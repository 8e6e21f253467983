// Field <-> JSON value conversions and key-path access (see config_field_values.h).
#include "ui/config_field_values.h"

#include <QStringList>

#include "core/util/json_parse.h"

namespace fts {
namespace {

template <typename J>
const J* jsonAtImpl(const J& doc, const QString& keyPath) {
    const J* at = &doc;
    for (const QString& part : keyPath.split(QLatin1Char('.'))) {
        if (!at->is_object()) return nullptr;
        const auto it = at->find(part.toStdString());
        if (it == at->end()) return nullptr;
        at = &*it;
    }
    return at;
}

// StringList: a string is written as typed when it cannot be read as a list of names (it holds a regular
// expression character, or is "all-linear"); other strings are shown quoted, so text -> JSON -> text is stable.
bool readsAsOneString(const QString& s) {
    static const QString kRegexChars = QStringLiteral("*+?()[]{}|^$\\");
    if (s == QLatin1String("all-linear")) return true;
    for (const QChar c : s)
        if (kRegexChars.contains(c)) return true;
    return false;
}

// An array element that "a, b" text gives back unchanged.
bool plainName(const QString& s) {
    return !s.isEmpty() && s.trimmed() == s && !s.contains(QLatin1Char(',')) && !readsAsOneString(s);
}

template <typename J>
QString stringListText(const J& value) {
    if (value.is_string()) {
        const QString s = QString::fromStdString(value.template get<std::string>());
        return readsAsOneString(s) ? s : QString::fromStdString(value.dump());
    }
    if (value.is_array() && !value.empty()) {
        QStringList names;
        for (const auto& v : value) {
            if (!v.is_string() || !plainName(QString::fromStdString(v.template get<std::string>())))
                return QString::fromStdString(value.dump());
            names << QString::fromStdString(v.template get<std::string>());
        }
        return names.join(QStringLiteral(", "));
    }
    return QString::fromStdString(value.dump());
}

template <typename J>
QString textFromJsonImpl(FieldKind kind, const J& value) {
    if (value.is_null()) return {};
    if (kind == FieldKind::Block) {  // an object, or `true` where the core takes it for one (training.profile)
        if (value.is_object() || (value.is_boolean() && value.template get<bool>())) return QStringLiteral("on");
        if (value.is_boolean()) return {};
        return QString::fromStdString(value.dump());
    }
    if (kind == FieldKind::StringList) return stringListText(value);
    if (value.is_string()) return QString::fromStdString(value.template get<std::string>());
    if (kind == FieldKind::NumberList && value.is_array()) {
        QStringList parts;
        for (const auto& v : value) parts << QString::fromStdString(v.dump());
        return parts.join(QStringLiteral(", "));
    }
    return QString::fromStdString(value.dump());
}

}  // namespace

const OrderedJson* jsonAt(const OrderedJson& doc, const QString& keyPath) { return jsonAtImpl(doc, keyPath); }
const nlohmann::json* jsonAt(const nlohmann::json& doc, const QString& keyPath) { return jsonAtImpl(doc, keyPath); }

void setJsonAt(OrderedJson& doc, const QString& keyPath, OrderedJson value) {
    const QStringList parts = keyPath.split(QLatin1Char('.'));
    OrderedJson* at = &doc;
    for (int i = 0; i < parts.size(); ++i) {
        if (!at->is_object()) *at = OrderedJson::object();
        OrderedJson& next = (*at)[parts[i].toStdString()];
        if (i + 1 == parts.size()) {
            next = std::move(value);
            return;
        }
        at = &next;
    }
}

void removeJsonAt(OrderedJson& doc, const QString& keyPath) {
    const QStringList parts = keyPath.split(QLatin1Char('.'));
    std::vector<OrderedJson*> chain{&doc};
    for (int i = 0; i + 1 < parts.size(); ++i) {
        OrderedJson* at = chain.back();
        if (!at->is_object()) return;
        const auto it = at->find(parts[i].toStdString());
        if (it == at->end()) return;
        chain.push_back(&*it);
    }
    if (!chain.back()->is_object() || chain.back()->erase(parts.back().toStdString()) == 0) return;
    // Prune the objects this removal emptied (never the document itself).
    for (int i = static_cast<int>(chain.size()) - 1; i >= 1; --i) {
        if (!chain[i]->empty()) break;
        chain[i - 1]->erase(parts[i - 1].toStdString());
    }
}

QString fieldTextFromJson(FieldKind kind, const OrderedJson& value) { return textFromJsonImpl(kind, value); }
QString fieldTextFromJson(FieldKind kind, const nlohmann::json& value) { return textFromJsonImpl(kind, value); }

std::optional<OrderedJson> jsonFromFieldText(FieldKind kind, const QString& rawText) {
    const QString text = rawText.trimmed();
    if (text.isEmpty()) return std::nullopt;
    switch (kind) {
        case FieldKind::Text:
        case FieldKind::FilePath:
        case FieldKind::DirPath:
            return OrderedJson(rawText.toStdString());  // paths and names as typed
        case FieldKind::Boolean:
            if (text == QLatin1String("true")) return OrderedJson(true);
            if (text == QLatin1String("false")) return OrderedJson(false);
            return OrderedJson(text.toStdString());
        case FieldKind::Block:
            if (text == QLatin1String("on")) return OrderedJson::object();
            return OrderedJson(text.toStdString());
        case FieldKind::StringList: {
            if (text.startsWith(QLatin1Char('[')) || text.startsWith(QLatin1Char('"'))) {
                const OrderedJson parsed = parseOrderedJsonOrDiscarded(text.toStdString());
                if (!parsed.is_discarded()) return parsed;
                return OrderedJson(text.toStdString());
            }
            if (readsAsOneString(text)) return OrderedJson(text.toStdString());  // a regex may hold commas
            OrderedJson names = OrderedJson::array();
            for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
                if (!part.trimmed().isEmpty()) names.push_back(part.trimmed().toStdString());
            return names;
        }
        case FieldKind::NumberList: {
            QString inner = text;
            if (!inner.startsWith(QLatin1Char('['))) inner = QLatin1Char('[') + inner + QLatin1Char(']');
            const OrderedJson parsed = parseOrderedJsonOrDiscarded(inner.toStdString());
            if (!parsed.is_discarded() && parsed.is_array()) return parsed;
            return OrderedJson(text.toStdString());
        }
        case FieldKind::Integer:
        case FieldKind::Number:
        case FieldKind::Choice: {
            // A JSON number (or true/false/null) stays typed; anything else is the string as typed.
            const OrderedJson parsed = parseOrderedJsonOrDiscarded(text.toStdString());
            if (!parsed.is_discarded() && (parsed.is_number() || parsed.is_boolean())) return parsed;
            return OrderedJson(text.toStdString());
        }
    }
    return std::nullopt;
}

}  // namespace fts
