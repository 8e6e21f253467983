// HostsPanel: the SSH hosts a run may use besides this machine. Add hosts by name or from ~/.ssh/config,
// check them (`fts hosts check --json` off the UI thread: reachable, fts version, GPUs with memory, then
// collectives and per-link bandwidth), pick GPUs per host (or CPU ranks on hosts without GPUs). The chosen
// hosts become the launch's hostfile and --include list (multi_host_launch.h). The list is kept in QSettings.
#pragma once
#include <QList>
#include <QString>
#include <QWidget>

#include <nlohmann/json.hpp>

#include "ui/multi_host_launch.h"

class QLabel;
class QProcess;
class QPushButton;
class QTemporaryFile;
class QTreeWidget;
class QTreeWidgetItem;

namespace fts {

class HostsPanel : public QWidget {
    Q_OBJECT
public:
    explicit HostsPanel(QWidget* parent = nullptr);
    ~HostsPanel() override;

    void setCliPath(const QString& cli) { m_cli = cli; }
    // Adds a host (unchecked) unless it is listed already; false + why for a name ssh could misread.
    bool addHost(const QString& host, QString* why = nullptr);
    QStringList hosts() const;
    // The checked hosts with their GPUs (or CPU ranks).
    QList<RemoteHostChoice> selectedHosts() const;
    // Runs `fts hosts check` on the checked hosts (all hosts when none is checked); ignored while one runs.
    void checkHosts();
    bool isChecking() const { return m_process != nullptr; }
    // Shows a report of `fts hosts check --json` (GPUs per host, statuses, the summary line).
    void applyReport(const nlohmann::json& report);

    QTreeWidget* tree() const { return m_tree; }
    QLabel* statusLabel() const { return m_status; }
    QPushButton* checkButton() const { return m_check; }

signals:
    void selectionChanged();
    void checked();  // a check ended (its report is shown)

protected:
    void changeEvent(QEvent* event) override;

private:
    void addFromSshConfig();
    void askForHost();
    void removeSelected();
    void save() const;
    void retranslate();
    QTreeWidgetItem* itemFor(const QString& host) const;

    QString m_cli;
    QTreeWidget* m_tree;
    QLabel* m_status;
    QPushButton *m_add, *m_import, *m_remove, *m_check;
    QProcess* m_process = nullptr;
    QTemporaryFile* m_hostfile = nullptr;
    bool m_loading = false;
};

}  // namespace fts
