// QueuePage: the store's run queue (docs/queue.md) as a table: each entry's name, state, devices, why it waits or
// how it ended, its run and its sweep; move a waiting entry up or down, cancel one (a running one is stopped with a
// checkpoint), clear the finished, compare a sweep's runs, and start the queue runner when none runs. Everything goes
// through the CLI (`fts queue list --json`, `move`, `remove`, `clear`, `run`) in child processes: the page never
// blocks on the store. While shown it refreshes every few seconds.
#pragma once
#include <QList>
#include <QWidget>

#include <nlohmann/json.hpp>

class QLabel;
class QProcess;
class QPushButton;
class QTableWidget;
class QTimer;

namespace fts {

class QueuePage : public QWidget {
    Q_OBJECT
public:
    static constexpr int kRefreshMs = 2000;
    QueuePage(const QString& cliPath, const QString& storePath, QWidget* parent = nullptr);
    ~QueuePage() override;

    void refresh();  // reads the queue again (ignored while a read runs)
    // Fills the table from `fts queue list --json` output.
    void showList(const nlohmann::json& list);
    // Starts `fts queue run` in the background (it outlives the studio); its output goes to <store>.queue-runner.log.
    bool startRunner();
    // After the studio starts: a queue with waiting or interrupted entries and no runner gets one (the queue survives
    // a restart of the machine).
    void pickUpQueue();
    // `fts queue <args...>` in the background, then a refresh; `done` (optional) gets its exit code and stderr.
    void runQueueCommand(const QStringList& args, std::function<void(int, const QString&)> done = {});

    qint64 selectedEntry() const;
    void selectEntry(qint64 entryId);
    QTableWidget* table() const { return m_table; }
    QLabel* runnerLabel() const { return m_runner; }
    QPushButton* upButton() const { return m_up; }
    QPushButton* downButton() const { return m_down; }
    QPushButton* cancelButton() const { return m_cancel; }
    QPushButton* clearButton() const { return m_clear; }
    QPushButton* compareButton() const { return m_compare; }
    QPushButton* startRunnerButton() const { return m_start; }
    const nlohmann::json& entries() const { return m_entries; }
    // Whether the last listing saw a runner (it may have left since: adding starts one regardless).
    bool hasRunner() const { return m_runnerPid != 0; }
    // "Back to the config": shown while the editor holds a config (after Add to queue, its edits are still there).
    void setBackToEditorShown(bool shown);
    QPushButton* backToEditorButton() const { return m_back; }
    void retranslate();

signals:
    void runActivated(qint64 runId);                     // double-click on an entry that has a run
    void compareRequested(const QList<qint64>& runIds);  // "Compare this sweep"
    void listed();                                       // after each refresh
    void editorRequested();                              // "Back to the config"

protected:
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    QString m_cli, m_store;
    QLabel* m_intro = nullptr;
    QLabel* m_runner = nullptr;
    QLabel* m_status = nullptr;
    QTableWidget* m_table = nullptr;
    QPushButton* m_up = nullptr;
    QPushButton* m_down = nullptr;
    QPushButton* m_cancel = nullptr;
    QPushButton* m_clear = nullptr;
    QPushButton* m_compare = nullptr;
    QPushButton* m_start = nullptr;
    QPushButton* m_back = nullptr;
    bool m_askedToStart = false;  // the status line says a runner was asked to start, until the listing answers
    QTimer* m_timer = nullptr;
    QProcess* m_listing = nullptr;
    nlohmann::json m_entries = nlohmann::json::array();
    qint64 m_runnerPid = 0;
    bool m_pickUp = false;  // start a runner after the next listing if the queue needs one
    void updateButtons();
    void moveSelected(int delta);
    // The runs of one sweep submission (QueueEntry::submission): the same sweep queued twice is two sweeps.
    QList<qint64> sweepRuns(int64_t submission) const;
    QString stateText(const std::string& status) const;
};

}  // namespace fts
