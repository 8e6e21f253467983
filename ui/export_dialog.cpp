// The export dialog (see export_dialog.h): `fts export` in a QProcess; its stderr lines ("gguf: 42% (...)",
// "warning: ...", "error: ...") as progress, its stdout ("exported ... to FILE (...)") as the result.
#include "ui/export_dialog.h"
#include "ui/file_dialogs.h"

#include <QScreen>
#include <algorithm>
#include "ui/cli_process.h"

#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QVBoxLayout>

#include <algorithm>

namespace fts {

namespace {

// An Ollama model name from a run's name: lower case letters, digits, '-', '_' and '.'.
QString ollamaName(const QString& runName) {
    QString n = runName.toLower();
    n.replace(QRegularExpression(QStringLiteral("[^a-z0-9._-]+")), QStringLiteral("-"));
    n.remove(QRegularExpression(QStringLiteral("^[-._]+|[-._]+$")));
    return n.isEmpty() ? QStringLiteral("finetuned") : n;
}

}  // namespace

ExportDialog::ExportDialog(const QString& cliPath, const QString& source, const QString& runName, QWidget* parent)
    : QDialog(parent), m_cli(cliPath), m_source(source), m_runName(runName) {
    setWindowTitle(tr("Export the model"));
    auto* v = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    auto* sourceLabel = new QLabel(QDir::toNativeSeparators(source), this);
    sourceLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    sourceLabel->setToolTip(
        tr("A run's output folder: its latest checkpoint is exported (a LoRA run merged into its "
           "base model)"));
    sourceLabel->setWordWrap(true);
    form->addRow(tr("From:"), sourceLabel);

    m_format = new QComboBox(this);
    m_format->addItem(tr("GGUF file (llama.cpp, Ollama, LM Studio)"), QStringLiteral("gguf"));
    m_format->addItem(tr("Hugging Face folder (transformers, vLLM)"), QStringLiteral("hf"));
    form->addRow(tr("Format:"), m_format);

    m_quant = new QComboBox(this);
    const struct {
        const char* preset;
        const char* text;
    } presets[] = {
        {"q4_k_m", QT_TR_NOOP("Q4_K_M: 4-bit, the usual choice (about a third of float16's size)")},
        {"q5_k_m", QT_TR_NOOP("Q5_K_M: 5-bit, a little closer to the original")},
        {"q6_k", QT_TR_NOOP("Q6_K: 6-bit")},
        {"q8_0", QT_TR_NOOP("Q8_0: 8-bit, nearly lossless (about half of float16's size)")},
        {"q4_0", QT_TR_NOOP("Q4_0: 4-bit, the oldest format (for old llama.cpp builds)")},
        {"f16", QT_TR_NOOP("F16: float16, no quantization")},
        {"bf16", QT_TR_NOOP("BF16: bfloat16, no quantization")},
        {"f32", QT_TR_NOOP("F32: float32, exact")},
    };
    for (const auto& p : presets) m_quant->addItem(tr(p.text), QString::fromLatin1(p.preset));
    m_quantLabel = new QLabel(tr("Quantization:"), this);
    // the combo with its hint under it, one form row (a word-wrapped label of its own row gets a row too tall)
    auto* quantField = new QWidget(this);
    auto* quantColumn = new QVBoxLayout(quantField);
    quantColumn->setContentsMargins(0, 0, 0, 0);
    quantColumn->setSpacing(2);
    m_quantHint = new QLabel(tr("Rows whose length is not a multiple of 256 use llama.cpp's fallback types "
                                "(Q5_0, Q5_1, Q8_0), as llama-quantize does."),
                             quantField);
    m_quantHint->setWordWrap(true);
    QFont small = m_quantHint->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    m_quantHint->setFont(small);
    m_quantHint->setForegroundRole(QPalette::PlaceholderText);
    quantColumn->addWidget(m_quant);
    quantColumn->addWidget(m_quantHint);
    form->addRow(m_quantLabel, quantField);

    m_dtype = new QComboBox(this);
    m_dtype->addItem(tr("float32"), QStringLiteral("float32"));
    m_dtype->addItem(tr("bfloat16"), QStringLiteral("bfloat16"));
    m_dtype->addItem(tr("float16"), QStringLiteral("float16"));
    m_dtypeLabel = new QLabel(tr("Precision:"), this);
    form->addRow(m_dtypeLabel, m_dtype);

    auto* destRow = new QHBoxLayout;
    m_destination = new QLineEdit(QDir(source).filePath(QStringLiteral("export")), this);
    m_destination->setToolTip(tr("The folder the file (and the Modelfile) is written to"));
    auto* browse = new QPushButton(tr("Browse…"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = existingDirectory(this, tr("Export to"), m_destination->text());
        if (!dir.isEmpty()) m_destination->setText(dir);
    });
    destRow->addWidget(m_destination, 1);
    destRow->addWidget(browse);
    form->addRow(tr("To folder:"), destRow);

    m_modelfile = new QCheckBox(tr("Write an Ollama Modelfile beside the file"), this);
    m_modelfile->setChecked(true);
    m_modelfile->setToolTip(
        tr("The chat template the run trained with, its stop tokens and system prompt, as Ollama "
           "reads them"));
    form->addRow(QString(), m_modelfile);
    v->addLayout(form);

    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 100);
    m_progress->setValue(0);
    m_progress->setVisible(false);
    v->addWidget(m_progress);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    v->addWidget(m_status);
    m_result = new QPlainTextEdit(this);
    m_result->setReadOnly(true);
    m_result->setVisible(false);
    m_result->setMinimumHeight(110);
    m_result->setMaximumHeight(220);
    v->addWidget(m_result, 1);

