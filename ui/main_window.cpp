// MainWindow: layout, actions, pages, messages and window state (see main_window.h). The editor page's files are
// in main_window_editor.cpp, starting, resuming and stopping runs in main_window_run_control.cpp, the runs list
// and its dialogs in main_window_runs.cpp.
#include "ui/main_window.h"
#include "ui/file_dialogs.h"

#include <sys/types.h>

#include <QToolBar>
#include <QToolButton>
#include <QStatusBar>
#include <QSpinBox>
#include <QMenuBar>
#include <QMenu>
#include <QComboBox>
#include <QAction>
#include <QCloseEvent>
#include <QDir>
#include <QScreen>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QPlainTextEdit>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QDesktopServices>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QEvent>
#include <nlohmann/json.hpp>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyle>
#include <QTableView>
#include <QUrl>
#include <QVBoxLayout>
#include <algorithm>
#include <cerrno>
#include <csignal>

#include "core/config/memory_estimate.h"
#include "core/util/json_parse.h"
#include "ui/chat_page.h"
#include "ui/compare_view.h"
#include "ui/elided_label.h"
#include "ui/config_editor.h"
#include "ui/config_form.h"
#include "ui/device_panel.h"
#include "ui/hosts_panel.h"
#include "ui/data_preview.h"
#include "ui/model_picker.h"
#include "ui/settings_dialog.h"
#include "ui/studio_settings.h"
#include "ui/device_list.h"
#include "ui/run_folder.h"
#include "ui/run_launcher.h"
#include "ui/run_view.h"
#include "ui/runs_filter_proxy.h"
#include "ui/runs_table_model.h"
#include "ui/plan_dialog.h"
#include "ui/probe_dialog.h"
#include "ui/queue_page.h"
#include "ui/store_writer.h"
#include "ui/wheel_guard.h"

