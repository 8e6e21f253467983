// MainWindow: runs list on the left (from the store poller), on the right a stack: welcome page, the run
// view of the selected run, the new-run config editor, or the comparison of the selected runs. Starts runs as detached `fts train` processes
// and stops them by signal; never touches SQLite itself (StorePoller does, on its thread).
#pragma once
#include <QMainWindow>
#include <QPointer>
#include <QString>
#include <QTimer>
#include <QHash>
#include <optional>

#include "core/store/run_store.h"
#include "ui/store_poller.h"

class QAction;
class QMenu;
class QPushButton;
class QSplitter;
class QToolBar;
class QToolButton;
class QComboBox;
class QLineEdit;
class QLabel;
class QStackedWidget;
class QSystemTrayIcon;
class QTableView;

namespace fts {

class CompareView;
class ChatPage;
class DataPreviewDialog;
class ModelPicker;
class SettingsDialog;
class ConfigEditor;
class ConfigForm;
class ExportDialog;
class PlanDialog;
class ProbeDialog;
class QueuePage;
class RunView;
class RunsFilterProxy;
class RunsTableModel;
class StoreWriterThread;

struct StudioOptions {
    QString storePath;     // the run store (read-only here)
    QString resourcesDir;  // holds quickstart/quickstart.json
    QString dataDir;       // configs/ and logs/ for launched runs
    QString cliPath;       // the `fts` executable
    bool openQuickStart = false;
    int pollIntervalMs = StorePoller::kDefaultIntervalMs;
    static StudioOptions defaults();  // from run_launcher.h's default*() functions
};

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    enum class Page { Welcome, Run, Editor, Compare, Chat, Queue };

    explicit MainWindow(StudioOptions options, QWidget* parent = nullptr);
    ~MainWindow() override;

    const StudioOptions& options() const { return m_options; }
    Page currentPage() const;

