// DevicePanel (see device_panel.h): CPU / GPU rows, the nvidia-smi query off the UI thread, the selection.
#include "ui/device_panel.h"

#include <QApplication>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QThread>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/memory_bars.h"  // hostMemory()

namespace fts {
namespace {

enum DevicesColumn { DeviceColumn, MemoryColumn, UseColumn, DevicesColumnCount };
constexpr int kGpuIndexRole = Qt::UserRole + 1;

QString gib(double mib) { return QString::number(mib / 1024.0, 'f', 1); }

}  // namespace

DevicePanel::DevicePanel(QWidget* parent) : QWidget(parent), m_program(defaultNvidiaSmiProgram()) {
    setObjectName(QStringLiteral("devicePanel"));
    m_tree = new QTreeWidget(this);
    m_tree->setObjectName(QStringLiteral("deviceTree"));
    m_tree->setColumnCount(DevicesColumnCount);
    m_tree->setRootIsDecorated(false);
    m_tree->setUniformRowHeights(true);
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(DeviceColumn, QHeaderView::Stretch);
    m_tree->header()->setSectionResizeMode(MemoryColumn, QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(UseColumn, QHeaderView::ResizeToContents);
    m_tree->setMinimumHeight(110);

    m_cpu = new QTreeWidgetItem(m_tree);
    m_cpu->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
    m_cpu->setCheckState(DeviceColumn, Qt::Checked);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("deviceStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_refresh = new QPushButton(this);
    m_refresh->setObjectName(QStringLiteral("deviceRefresh"));
    connect(m_refresh, &QPushButton::clicked, this, &DevicePanel::refresh);
    connect(m_tree, &QTreeWidget::itemChanged, this, &DevicePanel::onItemChanged);

    auto* bottom = new QHBoxLayout;
    bottom->addWidget(m_status, 1);
    bottom->addWidget(m_refresh);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tree);
    layout->addLayout(bottom);
    retranslate();
}

DevicePanel::~DevicePanel() {
    if (m_thread) {
        m_thread->wait();
        delete m_thread;
    }
}

void DevicePanel::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (!m_queried && !m_thread) refresh();
}

void DevicePanel::refresh() {
    if (m_thread) return;
    QPointer<DevicePanel> self(this);
    const QString program = m_program;
    m_thread = QThread::create([self, program] {
        const GpuQueryResult r = queryGpus(program);
        QMetaObject::invokeMethod(
            qApp,
            [self, r] {
                if (self) self->showResult(r);
            },
            Qt::QueuedConnection);
    });
    m_thread->setObjectName(QStringLiteral("fts-device-query"));
    m_thread->start();
    m_refresh->setEnabled(false);
    updateStatus();
}

void DevicePanel::showResult(const GpuQueryResult& result) {
    if (m_thread) {
        m_thread->wait();  // it has posted this result and is returning
        delete m_thread;
        m_thread = nullptr;
    }
    const QList<int> before = selectedGpus();
    m_queried = true;
    m_result = result;
    m_updating = true;
    for (QTreeWidgetItem* item : std::as_const(m_gpus)) delete item;
    m_gpus.clear();
    for (const GpuInfo& g : result.gpus) {
        auto* item = new QTreeWidgetItem;
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        item->setData(DeviceColumn, kGpuIndexRole, g.index);
        item->setCheckState(DeviceColumn, before.contains(g.index) ? Qt::Checked : Qt::Unchecked);
        m_tree->addTopLevelItem(item);
        m_gpus << item;
    }
    m_updating = false;
    const QList<int> after = selectedGpus();
    m_cpu->setCheckState(DeviceColumn, after.isEmpty() ? Qt::Checked : Qt::Unchecked);
    m_refresh->setEnabled(true);
    retranslate();
    if (after != before) emit selectionChanged();
    emit queried();
}

QTreeWidgetItem* DevicePanel::gpuItem(int index) const {
    for (QTreeWidgetItem* item : m_gpus)
        if (item->data(DeviceColumn, kGpuIndexRole).toInt() == index) return item;
    return nullptr;
}

QList<int> DevicePanel::selectedGpus() const {
    QList<int> ids;
    for (QTreeWidgetItem* item : m_gpus)
        if (item->checkState(DeviceColumn) == Qt::Checked) ids << item->data(DeviceColumn, kGpuIndexRole).toInt();
    std::sort(ids.begin(), ids.end());
    return ids;
}

// The CPU and the GPUs exclude each other; unchecking the last GPU falls back to the CPU.
void DevicePanel::onItemChanged(QTreeWidgetItem* item, int column) {
    if (m_updating || column != DeviceColumn) return;
    m_updating = true;
    if (item == m_cpu) {
        if (m_cpu->checkState(DeviceColumn) == Qt::Checked)
            for (QTreeWidgetItem* g : std::as_const(m_gpus)) g->setCheckState(DeviceColumn, Qt::Unchecked);
        else if (selectedGpus().isEmpty())
            m_cpu->setCheckState(DeviceColumn, Qt::Checked);  // something must be selected
    } else if (m_gpus.contains(item)) {
        m_cpu->setCheckState(DeviceColumn, selectedGpus().isEmpty() ? Qt::Checked : Qt::Unchecked);
    }
    m_updating = false;
    emit selectionChanged();
}

void DevicePanel::updateStatus() {
    if (m_thread) {
        m_status->setText(tr("Looking for NVIDIA GPUs…"));
        return;
    }
    if (!m_queried) {
        m_status->clear();
        return;
    }
    if (!m_result.found) {
        m_status->setText(m_result.message);
        return;
    }
    QString text = tr("%n NVIDIA GPU(s) found. Checked GPUs get one rank each (fts train --include localhost:…).",
                      nullptr, int(m_result.gpus.size()));
    if (m_result.skippedLines > 0)
        text += QLatin1Char(' ') +
                tr("%n line(s) of nvidia-smi's output could not be read.", nullptr, m_result.skippedLines);
    m_status->setText(text);
}

void DevicePanel::retranslate() {
    m_tree->setHeaderLabels({tr("Device"), tr("Memory in use"), tr("Use")});
    const auto [used, total] = hostMemory();
    m_cpu->setText(DeviceColumn, tr("CPU (%n thread(s))", nullptr, QThread::idealThreadCount()));
    m_cpu->setText(
        MemoryColumn,
        total > 0 ? tr("%1 / %2 GiB").arg(gib(double(used) / 1048576.0), gib(double(total) / 1048576.0)) : QString());
    m_cpu->setToolTip(DeviceColumn, tr("Train on the CPU; the ranks (processes) are set below"));
    for (QTreeWidgetItem* item : std::as_const(m_gpus)) {
        const int index = item->data(DeviceColumn, kGpuIndexRole).toInt();
        const auto it = std::find_if(m_result.gpus.begin(), m_result.gpus.end(),
                                     [index](const GpuInfo& g) { return g.index == index; });
        if (it == m_result.gpus.end()) continue;
        item->setText(DeviceColumn, tr("GPU %1 · %2").arg(it->index).arg(it->name));
        item->setText(MemoryColumn,
                      it->memoryTotalMiB >= 0 && it->memoryUsedMiB >= 0
                          ? tr("%1 / %2 GiB").arg(gib(double(it->memoryUsedMiB)), gib(double(it->memoryTotalMiB)))
                          : tr("unknown"));
        item->setText(UseColumn, it->utilizationPercent >= 0 ? tr("%1 %").arg(it->utilizationPercent) : tr("unknown"));
    }
    m_refresh->setText(tr("Refresh"));
    m_refresh->setToolTip(tr("Query the GPUs again (nvidia-smi)"));
    updateStatus();
}

void DevicePanel::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) {
        retranslate();
        if (m_queried && !m_thread) refresh();  // the status line was written in the old language
    }
    QWidget::changeEvent(event);
}

}  // namespace fts