namespace fts {

namespace {

constexpr int kPendingCheckMs = 500;

}  // namespace

StudioOptions StudioOptions::defaults() {
    StudioOptions o;
    o.storePath = defaultStorePath();
    o.resourcesDir = defaultResourcesDir();
    o.dataDir = defaultDataDir();
    o.cliPath = defaultCliPath();
    return o;
}

MainWindow::MainWindow(StudioOptions options, QWidget* parent) : QMainWindow(parent), m_options(std::move(options)) {
    setWindowTitle(tr("Finetune Studio"));
    new WheelGuard(this);  // a wheel turn over an unfocused combo or spin box scrolls the form instead
    buildUi();
    buildActions();

    // Compare follows the compared runs that are still training: reloaded at most every kCompareRefreshMs.
    m_compareRefresh.setSingleShot(true);
    m_compareRefresh.setInterval(kCompareRefreshMs);
    connect(&m_compareRefresh, &QTimer::timeout, this, [this] {
        if (currentPage() == Page::Compare && !m_compareView->runIds().isEmpty())
            m_compareView->compareRuns(m_options.storePath, m_compareView->runIds());
    });
    m_pendingTimer.setInterval(kPendingCheckMs);
    connect(&m_pendingTimer, &QTimer::timeout, this, &MainWindow::checkPendingStart);

    m_poller = new StorePollerThread(m_options.storePath, m_options.pollIntervalMs, this);
    StorePoller* p = m_poller->poller();
    connect(p, &StorePoller::runsListed, this, &MainWindow::onRunsListed);
    connect(p, &StorePoller::runsChanged, this, &MainWindow::onRunsChanged);
    connect(p, &StorePoller::bestEvalListed, m_runsModel, &RunsTableModel::setBestEval);
    connect(p, &StorePoller::runData, m_runView, &RunView::applyBatch);
    connect(p, &StorePoller::runLogs, m_runView, &RunView::setLogs);
    connect(p, &StorePoller::runLogsAppended, m_runView, &RunView::appendLogs);
    connect(p, &StorePoller::storeState, this, &MainWindow::onStoreState);
    connect(p, &StorePoller::stopRequested, this, &MainWindow::onStopRequested);
    m_poller->start();
    m_queuePage->pickUpQueue();  // a queue left waiting (the studio or the machine restarted) gets its runner

    m_writer = new StoreWriterThread(m_options.storePath, this);
    connect(m_writer->writer(), &StoreWriter::done, this,
            [this](StoreWriter::Op, qint64, bool ok, const QString& message) {
                showMessage(message, !ok);
                m_poller->pollNow();
                emit storeEdited(ok, message);
            });

    if (m_options.openQuickStart)
        newRunFromQuickStart();
    else
        showPage(Page::Welcome);
    // A first start fits the screen (a laptop's 1024x640 too) with its title bar and frame, which resize() does not
    // count (40 px of height, 8 of width allowed for them); later starts restore the last geometry, kept on screen.
    QSize size(1280, 820);
    if (const QScreen* sc = screen()) size = size.boundedTo(sc->availableGeometry().size() - QSize(8, 40));
    resize(size);
    restoreWindowSettings();
    if (const QScreen* sc = screen(); sc && !isMaximized()) {
        const QRect avail = sc->availableGeometry();
        if (width() > avail.width() - 8 || height() > avail.height() - 40)  // saved on a larger screen
            resize(this->size().boundedTo(avail.size() - QSize(8, 40)));
        if (!avail.contains(frameGeometry().topLeft())) move(avail.topLeft());
    }
}

MainWindow::~MainWindow() {
    delete m_writer;  // finishes queued edits, joins its thread
    m_writer = nullptr;
    delete m_poller;  // joins the poller thread before the widgets it signals go away
    m_poller = nullptr;
}

void MainWindow::buildUi() {
    m_runsModel = new RunsTableModel(this);
    m_runsProxy = new RunsFilterProxy(this);
    m_runsProxy->setRunsModel(m_runsModel);
    m_runsView = new QTableView(this);
    m_runsView->setObjectName(QStringLiteral("runsView"));
    m_runsView->setModel(m_runsProxy);
    m_runsView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_runsView->setSelectionMode(QAbstractItemView::ExtendedSelection);  // several runs: Compare
    m_runsView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_runsView->verticalHeader()->hide();
    // Fixed row height: no per-row size measurement, so 10,000 rows stay instant.
    m_runsView->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_runsView->verticalHeader()->setDefaultSectionSize(m_runsView->fontMetrics().height() + 8);
    m_runsView->setAlternatingRowColors(true);
    m_runsView->setShowGrid(false);
    m_runsView->setWordWrap(false);
    m_runsView->setSortingEnabled(true);
    m_runsView->sortByColumn(RunsTableModel::StartedColumn, Qt::DescendingOrder);
    m_runsView->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_runsView, &QWidget::customContextMenuRequested, this, &MainWindow::showRunsContextMenu);
    // Columns fit their contents, measured over the visible rows only (precision 0), so a refresh of a
    // long list stays cheap; the pane scrolls sideways, the last column (tags) takes what is left.
    m_runsView->horizontalHeader()->setResizeContentsPrecision(0);
    m_runsView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_runsView->horizontalHeader()->setStretchLastSection(true);
    // The name fits its contents up to two fifths of the pane: a long name (a probe's, a sweep's) is elided, whole
    // in its tooltip, and Status stays in view beside it.
    m_runsView->horizontalHeader()->setSectionResizeMode(RunsTableModel::NameColumn, QHeaderView::Interactive);
    m_fitNameColumn.setSingleShot(true);
    m_fitNameColumn.setInterval(0);
    connect(&m_fitNameColumn, &QTimer::timeout, this, &MainWindow::fitRunsNameColumn);
    connect(m_runsProxy, &QAbstractItemModel::modelReset, &m_fitNameColumn, qOverload<>(&QTimer::start));
    connect(m_runsProxy, &QAbstractItemModel::layoutChanged, &m_fitNameColumn, qOverload<>(&QTimer::start));
    connect(m_runsProxy, &QAbstractItemModel::rowsInserted, &m_fitNameColumn, qOverload<>(&QTimer::start));
    // a live run's steps and duration change every poll; only a change that reaches the name refits it
    connect(m_runsProxy, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex& topLeft) {
        if (topLeft.column() <= RunsTableModel::NameColumn) m_fitNameColumn.start();
    });
    m_runsView->viewport()->installEventFilter(this);
    connect(m_runsView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &MainWindow::onSelectionChanged);
    connect(m_runsView, &QTableView::clicked, this, [this](const QModelIndex& index) {
        // Clicking the already selected run brings its view back (e.g. from the editor).
        const qint64 id = index.data(RunsTableModel::RunIdRole).toLongLong();
        if (id > 0 && m_selectedIds.size() <= 1) showRunPage(id);
    });
    connect(m_runsModel, &QAbstractItemModel::modelReset, this, [this] {
        QList<qint64> ids = m_selectedIds;
        if (ids.isEmpty() && m_selectedRunId > 0) ids.append(m_selectedRunId);
        if (ids.isEmpty()) return;
        m_restoringSelection = true;
        selectRuns(ids);
        m_restoringSelection = false;
    });

    // Welcome page.
    m_welcome = new QWidget(this);
    auto* welcomeLayout = new QVBoxLayout(m_welcome);
    auto* hello = m_hello = new QLabel(m_welcome);
    hello->setWordWrap(true);
    hello->setAlignment(Qt::AlignCenter);
    hello->setOpenExternalLinks(true);
    hello->setTextInteractionFlags(Qt::TextBrowserInteraction);
    auto* newButton = m_welcomeNew = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), QString(), m_welcome);
    newButton->setObjectName(QStringLiteral("welcomeQuickStart"));
    auto* modelButton = m_welcomeModel =
        new QPushButton(style()->standardIcon(QStyle::SP_DirOpenIcon), QString(), m_welcome);
    modelButton->setObjectName(QStringLiteral("welcomeModelFolder"));
    auto* openButton = m_welcomeOpen =
        new QPushButton(style()->standardIcon(QStyle::SP_DialogOpenButton), QString(), m_welcome);
    connect(newButton, &QPushButton::clicked, this, [this] {
        if (maySetEditorAside()) newRunFromQuickStart();
    });
    connect(modelButton, &QPushButton::clicked, this, [this] {
        if (!maySetEditorAside()) return;
        const QString folder = existingDirectory(this, tr("Open a model folder"), QDir::homePath());
        if (!folder.isEmpty()) newRunForModel(folder);
    });
    connect(openButton, &QPushButton::clicked, this, &MainWindow::openConfigDialog);
    auto* buttons = new QVBoxLayout;
    for (QPushButton* b : {newButton, modelButton, openButton}) {
        b->setMinimumWidth(280);
        auto* row = new QHBoxLayout;
        row->addStretch();
        row->addWidget(b);
        row->addStretch();
        buttons->addLayout(row);
    }
    welcomeLayout->addStretch();
    welcomeLayout->addWidget(hello);
    welcomeLayout->addLayout(buttons);
    welcomeLayout->addStretch();

    m_runView = new RunView(this);
    m_compareView = new CompareView(this);
    m_chatPage = new ChatPage(m_options.cliPath, this);
    m_compareView->setObjectName(QStringLiteral("compareView"));
    connect(m_runView, &RunView::stopClicked, this, [this](qint64) { stopSelectedRun(); });
    connect(m_runView, &RunView::stopNowClicked, this, [this](qint64 id) { stopRunNow(id, true); });
    connect(m_runView, &RunView::resumeClicked, this, [this](qint64 id) { resumeRun(id); });
    connect(m_runView, &RunView::exportClicked, this, [this](qint64 id) { openExportDialog(id); });

    // Editor page: file name + Start over the editor.
    m_editorPage = new QWidget(this);
    m_editor = new ConfigEditor(m_editorPage);
    // A long path must not widen the window past a 1024-pixel screen: elided in its middle, so the file's name and
    // "(modified)" stay in view (the tooltip keeps it whole).
    m_editorFileLabel = new ElidedLabel(m_editorPage, Qt::ElideMiddle);
    m_editorFileLabel->setObjectName(QStringLiteral("editorFileLabel"));
    auto* startButton = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("Start"), m_editorPage);
    startButton->setObjectName(QStringLiteral("startButton"));
    connect(startButton, &QPushButton::clicked, this, [this] {
        if (confirmEstimateFits()) startRun();
    });
    connect(m_editor, &ConfigEditor::validationChanged, this, [this, startButton] {
        const nlohmann::json doc = parseJsonOrDiscarded(m_editor->text().toStdString());
        m_editorHasSweep = doc.is_object() && doc.contains("sweep");
        updateActions();
        startButton->setEnabled(m_startAction->isEnabled());
    });
    connect(m_editor, &ConfigEditor::modificationChanged, this, [this] { updateEditorHeader(); });
    // Fit to my hardware (fts plan) and Add to queue beside Start.
    auto* planButton = new QPushButton(m_editorPage);
    planButton->setObjectName(QStringLiteral("planButton"));
    connect(planButton, &QPushButton::clicked, this, [this] { openPlanDialog(); });
    auto* queueButton = new QPushButton(m_editorPage);
    queueButton->setObjectName(QStringLiteral("queueAddButton"));
    connect(queueButton, &QPushButton::clicked, this, [this] { addConfigToQueue(); });
    connect(m_editor, &ConfigEditor::validationChanged, this, [this, planButton, queueButton] {
        planButton->setEnabled(m_planAction->isEnabled());
        queueButton->setEnabled(m_queueAddAction->isEnabled());
    });
    m_planButton = planButton;
    m_queueAddButton = queueButton;
    auto* editorHeader = new QHBoxLayout;
    editorHeader->addWidget(m_editorFileLabel, 1);
    editorHeader->addWidget(planButton);
    editorHeader->addWidget(queueButton);
    editorHeader->addWidget(startButton);
    // The form (left) and the raw JSON (right) edit the same text.
    m_form = new ConfigForm(m_editor, m_editorPage);
    connect(m_form, &ConfigForm::pickModelRequested, this, [this] { openModelPicker(); });
    connect(m_form, &ConfigForm::previewDataRequested, this, [this] { openDataPreview(); });
    connect(m_form, &ConfigForm::queueRequested, this, [this] { addConfigToQueue(); });
    auto* formScroll = new QScrollArea(m_editorPage);
    formScroll->setObjectName(QStringLiteral("configFormScroll"));
    formScroll->setWidget(m_form);
    formScroll->setWidgetResizable(true);
    formScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    auto* editorSplit = m_editorSplit = new QSplitter(Qt::Horizontal, m_editorPage);
    editorSplit->setObjectName(QStringLiteral("editorSplit"));
    editorSplit->addWidget(formScroll);
    editorSplit->addWidget(m_editor);
    editorSplit->setStretchFactor(0, 3);
    editorSplit->setStretchFactor(1, 2);
    auto* editorLayout = new QVBoxLayout(m_editorPage);
    editorLayout->addLayout(editorHeader);
    editorLayout->addWidget(editorSplit, 1);

    m_stack = new QStackedWidget(this);
    m_stack->addWidget(m_welcome);
    m_stack->addWidget(m_runView);
    m_stack->addWidget(m_editorPage);
    m_stack->addWidget(m_compareView);
    m_stack->addWidget(m_chatPage);
    m_queuePage = new QueuePage(m_options.cliPath, m_options.storePath, this);
    m_queuePage->setObjectName(QStringLiteral("queuePage"));
    connect(m_queuePage, &QueuePage::runActivated, this, [this](qint64 runId) { selectRun(runId); });
    // back to the edited config, as it was (no save prompt: nothing is set aside)
    connect(m_queuePage, &QueuePage::editorRequested, this, [this] { showPage(Page::Editor); });
    connect(m_queuePage, &QueuePage::compareRequested, this, [this](const QList<qint64>& runIds) {
        if (runIds.size() < 2) return;
        selectRuns(runIds);
        m_compareView->compareRuns(m_options.storePath, runIds);
        showPage(Page::Compare);
    });
    m_stack->addWidget(m_queuePage);

    m_messageBar = new QLabel(this);
    m_messageBar->setObjectName(QStringLiteral("messageBar"));
    m_messageBar->setWordWrap(true);
    m_messageBar->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // a banner wraps to the window; it never widens it (a long path in it is one unbreakable word)
    m_messageBar->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_messageBar->hide();

    auto* right = new QWidget(this);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(m_messageBar);
    rightLayout->addWidget(m_stack, 1);

    auto* split = m_mainSplit = new QSplitter(Qt::Horizontal, this);
    split->addWidget(buildRunsPane());
    split->addWidget(right);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 5);
    split->setSizes({420, 860});
    setCentralWidget(split);

    m_storeLabel = new QLabel(this);
    // A long store path must not widen the window: the label may be cut (its tooltip has the whole path).
    m_storeLabel->setMinimumWidth(40);
    m_storeLabel->setText(tr("Store: %1").arg(QDir::toNativeSeparators(m_options.storePath)));
    statusBar()->addPermanentWidget(m_storeLabel);
}

