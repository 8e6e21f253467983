// The new-run form's field table (see config_fields.h): the sections' rows (config_field_sections.h) in display
// order, the section titles. Keys and rules are the core's (docs/config.md).
#include "ui/config_fields.h"

#include "ui/config_field_sections.h"

#include <QCoreApplication>

namespace fts {
namespace {

std::vector<ConfigField> buildFields() {
    const FieldConditions when;
    std::vector<ConfigField> all;
    for (const auto section : {modelFields, dataFields, methodFields, optimisationFields, precisionFields, zeroFields,
                               checkpointingFields, devicesFields}) {
        std::vector<ConfigField> rows = section(when);
        all.insert(all.end(), std::make_move_iterator(rows.begin()), std::make_move_iterator(rows.end()));
    }
    return all;
}

}  // namespace

const std::vector<ConfigField>& configFields() {
    static const std::vector<ConfigField> fields = buildFields();
    return fields;
}

const ConfigField* findConfigField(const QString& key) {
    for (const ConfigField& f : configFields())
        if (f.key == key) return &f;
    return nullptr;
}

QList<FieldSection> allSections() {
    return {FieldSection::Model,     FieldSection::Data, FieldSection::Method,        FieldSection::Optimisation,
            FieldSection::Precision, FieldSection::Zero, FieldSection::Checkpointing, FieldSection::Devices};
}

QString sectionTitle(FieldSection section) {
    switch (section) {
        case FieldSection::Model:
            return QCoreApplication::translate("fts::ConfigForm", "Model");
        case FieldSection::Data:
            return QCoreApplication::translate("fts::ConfigForm", "Data");
        case FieldSection::Method:
            return QCoreApplication::translate("fts::ConfigForm", "Method");
        case FieldSection::Optimisation:
            return QCoreApplication::translate("fts::ConfigForm", "Optimisation");
        case FieldSection::Precision:
            return QCoreApplication::translate("fts::ConfigForm", "Precision");
        case FieldSection::Zero:
            return QCoreApplication::translate("fts::ConfigForm", "ZeRO and offload");
        case FieldSection::Checkpointing:
            return QCoreApplication::translate("fts::ConfigForm", "Checkpointing and logging");
        case FieldSection::Devices:
            return QCoreApplication::translate("fts::ConfigForm", "Devices");
    }
    return {};
}

}  // namespace fts
