// MainWindow, the new-run editor: the quick-start, a model folder, opening and saving configs, the pickers, and
// the questions asked before the editor's text is replaced or a run that will not fit is started.
#include "ui/main_window.h"
#include "ui/file_dialogs.h"

#include <sys/types.h>

#include <QSpinBox>
#include <QLabel>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QDialog>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <cerrno>
#include <csignal>

#include "core/config/memory_estimate.h"
#include "core/util/json_parse.h"
#include "ui/config_editor.h"
#include "ui/config_form.h"
#include "ui/data_preview.h"
#include "ui/model_picker.h"
#include "ui/studio_settings.h"
#include "ui/run_folder.h"
#include "ui/run_launcher.h"
#include "ui/runs_table_model.h"

namespace fts {

void MainWindow::updateEditorHeader() {
    QString name = m_configPath.isEmpty() ? tr("(unsaved config)") : QDir::toNativeSeparators(m_configPath);
    if (m_isQuickStart) name = tr("Quick-start: %1").arg(name);
    if (m_editor->isModified()) name += tr(" (modified)");
    m_editorFileLabel->setText(name);
    m_editorFileLabel->setToolTip(name);
}

bool MainWindow::newRunFromQuickStart(QString* error) {
    const QString path = quickStartConfigPath(m_options.resourcesDir);
    QString why;
    if (!loadConfigFile(path, &why)) {
        showMessage(tr("The quick-start config is missing: %1").arg(why), true);
        if (error) *error = why;
        return false;
    }
    m_isQuickStart = true;
    updateEditorHeader();
    return true;
}

bool MainWindow::newRunForModel(const QString& modelFolder, QString* error) {
    if (!newRunFromQuickStart(error)) return false;
    // The quick-start's settings with this model (its own weights and tokenizer); the user edits the rest.
    m_form->setFieldText(QStringLiteral("model.path"), QDir::cleanPath(modelFolder));
    m_form->setFieldText(QStringLiteral("model.init"), QStringLiteral("pretrained"));
    const QString name = QFileInfo(QDir::cleanPath(modelFolder)).fileName();
    m_form->setFieldText(QStringLiteral("training.run_name"), name);
    // Its own output folder beside the quick-start's (still given a fresh one at Start if another run holds it).
    const int slash = int(m_loadedOutputDir.lastIndexOf(QLatin1Char('/')));
    if (slash > 0) {
        m_form->setFieldText(QStringLiteral("training.output_dir"), m_loadedOutputDir.left(slash + 1) + name);
        m_loadedOutputDir = configOutputDirText(m_editor->text());
    }
    showMessage(tr("A new run with %1: set the training data and check the settings, then Start.")
                    .arg(QDir::toNativeSeparators(modelFolder)),
                false);
    return true;
}

bool MainWindow::loadConfigFile(const QString& path, QString* error) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) {
        const QString why = tr("Cannot read %1: %2").arg(path, file.errorString());
        if (error) *error = why;
        showMessage(why, true);
        return false;
    }
    const QString text = QString::fromUtf8(file.readAll());
    const QFileInfo info(path);
    m_configPath = info.absoluteFilePath();
    m_isQuickStart = false;
    m_editor->setConfigText(text, info.absolutePath());
    m_loadedOutputDir = configOutputDirText(text);
    updateEditorHeader();
    showMessage(QString(), false);
    showPage(Page::Editor);
    return true;
}

QStringList MainWindow::modelFolders() const {
    QStringList folders = QSettings().value(QLatin1String(settings_keys::kModelFolders)).toStringList();
    if (folders.isEmpty()) folders << QDir(m_options.resourcesDir).absoluteFilePath(QStringLiteral("quickstart"));
    return folders;
}

ModelPicker* MainWindow::openModelPicker() {
    if (m_modelPicker) {
        m_modelPicker->raise();
        return m_modelPicker;
    }
    m_modelPicker = new ModelPicker(modelFolders(), defaultHubDirs(), this);
    m_modelPicker->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_modelPicker, &QDialog::accepted, this, [this] {
        const QString value = m_modelPicker->selectedValue();
        if (!value.isEmpty()) m_form->setFieldText(QStringLiteral("model.path"), value);
        // Folders added in the picker are remembered.
        QSettings().setValue(QLatin1String(settings_keys::kModelFolders), m_modelPicker->roots());
    });
    m_modelPicker->open();
    return m_modelPicker;
}

DataPreviewDialog* MainWindow::openDataPreview(QString* error) {
    QString why;
    const auto request = previewRequestFromConfig(m_editor->resolvedJson(), m_editor->text(), &why);
    if (!request) {
        if (error) *error = why;
        showMessage(why, true);
        return nullptr;
    }
    if (m_dataPreview) m_dataPreview->close();
    m_dataPreview = new DataPreviewDialog(*request, this);
    m_dataPreview->setAttribute(Qt::WA_DeleteOnClose);
    m_dataPreview->show();
    return m_dataPreview;
}

