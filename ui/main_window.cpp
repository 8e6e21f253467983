// MainWindow: layout, actions and the start/stop flow (see main_window.h).
#include "ui/main_window.h"

#include <sys/types.h>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDir>
#include <QSaveFile>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QCheckBox>
#include <QComboBox>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QDesktopServices>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QEvent>
#include <QSystemTrayIcon>
#include <nlohmann/json.hpp>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QTableView>
#include <QToolBar>
#include <QUrl>
#include <QVBoxLayout>
#include <algorithm>
#include <cerrno>
#include <csignal>

#include "core/config/memory_estimate.h"
#include "ui/compare_view.h"
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
#include "ui/probe_dialog.h"
#include "ui/store_writer.h"
#include "ui/wheel_guard.h"

namespace fts {
namespace {

// training.output_dir as written in a config text ("" when absent or not JSON).
QString configOutputDir(const QString& text) {
    const auto doc = nlohmann::json::parse(text.toStdString(), nullptr, false);
    if (!doc.is_object() || !doc.contains("training") || !doc["training"].is_object()) return {};
    const auto& t = doc["training"];
    return t.contains("output_dir") && t["output_dir"].is_string() ? QString::fromStdString(t["output_dir"].get<std::string>())
                                                                  : QString();
}

constexpr int kPendingCheckMs = 500;
constexpr int kPendingGoneTicks = 4;  // the process is gone and no run appeared for ~2 s: give up

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
    resize(1280, 820);
    restoreWindowSettings();
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
    auto* modelButton = m_welcomeModel = new QPushButton(style()->standardIcon(QStyle::SP_DirOpenIcon), QString(), m_welcome);
    modelButton->setObjectName(QStringLiteral("welcomeModelFolder"));
    auto* openButton = m_welcomeOpen = new QPushButton(style()->standardIcon(QStyle::SP_DialogOpenButton), QString(), m_welcome);
    connect(newButton, &QPushButton::clicked, this, [this] {
        if (maySetEditorAside()) newRunFromQuickStart();
    });
    connect(modelButton, &QPushButton::clicked, this, [this] {
        if (!maySetEditorAside()) return;
        const QString folder = QFileDialog::getExistingDirectory(this, tr("Open a model folder"), QDir::homePath());
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
    m_compareView->setObjectName(QStringLiteral("compareView"));
    connect(m_runView, &RunView::stopClicked, this, [this](qint64) { stopSelectedRun(); });
    connect(m_runView, &RunView::stopNowClicked, this, [this](qint64 id) { stopRunNow(id, true); });
    connect(m_runView, &RunView::resumeClicked, this, [this](qint64 id) { resumeRun(id); });

    // Editor page: file name + Start over the editor.
    m_editorPage = new QWidget(this);
    m_editor = new ConfigEditor(m_editorPage);
    m_editorFileLabel = new QLabel(m_editorPage);
    m_editorFileLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* startButton = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("Start"), m_editorPage);
    startButton->setObjectName(QStringLiteral("startButton"));
    connect(startButton, &QPushButton::clicked, this, [this] {
        if (confirmEstimateFits()) startRun();
    });
    connect(m_editor, &ConfigEditor::validationChanged, this, [this, startButton] {
        updateActions();
        startButton->setEnabled(m_startAction->isEnabled());
    });
    connect(m_editor, &ConfigEditor::modificationChanged, this, [this] { updateEditorHeader(); });
    auto* editorHeader = new QHBoxLayout;
    editorHeader->addWidget(m_editorFileLabel, 1);
    editorHeader->addWidget(startButton);
    // The form (left) and the raw JSON (right) edit the same text.
    m_form = new ConfigForm(m_editor, m_editorPage);
    connect(m_form, &ConfigForm::pickModelRequested, this, [this] { openModelPicker(); });
    connect(m_form, &ConfigForm::previewDataRequested, this, [this] { openDataPreview(); });
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

    m_messageBar = new QLabel(this);
    m_messageBar->setObjectName(QStringLiteral("messageBar"));
    m_messageBar->setWordWrap(true);
    m_messageBar->setTextInteractionFlags(Qt::TextSelectableByMouse);
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

    m_compareAction = new QAction(this);
    m_compareAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    connect(m_compareAction, &QAction::triggered, this, [this] { compareSelectedRuns(); });

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
    m_runMenu->addSeparator();
    m_runMenu->addAction(m_compareAction);
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
    m_resumeAction->setToolTip(tr("Continue the selected stopped or failed run from its last checkpoint (Ctrl+Shift+R)"));
    m_probeAction->setText(tr("&Measure ZeRO stages…"));
    m_probeAction->setToolTip(tr("Run a few steps of this config at each ZeRO stage and compare peak memory and speed"));
    m_compareAction->setText(tr("&Compare runs"));
    m_compareAction->setToolTip(tr("Overlay the curves and diff the configs of the selected runs (Ctrl+Shift+C)"));
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
                       m_compareAction, m_settingsAction, m_docsAction, m_quitAction}) {
        if (!a || a->shortcut().isEmpty()) continue;
        QString name = a->text();
        name.remove(QLatin1Char('&'));
        rows << QStringLiteral("<tr><td>%1</td><td>&nbsp;&nbsp;<b>%2</b></td></tr>")
                    .arg(name.toHtmlEscaped(), a->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped());
    }
    rows << QStringLiteral("<tr><td>%1</td><td>&nbsp;&nbsp;<b>%2</b></td></tr>")
                .arg(tr("Search the runs").toHtmlEscaped(), QKeySequence(QKeySequence::Find).toString(QKeySequence::NativeText));
    QMessageBox box(QMessageBox::Information, tr("Keyboard shortcuts"),
                    QStringLiteral("<table>%1</table>").arg(rows.join(QString())), QMessageBox::Close, this);
    box.setTextFormat(Qt::RichText);
    box.exec();
}

