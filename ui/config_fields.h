// The table the new-run form is built from: one row per config key (JSON key path, section, kind,
// label, help, choices, when it applies). Adding a key to the form = adding a row here; the form holds no
// defaults of its own (placeholders come from the core's resolved config).
#pragma once
#include <QString>
#include <QStringList>
#include <vector>

namespace fts {

enum class FieldSection { Model, Data, Method, Optimisation, Precision, Zero, Checkpointing, Devices };
enum class FieldKind {
    Text,        // a JSON string
    FilePath,    // a JSON string with a file browser
    DirPath,     // a JSON string with a folder browser
    Integer,     // a JSON number (or "auto"); text the core rejects is written as a string so it says why
    Number,      // same, any number
    NumberList,  // a JSON array of numbers written "0.9, 0.95"
    Boolean,     // true / false / not set
    Choice,      // one of choices (numbers stay numbers); editable when `editable`
    StringList,  // a JSON array of names written "q_proj, v_proj", or one string (a regex, "all-linear")
    Block,       // an object that is present or not: choices[0] labels "absent", choices[1] "present" ({})
};

struct ConfigField {
    QString key;  // "deepspeed.optimizer.params.lr"
    FieldSection section;
    FieldKind kind;
    const char* label;  // QT_TRANSLATE_NOOP("fts::ConfigForm", ...)
    const char* help;   // tooltip, same context
    QStringList choices = {};
    bool editable = false;        // Choice: free text allowed too (e.g. "cuda:1")
    QString whenKey = {};         // shown only when this key's value (as text) is one of whenValues;
    QStringList whenValues = {};  // empty whenValues: shown only when whenKey is present in the JSON
    bool required = false;        // the core requires it (placeholder says so)
};

// Every field of the form, in display order.
const std::vector<ConfigField>& configFields();
const ConfigField* findConfigField(const QString& key);
// Translated section titles, in enum order.
QString sectionTitle(FieldSection section);
QList<FieldSection> allSections();

}  // namespace fts
