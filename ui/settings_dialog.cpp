// SettingsDialog (see settings_dialog.h).
#include "ui/settings_dialog.h"
#include "ui/file_dialogs.h"

#include "ui/doctor_panel.h"

#include <QComboBox>
#include <QFileInfo>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QToolButton>
#include <QVBoxLayout>

#include "ui/app_translations.h"
#include "ui/run_launcher.h"
#include "ui/studio_settings.h"

namespace fts {

SettingsDialog::SettingsDialog(const QStringList& defaultModelFolders, QWidget* parent, const QString& cliPath,
                               const QString& storePath)
    : QDialog(parent) {
    setWindowTitle(tr("Settings"));
    setObjectName(QStringLiteral("settingsDialog"));
    QSettings s;
    m_store = new QLineEdit(s.value(QLatin1String(settings_keys::kStorePath)).toString(), this);
    m_store->setObjectName(QStringLiteral("settingsStore"));
    m_store->setPlaceholderText(defaultStorePath());
    auto* browse = new QToolButton(this);
    browse->setText(QStringLiteral("…"));
    connect(browse, &QToolButton::clicked, this, [this] {
        const QString f = saveFileName(this, tr("Run store"), m_store->text(), tr("SQLite files (*.sqlite)"),
                                       QFileDialog::DontConfirmOverwrite);
        if (!f.isEmpty()) m_store->setText(f);
    });
    auto* storeRow = new QHBoxLayout;
    storeRow->addWidget(m_store, 1);
    storeRow->addWidget(browse);
    // A window opened with --store on another file: say which store it uses, so the field (the store a start
    // without --store opens) is not taken for it.
    const QString configured = m_store->text().isEmpty() ? defaultStorePath() : m_store->text();
    m_storeInUse = new QLabel(this);
    m_storeInUse->setObjectName(QStringLiteral("settingsStoreInUse"));
    m_storeInUse->setWordWrap(true);
    m_storeInUse->setText(tr("This window uses %1 (given with --store); the setting above is the store the studio "
                             "opens when started without --store.")
                              .arg(QDir::toNativeSeparators(storePath)));
    m_storeInUse->setVisible(!storePath.isEmpty() &&
                             QFileInfo(storePath).absoluteFilePath() != QFileInfo(configured).absoluteFilePath());

    m_folders = new QListWidget(this);
    m_folders->setObjectName(QStringLiteral("settingsModelFolders"));
    QStringList folders = s.value(QLatin1String(settings_keys::kModelFolders)).toStringList();
    if (folders.isEmpty()) folders = defaultModelFolders;
    m_folders->addItems(folders);
    auto* add = new QPushButton(tr("Add…"), this);
    auto* remove = new QPushButton(tr("Remove"), this);
    connect(add, &QPushButton::clicked, this, [this] {
        const QString d = existingDirectory(this, tr("Model folder"), QDir::homePath());
        if (!d.isEmpty()) m_folders->addItem(d);
    });
    connect(remove, &QPushButton::clicked, this, [this] { delete m_folders->currentItem(); });
    auto* folderButtons = new QVBoxLayout;
    folderButtons->addWidget(add);
    folderButtons->addWidget(remove);
    folderButtons->addStretch();
    auto* folderRow = new QHBoxLayout;
    folderRow->addWidget(m_folders, 1);
    folderRow->addLayout(folderButtons);

    m_language = new QComboBox(this);
    m_language->setObjectName(QStringLiteral("settingsLanguage"));
    m_language->addItem(tr("System language"), QString());
    m_language->addItem(QStringLiteral("English"), QStringLiteral("en"));
    m_language->addItem(QStringLiteral("中文（简体）"), QStringLiteral("zh_CN"));
    m_language->setCurrentIndex(
        std::max(0, m_language->findData(s.value(QLatin1String(settings_keys::kLanguage)).toString())));
    m_theme = new QComboBox(this);
    m_theme->setObjectName(QStringLiteral("settingsTheme"));
    m_theme->addItem(tr("System"), QString());
    m_theme->addItem(tr("Light"), QStringLiteral("light"));
    m_theme->addItem(tr("Dark"), QStringLiteral("dark"));
    m_theme->setCurrentIndex(std::max(0, m_theme->findData(s.value(QLatin1String(settings_keys::kTheme)).toString())));

    auto* form = new QFormLayout;
    form->addRow(tr("Run store"), storeRow);
    form->addRow(QString(), m_storeInUse);
    auto* storeNote =
        new QLabel(tr("A new store location is used from the next start (empty: $FTS_STORE or the default)."), this);
    storeNote->setWordWrap(true);
    form->addRow(QString(), storeNote);
    form->addRow(tr("Model folders"), folderRow);
    form->addRow(tr("Language"), m_language);
    form->addRow(tr("Theme"), m_theme);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        apply();
        accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    if (!cliPath.isEmpty()) {
        m_doctor = new DoctorPanel(cliPath, storePath, this);
        layout->addWidget(m_doctor, 1);
    }
    layout->addWidget(buttons);
    resize(720, m_doctor ? 560 : 380);
}

void SettingsDialog::apply() {
    QSettings s;
    s.setValue(QLatin1String(settings_keys::kStorePath), m_store->text().trimmed());
    QStringList folders;
    for (int i = 0; i < m_folders->count(); ++i) folders << m_folders->item(i)->text();
    s.setValue(QLatin1String(settings_keys::kModelFolders), folders);
    const QString language = m_language->currentData().toString();
    const QString theme = m_theme->currentData().toString();
    const bool languageChanged = s.value(QLatin1String(settings_keys::kLanguage)).toString() != language;
    s.setValue(QLatin1String(settings_keys::kLanguage), language);
    s.setValue(QLatin1String(settings_keys::kTheme), theme);
    if (languageChanged) installStudioTranslations(language);
    if (theme != currentTheme()) applyTheme(theme);
}

}  // namespace fts
