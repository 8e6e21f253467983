// ModelPicker (see model_picker.h).
#include "ui/model_picker.h"
#include "ui/file_dialogs.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>

namespace fts {

ModelPicker::ModelPicker(const QStringList& roots, const QStringList& hubDirs, QWidget* parent)
    : QDialog(parent), m_roots(roots), m_hubDirs(hubDirs) {
    setWindowTitle(tr("Pick a model"));
    setObjectName(QStringLiteral("modelPicker"));
    m_table = new QTableWidget(0, ColumnCount, this);
    m_table->setObjectName(QStringLiteral("modelTable"));
    m_table->setHorizontalHeaderLabels(
        {tr("Model"), tr("Architecture"), tr("Parameters"), tr("Dtype"), tr("Vocab"), tr("Context"), tr("Source")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_busy = new QProgressBar(this);
    m_busy->setRange(0, 0);  // busy: the scan has no known length
    m_busy->setMaximumWidth(160);
    auto* addFolder = new QPushButton(tr("Add a folder…"), this);
    connect(addFolder, &QPushButton::clicked, this, &ModelPicker::addFolder);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_table, &QTableWidget::cellDoubleClicked, this, &QDialog::accept);
    auto* top = new QHBoxLayout;
    top->addWidget(m_status, 1);
    top->addWidget(m_busy);
    top->addWidget(addFolder);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_table, 1);
    layout->addWidget(buttons);
    resize(900, 420);
    rescan();
}

ModelPicker::~ModelPicker() {
    if (m_thread) {
        m_thread->wait();
        delete m_thread;
    }
}

void ModelPicker::rescan() {
    if (m_scanning) return;
    m_scanning = true;
    m_busy->show();
    m_status->setText(tr("Scanning %n folder(s) and the Hugging Face cache…", nullptr, int(m_roots.size())));
    if (m_thread) {
        m_thread->wait();
        delete m_thread;
    }
    QPointer<ModelPicker> self(this);
    const QStringList roots = m_roots, hubs = m_hubDirs;
    m_thread = QThread::create([self, roots, hubs] {
        QVector<ModelFolderInfo> models = scanModels(roots, hubs);
        QMetaObject::invokeMethod(
            qApp,
            [self, models] {
                if (self) self->showModels(models);
            },
            Qt::QueuedConnection);
    });
    m_thread->start();
}

void ModelPicker::showModels(const QVector<ModelFolderInfo>& models) {
    m_models = models;
    m_table->setRowCount(0);
    m_table->setRowCount(int(models.size()));
    for (int r = 0; r < models.size(); ++r) {
        const ModelFolderInfo& m = models[r];
        const auto cell = [&](int column, const QString& text, Qt::Alignment align = Qt::AlignLeft) {
            auto* item = new QTableWidgetItem(text);
            item->setTextAlignment(align | Qt::AlignVCenter);
            item->setToolTip(m.error.isEmpty() ? QDir::toNativeSeparators(m.path) : m.error);
            m_table->setItem(r, column, item);
        };
        const QString name = m.id.isEmpty() ? QFileInfo(m.path).fileName() : m.id;
        cell(NameColumn, name);
        cell(ArchitectureColumn, m.error.isEmpty() ? m.architecture : tr("unreadable"));
        cell(ParametersColumn,
             !m.weightsError.isEmpty() ? tr("unreadable weights")
             : m.parameters < 0        ? tr("no weights")
                                       : formatParameterCount(m.parameters),
             Qt::AlignRight);
        if (!m.weightsError.isEmpty()) m_table->item(r, ParametersColumn)->setToolTip(m.weightsError);
        cell(DtypeColumn, m.dtype);
        cell(VocabColumn, m.vocabSize < 0 ? QString() : QString::number(m.vocabSize), Qt::AlignRight);
        cell(ContextColumn, m.contextLength < 0 ? QString() : QString::number(m.contextLength), Qt::AlignRight);
        cell(SourceColumn, m.source == QLatin1String("hf-cache") ? tr("HF cache") : QDir::toNativeSeparators(m.path));
    }
    m_scanning = false;
    m_busy->hide();
    m_status->setText(models.isEmpty() ? tr("No models found. Add a folder holding Hugging Face model folders.")
                                       : tr("%n model(s) found.", nullptr, int(models.size())));
    emit scanFinished();
}

void ModelPicker::addFolder() {
    const QString dir = existingDirectory(this, tr("Model folder"), QDir::homePath());
    if (dir.isEmpty() || m_roots.contains(dir)) return;
    m_roots << dir;
    rescan();
}

QString ModelPicker::selectedValue() const {
    const int row = m_table->currentRow();
    if (row < 0 || row >= m_models.size()) return {};
    return m_models[row].configValue();
}

}  // namespace fts