    auto* buttons = new QDialogButtonBox(this);
    m_export = buttons->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
    m_cancel = buttons->addButton(tr("Cancel export"), QDialogButtonBox::ActionRole);
    m_cancel->setEnabled(false);
    QPushButton* close = buttons->addButton(QDialogButtonBox::Close);
    close->setText(tr("Close"));
    connect(m_export, &QPushButton::clicked, this, &ExportDialog::start);
    connect(m_cancel, &QPushButton::clicked, this, &ExportDialog::cancel);
    connect(close, &QPushButton::clicked, this, &QDialog::close);
    v->addWidget(buttons);
    connect(m_format, &QComboBox::currentIndexChanged, this, [this] { updateChoices(); });
    updateChoices();
    resize(660, sizeHint().height());
}

ExportDialog::~ExportDialog() {
    if (m_process) {
        m_process->disconnect(this);
        m_process->terminate();
        if (!m_process->waitForFinished(10000)) m_process->kill();
    }
}

void ExportDialog::updateChoices() {
    const bool gguf = m_format->currentData().toString() == QLatin1String("gguf");
    m_quant->parentWidget()->setVisible(gguf);
    m_quantLabel->setVisible(gguf);
    m_modelfile->setVisible(gguf);
    m_dtype->setVisible(!gguf);
    m_dtypeLabel->setVisible(!gguf);
}

QStringList ExportDialog::exportArguments() const {
    QStringList args{QStringLiteral("export"), m_source, QStringLiteral("--out")};
    const QString dir = m_destination->text().trimmed();
    if (m_format->currentData().toString() == QLatin1String("gguf")) {
        const QString preset = m_quant->currentData().toString();
        args << QDir(dir).filePath(ollamaName(m_runName) + QLatin1Char('-') + preset + QStringLiteral(".gguf"))
             << QStringLiteral("--format") << QStringLiteral("gguf") << QStringLiteral("--quant") << preset
             << QStringLiteral("--name") << m_runName;
        if (!m_modelfile->isChecked()) args << QStringLiteral("--no-modelfile");
    } else {
        args << dir << QStringLiteral("--format") << QStringLiteral("hf") << QStringLiteral("--dtype")
             << m_dtype->currentData().toString();
    }
    return args;
}

void ExportDialog::start() {
    if (m_process) return;
    if (m_destination->text().trimmed().isEmpty()) {
        m_status->setText(tr("Choose the folder to export to."));
        return;
    }
    m_stdout.clear();
    m_stderrPartial.clear();
    m_stderrTail.clear();
    m_warnings.clear();
    m_cancelled = false;
    m_result->clear();
    m_result->setVisible(false);
    m_progress->setValue(0);
    m_progress->setVisible(true);
    m_process = new QProcess(this);
    connect(m_process, &QProcess::readyReadStandardOutput, this,
            [this] { m_stdout += m_process->readAllStandardOutput(); });
    onStderrLines(m_process, this, &m_stderrPartial, &m_stderrTail,
                  [this](const QByteArray& line) { processStderrLine(line); });
    connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        m_stdout += m_process->readAllStandardOutput();
        if (!m_stderrPartial.isEmpty()) processStderrLine(m_stderrPartial);
        m_stderrPartial.clear();
        finish(code, status != QProcess::NormalExit);
    });
    whenCliFailsToStart(m_process, m_cli, [this](const QString& message) {
        if (!m_process) return;
        m_status->setText(message);
        m_process->deleteLater();
        m_process = nullptr;
        m_export->setEnabled(true);
        m_cancel->setEnabled(false);
        m_progress->setVisible(false);
        emit finishedExport(false);
    });
    m_export->setEnabled(false);
    m_cancel->setEnabled(true);
    m_status->setText(tr("Reading the checkpoint…"));
    m_process->start(m_cli, exportArguments());
}