SettingsDialog* MainWindow::openSettings() {
    auto* dialog = new SettingsDialog(modelFolders(), this);
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
    }
    updateActions();
}

void MainWindow::showMessage(const QString& text, bool isError) {
    m_lastMessage = text;
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
    const bool startable = editor && m_editor->isValidated() && !m_editor->hasErrors() && !m_pending;
    m_startAction->setEnabled(startable);
    m_probeAction->setEnabled(startable);
    if (editor && !m_editor->isValidated())
        m_startAction->setToolTip(tr("Validating the config…"));
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
    m_compareAction->setEnabled(m_selectedIds.size() >= 2);
    if (auto* b = m_editorPage->findChild<QPushButton*>(QStringLiteral("startButton"))) b->setEnabled(startable);
}

void MainWindow::updateEditorHeader() {
    QString name = m_configPath.isEmpty() ? tr("(unsaved config)") : QDir::toNativeSeparators(m_configPath);
    if (m_isQuickStart) name = tr("Quick-start: %1").arg(name);
    if (m_editor->isModified()) name += tr(" (modified)");
    m_editorFileLabel->setText(name);
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
        m_loadedOutputDir = configOutputDir(m_editor->text());
    }
    showMessage(tr("A new run with %1: set the training data and check the settings, then Start.")
                    .arg(QDir::toNativeSeparators(modelFolder)),
                false);
    return true;
}

QString MainWindow::docsFolder() const {
    // Installed: <resources>/../doc; a build from source: the checkout's docs/ beside resources/.
    for (const char* rel : {"../doc", "../docs"}) {
        const QString dir = QDir::cleanPath(QDir(m_options.resourcesDir).absoluteFilePath(QLatin1String(rel)));
        if (QFileInfo(dir + QStringLiteral("/config.md")).isFile()) return dir;
    }
    return {};
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
    m_loadedOutputDir = configOutputDir(text);
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
    const QString baseDir = r->configPath.empty() ? m_options.dataDir
                                                  : QFileInfo(QString::fromStdString(r->configPath)).absolutePath();
    m_configPath.clear();
    m_isQuickStart = false;
    m_editor->setConfigText(QString::fromStdString(r->configJson), baseDir);
    m_loadedOutputDir = configOutputDir(m_editor->text());
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
        const bool inherited = configOutputDir(m_editor->text()) == m_loadedOutputDir;
        m_editor->setConfigText(text, target.absolutePath());
        if (inherited) m_loadedOutputDir = configOutputDir(text);  // the same folder, now written absolute
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
    const QString path = QFileDialog::getSaveFileName(this, tr("Save config"), start, tr("JSON configs (*.json)"));
    if (path.isEmpty()) return false;
    QDir().mkpath(QFileInfo(path).absolutePath());
    return saveConfigTo(path);
}

void MainWindow::openConfigDialog() {
    if (!maySetEditorAside()) return;
    const QString start = m_configPath.isEmpty() ? QDir::homePath() : QFileInfo(m_configPath).absolutePath();
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open config"), start, tr("JSON configs (*.json);;All files (*)"));
    if (!path.isEmpty()) loadConfigFile(path);
}