void MainWindow::buildActions() {
    QStyle* s = style();
    m_newAction = new QAction(s->standardIcon(QStyle::SP_FileIcon), QString(), this);
    m_newAction->setShortcut(QKeySequence::New);
    connect(m_newAction, &QAction::triggered, this, [this] {
        if (maySetEditorAside()) newRunFromQuickStart();
    });

    m_openAction = new QAction(s->standardIcon(QStyle::SP_DialogOpenButton), QString(), this);
    m_openAction->setShortcut(QKeySequence::Open);
    connect(m_openAction, &QAction::triggered, this, &MainWindow::openConfigDialog);

    m_saveAction = new QAction(s->standardIcon(QStyle::SP_DialogSaveButton), QString(), this);
    m_saveAction->setShortcut(QKeySequence::Save);
    connect(m_saveAction, &QAction::triggered, this, &MainWindow::save);

    m_saveAsAction = new QAction(this);
    m_saveAsAction->setShortcut(QKeySequence::SaveAs);
    connect(m_saveAsAction, &QAction::triggered, this, &MainWindow::saveAs);

    m_startAction = new QAction(s->standardIcon(QStyle::SP_MediaPlay), QString(), this);
    m_startAction->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)});
    connect(m_startAction, &QAction::triggered, this, [this] {
        if (confirmEstimateFits()) startRun();
    });

    m_stopAction = new QAction(s->standardIcon(QStyle::SP_MediaStop), QString(), this);
    connect(m_stopAction, &QAction::triggered, this, &MainWindow::stopSelectedRun);

    m_resumeAction = new QAction(s->standardIcon(QStyle::SP_MediaSeekForward), QString(), this);
    m_resumeAction->setObjectName(QStringLiteral("resumeAction"));
    m_resumeAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    connect(m_resumeAction, &QAction::triggered, this, [this] {
        if (m_selectedIds.size() == 1) resumeRun(m_selectedIds.first());
    });

    m_probeAction = new QAction(this);
    m_probeAction->setObjectName(QStringLiteral("probeAction"));
    connect(m_probeAction, &QAction::triggered, this, [this] { openProbeDialog(); });
    m_planAction = new QAction(this);
    m_planAction->setObjectName(QStringLiteral("planAction"));
    connect(m_planAction, &QAction::triggered, this, [this] { openPlanDialog(); });
    m_queueAddAction = new QAction(this);
    m_queueAddAction->setObjectName(QStringLiteral("queueAddAction"));
    connect(m_queueAddAction, &QAction::triggered, this, [this] { addConfigToQueue(); });
    m_queueAction = new QAction(this);
    m_queueAction->setObjectName(QStringLiteral("queueAction"));
    connect(m_queueAction, &QAction::triggered, this, [this] { showQueuePage(); });
    if (m_queueButton) m_queueButton->setDefaultAction(m_queueAction);

    m_compareAction = new QAction(this);
    m_compareAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    connect(m_compareAction, &QAction::triggered, this, [this] { compareSelectedRuns(); });

    m_chatAction = new QAction(this);  // text only, like Compare (no standard icon says "chat")
    m_chatAction->setObjectName(QStringLiteral("chatAction"));
    m_chatAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
    connect(m_chatAction, &QAction::triggered, this, &MainWindow::openChat);

    m_settingsAction = new QAction(this);
    m_settingsAction->setObjectName(QStringLiteral("settingsAction"));
    m_settingsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Comma));
    connect(m_settingsAction, &QAction::triggered, this, [this] { openSettings(); });

    m_quitAction = new QAction(this);
    m_quitAction->setShortcut(QKeySequence::Quit);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    m_fileMenu = menuBar()->addMenu(QString());
    m_fileMenu->addAction(m_newAction);
    m_fileMenu->addAction(m_openAction);
    m_fileMenu->addAction(m_saveAction);
    m_fileMenu->addAction(m_saveAsAction);
    m_fileMenu->addSeparator();
    m_fileMenu->addAction(m_settingsAction);
    m_fileMenu->addSeparator();
    m_fileMenu->addAction(m_quitAction);
    m_runMenu = menuBar()->addMenu(QString());
    m_runMenu->addAction(m_startAction);
    m_runMenu->addAction(m_stopAction);
    m_runMenu->addAction(m_resumeAction);
    m_runMenu->addAction(m_probeAction);
    m_runMenu->addAction(m_planAction);
    m_runMenu->addSeparator();
    m_runMenu->addAction(m_queueAddAction);
    m_runMenu->addAction(m_queueAction);
    m_runMenu->addSeparator();
    m_runMenu->addAction(m_compareAction);
    m_runMenu->addAction(m_chatAction);
    m_helpMenu = menuBar()->addMenu(QString());
    m_docsAction = m_helpMenu->addAction(QString(), this, [this] {
        const QString docs = docsFolder();
        if (docs.isEmpty())
            showMessage(tr("The documentation is not installed with this build."), true);
        else
            QDesktopServices::openUrl(QUrl::fromLocalFile(docs));
    });
    m_docsAction->setShortcut(QKeySequence::HelpContents);
    m_shortcutsAction = m_helpMenu->addAction(QString(), this, [this] { showShortcuts(); });
    m_helpMenu->addSeparator();
    m_aboutAction = m_helpMenu->addAction(QString(), this, [this] {
        QMessageBox::about(this, tr("About Finetune Studio"),
                           tr("<b>Finetune Studio %1</b><p>Fine-tune language models with DeepSpeed-style configs. "
                              "Runs are supervised by the <code>fts</code> command-line tool and recorded in %2.</p>")
                               .arg(QStringLiteral(FTS_VERSION), m_options.storePath.toHtmlEscaped()));
    });

    m_toolBar = addToolBar(QString());
    m_toolBar->setObjectName(QStringLiteral("mainToolBar"));
    m_toolBar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_toolBar->addAction(m_newAction);
    m_toolBar->addAction(m_openAction);
    m_toolBar->addAction(m_saveAction);
    m_toolBar->addSeparator();
    m_toolBar->addAction(m_startAction);
    m_toolBar->addAction(m_stopAction);
    m_toolBar->addAction(m_resumeAction);
    m_toolBar->addSeparator();
    m_toolBar->addAction(m_compareAction);
    m_toolBar->addAction(m_chatAction);
    retranslateUi();
}