    // The editor page, prefilled with the quick-start config.
    bool newRunFromQuickStart(QString* error = nullptr);
    // The welcome page's "New run with a model folder": the quick-start's settings with model.path = the folder
    // (pretrained weights), unsaved.
    bool newRunForModel(const QString& modelFolder, QString* error = nullptr);
    // The documentation folder (installed or the checkout's docs/); "" when there is none.
    QString docsFolder() const;
    // Loads a config file into the editor (a user's file: the one place the UI thread reads files).
    bool loadConfigFile(const QString& path, QString* error = nullptr);
    bool saveConfigTo(const QString& path, QString* error = nullptr);
    // "Start from this run": the editor gets the run's stored config (unsaved; its relative paths still
    // resolve against the folder of the run's config file).
    bool newRunFromRun(qint64 runId, QString* error = nullptr);
    // Starts the editor's config as a new run in a folder of its own (run_folder.h: its config copy, log and
    // launch arguments go there). Returns the supervisor pid.
    std::optional<qint64> startRun(QString* error = nullptr);
    // Resume: `fts train CONFIG --resume` for a stopped, failed or interrupted run with a checkpoint; the same
    // run row continues (its id, its curves). Returns the supervisor pid.
    std::optional<qint64> resumeRun(qint64 runId, QString* error = nullptr);
    bool canResume(qint64 runId) const;
    // Export…: the model of a run that is not running and has a checkpoint in its output folder, as a GGUF file or
    // an HF folder (ExportDialog, `fts export`).
    bool canExport(qint64 runId) const;
    ExportDialog* openExportDialog(qint64 runId);
    // Run > Measure ZeRO stages: the probe dialog for the current config on this machine's ranks (null on errors).
    ProbeDialog* openProbeDialog();
    // Run > Fit to my hardware: the plan dialog (fts plan) for the current config on this machine's ranks.
    PlanDialog* openPlanDialog();
    // The plan's Apply: writes each change's key (JSON [{key, before, after}]) into the config, only those keys;
    // returns the "key: before → after" lines of what changed.
    QStringList applyPlanChanges(const QString& changesJson);
    // Run > Add to queue: the editor's config (a sweep: each of its runs) on the store's queue (`fts queue add`,
    // devices from the form's ranks and GPUs), and a queue runner started when none runs. Returns false on errors.
    bool addConfigToQueue();
    // The Queue page (waiting, running and finished entries of the store's queue).
    void showQueuePage();
    QueuePage* queuePage() const { return m_queuePage; }
    QAction* planAction() const { return m_planAction; }
    QAction* queueAction() const { return m_queueAction; }
    QAction* queueAddAction() const { return m_queueAddAction; }
    // The editor's config has changes that are nowhere on disk (not saved, and not the config of the run it started
    // last): "New run" and "Open config" ask to save it first.
    bool hasUnsavedConfig() const;
    // "Use this variant" of the probe: writes the variant's deepspeed.zero_optimization stage and offload keys (its
    // JSON as the probe gives it) into the config (an offload block the variant keeps is left as written) and
    // returns the changes as "key: before → after" lines (empty: the config uses it already, or it is not JSON).
    QStringList applyProbeVariant(const QString& variantJson);
    void stopSelectedRun();
    // "Stop now": the supervisor's second stop request kills the workers without a checkpoint. Sends the
    // first request too unless Stop & save already did (the second follows kSecondStopDelayMs later, once the
    // supervisor has taken the first). askFirst: confirm in a dialog.
    static constexpr int kSecondStopDelayMs = 600;
    // The compare page reloads the compared runs when one of them changed (a live run), at most this often.
    static constexpr int kCompareRefreshMs = 2000;
    void stopRunNow(qint64 runId, bool askFirst = true);
    // The banner text of the last run that ended or failed while the window watched it.
    QString lastNotification() const { return m_lastNotification; }
    void selectRun(qint64 runId);
    // Selects these runs in the list (extended selection) without changing the page.
    void selectRuns(const QList<qint64>& runIds);
    QList<qint64> selectedRunIds() const;  // in list order
    // Shows the compare page for the selected runs (two or more). Returns false when fewer are selected.
    bool compareSelectedRuns();

    // History edits, written by the StoreWriter thread; the list follows at the next poll.
    void renameRun(qint64 runId, const QString& name);
    void setRunNotes(qint64 runId, const QString& notes);
    void setRunTags(qint64 runId, const QStringList& tags);
    void deleteRuns(const QList<qint64>& runIds, bool deleteFiles);
    // Dialogs for the same (context menu of the list).
    void renameSelectedRunDialog();
    void editSelectedRunNotesDialog();
    void deleteSelectedRunsDialog();
    qint64 selectedRunId() const { return m_selectedRunId; }
    QString editorFilePath() const { return m_configPath; }
    // The banner over the pages (and the status bar). A banner about one run (runId > 0) goes away when another
    // run's page opens; one about no run stays until the next.
    void showMessage(const QString& text, bool isError, qint64 runId = 0);
    QString lastMessage() const { return m_lastMessage; }

