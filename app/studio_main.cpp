// finetune-studio: the GUI entry point. Parses the command line (--store, --quickstart, --lang), loads
// translations and shows the main window; training runs in separate `fts` processes, never in here.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QIcon>
#include <QSettings>

#include "ui/app_translations.h"
#include "ui/main_window.h"
#include "ui/studio_settings.h"

namespace {

// --lang must be known before the translators (and so the translated --help text) are installed.
QString peekLanguage(const QStringList& args) {
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--lang") && i + 1 < args.size()) return args[i + 1];
        if (args[i].startsWith(QLatin1String("--lang="))) return args[i].mid(7);
    }
    return {};
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("finetune-studio"));
    QApplication::setApplicationDisplayName(QStringLiteral("Finetune Studio"));
    QApplication::setApplicationVersion(QStringLiteral(FTS_VERSION));
    // The menu entry's id (packaging/linux): Wayland compositors and docks find the entry and its icon by it; the
    // window icon comes from the installed hicolor theme (none when running from a build tree).
    QApplication::setDesktopFileName(QStringLiteral("io.github.finetunestudio.FinetuneStudio"));
    QApplication::setWindowIcon(QIcon::fromTheme(QStringLiteral("io.github.finetunestudio.FinetuneStudio")));
    QApplication::setOrganizationName(QStringLiteral("finetune-studio"));
    const QSettings settings;
    // --lang, else the language chosen in Settings, else the system's.
    QString language = peekLanguage(QApplication::arguments());
    if (language.isEmpty()) language = settings.value(QLatin1String(fts::settings_keys::kLanguage)).toString();
    fts::installStudioTranslations(language);
    fts::applyTheme(settings.value(QLatin1String(fts::settings_keys::kTheme)).toString());

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QCoreApplication::translate("main", "Fine-tune language models: edit a config, start runs, watch them live."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption storeOption(
        QStringLiteral("store"),
        QCoreApplication::translate("main", "The run store to show (default: $FTS_STORE or %1).")
            .arg(QString::fromStdString(fts::RunStore::defaultPath().string())),
        QCoreApplication::translate("main", "file"));
    const QCommandLineOption quickOption(
        QStringLiteral("quickstart"),
        QCoreApplication::translate("main", "Open the new-run editor with the quick-start config, ready to start."));
    const QCommandLineOption langOption(
        QStringLiteral("lang"),
        QCoreApplication::translate("main", "User interface language (zh_CN, en; default: the system's)."),
        QCoreApplication::translate("main", "language"));
    parser.addOption(storeOption);
    parser.addOption(quickOption);
    parser.addOption(langOption);
    parser.process(app);

    fts::StudioOptions options = fts::StudioOptions::defaults();
    // --store, else $FTS_STORE, else the store chosen in Settings, else the default.
    const QString savedStore = settings.value(QLatin1String(fts::settings_keys::kStorePath)).toString();
    if (parser.isSet(storeOption))
        options.storePath = QDir(parser.value(storeOption)).absolutePath();
    else if (qEnvironmentVariableIsEmpty("FTS_STORE") && !savedStore.isEmpty())
        options.storePath = savedStore;
    options.openQuickStart = parser.isSet(quickOption);

    fts::MainWindow window(options);
    window.show();
    return QApplication::exec();
}