void MainWindow::retranslateUi() {
    setWindowTitle(tr("Finetune Studio"));
    m_newAction->setText(tr("&New run"));
    m_newAction->setToolTip(tr("New run from the quick-start config (Ctrl+N)"));
    m_openAction->setText(tr("&Open config…"));
    m_saveAction->setText(tr("&Save config"));
    m_saveAsAction->setText(tr("Save config &as…"));
    m_startAction->setText(tr("S&tart"));
    m_stopAction->setText(tr("St&op"));
    m_stopAction->setToolTip(tr("Ask the selected run to checkpoint and stop"));
    m_resumeAction->setText(tr("&Resume"));
    m_resumeAction->setToolTip(
        tr("Continue the selected stopped or failed run from its last checkpoint (Ctrl+Shift+R)"));
    m_probeAction->setText(tr("&Measure ZeRO stages…"));
    m_probeAction->setToolTip(
        tr("Run a few steps of this config at each ZeRO stage and compare peak memory and speed"));
    m_planAction->setText(tr("&Fit to my hardware…"));
    m_planAction->setToolTip(
        tr("Find the fastest ZeRO stage, offload, checkpointing and micro-batch that fit, by "
           "the estimate and a few measured steps"));
    m_queueAddAction->setText(tr("Add to &queue"));
    m_queueAddAction->setToolTip(
        tr("Queue this config (a sweep: each of its runs); it starts when its devices are free"));
    m_queueAction->setText(tr("&Queue"));
    m_queueAction->setToolTip(tr("The runs waiting for their devices, running and finished"));
    if (m_planButton) m_planButton->setText(tr("Fit to my hardware…"));
    if (m_queueAddButton) m_queueAddButton->setText(tr("Add to queue"));
    m_compareAction->setText(tr("&Compare runs"));
    m_compareAction->setToolTip(tr("Overlay the curves and diff the configs of the selected runs (Ctrl+Shift+C)"));
    m_chatAction->setText(tr("C&hat"));
    m_chatAction->setToolTip(tr("Talk to the selected run's fine-tuned model, or to any model folder (Ctrl+Shift+T)"));
    m_settingsAction->setText(tr("Se&ttings…"));
    m_quitAction->setText(tr("&Quit"));
    m_fileMenu->setTitle(tr("&File"));
    m_runMenu->setTitle(tr("&Run"));
    m_helpMenu->setTitle(tr("&Help"));
    m_aboutAction->setText(tr("&About Finetune Studio"));
    m_docsAction->setText(tr("&Documentation"));
    m_shortcutsAction->setText(tr("&Keyboard shortcuts"));
    m_toolBar->setWindowTitle(tr("Main"));
    const QString docs = docsFolder();
    m_hello->setText(tr("<h2>Finetune Studio</h2><p>Fine-tune a language model on this machine or on your GPU "
                        "servers. Start with the quick-start (a tiny model that trains in a minute on a CPU), "
                        "pick a Hugging Face model folder, or open a DeepSpeed or Trainer config you already "
                        "have.</p><p>Runs you start appear on the left; select one to see its charts.</p>") +
                     (docs.isEmpty() ? QString()
                                     : tr("<p><a href=\"%1\">Documentation</a> (configs, data formats, ZeRO and "
                                          "offload, several hosts)</p>")
                                           .arg(QUrl::fromLocalFile(docs).toString())));
    m_welcomeNew->setText(tr("Try the quick-start"));
    m_welcomeModel->setText(tr("New run with a model folder…"));
    m_welcomeOpen->setText(tr("Open a config…"));
    if (auto* b = m_editorPage->findChild<QPushButton*>(QStringLiteral("startButton"))) b->setText(tr("Start"));
    if (m_search) {
        m_statusFilter->setItemText(0, tr("All statuses"));
        for (int i = 1; i < m_statusFilter->count(); ++i)
            m_statusFilter->setItemText(i, RunsTableModel::statusText(RunStatus(m_statusFilter->itemData(i).toInt())));
        const QStringList dates{tr("Any time"), tr("Today"), tr("Last 7 days"), tr("Last 30 days")};
        for (int i = 0; i < dates.size() && i < m_dateFilter->count(); ++i) m_dateFilter->setItemText(i, dates[i]);
        m_modelFilter->setItemText(0, tr("All models"));
        m_datasetFilter->setItemText(0, tr("All datasets"));
        m_tagFilter->setItemText(0, tr("All tags"));
        emit m_runsModel->headerDataChanged(Qt::Horizontal, 0, RunsTableModel::ColumnCount - 1);
    }
    updateRunsCount();
    updateActions();
    updateEditorHeader();
}