std::optional<QString> MainWindow::launchConfigFile(QString* why) const {
    LaunchConfigRequest request;
    request.text = m_editor->text();
    request.originPath = m_configPath;
    request.modified = m_editor->isModified();
    request.baseDir = m_editor->baseDir();
    request.dataDir = m_options.dataDir;
    request.stem = QStringLiteral("config");
    return prepareLaunchConfig(request, why);
}

std::optional<qint64> MainWindow::startRun(QString* error) {
    const auto fail = [&](const QString& why) -> std::optional<qint64> {
        if (error) *error = why;
        showMessage(why, true);
        return std::nullopt;
    };
    if (m_pending) return fail(tr("A run is being started; wait until it appears in the list."));
    if (!m_editor->isValidated()) return fail(tr("The config is still being validated."));
    if (m_editor->hasErrors()) return fail(tr("The config has errors; fix them first."));

    // The run's own folder: the config's output_dir when no other run holds it; when it came with the config
    // (the quick-start, an opened file, "Start from this run") and is taken, "<name>-k" in "<output_dir>-k".
    QString why;
    const auto absolute = absolutizeConfigPaths(m_editor->text(), m_editor->baseDir(), &why);
    if (!absolute) return fail(why);
    const nlohmann::json config = nlohmann::json::parse(absolute->toStdString());
    const bool inherited = configOutputDir(m_editor->text()) == m_loadedOutputDir;
    const QString defaultName = m_configPath.isEmpty() ? QStringLiteral("run") : QFileInfo(m_configPath).completeBaseName();
    const auto folder = pickRunFolder(config, defaultName, TakenRuns::fromRuns(m_runsModel->runs()), inherited, &why);
    if (!folder) return fail(why);

    // SSH hosts chosen: this machine and those hosts go in a hostfile in the run's folder (docs/multinode.md).
    QStringList placement = placementArguments(m_form->ranksSpin()->value(), m_form->devicePanel()->selectedGpus());
    QString hostfileText;
    const QList<RemoteHostChoice> remote = m_form->hostsPanel()->selectedHosts();
    if (!remote.isEmpty()) {
        const MultiHostLaunch plan =
            multiHostLaunch(m_form->devicePanel()->selectedGpus(), m_form->ranksSpin()->value(), remote);
        hostfileText = plan.hostfileText;
        placement = {QStringLiteral("--hostfile"), runLaunchFiles(folder->outputDir).hostfilePath,
                     QStringLiteral("--include"), plan.include};
    }
    RunLaunchFiles files;
    if (!writeRunLaunch(*folder, config, placement, hostfileText, &files, &why)) return fail(why);
    const auto started =
        startTrainDetached({m_options.cliPath, files.configPath, m_options.storePath, files.logPath, placement}, &why);
    if (!started) return fail(why);
    m_pending = PendingStart{started->pid, files.configPath, started->logPath, 0};
    m_pendingTimer.start();
    QString text = tr("Starting the run \"%1\" (supervisor pid %2) in %3…")
                       .arg(folder->runName)
                       .arg(started->pid)
                       .arg(QDir::toNativeSeparators(folder->outputDir));
    if (folder->derived)
        text += QLatin1Char(' ') + tr("Its config's folder holds another run, so this run got a folder of its own.");
    showMessage(text, false);
    updateActions();
    m_poller->pollNow();
    emit runLaunched(started->pid, files.configPath);
    return started->pid;
}

bool MainWindow::confirmEstimateFits() {
    const auto e = nlohmann::json::parse(m_editor->estimateJson().toStdString(), nullptr, false);
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
    return box.clickedButton() == start;
}

std::optional<qint64> MainWindow::resumeRun(qint64 runId, QString* error) {
    const auto fail = [&](const QString& why) -> std::optional<qint64> {
        if (error) *error = why;
        showMessage(why, true);
        return std::nullopt;
    };
    if (m_pending) return fail(tr("A run is being started; wait until it appears in the list."));
    const RunRecord* r = m_runsModel->runById(runId);
    if (!r) return fail(tr("Run %1 is not in the store.").arg(runId));
    QString why;
    const auto plan = planResume(*r, supervisorAlive(*r), &why);
    if (!plan) return fail(why);
    const auto started = startTrainDetached(
        {m_options.cliPath, plan->configPath, m_options.storePath, plan->logPath, plan->placement, true}, &why);
    if (!started) return fail(why);
    m_pending = PendingStart{started->pid, plan->configPath, started->logPath, 0, true};
    m_pendingTimer.start();
    showMessage(tr("Resuming run \"%1\" from its last checkpoint (supervisor pid %2)…")
                    .arg(QString::fromStdString(r->name))
                    .arg(started->pid),
                false);
    updateActions();
    m_poller->pollNow();
    emit runLaunched(started->pid, plan->configPath);
    return started->pid;
}

