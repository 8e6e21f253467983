// PlanDialog: "Fit to my hardware". Runs `fts plan CONFIG --json` (core/launch/fit_planner.h) in a child process,
// never on the UI thread: the variants of the config the memory estimate keeps, a few of them probed (each a run in
// the store) within a time box, and the fastest measured one that fits as the proposal, with the table behind the
// choice and the keys it changes ("key: before → after"). Apply writes those keys (only those) into the config.
#pragma once
#include <QDialog>
#include <QStringList>

#include <nlohmann/json.hpp>

class QLabel;
class QLineEdit;
class QProcess;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace fts {

class PlanDialog : public QDialog {
    Q_OBJECT
public:
    // placement: the rank arguments of a launch on this machine (placementArguments: --nproc N / --include ...).
    PlanDialog(const QString& cliPath, const QString& configPath, const QString& storePath,
               const QStringList& placement, QWidget* parent = nullptr);
    ~PlanDialog() override;

    void start();  // runs the plan (ignored while one runs)
    void stop();
    bool isRunning() const { return m_process != nullptr; }
    // Fills the table, the proposal and its changes from `fts plan --json` output.
    void showResult(const nlohmann::json& result);
    // The proposal's changes as the plan gives them ([{key, before, after}]); empty when none.
    const nlohmann::json& changes() const { return m_changes; }
    // A variant in the studio's words ("Stage 2, optimizer offload to CPU, micro-batch 4 × 2, ...").
    static QString describeVariant(const nlohmann::json& candidate);
    // One line of the plan's advice (`fts plan --json`'s advice items) in the studio's words; candidates: the plan's.
    static QString adviceText(const nlohmann::json& advice, const nlohmann::json& candidates);

    QTableWidget* table() const { return m_table; }
    QLabel* statusLabel() const { return m_status; }
    QLabel* proposalLabel() const { return m_proposal; }
    QPushButton* applyButton() const { return m_apply; }
    QPushButton* runButton() const { return m_run; }
    QLineEdit* capacityEdit() const { return m_capacity; }
    QSpinBox* minutesSpin() const { return m_minutes; }
    QSpinBox* probesSpin() const { return m_probes; }

signals:
    void finishedPlan(bool ok);
    // Apply: the changes JSON ([{key, before, after}]) for the form to write.
    void applyRequested(const QString& changesJson);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    QString m_cli, m_config, m_store;
    QStringList m_placement;
    QLineEdit* m_capacity = nullptr;
    QSpinBox* m_minutes = nullptr;
    QSpinBox* m_probes = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_stop = nullptr;
    QPushButton* m_apply = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_proposal = nullptr;
    QTableWidget* m_table = nullptr;
    QProcess* m_process = nullptr;
    QByteArray m_stdout, m_stderrTail, m_stderrPartial;
    nlohmann::json m_changes = nlohmann::json::array();
    int m_probed = 0;
    void processStderrLine(const QByteArray& line);
    void addRow(const nlohmann::json& candidate, const QString& state);
    void finishProcess();
};

}  // namespace fts