void MainWindow::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange && m_fileMenu) retranslateUi();
    // Back in the window (perhaps after adding the data file the config names): check the paths again.
    if (event->type() == QEvent::ActivationChange && isActiveWindow() && m_editor && currentPage() == Page::Editor)
        m_editor->validateNow();
    QMainWindow::changeEvent(event);
}

void MainWindow::showShortcuts() {
    // Every action with a shortcut, as the menus name it.
    QStringList rows;
    for (QAction* a : {m_newAction, m_openAction, m_saveAction, m_saveAsAction, m_startAction, m_resumeAction,
                       m_compareAction, m_chatAction, m_settingsAction, m_docsAction, m_quitAction}) {
        if (!a || a->shortcut().isEmpty()) continue;
        QString name = a->text();
        name.remove(QLatin1Char('&'));
        rows << QStringLiteral("<tr><td>%1</td><td>&nbsp;&nbsp;<b>%2</b></td></tr>")
                    .arg(name.toHtmlEscaped(), a->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped());
    }
    rows << QStringLiteral("<tr><td>%1</td><td>&nbsp;&nbsp;<b>%2</b></td></tr>")
                .arg(tr("Search the runs").toHtmlEscaped(),
                     QKeySequence(QKeySequence::Find).toString(QKeySequence::NativeText));
    QMessageBox box(QMessageBox::Information, tr("Keyboard shortcuts"),
                    QStringLiteral("<table>%1</table>").arg(rows.join(QString())), QMessageBox::Close, this);
    box.setTextFormat(Qt::RichText);
    box.exec();
}