bool MainWindow::supervisorAlive(const RunRecord& r) const {
    // A supervisor on another host cannot be checked from here: taken as alive (never resume it twice).
    if (r.host != RunStore::localHostName()) return true;
    return r.pid > 0 && processAlive(r.pid);
}

bool MainWindow::canResume(qint64 runId) const {
    const RunRecord* r = m_runsModel->runById(runId);
    return r && !m_pending && runIsResumable(*r, supervisorAlive(*r));
}

ProbeDialog* MainWindow::openProbeDialog() {
    if (!m_editor->isValidated() || m_editor->hasErrors()) {
        showMessage(tr("The config has errors; fix them first."), true);
        return nullptr;
    }
    QString why;
    const auto configPath = launchConfigFile(&why);
    if (!configPath) {
        showMessage(why, true);
        return nullptr;
    }
    if (!m_form->hostsPanel()->selectedHosts().isEmpty())
        showMessage(tr("The probe runs on this machine's ranks only; the SSH hosts are left out."), false);
    auto* dialog = new ProbeDialog(m_options.cliPath, *configPath, m_options.storePath,
                                   placementArguments(m_form->ranksSpin()->value(), m_form->devicePanel()->selectedGpus()), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ProbeDialog::finishedProbe, this, [this] { m_poller->pollNow(); });
    dialog->show();
    return dialog;
}

void MainWindow::checkPendingStart() {
    if (!m_pending) {
        m_pendingTimer.stop();
        return;
    }
    if (processAlive(m_pending->pid)) {
        m_pending->goneTicks = 0;
        return;
    }
    // Gone: give the poller a few ticks to list the run it may have written before exiting.
    m_poller->pollNow();
    if (++m_pending->goneTicks < kPendingGoneTicks) return;
    showMessage(tr("The run exited before it appeared in the store. See its log: %1")
                    .arg(QDir::toNativeSeparators(m_pending->logPath)),
                true);
    m_pending.reset();
    m_pendingTimer.stop();
    updateActions();
}

// Runs this window saw running that have ended since: a banner (and a tray message where there is a tray).
void MainWindow::noteStatuses(const RunList& runs) {
    for (const RunRecord& r : runs) {
        const auto it = m_lastStatus.constFind(r.id);
        if (it != m_lastStatus.constEnd() && *it == RunStatus::Running && r.status != RunStatus::Running)
            notifyRunEnded(r);
        m_lastStatus.insert(r.id, r.status);
    }
}

// A run this window started shows up (same supervisor pid or config file): select it.
void MainWindow::attachPendingStart(const RunList& runs) {
    if (!m_pending) return;
    for (const RunRecord& r : runs) {
        const bool samePid = r.pid == m_pending->pid;
        const bool sameConfig = !m_pending->resume && !r.configPath.empty() &&
                                QFileInfo(QString::fromStdString(r.configPath)).absoluteFilePath() == m_pending->configPath;
        if (samePid || sameConfig) {
            m_pending.reset();
            m_pendingTimer.stop();
            showMessage(QString(), false);
            selectRun(r.id);
            emit runAttached(r.id);
            return;
        }
    }
}

// The same runs with a few rows changed (a live run's step, a status): work in the changed rows only, so a
// live run next to a long history stays cheap on the UI thread.
void MainWindow::onRunsChanged(const RunList& changed) {
    bool choicesStale = false;
    for (const RunRecord& r : changed) {
        const RunRecord* old = m_runsModel->runById(r.id);
        choicesStale = choicesStale || !old || old->model != r.model || old->dataset != r.dataset || old->tags != r.tags;
    }
    m_runsModel->updateRuns(changed);
    noteStatuses(changed);
    if (currentPage() == Page::Compare && !m_compareRefresh.isActive()) {
        const QList<qint64> compared = m_compareView->runIds();
        for (const RunRecord& r : changed)
            if (compared.contains(r.id)) {
                m_compareRefresh.start();
                break;
            }
    }
    if (choicesStale) refreshFilterChoices();
    for (const RunRecord& r : changed)
        if (r.id == m_selectedRunId) m_runView->updateRun(r);
    attachPendingStart(changed);
    updateActions();
}

