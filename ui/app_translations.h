// The GUI's translations: finetune-studio_<lang>.qm embedded under :/i18n (built from translations/*.ts)
// plus Qt's own qtbase catalogue for standard dialogs when the system has it.
#pragma once
#include <QString>

namespace fts {

// language: "zh_CN", "en", ... or empty for the system locale. Installs the translators on the running
// QCoreApplication, replacing those of an earlier call (widgets get a LanguageChange event). Returns the language whose catalogue was loaded ("" when none: English source text).
QString installStudioTranslations(const QString& language);

}  // namespace fts