SettingsDialog* MainWindow::openSettings() {
    auto* dialog = new SettingsDialog(modelFolders(), this, m_options.cliPath, m_options.storePath);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
    return dialog;
}

void MainWindow::saveWindowSettings() const {
    QSettings s;
    s.setValue(QLatin1String(settings_keys::kGeometry), saveGeometry());
    s.setValue(QLatin1String(settings_keys::kWindowState), saveState());
    s.setValue(QLatin1String(settings_keys::kMainSplit), m_mainSplit->saveState());
    s.setValue(QLatin1String(settings_keys::kEditorSplit), m_editorSplit->saveState());
    s.setValue(QLatin1String(settings_keys::kRunsHeader), m_runsView->horizontalHeader()->saveState());
    s.setValue(QLatin1String(settings_keys::kLastRun), m_selectedRunId);
    s.setValue(QLatin1String(settings_keys::kLastRanks), m_form->ranksSpin()->value());
    s.setValue(QLatin1String(settings_keys::kLastChartTab), m_runView->chartTabs()->currentIndex());
}

void MainWindow::restoreWindowSettings() {
    QSettings s;
    if (s.contains(QLatin1String(settings_keys::kGeometry)))
        restoreGeometry(s.value(QLatin1String(settings_keys::kGeometry)).toByteArray());
    restoreState(s.value(QLatin1String(settings_keys::kWindowState)).toByteArray());
    m_mainSplit->restoreState(s.value(QLatin1String(settings_keys::kMainSplit)).toByteArray());
    m_editorSplit->restoreState(s.value(QLatin1String(settings_keys::kEditorSplit)).toByteArray());
    m_runsView->horizontalHeader()->restoreState(s.value(QLatin1String(settings_keys::kRunsHeader)).toByteArray());
    m_restoreRunId = s.value(QLatin1String(settings_keys::kLastRun)).toLongLong();
    m_form->ranksSpin()->setValue(std::max(1, s.value(QLatin1String(settings_keys::kLastRanks), 1).toInt()));
    m_runView->chartTabs()->setCurrentIndex(s.value(QLatin1String(settings_keys::kLastChartTab), 0).toInt());
}

