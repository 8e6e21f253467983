// ConfigEditor: the JSON training-config editor with inline validation. Typing re-validates after a
// 250 ms pause on a worker thread (fts::parseTrainConfigText may touch the file system); only the
// result for the current text is applied. Issues underline their key's line and list "key: message".
#pragma once
#include <QPointF>
#include <QString>
#include <QTimer>
#include <QVector>
#include <QWidget>

class QLabel;
class QListWidget;
class QListWidgetItem;
class QPlainTextEdit;
class QThread;

namespace fts {

// Where a config key path ("deepspeed.optimizer.params.lr", "a.b[1]", "a.b.1") is written in JSON text:
// the last occurrence of its last segment inside its parent object (or array element). When the key is
// absent (e.g. a missing required key), the deepest ancestor that is present; found=false if none is.
struct KeyLocation {
    bool found = false;
    bool exact = false;  // the full path was found (not only an ancestor)
    int position = -1;   // character offset of the key's opening quote (array elements: the value)
    int line = -1;       // 0-based line of position
    int column = -1;     // 0-based column of position
    int matchedSegments = 0;
};
KeyLocation locateKeyPath(const QString& json, const QString& keyPath);
// "line 3, column 7" (as in JSON parse errors) -> 0-based line; -1 when the message names no line.
int lineFromMessage(const QString& message);

struct EditorIssue {
    QString keyPath;
    QString message;
    bool isError = true;
    int line = -1;      // 0-based, -1: not located
    int position = -1;  // where clicking the issue puts the cursor
};

class ConfigValidatorWorker;

class ConfigEditor : public QWidget {
    Q_OBJECT
public:
    static constexpr int kDebounceMs = 250;

    explicit ConfigEditor(QWidget* parent = nullptr);
    ~ConfigEditor() override;

    // Replaces the text (not an edit: the modified flag is cleared) and validates immediately.
    void setConfigText(const QString& text, const QString& baseDir);
    // Replaces the whole text as one edit (undoable, sets the modified flag; the form writes through this).
    void replaceText(const QString& text);
    QString text() const;
    // The core's resolved config (configToResolvedJson) of the last validated text; "" when it had errors.
    QString resolvedJson() const { return m_resolvedJson; }
    // The resolved config of the last text that validated, or of a minimal config when none has: the core's
    // defaults, which the form shows as placeholders.
    QString lastGoodResolvedJson() const { return m_lastGoodResolved; }
    // fts::estimateMemory of the last validated text (toJson, with the capacity of one rank: host RAM / ranks
    // on CPU, unknown on CUDA); "" with estimateError() when the config has errors or the model can't be read.
    QString estimateJson() const { return m_estimateJson; }
    QString estimateError() const { return m_estimateError; }
    // The learning rate of every step as the run will use it (sampled at most kLrSchedulePoints times), from
    // the last validated text; empty while the steps are not known (epochs) or the config has errors.
    static constexpr int kLrSchedulePoints = 300;
    const QVector<QPointF>& lrSchedule() const { return m_lrSchedule; }
    // Relative paths in the config resolve against this folder (the config file's folder).
    void setBaseDir(const QString& dir);
    QString baseDir() const { return m_baseDir; }
    void setWorldSize(int worldSize);
    // The memory of one rank's GPU (the smallest of the chosen GPUs; -1: none chosen). With it the estimate is
    // a CUDA one judged against it (unless training.device is "cpu"); without, CPU runs are judged against the
    // host RAM per rank and CUDA ones not at all.
    void setGpuCapacity(qint64 bytes);
    bool isModified() const;
    void setModified(bool modified);

    // The issues are those of the current text (no edit or validation pending).
    bool isValidated() const { return m_validatedGeneration == m_generation; }
    bool hasErrors() const;
    int errorCount() const;
    int warningCount() const;
    const QVector<EditorIssue>& issues() const { return m_issues; }
    void validateNow();  // skip the debounce (still asynchronous)
    void goToIssue(int index);

    QPlainTextEdit* textEdit() const { return m_edit; }
    QListWidget* issueList() const { return m_list; }

signals:
    void validationChanged();  // issues replaced, or the text changed (validation pending)
    void modificationChanged(bool modified);
    void requestValidation(quint64 generation, const QString& text, const QString& baseDir, int worldSize,
                           qint64 gpuCapacity);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void onTextChanged();
    void onValidated(quint64 generation, const QVector<EditorIssue>& issues, const QString& resolved,
                     const QString& defaultsResolved, const QString& estimate, const QString& estimateError,
                     const QVector<QPointF>& lrSchedule);
    void applyIssues();

    QPlainTextEdit* m_edit;
    QListWidget* m_list;
    QLabel* m_summary;
    QTimer m_debounce;
    QThread* m_thread;
    ConfigValidatorWorker* m_worker;
    QString m_baseDir;
    int m_worldSize = 1;
    qint64 m_gpuCapacity = -1;
    quint64 m_generation = 1;
    quint64 m_validatedGeneration = 0;
    QVector<EditorIssue> m_issues;
    QString m_resolvedJson, m_lastGoodResolved, m_estimateJson, m_estimateError;
    QVector<QPointF> m_lrSchedule;
    bool m_settingText = false;
};

// Runs fts::parseTrainConfigText on the editor's worker thread.
class ConfigValidatorWorker : public QObject {
    Q_OBJECT
public slots:
    void validate(quint64 generation, const QString& text, const QString& baseDir, int worldSize, qint64 gpuCapacity);
signals:
    // resolved: configToResolvedJson of the text ("" on errors); defaultsResolved: that of a minimal
    // config (sent when resolved is empty, so there are always defaults to show).
    // lrSchedule: (step, lr) of the run's schedule (learningRateAt), sampled; empty when the steps are known
    // only at run start (training by epochs) or the config has errors.
    void validated(quint64 generation, const QVector<fts::EditorIssue>& issues, const QString& resolved,
                   const QString& defaultsResolved, const QString& estimate, const QString& estimateError,
                   const QVector<QPointF>& lrSchedule);
};

}  // namespace fts

Q_DECLARE_METATYPE(fts::EditorIssue)
