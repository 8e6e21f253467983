// ExportDialog: a run's model out of the studio, as a GGUF file for llama.cpp / Ollama / LM Studio (a quantization
// preset, an Ollama Modelfile beside it) or as a Hugging Face folder (a precision). Runs `fts export` in a child
// process, never on the UI thread: its "gguf: N%" lines drive the progress bar, Cancel stops it (the CLI removes the
// partial file), and the end shows the file, its size and the `ollama create` command to copy, with llama.cpp's
// differences (warnings) below.
#pragma once
#include <QByteArray>
#include <QDialog>
#include <QString>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProcess;
class QProgressBar;
class QPushButton;

namespace fts {

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    // source: a run's output_dir (its latest checkpoint is exported) or a checkpoint / model folder.
    // runName: names the file and the Ollama model.
    ExportDialog(const QString& cliPath, const QString& source, const QString& runName, QWidget* parent = nullptr);
    ~ExportDialog() override;

    void start();  // runs the export with the chosen settings (ignored while one runs)
    void cancel();
    bool isRunning() const { return m_process != nullptr; }
    // The arguments `fts export` gets for the current choices.
    QStringList exportArguments() const;

    QComboBox* formatBox() const { return m_format; }
    QComboBox* quantBox() const { return m_quant; }
    QComboBox* dtypeBox() const { return m_dtype; }
    QLineEdit* destinationEdit() const { return m_destination; }
    QCheckBox* modelfileCheck() const { return m_modelfile; }
    QProgressBar* progressBar() const { return m_progress; }
    QLabel* statusLabel() const { return m_status; }
    QPlainTextEdit* resultText() const { return m_result; }
    QLabel* quantHint() const { return m_quantHint; }
    QPushButton* exportButton() const { return m_export; }
    QPushButton* cancelButton() const { return m_cancel; }

signals:
    void finishedExport(bool ok);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void updateChoices();
    void processStderrLine(const QByteArray& line);
    void finish(int code, bool crashed);

    QString m_cli, m_source, m_runName;
    QComboBox* m_format = nullptr;
    QComboBox* m_quant = nullptr;
    QComboBox* m_dtype = nullptr;
    QLabel* m_quantLabel = nullptr;
    QLabel* m_dtypeLabel = nullptr;
    QLabel* m_quantHint = nullptr;
    QLineEdit* m_destination = nullptr;
    QCheckBox* m_modelfile = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
    QPlainTextEdit* m_result = nullptr;
    QPushButton* m_export = nullptr;
    QPushButton* m_cancel = nullptr;
    QProcess* m_process = nullptr;
    QByteArray m_stdout, m_stderrPartial, m_stderrTail;
    QStringList m_warnings;
    bool m_cancelled = false;
};

}  // namespace fts