MainWindow::Page MainWindow::currentPage() const {
    QWidget* w = m_stack->currentWidget();
    if (w == m_runView) return Page::Run;
    if (w == m_editorPage) return Page::Editor;
    if (w == m_compareView) return Page::Compare;
    if (w == m_chatPage) return Page::Chat;
    if (w == m_queuePage) return Page::Queue;
    return Page::Welcome;
}

void MainWindow::showPage(Page page) {
    switch (page) {
        case Page::Welcome:
            m_stack->setCurrentWidget(m_welcome);
            break;
        case Page::Run:
            m_stack->setCurrentWidget(m_runView);
            break;
        case Page::Editor:
            m_stack->setCurrentWidget(m_editorPage);
            break;
        case Page::Compare:
            m_stack->setCurrentWidget(m_compareView);
            break;
        case Page::Chat:
            m_stack->setCurrentWidget(m_chatPage);
            break;
        case Page::Queue:
            m_stack->setCurrentWidget(m_queuePage);
            m_queuePage->refresh();
            break;
    }
    updateActions();
}

void MainWindow::openChat() {
    if (m_selectedIds.size() == 1)
        if (const RunRecord* r = m_runsModel->runById(m_selectedIds.first()); r && !r->outputDir.empty()) {
            const QString final = QDir(QString::fromStdString(r->outputDir)).filePath(QStringLiteral("final"));
            if (QFileInfo::exists(final + QStringLiteral("/config.json")) ||
                QFileInfo::exists(final + QStringLiteral("/adapter_config.json")))
                m_chatPage->setModelFolder(QDir::toNativeSeparators(final));
        }
    showPage(Page::Chat);
    m_chatPage->input()->setFocus();
}

