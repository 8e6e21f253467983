// The new-run form's field table, section by section (config_fields_*.cpp); config_fields.cpp joins them in display
// order. Each row is written with designated initializers: a member left out keeps its default (no choices, not
// editable, always shown, optional).
#pragma once
#include <vector>

#include "ui/config_fields.h"

namespace fts {

using S = FieldSection;
using K = FieldKind;

// The keys some fields depend on (ConfigField::whenKey) and the values that show them (whenValues).
struct FieldConditions {
    const QString sched = QStringLiteral("deepspeed.scheduler.type");
    const QStringList warmupLr{QStringLiteral("WarmupLR"), QStringLiteral("WarmupDecayLR")};
    const QStringList anySched{QStringLiteral("WarmupLR"), QStringLiteral("WarmupDecayLR"),
                               QStringLiteral("WarmupCosineLR")};
    const QStringList decaying{QStringLiteral("WarmupDecayLR"), QStringLiteral("WarmupCosineLR")};
    const QStringList cosine{QStringLiteral("WarmupCosineLR")};
    const QString fp16 = QStringLiteral("deepspeed.fp16.enabled");
    const QStringList on{QStringLiteral("true")};
    const QString format = QStringLiteral("data.format");
    const QStringList instruction{QStringLiteral("auto"),     QStringLiteral("text"),     QStringLiteral("alpaca"),
                                  QStringLiteral("sharegpt"), QStringLiteral("messages"), QStringLiteral("trl")};
    const QStringList labelled{QStringLiteral("classification")};
    const QStringList withBadRows = instruction + labelled;  // the formats whose rows can be bad
    const QString objective = QStringLiteral("training.objective");
    const QStringList preference{QStringLiteral("dpo"), QStringLiteral("orpo"), QStringLiteral("simpo"),
                                 QStringLiteral("kto")};
    const QStringList dpo{QStringLiteral("dpo")}, simpo{QStringLiteral("simpo")}, kto{QStringLiteral("kto")};
    const QStringList referenced{QStringLiteral("dpo"), QStringLiteral("kto")};  // the objectives with a reference
    const QStringList smoothed{QStringLiteral("dpo"), QStringLiteral("simpo")};
    const QString lora = QStringLiteral("model.lora");
    const QString quant4 = QStringLiteral("model.quantization.load_in_4bit");
};

// The rows of one section, each marked with it.
inline std::vector<ConfigField> inSection(FieldSection section, std::vector<ConfigField> rows) {
    for (ConfigField& row : rows) row.section = section;
    return rows;
}

std::vector<ConfigField> modelFields(const FieldConditions& w);
std::vector<ConfigField> dataFields(const FieldConditions& w);
std::vector<ConfigField> methodFields(const FieldConditions& w);
std::vector<ConfigField> optimisationFields(const FieldConditions& w);
std::vector<ConfigField> precisionFields(const FieldConditions& w);
std::vector<ConfigField> zeroFields(const FieldConditions& w);
std::vector<ConfigField> checkpointingFields(const FieldConditions& w);
std::vector<ConfigField> devicesFields(const FieldConditions& w);

}  // namespace fts
