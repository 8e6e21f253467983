// DataPreview: the dataset picker's preview. Preference runs (training.objective dpo / orpo / simpo) show their
// pairs: the prompt greyed, the chosen completion green, the rejected red, as the objective tokenizes them.
// DataPreview: the dataset picker's preview. The first samples rendered with the chat template (spans that
// get no loss, i.e. the prompt, greyed), the token statistics over the whole training file (mean, p50, p95,
// max) and the truncation / drop / bad-row counts, computed by the core's previewSftData on a worker
// thread while a busy bar shows. Classification data (data.format "classification") shows the label
// distribution and the first rows with their labels instead. The request is built from the config (resolved paths).
#pragma once
#include <QDialog>
#include <QList>
#include <QString>
#include <QStringList>
#include <map>
#include <optional>

class QLabel;
class QProgressBar;
class QTextBrowser;

namespace fts {

struct DataPreviewRequest {
    QString train;
    QString textField = QStringLiteral("text");
    qint64 maxLength = 0;  // 0: the core's SftOptions default
    QString tokenizer;     // tokenizer.json
    QString modelDir;      // for the template's auto-detection
    QString format;        // "" = auto
    QString chatTemplate;  // "" = auto
    bool trainOnPrompt = false;
    std::map<QString, QString> columns;  // data.columns (classification: text, text_pair, label)
    int samples = 8;
    QString objective = QStringLiteral("sft");  // training.objective: dpo / orpo / simpo preview pairs
    bool keepEnd = false;                       // preference.truncation_mode "keep_end"
    qint64 maxPromptLength = 0;                 // preference.max_prompt_length (0: none)
};
// From a resolved config (configToResolvedJson text) and the raw config text (for data keys the resolved
// form may not carry). nullopt + error when the config has no training data.
std::optional<DataPreviewRequest> previewRequestFromConfig(const QString& resolvedJson, const QString& rawJson,
                                                           QString* error);

struct DataPreviewResult {
    bool ok = false;
    QString error;
    QString html;       // the rendered samples
    QString statsText;  // one line per figure
    qint64 samples = 0, truncated = 0, dropped = 0, badRows = 0, maxTokens = 0;
    double meanTokens = 0, p50Tokens = 0, p95Tokens = 0;
    int shown = 0;
    int maskedSpans = 0;  // no-loss spans marked in the shown samples
    // Classification: the label names by id and the training rows carrying each (empty for regression).
    QStringList labelNames;
    QList<qint64> labelCounts;
};
// Runs the preview (reads the files; call off the UI thread).
DataPreviewResult runDataPreview(const DataPreviewRequest& request);

class DataPreviewDialog : public QDialog {
    Q_OBJECT
public:
    explicit DataPreviewDialog(const DataPreviewRequest& request, QWidget* parent = nullptr);
    ~DataPreviewDialog() override;
    bool isRunning() const { return m_running; }
    const DataPreviewResult& result() const { return m_result; }
    QTextBrowser* samplesView() const { return m_view; }
    QLabel* statsLabel() const { return m_stats; }
    QProgressBar* progressBar() const { return m_busy; }

signals:
    void finished();

private:
    void showResult(const DataPreviewResult& result);
    QTextBrowser* m_view;
    QLabel* m_stats;
    QLabel* m_title;
    QProgressBar* m_busy;
    QThread* m_thread = nullptr;
    DataPreviewResult m_result;
    bool m_running = true;
};

}  // namespace fts