void MainWindow::fitRunsNameColumn() {
    m_runsView->resizeColumnToContents(RunsTableModel::NameColumn);  // over the visible rows
    QHeaderView* h = m_runsView->horizontalHeader();
    const int cap = std::max(120, m_runsView->viewport()->width() * 2 / 5);
    if (h->sectionSize(RunsTableModel::NameColumn) > cap) h->resizeSection(RunsTableModel::NameColumn, cap);
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_runsView->viewport() && event->type() == QEvent::Resize) m_fitNameColumn.start();
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::showMessage(const QString& text, bool isError, qint64 runId) {
    m_lastMessage = text;
    m_messageRunId = runId;
    if (text.isEmpty()) {
        m_messageBar->hide();
        return;
    }
    m_messageBar->setText(text);
    m_messageBar->setStyleSheet(isError
                                    ? QStringLiteral("QLabel { background: #fbe3e4; color: #8a1019; padding: 6px; }")
                                    : QStringLiteral("QLabel { background: #e6f0fa; color: #123a5e; padding: 6px; }"));
    m_messageBar->show();
    statusBar()->showMessage(text, 10000);
}

void MainWindow::updateActions() {
    const bool editor = currentPage() == Page::Editor;
    const bool startable =
        editor && m_editor->isValidated() && !m_editor->hasErrors() && !m_pending && !m_editorHasSweep;
    m_startAction->setEnabled(startable);
    m_probeAction->setEnabled(startable);
    m_planAction->setEnabled(startable);
    m_queueAddAction->setEnabled(editor && m_editor->isValidated() && !m_editor->hasErrors());
    if (editor && !m_editor->isValidated())
        m_startAction->setToolTip(tr("Validating the config…"));
    else if (editor && m_editorHasSweep)
        m_startAction->setToolTip(tr("A config with a sweep block is a set of runs: Add to queue queues them"));
    else if (editor && m_editor->hasErrors())
        m_startAction->setToolTip(tr("Fix the config errors first"));
    else
        m_startAction->setToolTip(tr("Start a run with this config (Ctrl+Return)"));
    m_saveAction->setEnabled(editor);
    m_saveAsAction->setEnabled(editor);
    m_stopAction->setEnabled(currentPage() == Page::Run && m_runView->stopButton()->isEnabled());
    const bool resumable = m_selectedIds.size() == 1 && canResume(m_selectedIds.first());
    m_resumeAction->setEnabled(resumable);
    m_runView->resumeButton()->setEnabled(m_runView->runId() > 0 && canResume(m_runView->runId()));
    m_runView->exportButton()->setEnabled(m_runView->runId() > 0 && canExport(m_runView->runId()));
    m_compareAction->setEnabled(m_selectedIds.size() >= 2);
    if (auto* b = m_editorPage->findChild<QPushButton*>(QStringLiteral("startButton"))) b->setEnabled(startable);
}

QString MainWindow::docsFolder() const {
    // Installed: <resources>/../doc; a build from source: the checkout's docs/ beside resources/.
    for (const char* rel : {"../doc", "../docs"}) {
        const QString dir = QDir::cleanPath(QDir(m_options.resourcesDir).absoluteFilePath(QLatin1String(rel)));
        if (QFileInfo(dir + QStringLiteral("/config.md")).isFile()) return dir;
    }
    return {};
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!maySetEditorAside()) {
        event->ignore();
        return;
    }
    saveWindowSettings();
    event->accept();  // running runs keep running: they are separate processes
}

ModelPicker* MainWindow::modelPicker() const { return m_modelPicker; }

DataPreviewDialog* MainWindow::dataPreview() const { return m_dataPreview; }

}  // namespace fts
