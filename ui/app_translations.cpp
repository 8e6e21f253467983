// Translation loading for the GUI (see app_translations.h).
#include "ui/app_translations.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QPointer>
#include <QTranslator>

namespace fts {
namespace {
// The translators installed by the last call: a new language replaces them (live switch).
QPointer<QTranslator> g_qt, g_studio;
}  // namespace

QString installStudioTranslations(const QString& language) {
    const QLocale locale = language.isEmpty() ? QLocale::system() : QLocale(language);
    auto* app = QCoreApplication::instance();
    if (!app) return {};
    for (QPointer<QTranslator>* old : {&g_qt, &g_studio}) {
        if (*old) {
            QCoreApplication::removeTranslator(*old);
            delete old->data();
        }
    }
    // Qt's own texts that follow the locale rather than a catalogue (the file dialog's dates and sizes, the MIME
    // types' names such as "JSON Document") come from the default locale: it follows the studio's language.
    QLocale::setDefault(locale);
    auto* qt = new QTranslator(app);
    if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"),
                 QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        QCoreApplication::installTranslator(qt);
        g_qt = qt;
    } else
        delete qt;
    auto* studio = new QTranslator(app);
    if (!studio->load(locale, QStringLiteral("finetune-studio"), QStringLiteral("_"), QStringLiteral(":/i18n"))) {
        delete studio;
        return {};
    }
    QCoreApplication::installTranslator(studio);
    g_studio = studio;
    return studio->language().isEmpty() ? locale.name() : studio->language();
}

}  // namespace fts
