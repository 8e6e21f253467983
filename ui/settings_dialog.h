// SettingsDialog: store location (used from the next start), model folders (the model picker's roots),
// language and theme (both applied at once), and "Check this machine" (fts doctor). Reads and writes QSettings (studio_settings.h keys).
#pragma once
#include <QDialog>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;

namespace fts {

class DoctorPanel;

class SettingsDialog : public QDialog {
    Q_OBJECT
public:
    // defaultModelFolders: what the picker scans when the setting is empty. With cliPath, a "Check this machine"
    // section runs `fts doctor` on the store at storePath (doctor_panel.h).
    explicit SettingsDialog(const QStringList& defaultModelFolders, QWidget* parent = nullptr,
                            const QString& cliPath = QString(), const QString& storePath = QString());
    QComboBox* languageCombo() const { return m_language; }
    QComboBox* themeCombo() const { return m_theme; }
    // Writes the settings and applies language and theme.
    void apply();

private:
    QLineEdit* m_store;
    QLabel* m_storeInUse = nullptr;  // shown when this window's store is not the one the setting names
    QListWidget* m_folders;
    QComboBox* m_language;
    QComboBox* m_theme;
    DoctorPanel* m_doctor = nullptr;
};

}  // namespace fts