void ExportDialog::processStderrLine(const QByteArray& raw) {
    const QString line = QString::fromUtf8(raw).trimmed();
    static const QRegularExpression percent(QStringLiteral("^gguf: (\\d+)% \\(([\\d.]+) MiB of ([\\d.]+) MiB\\)$"));
    const QRegularExpressionMatch m = percent.match(line);
    if (m.hasMatch()) {
        m_progress->setValue(m.captured(1).toInt());
        m_status->setText(tr("Writing the tensors: %1 of %2 MiB").arg(m.captured(2), m.captured(3)));
    } else if (line.startsWith(QLatin1String("gguf: merging"))) {
        m_status->setText(tr("Merging the LoRA adapter into its base model…"));
    } else if (line.startsWith(QLatin1String("gguf: consolidating"))) {
        m_status->setText(tr("Gathering the ZeRO stage 3 shards…"));
    } else if (line.startsWith(QLatin1String("warning: "))) {
        m_warnings << line.mid(9);
    }
}

void ExportDialog::cancel() {
    if (!m_process) return;
    m_cancelled = true;
    m_status->setText(tr("Cancelling…"));
    m_process->terminate();  // fts export stops after the current tensor and removes the partial file
}

void ExportDialog::finish(int code, bool crashed) {
    m_process->deleteLater();
    m_process = nullptr;
    m_export->setEnabled(true);
    m_cancel->setEnabled(false);
    const QString out = QString::fromUtf8(m_stdout);
    if (!crashed && code == 0) {
        m_progress->setValue(100);
        static const QRegularExpression exported(QStringLiteral("^exported .* to (.+?)(?: \\((.*)\\))?$"),
                                                 QRegularExpression::MultilineOption);
        const QRegularExpressionMatch m = exported.match(out);
        const QString file = m.hasMatch() ? m.captured(1) : m_destination->text();
        QString text = tr("Written: %1").arg(QDir::toNativeSeparators(file));
        if (m.hasMatch() && !m.captured(2).isEmpty()) {
            // "(q4_k_m, 1.2 GiB; tensors: 169 q4_K, 57 f32)": the words in the studio's language
            static const QRegularExpression detail(QStringLiteral("^(\\S+), (.+); tensors: (.*)$"));
            const QRegularExpressionMatch d = detail.match(m.captured(2));
            text += QStringLiteral("\n(%1)").arg(
                d.hasMatch() ? tr("%1, %2; tensors: %3").arg(d.captured(1), d.captured(2), d.captured(3))
                             : m.captured(2));
        }
        if (out.contains(QLatin1String("Ollama: ollama create"))) {
            const QString dir = QFileInfo(file).absolutePath();
            const QString name = ollamaName(m_runName);
            text += QStringLiteral("\n\n") + tr("To run it with Ollama:") +
                    QStringLiteral("\n  cd \"%1\"\n  ollama create %2 -f Modelfile\n  ollama run %2").arg(dir, name);
        }
        if (!m_warnings.isEmpty())
            text += QStringLiteral("\n\n") + tr("llama.cpp differs from the trained model here:") +
                    QStringLiteral("\n- ") + m_warnings.join(QStringLiteral("\n- "));
        m_result->setPlainText(text);
        m_result->setVisible(true);
        // the result must not squeeze the rows above it (the quantization hint's lines): the dialog grows to what
        // its layout needs at its width, within the screen
        layout()->activate();
        int need = layout()->hasHeightForWidth() ? layout()->totalHeightForWidth(width()) : sizeHint().height();
        if (const QScreen* sc = screen()) need = std::min(need, sc->availableGeometry().height() - 40);
        if (need > height()) resize(width(), need);
        m_status->setText(tr("Done."));
        emit finishedExport(true);
        return;
    }
    m_progress->setVisible(false);
    if (m_cancelled) {
        m_status->setText(tr("Cancelled; nothing was written."));
    } else {
        QString why = QString::fromUtf8(m_stderrTail).trimmed();
        const qsizetype at = why.lastIndexOf(QLatin1String("error: "));
        if (at >= 0) why = why.mid(at + 7);
        m_status->setText(tr("The export failed: %1").arg(why));
    }
    emit finishedExport(false);
}

void ExportDialog::closeEvent(QCloseEvent* event) {
    cancel();
    QDialog::closeEvent(event);
}

}  // namespace fts
