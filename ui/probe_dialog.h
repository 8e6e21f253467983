// ProbeDialog: "Measure ZeRO stages" before a long run. Runs `fts probe CONFIG --json` (a few steps of the config at
// each chosen stage, optionally with CPU offload) in a child process, never on the UI thread, shows which variant
// runs, and fills the table as each variant ends (the probe's "probe: result" lines), from which a user picks the
// cheapest setting that fits: estimated and measured peak memory per rank, tokens/s and steps/s; "Use this variant"
// hands the chosen row's ZeRO keys to the form. Stop ends the probe (the current variant's run is stopped). Each variant is a run
// in the store, so the runs list shows them too.
#pragma once
#include <QDialog>
#include <QStringList>

#include <nlohmann/json.hpp>

class QCheckBox;
class QLabel;
class QProcess;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace fts {

class ProbeDialog : public QDialog {
    Q_OBJECT
public:
    // placement: the rank arguments of a launch on this machine (placementArguments: --nproc N / --include ...).
    ProbeDialog(const QString& cliPath, const QString& configPath, const QString& storePath,
                const QStringList& placement, QWidget* parent = nullptr);
    ~ProbeDialog() override;

    void start();  // runs the probe with the chosen stages (ignored while one runs)
    void stop();
    bool isRunning() const { return m_process != nullptr; }
    // Fills the table from `fts probe --json` output.
    void showResult(const nlohmann::json& result);
    // Appends one variant's row (a "probe: result" line of the probe's stderr, as each variant ends).
    void addVariantRow(const nlohmann::json& variant);
    // The variant of a measured row (its JSON as the probe gives it); null for a failed row or none.
    nlohmann::json variantAt(int row) const;
    QPushButton* useButton() const { return m_use; }

    QTableWidget* table() const { return m_table; }
    QLabel* statusLabel() const { return m_status; }
    QCheckBox* stageBox(int stage) const { return m_stages[stage]; }
    QSpinBox* stepsSpin() const { return m_steps; }

signals:
    void finishedProbe(bool ok);
    // "Use this variant": the row's variant as the probe's JSON text (stage, offload_optimizer, offload_param).
    void variantChosen(const QString& variantJson);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    QString m_cli, m_config, m_store;
    QStringList m_placement;
    QCheckBox* m_stages[4] = {};
    QCheckBox* m_offload = nullptr;
    QSpinBox* m_steps = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_stop = nullptr;
    QPushButton* m_use = nullptr;
    void setRow(int row, const nlohmann::json& v);
    void processStderrLine(const QByteArray& line);
    QByteArray m_stderrPartial;  // a line not yet ended
    QLabel* m_status = nullptr;
    QTableWidget* m_table = nullptr;
    QProcess* m_process = nullptr;
    QByteArray m_stdout, m_stderrTail;
    int m_variants = 0, m_done = 0;
};

}  // namespace fts