    ConfigEditor* configEditor() const { return m_editor; }
    ConfigForm* configForm() const { return m_form; }
    // The model picker (model.path) and the data preview of the editor's config; nullptr when not open.
    ModelPicker* openModelPicker();
    DataPreviewDialog* openDataPreview(QString* error = nullptr);
    // Out of line: QPointer needs the complete types, which this header only forward-declares.
    ModelPicker* modelPicker() const;
    DataPreviewDialog* dataPreview() const;
    // Folders the model picker scans (settings; default: the quick-start's folder).
    QStringList modelFolders() const;
    RunView* runView() const { return m_runView; }
    CompareView* compareView() const { return m_compareView; }
    // The Chat page, with the selected run's export (output_dir/final) as the model when it has one.
    void openChat();
    QAction* compareAction() const { return m_compareAction; }
    QAction* chatAction() const { return m_chatAction; }
    QTableView* runsView() const { return m_runsView; }
    RunsTableModel* runsModel() const { return m_runsModel; }
    RunsFilterProxy* runsProxy() const { return m_runsProxy; }
    QLineEdit* searchEdit() const { return m_search; }
    QComboBox* statusFilter() const { return m_statusFilter; }
    QComboBox* tagFilter() const { return m_tagFilter; }
    QAction* probeAction() const { return m_probeAction; }
    QAction* startAction() const { return m_startAction; }
    QAction* stopAction() const { return m_stopAction; }
    QAction* resumeAction() const { return m_resumeAction; }
    // Settings (store location, model folders, language, theme); applied when accepted. Not modal-blocking.
    SettingsDialog* openSettings();
    QAction* settingsAction() const { return m_settingsAction; }
    QMenu* fileMenu() const { return m_fileMenu; }
    // Window geometry, splitters, list header, last run, ranks and chart tab into QSettings (also on close).
    void saveWindowSettings() const;

signals:
    void runLaunched(qint64 pid, const QString& configPath);
    void runAttached(qint64 runId);                       // a launched run appeared in the store and is shown
    void runEnded(qint64 runId, const QString& message);  // a run seen running completed, failed or stopped
    void storeEdited(bool ok, const QString& message);    // a history edit finished (rename, notes, tags, delete)

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void closeEvent(QCloseEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void buildUi();
    void buildActions();
    void retranslateUi();  // texts of the window's own menus, actions, welcome page and filters
    void showShortcuts();  // Help > Keyboard shortcuts
    void restoreWindowSettings();
    void showPage(Page page);
    void updateActions();
    // The editor's config as a file a run (or a probe) can read (prepareLaunchConfig); nullopt + why on failure.
    std::optional<QString> launchConfigFile(QString* why) const;
    // The probe's and the plan's config: the editor's config as a file for this machine's ranks, or nullopt (the
    // reason shown); SSH hosts chosen on the form are left out, saying so with `hostsLeftOut`.
    std::optional<QString> configForLocalRanks(const QString& hostsLeftOut);
    // "Changed in the config: key: before → after; ..." (or that nothing changed) in a dialog's status and the message bar.
    void reportConfigChanges(const QStringList& changes, QLabel* status);
    void updateEditorHeader();
    void onRunsListed(const RunList& runs);
    void onRunsChanged(const RunList& changedRows);
    void noteStatuses(const RunList& runs);
    void attachPendingStart(const RunList& runs);
    void notifyRunEnded(const RunRecord& run);
    void onSelectionChanged();
    void onStoreState(bool available, const QString& message);
    void onStopRequested(qint64 runId, bool ok, const QString& message);
    void checkPendingStart();
    void openConfigDialog();
    // Before the editor's text is replaced (New run, Open, Start from this run, closing): unsaved edits are
    // saved, discarded or the action is cancelled (false) as the user answers.
    bool maySetEditorAside();
    // Before a Start from the toolbar, menu or button: when the estimate exceeds a rank's memory, the user
    // confirms, seeing the changes that would fit (the estimate's suggestions). True: go ahead.
    bool confirmEstimateFits();
    bool save();
    bool saveAs();
    void showRunPage(qint64 runId);
    bool supervisorAlive(const RunRecord& run) const;  // the run's supervisor process (another host's: assumed)
    QWidget* buildRunsPane();
    void refreshFilterChoices();
    void applyFilters();
    void updateRunsCount();
    void showRunsContextMenu(const QPoint& pos);

    StudioOptions m_options;
    StorePollerThread* m_poller = nullptr;
    RunsTableModel* m_runsModel;
    RunsFilterProxy* m_runsProxy;
    StoreWriterThread* m_writer = nullptr;
    QLineEdit* m_search = nullptr;
    QComboBox* m_statusFilter = nullptr;
    QComboBox* m_modelFilter = nullptr;
    QComboBox* m_datasetFilter = nullptr;
    QComboBox* m_dateFilter = nullptr;
    QComboBox* m_tagFilter = nullptr;
    QLabel* m_runsCount = nullptr;
    QTableView* m_runsView;
    QStackedWidget* m_stack;
    QWidget* m_welcome;
    RunView* m_runView;
    CompareView* m_compareView;
    ChatPage* m_chatPage;
    QWidget* m_editorPage;
    ConfigEditor* m_editor;
    ConfigForm* m_form;
    QLabel* m_editorFileLabel;
    QLabel* m_messageBar;
    QLabel* m_storeLabel;

    QAction* m_newAction;
    QAction* m_openAction;
    QAction* m_saveAction;
    QAction* m_saveAsAction;
    QAction* m_startAction;
    QAction* m_probeAction = nullptr;
    QAction* m_planAction = nullptr;
    QAction* m_queueAction = nullptr;
    QAction* m_queueAddAction = nullptr;
    QueuePage* m_queuePage = nullptr;
    QPushButton* m_planButton = nullptr;
    QToolButton* m_queueButton = nullptr;
    QPushButton* m_queueAddButton = nullptr;
    QAction* m_stopAction;
    QAction* m_resumeAction = nullptr;
    QAction* m_compareAction;
    QAction* m_chatAction;
    QAction* m_settingsAction = nullptr;
    QAction* m_quitAction = nullptr;
    QAction* m_aboutAction = nullptr;
    QAction* m_docsAction = nullptr;
    QAction* m_shortcutsAction = nullptr;
    QMenu* m_fileMenu = nullptr;
    QMenu* m_runMenu = nullptr;
    QMenu* m_helpMenu = nullptr;
    QToolBar* m_toolBar = nullptr;
    QSplitter* m_mainSplit = nullptr;
    QSplitter* m_editorSplit = nullptr;
    QLabel* m_hello = nullptr;
    QPushButton* m_welcomeNew = nullptr;
    QPushButton* m_welcomeOpen = nullptr;
    QPushButton* m_welcomeModel = nullptr;
    qint64 m_restoreRunId = 0;

    QPointer<ModelPicker> m_modelPicker;
    QPointer<DataPreviewDialog> m_dataPreview;
    QString m_configPath;  // file the editor text came from or was saved to
    // training.output_dir as the config came (loaded, quick-start, "Start from this run"): a run started with
    // it unchanged gets a folder of its own when another run holds it; one the user typed is refused instead.
    QString m_loadedOutputDir;
    QString m_startedText;  // the editor's text when the last run started (saved in that run's folder)
    bool m_isQuickStart = false;
    qint64 m_selectedRunId = 0;
    QList<qint64> m_selectedIds;  // the list's selection, restored after a model reset
    qint64 m_watchedRunId = 0;
    bool m_restoringSelection = false;
    bool m_firstListing = true;
    QString m_lastMessage;
    qint64 m_messageRunId = 0;  // the run the banner is about (0: none)
    bool m_editorHasSweep = false;
    QTimer m_fitNameColumn;    // batches fitRunsNameColumn after the list changes
    void fitRunsNameColumn();  // the editor's config has a sweep block: queued, never started
    QString m_lastNotification;
    QHash<qint64, RunStatus> m_lastStatus;  // for end/fail notifications
    QSystemTrayIcon* m_tray = nullptr;

    struct PendingStart {
        qint64 pid = 0;
        QString configPath;
        QString logPath;
        int goneTicks = 0;
        bool resume = false;  // the run's row exists already: attach when it shows the new supervisor's pid
    };
    std::optional<PendingStart> m_pending;
    bool m_forceStart = false;  // the next start passes --force (the user chose "Start anyway")
    bool offerStartDespiteMemory(const PendingStart& gone);
    QTimer m_pendingTimer;
    QTimer m_compareRefresh;
};

}  // namespace fts
