// SettingsDialog: store location (used from the next start), model folders (the model picker's roots),
// language and theme (both applied at once). Reads and writes QSettings (studio_settings.h keys).
#pragma once
#include <QDialog>

class QComboBox;
class QLineEdit;
class QListWidget;

namespace fts {

class SettingsDialog : public QDialog {
    Q_OBJECT
public:
    // defaultModelFolders: what the picker scans when the setting is empty.
    explicit SettingsDialog(const QStringList& defaultModelFolders, QWidget* parent = nullptr);
    QComboBox* languageCombo() const { return m_language; }
    QComboBox* themeCombo() const { return m_theme; }
    QLineEdit* storeEdit() const { return m_store; }
    QListWidget* modelFolderList() const { return m_folders; }
    // Writes the settings and applies language and theme.
    void apply();

private:
    QLineEdit* m_store;
    QListWidget* m_folders;
    QComboBox* m_language;
    QComboBox* m_theme;
};

}  // namespace fts