void MainWindow::onRunsListed(const RunList& runs) {
    m_runsModel->setRuns(runs);
    noteStatuses(runs);
    refreshFilterChoices();
    if (m_selectedRunId > 0) {
        if (const RunRecord* r = m_runsModel->runById(m_selectedRunId)) m_runView->updateRun(*r);
    }
    attachPendingStart(runs);
    if (m_firstListing) {
        m_firstListing = false;
        if (currentPage() == Page::Welcome) {
            if (!runs.empty()) {  // a fresh store stays on the welcome page and its choices
                // Re-attach: show the newest running run, if any; else the run shown last time.
                bool attached = false;
                for (const RunRecord& r : runs) {
                    if (r.status == RunStatus::Running) {
                        selectRun(r.id);
                        attached = true;
                        break;
                    }
                }
                if (!attached && m_restoreRunId > 0) selectRun(m_restoreRunId);
            }
        }
    }
    updateActions();
}

void MainWindow::selectRun(qint64 runId) {
    const int row = m_runsModel->rowOfRun(runId);
    if (row < 0) return;
    const QModelIndex at = m_runsProxy->mapFromSource(m_runsModel->index(row, 0));
    if (at.isValid()) {
        m_runsView->selectRow(at.row());
        m_runsView->scrollTo(at);
    }
    showRunPage(runId);
}

void MainWindow::selectRuns(const QList<qint64>& runIds) {
    QItemSelection selection;
    for (qint64 id : runIds) {
        const int row = m_runsModel->rowOfRun(id);
        if (row < 0) continue;
        const QModelIndex first = m_runsProxy->mapFromSource(m_runsModel->index(row, 0));
        if (!first.isValid()) continue;  // filtered out
        selection.select(first, first.siblingAtColumn(RunsTableModel::ColumnCount - 1));
    }
    m_runsView->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
}