bool MainWindow::newRunFromRun(qint64 runId, QString* error) {
    const RunRecord* r = m_runsModel->runById(runId);
    if (!r || r->configJson.empty()) {
        const QString why = tr("Run %1 has no stored config.").arg(runId);
        if (error) *error = why;
        showMessage(why, true);
        return false;
    }
    const QString baseDir =
        r->configPath.empty() ? m_options.dataDir : QFileInfo(QString::fromStdString(r->configPath)).absolutePath();
    m_configPath.clear();
    m_isQuickStart = false;
    m_editor->setConfigText(QString::fromStdString(r->configJson), baseDir);
    m_loadedOutputDir = configOutputDirText(m_editor->text());
    m_editor->setModified(true);
    m_form->ranksSpin()->setValue(std::max(1, r->worldSize));
    updateEditorHeader();
    showMessage(tr("A new run from the config of \"%1\" (unsaved).").arg(QString::fromStdString(r->name)), false);
    showPage(Page::Editor);
    return true;
}

bool MainWindow::saveConfigTo(const QString& path, QString* error) {
    const QFileInfo target(path);
    QString text = m_editor->text();
    // Relative paths resolve against the config's folder: keep them pointing at the same files.
    if (QDir(target.absolutePath()) != QDir(m_editor->baseDir())) {
        QString why;
        const auto moved = absolutizeConfigPaths(text, m_editor->baseDir(), &why);
        if (!moved) {
            if (error) *error = why;
            showMessage(why, true);
            return false;
        }
        text = *moved;
    }
    QFile file(target.absoluteFilePath());
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text) || file.write(text.toUtf8()) < 0) {
        const QString why = tr("Cannot write %1: %2").arg(path, file.errorString());
        if (error) *error = why;
        showMessage(why, true);
        return false;
    }
    file.close();
    if (text != m_editor->text()) {
        const bool inherited = configOutputDirText(m_editor->text()) == m_loadedOutputDir;
        m_editor->setConfigText(text, target.absolutePath());
        if (inherited) m_loadedOutputDir = configOutputDirText(text);  // the same folder, now written absolute
    } else {
        m_editor->setBaseDir(target.absolutePath());
    }
    m_editor->setModified(false);
    m_configPath = target.absoluteFilePath();
    m_isQuickStart = false;
    updateEditorHeader();
    showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(m_configPath)), false);
    return true;
}

bool MainWindow::save() {
    if (m_configPath.isEmpty() || m_isQuickStart) return saveAs();  // never overwrite the shipped quick-start
    return saveConfigTo(m_configPath);
}

bool MainWindow::saveAs() {
    const QString start = m_isQuickStart || m_configPath.isEmpty()
                              ? QDir(m_options.dataDir).absoluteFilePath(QStringLiteral("configs/my-run.json"))
                              : m_configPath;
    const QString path = saveFileName(this, tr("Save config"), start, tr("JSON configs (*.json)"));
    if (path.isEmpty()) return false;
    QDir().mkpath(QFileInfo(path).absolutePath());
    return saveConfigTo(path);
}

void MainWindow::openConfigDialog() {
    if (!maySetEditorAside()) return;
    const QString start = m_configPath.isEmpty() ? QDir::homePath() : QFileInfo(m_configPath).absolutePath();
    const QString path = openFileName(this, tr("Open config"), start, tr("JSON configs (*.json);;All files (*)"));
    if (!path.isEmpty()) loadConfigFile(path);
}

bool MainWindow::hasUnsavedConfig() const {
    // Unchanged since it started a run, the config is kept in that run's folder: nothing to save.
    return m_editor->isModified() && (m_startedText.isEmpty() || m_editor->text() != m_startedText);
}

bool MainWindow::maySetEditorAside() {
    if (!hasUnsavedConfig()) return true;
    const auto answer = QMessageBox::question(
        this, tr("Unsaved config"), tr("The config in the editor has unsaved changes. Save them?"),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    return answer == QMessageBox::Discard || (answer == QMessageBox::Save && save());
}

bool MainWindow::confirmEstimateFits() {
    m_forceStart = false;
    const auto e = parseJsonOrDiscarded(m_editor->estimateJson().toStdString());
    if (!e.is_object() || e.value("fits", true) || !e.contains("device_capacity") || !e["device_capacity"].is_number())
        return true;
    const auto bytes = [](int64_t b) { return QString::fromStdString(formatBytes(b)); };
    QStringList ideas;
    if (e.contains("suggestions") && e["suggestions"].is_array())
        for (const auto& s : e["suggestions"])
            if (s.is_object() && s.value("fits", false))
                ideas << tr("• %1 (%2 per rank)")
                             .arg(QString::fromStdString(s.value("description", std::string())))
                             .arg(bytes(s.value("total", int64_t(0))));
    QMessageBox box(QMessageBox::Warning, tr("The estimate does not fit"),
                    tr("This config needs about %1 per rank, and a rank has %2. The run will probably run out of "
                       "memory. Start it anyway?")
                        .arg(bytes(e["per_rank"].value("total", int64_t(0))))
                        .arg(bytes(e["device_capacity"].get<int64_t>())),
                    QMessageBox::Cancel, this);
    if (!ideas.isEmpty()) box.setInformativeText(tr("Changes that would fit:\n%1").arg(ideas.join(QLatin1Char('\n'))));
    QPushButton* start = box.addButton(tr("Start anyway"), QMessageBox::AcceptRole);
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    m_forceStart = box.clickedButton() == start;  // fts train would refuse it otherwise
    return m_forceStart;
}

}  // namespace fts
