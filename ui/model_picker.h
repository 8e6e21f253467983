// ModelPicker: a dialog listing the models in the user's model folders and the HF hub cache, with
// architecture, parameter count, dtype, vocab and context length. The scan runs on a worker thread (it
// reads config.json and the safetensors headers of every model); the dialog stays responsive meanwhile.
#pragma once
#include <QDialog>
#include <QStringList>
#include <QVector>

#include "ui/model_info.h"

class QLabel;
class QProgressBar;
class QTableWidget;

namespace fts {

class ModelPicker : public QDialog {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        ArchitectureColumn,
        ParametersColumn,
        DtypeColumn,
        VocabColumn,
        ContextColumn,
        SourceColumn,
        ColumnCount
    };

    ModelPicker(const QStringList& roots, const QStringList& hubDirs, QWidget* parent = nullptr);
    ~ModelPicker() override;

    void rescan();
    bool isScanning() const { return m_scanning; }
    const QVector<ModelFolderInfo>& models() const { return m_models; }
    QTableWidget* table() const { return m_table; }
    // The selected model's value for the config's model.path ("" when none).
    QString selectedValue() const;
    QStringList roots() const { return m_roots; }

signals:
    void scanFinished();

private:
    void showModels(const QVector<ModelFolderInfo>& models);
    void addFolder();

    QStringList m_roots, m_hubDirs;
    QVector<ModelFolderInfo> m_models;
    QTableWidget* m_table;
    QLabel* m_status;
    QProgressBar* m_busy;
    QThread* m_thread = nullptr;
    bool m_scanning = false;
};

}  // namespace fts