QList<qint64> MainWindow::selectedRunIds() const {
    QModelIndexList rows = m_runsView->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(), [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
    QList<qint64> ids;
    for (const QModelIndex& i : rows) ids.append(i.data(RunsTableModel::RunIdRole).toLongLong());
    return ids;
}

bool MainWindow::compareSelectedRuns() {
    const QList<qint64> ids = selectedRunIds();
    if (ids.size() < 2) {
        showMessage(tr("Select two or more runs to compare (Ctrl+click or Shift+click in the list)."), true);
        return false;
    }
    showMessage(QString(), false);
    if (m_compareView->runIds() != ids || currentPage() != Page::Compare)
        m_compareView->compareRuns(m_options.storePath, ids);
    showPage(Page::Compare);
    return true;
}

void MainWindow::onSelectionChanged() {
    if (m_restoringSelection) return;
    m_selectedIds = selectedRunIds();
    updateActions();
    if (m_selectedIds.size() == 1) {
        showRunPage(m_selectedIds.first());
    } else if (m_selectedIds.size() >= 2 && currentPage() == Page::Compare) {
        m_compareView->compareRuns(m_options.storePath, m_selectedIds);  // follow the selection
    }
}

void MainWindow::showRunPage(qint64 runId) {
    const RunRecord* r = m_runsModel->runById(runId);
    if (!r) return;
    m_selectedRunId = runId;
    m_runView->showRun(*r);
    if (m_watchedRunId != runId) {
        m_watchedRunId = runId;
        m_poller->watchRun(runId);
    }
    showPage(Page::Run);
}

void MainWindow::stopSelectedRun() {
    const qint64 id = m_runView->runId();
    if (id <= 0) return;
    m_runView->setStopPending(true);
    m_poller->requestStop(id);
    updateActions();
}

void MainWindow::stopRunNow(qint64 runId, bool askFirst) {
    if (runId <= 0) return;
    if (askFirst &&
        QMessageBox::question(this, tr("Stop now"),
                              tr("Kill the run's workers without writing a checkpoint? The steps since the last "
                                 "saved checkpoint are lost. (Stop & save checkpoints first.)"),
                              QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel) != QMessageBox::Yes)
        return;
    const bool firstSent = m_runView->runId() == runId && m_runView->isStopPending();
    if (m_runView->runId() == runId) m_runView->setStopPending(true);
    if (!firstSent) m_poller->requestStop(runId);
    // The supervisor reads its signals in batches: the second must arrive after it took the first.
    QTimer::singleShot(firstSent ? 0 : kSecondStopDelayMs, this, [this, runId] { m_poller->requestStop(runId); });
    showMessage(tr("Stopping run %1 without a checkpoint…").arg(runId), false);
    updateActions();
}

void MainWindow::notifyRunEnded(const RunRecord& r) {
    const QString name = QString::fromStdString(r.name);
    QString text;
    bool isError = false;
    switch (r.status) {
        case RunStatus::Completed: {
            const auto metrics = nlohmann::json::parse(r.finalMetricsJson, nullptr, false);
            if (metrics.is_object() && metrics.contains("loss") && metrics["loss"].is_number())
                text = tr("Run \"%1\" completed (final loss %2).").arg(name).arg(metrics["loss"].get<double>(), 0, 'f', 4);
            else
                text = tr("Run \"%1\" completed.").arg(name);
            break;
        }
        case RunStatus::Failed:
            isError = true;
            text = r.failureReason.empty() ? tr("Run \"%1\" failed.").arg(name)
                                           : tr("Run \"%1\" failed: %2").arg(name, QString::fromStdString(r.failureReason));
            break;
        case RunStatus::Stopped:
            text = tr("Run \"%1\" stopped.").arg(name);
            break;
        default:
            return;
    }
    m_lastNotification = text;
    showMessage(text, isError);
    if (QSystemTrayIcon::isSystemTrayAvailable()) {
        if (!m_tray) {
            m_tray = new QSystemTrayIcon(windowIcon().isNull() ? style()->standardIcon(QStyle::SP_ComputerIcon) : windowIcon(), this);
            m_tray->show();
        }
        m_tray->showMessage(tr("Finetune Studio"), text,
                            isError ? QSystemTrayIcon::Critical : QSystemTrayIcon::Information);
    }
    emit runEnded(r.id, text);
}

void MainWindow::onStopRequested(qint64 runId, bool ok, const QString& message) {
    if (!ok && runId == m_runView->runId()) m_runView->setStopPending(false);
    showMessage(message, !ok);
    updateActions();
}

void MainWindow::onStoreState(bool available, const QString& message) {
    const QString path = QDir::toNativeSeparators(m_options.storePath);
    m_storeLabel->setText(available ? tr("Store: %1").arg(path) : tr("Store: %1 (not available)").arg(path));
    m_storeLabel->setToolTip(message.isEmpty() ? path : path + QLatin1Char('\n') + message);
    if (!available && !message.isEmpty()) statusBar()->showMessage(message, 10000);
}

bool MainWindow::maySetEditorAside() {
    if (!m_editor->isModified()) return true;
    const auto answer = QMessageBox::question(
        this, tr("Unsaved config"), tr("The config in the editor has unsaved changes. Save them?"),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    return answer == QMessageBox::Discard || (answer == QMessageBox::Save && save());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!maySetEditorAside()) {
        event->ignore();
        return;
    }
    saveWindowSettings();
    event->accept();  // running runs keep running: they are separate processes
}

QWidget* MainWindow::buildRunsPane() {
    auto* pane = new QWidget(this);
    m_runsCount = new QLabel(pane);
    m_runsCount->setObjectName(QStringLiteral("runsCount"));
    m_search = new QLineEdit(pane);
    m_search->setObjectName(QStringLiteral("runsSearch"));
    m_search->setClearButtonEnabled(true);
    auto* find = new QAction(this);
    find->setShortcut(QKeySequence::Find);
    connect(find, &QAction::triggered, this, [this] { m_search->setFocus(); m_search->selectAll(); });
    addAction(find);

    const auto combo = [pane](const char* name) {
        auto* c = new QComboBox(pane);
        c->setObjectName(QString::fromLatin1(name));
        c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        c->setMinimumContentsLength(4);  // the list pane fits beside the editor on a 1024-pixel screen
        return c;
    };
    m_statusFilter = combo("statusFilter");
    m_statusFilter->addItem(tr("All statuses"), -1);
    for (RunStatus st : {RunStatus::Running, RunStatus::Completed, RunStatus::Failed, RunStatus::Stopped,
                         RunStatus::Pending})
        m_statusFilter->addItem(RunsTableModel::statusText(st), int(st));
    m_modelFilter = combo("modelFilter");
    m_datasetFilter = combo("datasetFilter");
    m_tagFilter = combo("tagFilter");
    m_dateFilter = combo("dateFilter");
    m_dateFilter->addItem(tr("Any time"), 0);
    m_dateFilter->addItem(tr("Today"), 1);
    m_dateFilter->addItem(tr("Last 7 days"), 7);
    m_dateFilter->addItem(tr("Last 30 days"), 30);
    refreshFilterChoices();

    connect(m_search, &QLineEdit::textChanged, this, [this] { applyFilters(); });
    for (QComboBox* c : {m_statusFilter, m_modelFilter, m_datasetFilter, m_tagFilter, m_dateFilter})
        connect(c, &QComboBox::currentIndexChanged, this, [this] { applyFilters(); });

    // The count follows the proxy (never re-filter from here: filtering itself inserts and removes rows).
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(m_runsProxy, signal, this, &MainWindow::updateRunsCount);
    connect(m_runsProxy, &QAbstractItemModel::modelReset, this, &MainWindow::updateRunsCount);

    auto* row1 = new QHBoxLayout;
    row1->addWidget(m_search, 1);
    row1->addWidget(m_statusFilter);
    auto* row2 = new QHBoxLayout;
    row2->addWidget(m_modelFilter, 1);
    row2->addWidget(m_datasetFilter, 1);
    row2->addWidget(m_tagFilter, 1);
    row2->addWidget(m_dateFilter);
    auto* layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(3);
    layout->addLayout(row1);
    layout->addLayout(row2);
    layout->addWidget(m_runsView, 1);
    layout->addWidget(m_runsCount);
    return pane;
}

void MainWindow::refreshFilterChoices() {
    const auto refill = [](QComboBox* c, const QString& all, const QStringList& values, bool baseNames) {
        const QString current = c->currentData().toString();
        QSignalBlocker block(c);
        c->clear();
        c->addItem(all, QString());
        for (const QString& v : values) {
            const QString shown = baseNames ? QFileInfo(v).fileName() : v;
            c->addItem(shown.isEmpty() ? v : shown, v);
            c->setItemData(c->count() - 1, v, Qt::ToolTipRole);
        }
        const int i = c->findData(current);
        c->setCurrentIndex(i >= 0 ? i : 0);
    };
    refill(m_modelFilter, tr("All models"), m_runsProxy->distinctModels(), true);
    refill(m_datasetFilter, tr("All datasets"), m_runsProxy->distinctDatasets(), true);
    refill(m_tagFilter, tr("All tags"), m_runsProxy->distinctTags(), false);
    applyFilters();
}

void MainWindow::applyFilters() {
    if (!m_dateFilter) return;  // still building the pane
    m_runsProxy->setSearchText(m_search->text());
    const int status = m_statusFilter->currentData().toInt();
    m_runsProxy->setStatusFilter(status < 0 ? std::nullopt : std::optional<RunStatus>(RunStatus(status)));
    m_runsProxy->setModelFilter(m_modelFilter->currentData().toString());
    m_runsProxy->setDatasetFilter(m_datasetFilter->currentData().toString());
    m_runsProxy->setTagFilter(m_tagFilter->currentData().toString());
    const int days = m_dateFilter->currentData().toInt();
    double since = 0;
    if (days == 1)
        since = double(QDateTime(QDate::currentDate(), QTime(0, 0)).toSecsSinceEpoch());
    else if (days > 1)
        since = double(QDateTime::currentDateTime().addDays(-days).toSecsSinceEpoch());
    m_runsProxy->setStartedSince(since);
    updateRunsCount();
}

void MainWindow::updateRunsCount() {
    if (!m_runsCount) return;
    const int shown = m_runsProxy->rowCount(), total = m_runsModel->rowCount();
    m_runsCount->setText(shown == total ? tr("%n run(s)", nullptr, total)
                                        : tr("%1 of %n run(s) shown", nullptr, total).arg(shown));
}

void MainWindow::showRunsContextMenu(const QPoint& pos) {
    const QList<qint64> ids = selectedRunIds();
    if (ids.isEmpty()) return;
    QMenu menu(this);
    if (ids.size() >= 2) menu.addAction(m_compareAction);
    QAction* resume = menu.addAction(m_resumeAction->icon(), tr("Resume"), this, [this, ids] { resumeRun(ids.first()); });
    resume->setEnabled(ids.size() == 1 && canResume(ids.first()));
    QAction* startFrom = menu.addAction(tr("Start from this run"), this, [this, ids] {
        if (maySetEditorAside()) newRunFromRun(ids.first());
    });
    startFrom->setEnabled(ids.size() == 1);
    QAction* rename = menu.addAction(tr("Rename…"), this, &MainWindow::renameSelectedRunDialog);
    QAction* notes = menu.addAction(tr("Notes and tags…"), this, &MainWindow::editSelectedRunNotesDialog);
    rename->setEnabled(ids.size() == 1);
    notes->setEnabled(ids.size() == 1);
    menu.addSeparator();
    menu.addAction(tr("Delete…"), this, &MainWindow::deleteSelectedRunsDialog);
    menu.exec(m_runsView->viewport()->mapToGlobal(pos));
}

void MainWindow::renameRun(qint64 runId, const QString& name) { m_writer->renameRun(runId, name); }
void MainWindow::setRunNotes(qint64 runId, const QString& notes) { m_writer->setNotes(runId, notes); }
void MainWindow::setRunTags(qint64 runId, const QStringList& tags) { m_writer->setTags(runId, tags); }
void MainWindow::deleteRuns(const QList<qint64>& runIds, bool deleteFiles) {
    for (qint64 id : runIds) m_writer->deleteRun(id, deleteFiles);
}

void MainWindow::renameSelectedRunDialog() {
    const QList<qint64> ids = selectedRunIds();
    const RunRecord* r = ids.size() == 1 ? m_runsModel->runById(ids.first()) : nullptr;
    if (!r) return;
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("Rename run"), tr("New name of run %1:").arg(r->id),
                                               QLineEdit::Normal, QString::fromStdString(r->name), &ok);
    if (ok && !name.trimmed().isEmpty()) renameRun(r->id, name);
}

