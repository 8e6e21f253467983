// DoctorPanel: `fts doctor --json` in a QProcess (the settings dialog's "Check this machine"): GPUs, CUDA and NCCL,
// memory, disk, the run store's health, the Hugging Face cache and the studio's ssh hosts, one row per fact with
// its status and what to do. Never blocks the GUI thread.
#pragma once
#include <QWidget>

class QLabel;
class QProcess;
class QPushButton;
class QTableWidget;

namespace fts {

class DoctorPanel : public QWidget {
    Q_OBJECT
public:
    DoctorPanel(QString cliPath, QString storePath, QWidget* parent = nullptr);
    ~DoctorPanel() override;
    void run();  // as the button: checks again (the hosts of the Hosts list are probed too)
    QTableWidget* table() const { return m_table; }
    QPushButton* runButton() const { return m_run; }

signals:
    void finished(int errors, int warnings);

private:
    void addRow(const QString& level, const QString& topic, const QString& detail, const QString& fix);
    QString m_cli, m_store;
    QPushButton* m_run;
    QLabel* m_status;
    QTableWidget* m_table;
    QProcess* m_process = nullptr;
    QByteArray m_out;
    int m_errors = 0, m_warnings = 0;
};

}  // namespace fts
