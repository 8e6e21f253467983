// DevicePanel: where a run trains: the CPU or a set of local NVIDIA GPUs (name, memory in use / total,
// utilisation), listed from nvidia-smi on a worker thread when the panel is first shown (and on Refresh).
// Invariant: the selection is either the CPU (ranks from the form's spin box) or >= 1 GPU (one rank each,
// launched with --include localhost:i,j). Other hosts: HostsPanel.
#pragma once
#include <QList>
#include <QString>
#include <QWidget>

#include "ui/device_list.h"

class QLabel;
class QPushButton;
class QThread;
class QTreeWidget;
class QTreeWidgetItem;

namespace fts {

class DevicePanel : public QWidget {
    Q_OBJECT
public:
    explicit DevicePanel(QWidget* parent = nullptr);
    ~DevicePanel() override;

    // The nvidia-smi to run (default: defaultNvidiaSmiProgram()). Takes effect at the next refresh.
    void setProgram(const QString& program) { m_program = program; }
    // Queries again on a worker thread (ignored while a query runs).
    void refresh();
    bool isQuerying() const { return m_thread != nullptr; }
    bool hasQueried() const { return m_queried; }
    const GpuQueryResult& lastResult() const { return m_result; }

    // The checked GPUs by nvidia-smi index, ascending; empty = the CPU.
    QList<int> selectedGpus() const;

    QTreeWidget* tree() const { return m_tree; }
    QLabel* statusLabel() const { return m_status; }
    QPushButton* refreshButton() const { return m_refresh; }
    QTreeWidgetItem* cpuItem() const { return m_cpu; }
    QTreeWidgetItem* gpuItem(int index) const;  // by nvidia-smi index; nullptr if not listed

signals:
    void selectionChanged();
    void queried();  // a query finished (the list shows its result)

protected:
    void showEvent(QShowEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void showResult(const GpuQueryResult& result);
    void onItemChanged(QTreeWidgetItem* item, int column);
    void retranslate();
    void updateStatus();

    QString m_program;
    GpuQueryResult m_result;
    bool m_queried = false;
    bool m_updating = false;
    QThread* m_thread = nullptr;
    QTreeWidget* m_tree;
    QTreeWidgetItem* m_cpu;
    QList<QTreeWidgetItem*> m_gpus;
    QLabel* m_status;
    QPushButton* m_refresh;
};

}  // namespace fts