void MainWindow::editSelectedRunNotesDialog() {
    const QList<qint64> ids = selectedRunIds();
    const RunRecord* r = ids.size() == 1 ? m_runsModel->runById(ids.first()) : nullptr;
    if (!r) return;
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Notes and tags of %1").arg(QString::fromStdString(r->name)));
    auto* tags = new QLineEdit(&dialog);
    QStringList current;
    for (const std::string& t : r->tags) current << QString::fromStdString(t);
    tags->setText(current.join(QStringLiteral(", ")));
    tags->setPlaceholderText(tr("comma-separated, e.g. baseline, lr-sweep"));
    auto* notes = new QPlainTextEdit(&dialog);
    notes->setPlainText(QString::fromStdString(r->notes));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    auto* form = new QFormLayout(&dialog);
    form->addRow(tr("Tags:"), tags);
    form->addRow(tr("Notes:"), notes);
    form->addRow(buttons);
    if (dialog.exec() != QDialog::Accepted) return;
    const qint64 id = r->id;
    setRunTags(id, tags->text().split(QLatin1Char(','), Qt::SkipEmptyParts));
    setRunNotes(id, notes->toPlainText());
}

void MainWindow::deleteSelectedRunsDialog() {
    const QList<qint64> ids = selectedRunIds();
    if (ids.isEmpty()) return;
    QStringList names, folders;
    for (qint64 id : ids) {
        if (const RunRecord* r = m_runsModel->runById(id)) {
            names << QStringLiteral("%1 (#%2)").arg(QString::fromStdString(r->name)).arg(id);
            if (!r->outputDir.empty()) folders << QDir::toNativeSeparators(QString::fromStdString(r->outputDir));
        }
    }
    folders.removeDuplicates();
    QMessageBox box(QMessageBox::Warning, tr("Delete runs"),
                    tr("Delete %n run(s) from the history? Their metrics and logs are removed.", nullptr,
                       int(ids.size())),
                    QMessageBox::Cancel, this);
    box.setInformativeText(names.join(QLatin1Char('\n')));
    QPushButton* del = box.addButton(tr("Delete"), QMessageBox::DestructiveRole);
    auto* withFiles = new QCheckBox(tr("Also delete checkpoints and outputs:\n%1").arg(folders.join(QLatin1Char('\n'))), &box);
    withFiles->setVisible(!folders.isEmpty());
    box.setCheckBox(withFiles);
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    if (box.clickedButton() != del) return;
    deleteRuns(ids, withFiles->isChecked());
}

ModelPicker* MainWindow::modelPicker() const { return m_modelPicker; }
DataPreviewDialog* MainWindow::dataPreview() const { return m_dataPreview; }

}  // namespace fts
