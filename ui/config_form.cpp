// ConfigForm (see config_form.h): widgets from the field table, JSON <-> form sync, inline core issues.
#include "ui/config_form.h"
#include "ui/file_dialogs.h"
#include "ui/json_text_edit.h"
#include "ui/issue_text.h"

#include "ui/chart_widget.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStorageInfo>
#include <QToolButton>
#include <QVBoxLayout>

#include "ui/collapsible_section.h"
#include "ui/config_editor.h"
#include "ui/device_panel.h"
#include "ui/hosts_panel.h"
#include "ui/memory_bars.h"
#include "core/config/memory_estimate.h"
#include "core/util/json_parse.h"

namespace fts {
namespace {

QString trField(const char* text) { return QCoreApplication::translate("fts::ConfigForm", text); }

const char* kErrorStyle = "color: #c01c28;";
const char* kWarningStyle = "color: #b36b00;";
const char* kHintStyle = "color: palette(placeholder-text);";

// Whether a field's value (from its text) is what the JSON holds. A Block field only says "present".
bool sameValue(FieldKind kind, const std::optional<OrderedJson>& a, const OrderedJson* b) {
    if (!a) return b == nullptr || b->is_null();
    if (kind == FieldKind::Block && a->is_object())
        return b != nullptr && (b->is_object() || (b->is_boolean() && b->get<bool>()));  // `true` reads as present
    return b != nullptr && *a == *b;
}

}  // namespace

ConfigForm::ConfigForm(ConfigEditor* editor, QWidget* parent) : QWidget(parent), m_editor(editor) {
    setObjectName(QStringLiteral("configForm"));
    auto* layout = new QVBoxLayout(this);
    m_banner = new QLabel(this);
    m_banner->setObjectName(QStringLiteral("formBanner"));
    m_banner->setWordWrap(true);
    m_banner->setStyleSheet(QStringLiteral("QLabel { background: #fbe3e4; color: #8a1019; padding: 6px; }"));
    m_banner->hide();
    // A sweep block: the config is a set of runs for the queue, not one run to start.
    m_sweepNotice = new QWidget(this);
    m_sweepNotice->setObjectName(QStringLiteral("formSweepNotice"));
    m_sweepNotice->setStyleSheet(QStringLiteral("#formSweepNotice { background: #e6f0fa; }"));
    auto* sweepRow = new QHBoxLayout(m_sweepNotice);
    m_sweepText = new QLabel(m_sweepNotice);
    m_sweepText->setWordWrap(true);
    m_sweepText->setStyleSheet(QStringLiteral("QLabel { color: #123a5e; }"));
    m_sweepText->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_sweepQueue = new QPushButton(m_sweepNotice);
    m_sweepQueue->setObjectName(QStringLiteral("formSweepQueue"));
    connect(m_sweepQueue, &QPushButton::clicked, this, &ConfigForm::queueRequested);
    sweepRow->addWidget(m_sweepText, 1);
    sweepRow->addWidget(m_sweepQueue);
    m_sweepNotice->hide();
    m_otherIssues = new QLabel(this);
    m_otherIssues->setObjectName(QStringLiteral("formOtherIssues"));
    m_otherIssues->setWordWrap(true);
    m_otherIssues->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_otherIssues->hide();
    m_estimateTitle = new QLabel(this);
    QFont bold = m_estimateTitle->font();
    bold.setBold(true);
    m_estimateTitle->setFont(bold);
    m_estimateBars = new MemoryBars(this);
    m_estimateBars->setObjectName(QStringLiteral("estimateBars"));
    m_estimateText = new QLabel(this);
    m_estimateText->setObjectName(QStringLiteral("estimateText"));
    m_estimateText->setWordWrap(true);
    m_estimateText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_banner);
    layout->addWidget(m_sweepNotice);
    layout->addWidget(m_estimateTitle);
    layout->addWidget(m_estimateBars);
    layout->addWidget(m_estimateText);
    layout->addWidget(m_otherIssues);

    QHash<int, QFormLayout*> forms;
    for (FieldSection s : allSections()) {
        auto* sec = new CollapsibleSection(sectionTitle(s), this);
        sec->setObjectName(QStringLiteral("section%1").arg(int(s)));
        auto* form = new QFormLayout(sec->body());
        form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
        form->setContentsMargins(18, 0, 0, 6);
        m_sections.insert(int(s), sec);
        forms.insert(int(s), form);
        layout->addWidget(sec);
    }
    m_methodNote = new QLabel(this);
    m_methodNote->setWordWrap(true);
    forms[int(FieldSection::Method)]->addRow(m_methodNote);
    for (const ConfigField& f : configFields()) buildRow(f, forms[int(f.section)]);

    m_pickModel = new QPushButton(this);
    m_pickModel->setObjectName(QStringLiteral("pickModelButton"));
    connect(m_pickModel, &QPushButton::clicked, this, &ConfigForm::pickModelRequested);
    forms[int(FieldSection::Model)]->insertRow(1, QString(), m_pickModel);
    m_previewData = new QPushButton(this);
    m_previewData->setObjectName(QStringLiteral("previewDataButton"));
    connect(m_previewData, &QPushButton::clicked, this, &ConfigForm::previewDataRequested);
    forms[int(FieldSection::Data)]->insertRow(1, QString(), m_previewData);

    // The learning rate of every step as the run will use it (the editor computes it with the core's
    // learningRateAt): what the run page's lr chart will show, before launch.
    m_lrChart = new SeriesChart(QString(), QString(), QString(), this);
    m_lrChart->setObjectName(QStringLiteral("lrSchedulePreview"));
    m_lrChart->setZoomable(false);
    m_lrChart->setMinimumHeight(140);
    m_lrChart->legend->setVisible(false);
    m_lrNote = new QLabel(this);
    m_lrNote->setWordWrap(true);
    forms[int(FieldSection::Optimisation)]->addRow(m_lrNote);
    forms[int(FieldSection::Optimisation)]->addRow(m_lrChart);

    m_devices = new DevicePanel(this);
    forms[int(FieldSection::Devices)]->insertRow(0, m_devices);
    m_ranks = new QSpinBox(this);
    m_ranks->setObjectName(QStringLiteral("ranksSpin"));
    m_ranks->setRange(1, 64);
    m_ranksLabel = new QLabel(this);
    forms[int(FieldSection::Devices)]->addRow(m_ranksLabel, m_ranks);
    m_hosts = new HostsPanel(this);
    forms[int(FieldSection::Devices)]->addRow(m_hosts);
    // The estimate is judged against the chosen GPUs' memory (the smallest of them: each rank gets one).
    const auto gpuCapacity = [this]() -> qint64 {
        qint64 smallest = -1;
        for (int index : m_devices->selectedGpus())
            for (const GpuInfo& g : m_devices->lastResult().gpus)
                if (g.index == index && g.memoryTotalMiB > 0)
                    smallest = smallest < 0 ? g.memoryTotalMiB : std::min(smallest, g.memoryTotalMiB);
        return smallest < 0 ? -1 : smallest * 1024 * 1024;
    };
    connect(m_devices, &DevicePanel::selectionChanged, this, [this, gpuCapacity] {
        const QList<int> gpus = m_devices->selectedGpus();
        if (!gpus.isEmpty()) m_ranks->setValue(int(gpus.size()));  // one rank per GPU
        m_ranks->setEnabled(gpus.isEmpty());
        m_editor->setGpuCapacity(gpuCapacity());
    });
    // The world size the config is resolved with: this machine's ranks plus every chosen SSH host's.
    auto worldSize = [this] {
        int n = m_ranks->value();
        for (const RemoteHostChoice& h : m_hosts->selectedHosts())
            n += h.gpus.isEmpty() ? h.cpuRanks : int(h.gpus.size());
        return n;
    };
    connect(m_ranks, &QSpinBox::valueChanged, this, [this, worldSize] {
        m_editor->setWorldSize(worldSize());
        emit ranksChanged(m_ranks->value());
    });
    connect(m_hosts, &HostsPanel::selectionChanged, this, [this, worldSize] { m_editor->setWorldSize(worldSize()); });
    layout->addStretch(1);

    m_refresh.setSingleShot(true);
    m_refresh.setInterval(kRefreshDelayMs);
    connect(&m_refresh, &QTimer::timeout, this, &ConfigForm::refreshFromJson);
    connect(m_editor->textEdit(), &QPlainTextEdit::textChanged, this, [this] { m_refresh.start(); });
    connect(m_editor, &ConfigEditor::validationChanged, this, [this] {
        if (!m_editor->isValidated()) return;
        if (m_refresh.isActive()) refreshFromJson();  // never show issues of a text the form does not show yet
        applyIssues();
        applyLrSchedule();
    });
    retranslate();
    refreshFromJson();
}

void ConfigForm::buildRow(const ConfigField& field, QFormLayout* form) {
    Row row;
    row.field = &field;
    row.form = form;
    row.container = new QWidget(this);
    auto* v = new QVBoxLayout(row.container);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(1);
    auto* h = new QHBoxLayout;
    h->setContentsMargins(0, 0, 0, 0);
    const QString key = field.key;
    const QString name = QStringLiteral("field:") + key;
    if (field.kind == FieldKind::Block) {
        row.combo = new QComboBox(row.container);
        row.combo->setObjectName(name);
        row.combo->addItem(trField(field.choices.value(0).toUtf8().constData()), QString());  // key absent
        row.combo->addItem(trField(field.choices.value(1).toUtf8().constData()), QStringLiteral("on"));
        connect(row.combo, &QComboBox::activated, this, [this, key] { writeField(key); });
        h->addWidget(row.combo, 1);
    } else if (field.kind == FieldKind::Boolean || field.kind == FieldKind::Choice) {
        row.combo = new QComboBox(row.container);
        row.combo->setObjectName(name);
        if (field.editable) {
            row.combo->setEditable(true);
            row.combo->setInsertPolicy(QComboBox::NoInsert);
            row.combo->addItems(field.choices);
            row.combo->setCurrentIndex(-1);
            connect(row.combo->lineEdit(), &QLineEdit::textEdited, this, [this, key] { writeField(key); });
        } else {
            row.combo->addItem(QString(), QString());  // "default: ..." (key absent)
            const QStringList values = field.kind == FieldKind::Boolean
                                           ? QStringList{QStringLiteral("true"), QStringLiteral("false")}
                                           : field.choices;
            for (const QString& c : values) row.combo->addItem(c, c);
        }
        connect(row.combo, &QComboBox::activated, this, [this, key] { writeField(key); });
        h->addWidget(row.combo, 1);
    } else {
        row.edit = new QLineEdit(row.container);
        row.edit->setObjectName(name);
        row.edit->setClearButtonEnabled(true);
        connect(row.edit, &QLineEdit::textEdited, this, [this, key] { writeField(key); });
        h->addWidget(row.edit, 1);
        if (field.kind == FieldKind::FilePath || field.kind == FieldKind::DirPath) {
            auto* b = new QToolButton(row.container);
            b->setText(QStringLiteral("…"));
            b->setObjectName(QStringLiteral("browse:") + key);
            connect(b, &QToolButton::clicked, this, [this, key] { browse(key); });
            h->addWidget(b);
        }
    }
    v->addLayout(h);
    row.error = new QLabel(row.container);
    row.error->setObjectName(QStringLiteral("error:") + key);
    row.error->setWordWrap(true);
    row.error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    row.error->hide();
    v->addWidget(row.error);
    row.label = new QLabel(this);
    row.label->setBuddy(row.edit ? static_cast<QWidget*>(row.edit) : row.combo);
    form->addRow(row.label, row.container);
    m_rows.insert(key, row);
}

QWidget* ConfigForm::fieldWidget(const QString& key) const {
    const auto it = m_rows.find(key);
    if (it == m_rows.end()) return nullptr;
    return it->edit ? static_cast<QWidget*>(it->edit) : it->combo;
}

QLabel* ConfigForm::fieldErrorLabel(const QString& key) const {
    const auto it = m_rows.find(key);
    return it == m_rows.end() ? nullptr : it->error;
}

QLabel* ConfigForm::fieldLabel(const QString& key) const {
    const auto it = m_rows.find(key);
    return it == m_rows.end() ? nullptr : it->label;
}

QString ConfigForm::widgetText(const Row& row) {
    if (row.edit) return row.edit->text();
    if (row.combo->isEditable()) return row.combo->currentText();
    return row.combo->currentData().toString();
}

QString ConfigForm::fieldText(const QString& key) const {
    const auto it = m_rows.find(key);
    return it == m_rows.end() ? QString() : widgetText(*it);
}

bool ConfigForm::isFieldShown(const QString& key) const {
    const auto it = m_rows.find(key);
    return it != m_rows.end() && it->form->isRowVisible(it->container);
}

void ConfigForm::setFieldText(const QString& key, const QString& text) {
    const auto it = m_rows.find(key);
    if (it == m_rows.end()) return;
    if (it->edit) {
        it->edit->setText(text);
    } else if (it->combo->isEditable()) {
        it->combo->setEditText(text);
    } else {
        int index = it->combo->findData(text);
        if (index < 0) {
            it->combo->addItem(text, text);
            index = it->combo->count() - 1;
        }
        it->combo->setCurrentIndex(index);
    }
    writeField(key);
}

void ConfigForm::writeField(const QString& key) {
    const auto it = m_rows.find(key);
    if (it == m_rows.end() || m_jsonBroken) return;
    const QString current = m_editor->text();
    OrderedJson doc =
        current.trimmed().isEmpty() ? OrderedJson::object() : parseOrderedJsonOrDiscarded(current.toStdString());
    if (doc.is_discarded() || !doc.is_object()) return;  // refreshFromJson shows the banner
    const std::optional<OrderedJson> value = jsonFromFieldText(it->field->kind, widgetText(*it));
    if (sameValue(it->field->kind, value, jsonAt(doc, key))) return;
    const OrderedJson before = doc;
    if (value)
        setJsonAt(doc, key, *value);
    else
        removeJsonAt(doc, key);
    linkPeakLearningRate(doc, key);
    // Only the edited key's text changes (and the peak lr it is linked to): the rest of the file stays as written.
    m_writing = true;
    m_editor->replaceText(editedJsonText(current, before, doc,
                                         {key, QStringLiteral("deepspeed.optimizer.params.lr"),
                                          QStringLiteral("deepspeed.scheduler.params.warmup_max_lr")}));
    m_writing = false;
    emit fieldEdited(key);
}

// One peak learning rate: WarmupLR and WarmupDecayLR overwrite the optimizer's lr every step and peak at the
// scheduler's warmup_max_lr (DeepSpeed's semantics), so an edit of either number sets the other too. A key set
// to "auto" (the Trainer's) or written as something other than a number is left alone.
void ConfigForm::linkPeakLearningRate(OrderedJson& doc, const QString& editedKey) {
    static const QString lrKey = QStringLiteral("deepspeed.optimizer.params.lr");
    static const QString peakKey = QStringLiteral("deepspeed.scheduler.params.warmup_max_lr");
    if (editedKey != lrKey && editedKey != peakKey) return;
    const OrderedJson* type = jsonAt(doc, QStringLiteral("deepspeed.scheduler.type"));
    if (!type || !type->is_string() || (*type != "WarmupLR" && *type != "WarmupDecayLR")) return;
    const OrderedJson* edited = jsonAt(doc, editedKey);
    if (!edited || !edited->is_number()) return;
    const QString other = editedKey == lrKey ? peakKey : lrKey;
    const OrderedJson* current = jsonAt(doc, other);
    if (current && !current->is_number()) return;
    // The optimizer's lr is written only where the config has an optimizer block (its absence is meaningful).
    if (other == lrKey && !jsonAt(doc, QStringLiteral("deepspeed.optimizer"))) return;
    const OrderedJson value = *edited;
    setJsonAt(doc, other, value);
}

void ConfigForm::refreshFromJson() {
    m_refresh.stop();
    const QString text = m_editor->text();
    const OrderedJson doc =
        text.trimmed().isEmpty() ? OrderedJson::object() : parseOrderedJsonOrDiscarded(text.toStdString());
    m_jsonBroken = doc.is_discarded() || !doc.is_object();
    m_banner->setVisible(m_jsonBroken);
    m_hasSweep = !m_jsonBroken && doc.contains("sweep");
    m_sweepNotice->setVisible(m_hasSweep);
    for (CollapsibleSection* s : std::as_const(m_sections)) s->body()->setEnabled(!m_jsonBroken);
    if (m_jsonBroken) return;
    for (auto it = m_rows.begin(); it != m_rows.end(); ++it) {
        Row& row = *it;
        const OrderedJson* value = jsonAt(doc, it.key());
        if (sameValue(row.field->kind, jsonFromFieldText(row.field->kind, widgetText(row)), value))
            continue;  // e.g. being typed
        const QString shown = value ? fieldTextFromJson(row.field->kind, *value) : QString();
        if (row.edit) {
            row.edit->setText(shown);
        } else if (row.combo->isEditable()) {
            row.combo->setEditText(shown);
        } else {
            int index = row.combo->findData(shown);
            if (index < 0) {  // a value outside the choices: shown as is (the core says whether it is valid)
                row.combo->addItem(shown, shown);
                index = row.combo->count() - 1;
            }
            row.combo->setCurrentIndex(index);
        }
    }
    const QString resolvedText = m_editor->lastGoodResolvedJson();
    const nlohmann::json resolved =
        resolvedText.isEmpty() ? nlohmann::json::object() : parseJsonOrDiscarded(resolvedText.toStdString());
    updateVisibility(doc, resolved.is_discarded() ? nlohmann::json::object() : resolved);
}

void ConfigForm::updateVisibility(const OrderedJson& doc, const nlohmann::json& resolved) {
    for (const Row& row : std::as_const(m_rows)) {
        const ConfigField& f = *row.field;
        bool shown = true;
        if (!f.whenKey.isEmpty() && f.whenValues.isEmpty()) {
            shown = jsonAt(doc, f.whenKey) != nullptr;  // e.g. the LoRA keys while model.lora is there
        } else if (!f.whenKey.isEmpty()) {
            QString value;
            if (const OrderedJson* v = jsonAt(doc, f.whenKey))
                value = fieldTextFromJson(FieldKind::Text, *v);
            else if (const nlohmann::json* r = jsonAt(resolved, f.whenKey))
                value = fieldTextFromJson(FieldKind::Text, *r);
            shown = f.whenValues.contains(value);
            // A value written for a hidden field stays visible, so it can be seen and removed.
            if (!shown && jsonAt(doc, f.key)) shown = true;
        }
        if (row.form->isRowVisible(row.container) != shown) row.form->setRowVisible(row.container, shown);
    }
}

void ConfigForm::applyPlaceholders(const nlohmann::json& resolved) {
    for (const Row& row : std::as_const(m_rows)) {
        if (row.field->kind == FieldKind::Block) continue;  // its first item names the absent state
        const nlohmann::json* r = jsonAt(resolved, row.field->key);
        QString ph;
        if (r && !r->is_null())
            ph = fieldTextFromJson(row.field->kind, *r);
        else
            ph = row.field->required ? tr("required") : tr("not set");
        if (row.edit) {
            row.edit->setPlaceholderText(ph);
        } else if (row.combo->isEditable()) {
            row.combo->lineEdit()->setPlaceholderText(ph);
        } else {
            row.combo->setItemText(0, r && !r->is_null() ? tr("default: %1").arg(ph) : tr("default (%1)").arg(ph));
        }
    }
}

void ConfigForm::applyIssues() {
    const QString resolvedText = m_editor->lastGoodResolvedJson();
    nlohmann::json resolved =
        resolvedText.isEmpty() ? nlohmann::json::object() : parseJsonOrDiscarded(resolvedText.toStdString());
    if (resolved.is_discarded()) resolved = nlohmann::json::object();
    applyPlaceholders(resolved);
    OrderedJson doc;
    if (!m_jsonBroken) {
        doc = parseOrderedJsonOrDiscarded(m_editor->text().toStdString());
        if (!doc.is_discarded() && doc.is_object()) updateVisibility(doc, resolved);
    }
    const bool haveDoc = !m_jsonBroken && !doc.is_discarded() && doc.is_object();

    QHash<QString, QStringList> errors, warnings;
    QStringList other;
    for (const EditorIssue& issue : m_editor->issues()) {
        const QString key = fieldForIssue(issue.keyPath);
        if (key.isEmpty()) {
            const QString where = issue.keyPath.isEmpty() ? QString() : issue.keyPath + QStringLiteral(": ");
            other << QStringLiteral("<span style=\"%1\">%2</span>")
                         .arg(QLatin1String(issue.isError ? kErrorStyle : kWarningStyle),
                              (where + issue.message).toHtmlEscaped());
            continue;
        }
        QString message = issue.message;
        if (issue.keyPath != key) message = issue.keyPath + QStringLiteral(": ") + message;
        (issue.isError ? errors : warnings)[key] << message;
    }
    QHash<int, int> sectionErrors;
    for (auto it = m_rows.begin(); it != m_rows.end(); ++it) {
        Row& row = *it;
        const QStringList e = errors.value(it.key()), w = warnings.value(it.key());
        QWidget* input = row.edit ? static_cast<QWidget*>(row.edit) : row.combo;
        if (e.isEmpty() && w.isEmpty()) {
            input->setStyleSheet(QString());
            input->setToolTip(trField(row.field->help));
            // "auto" (the Hugging Face Trainer's placeholder): what it resolves to, under the field.
            const OrderedJson* given = haveDoc ? jsonAt(doc, row.field->key) : nullptr;
            const nlohmann::json* value = jsonAt(resolved, row.field->key);
            if (given && given->is_string() && given->get<std::string>() == "auto" && value) {
                const bool atRunStart = value->is_string() && value->get<std::string>() == "auto";
                row.error->setText(atRunStart
                                       ? autoAtRunStartText(row.field->key)
                                       : tr("\"auto\" resolves to %1").arg(fieldTextFromJson(row.field->kind, *value)));
                row.error->setStyleSheet(QLatin1String(kHintStyle));
                row.error->show();
                continue;
            }
            row.error->hide();
            row.error->clear();
            continue;
        }
        const QString text = (e + w).join(QLatin1Char('\n'));
        row.error->setText(text);
        row.error->setStyleSheet(QLatin1String(e.isEmpty() ? kWarningStyle : kErrorStyle));
        row.error->show();
        input->setStyleSheet(e.isEmpty() ? QString() : QStringLiteral("border: 1px solid #c01c28;"));
        input->setToolTip(text);
        if (!e.isEmpty()) {
            sectionErrors[int(row.field->section)] += static_cast<int>(e.size());
            if (!row.form->isRowVisible(row.container)) row.form->setRowVisible(row.container, true);
        }
    }
    for (auto it = m_sections.begin(); it != m_sections.end(); ++it) {
        const int n = sectionErrors.value(it.key());
        it.value()->setErrorCount(n);
        if (n > 0) it.value()->setExpanded(true);
    }
    m_otherIssues->setText(other.join(QStringLiteral("<br>")));
    m_otherIssues->setVisible(!other.isEmpty());
    applyEstimate();
}

void ConfigForm::applyLrSchedule() {
    const QVector<QPointF>& points = m_editor->lrSchedule();
    m_lrChart->setVisible(!points.isEmpty());
    m_lrNote->setText(points.isEmpty() ? tr("Learning-rate schedule: shown once the config is valid and sets max steps "
                                            "(with epochs the steps are known at run start).")
                                       : tr("Learning-rate schedule of this run (step → lr):"));
    // A warm-up from 0 gives the first step a learning rate of 0 (DeepSpeed's WarmupLR does the same), which reads
    // as a bug on the run page's lr chart and its flat first losses: said where the user looks.
    const bool startsAtZero = !points.isEmpty() && points.front().y() == 0.0;
    const QString why =
        tr("The learning rate each optimizer step will use, as the run computes it. With a warm-up "
           "from 0 (warmup_min_lr 0) the first step's rate is 0, so the loss does not move at step "
           "1: DeepSpeed's WarmupLR does the same (it sets the minimum before the first step), and "
           "configs train here as they do there. Set warmup_min_lr above 0 to start moving at once.");
    m_lrChart->setToolTip(why);
    m_lrNote->setToolTip(why);
    if (startsAtZero) m_lrNote->setText(m_lrNote->text() + QLatin1Char(' ') + tr("(step 1 at 0: see the tooltip)"));
    QCPGraph* g = m_lrChart->ensureGraph(QStringLiteral("lr"), tr("lr"), QPen(SeriesChart::seriesColor(0), 1.5));
    QVector<double> xs, ys;
    xs.reserve(points.size());
    ys.reserve(points.size());
    for (const QPointF& p : points) {
        xs << p.x();
        ys << p.y();
    }
    g->setData(xs, ys, true);
    m_lrChart->refresh();
}

void ConfigForm::applyEstimate() {
    const auto gib = [](int64_t b) { return QString::fromStdString(formatBytes(b)); };
    const nlohmann::json e = parseJsonOrDiscarded(m_editor->estimateJson().toStdString());
    if (e.is_discarded() || !e.is_object()) {
        m_estimateBars->setBars({});
        m_estimateBars->hide();
        const QString why = m_editor->estimateError();
        m_estimateText->setText(why.isEmpty() ? tr("No estimate while the config has errors.")
                                              : tr("No estimate: %1").arg(issueText(why)));
        m_estimateText->setStyleSheet(QString());
        return;
    }
    const nlohmann::json& r = e["per_rank"];
    MemoryBar bar;
    bar.label = tr("per rank (%1)").arg(QString::fromStdString(e.value("device", std::string())));
    bar.allocated = r.value("total", int64_t(0));
    if (e["device_capacity"].is_number()) bar.capacity = e["device_capacity"].get<int64_t>();
    // Optimizer offload: where the moved states rest, each its own bar (host RAM shared by the ranks; NVMe bytes).
    QList<MemoryBar> bars{bar};
    const int64_t hostOff = r.value("host_offload", int64_t(0)), nvmeOff = r.value("nvme_offload", int64_t(0));
    if (hostOff > 0) {
        MemoryBar h;
        h.label = tr("host (offload)");
        h.allocated = hostOff;
        const auto [used, total] = hostMemory();
        if (total > 0) h.capacity = total / std::max(1, e.value("world_size", 1));
        bars << h;
    }
    if (nvmeOff > 0) {
        MemoryBar n;
        n.label = tr("NVMe (offload)");
        n.allocated = nvmeOff;
        // Against the free space of offload_optimizer.nvme_path, shared by the ranks.
        const nlohmann::json resolved = parseJsonOrDiscarded(m_editor->resolvedJson().toStdString());
        const nlohmann::json* off = resolved.is_object() ? &resolved : nullptr;
        for (const char* k : {"deepspeed", "zero_optimization", "offload_optimizer", "nvme_path"})
            off = off && off->is_object() && off->contains(k) ? &(*off)[k] : nullptr;
        if (off && off->is_string()) {
            const QStorageInfo disk(QString::fromStdString(off->get<std::string>()));
            if (disk.isValid() && disk.bytesAvailable() > 0)
                n.capacity = disk.bytesAvailable() / std::max(1, e.value("world_size", 1));
        }
        bars << n;
    }
    m_estimateBars->setBars(bars);
    m_estimateBars->show();
    QStringList lines;
    // The terms alive at the peak: gradients, the loss's workspace and the optimizer's fp32 gradient do not all exist
    // at once (docs/estimate.md, "The peak").
    const std::string phase = r.value("phase", std::string());
    const QString when = phase == "backward (start)" ? tr("at the start of backward")
                         : phase == "backward (end)" ? tr("at the end of backward")
                         : phase == "optimizer step" ? tr("during the optimizer step")
                                                     : QString::fromStdString(phase);
    lines << tr("At its peak (%1): parameters %2 · gradients %3 · optimizer %4 · activations %5 · buckets and "
                "workspace %6 · runtime %7 (%8 ranks, ZeRO %9)")
                 .arg(when, gib(r.value("parameters", int64_t(0))),
                      gib(r.value("gradients", int64_t(0)) + r.value("master_gradients", int64_t(0))),
                      gib(r.value("optimizer_states", int64_t(0))), gib(r.value("activations", int64_t(0))),
                      gib(r.value("buckets", int64_t(0)) + r.value("workspace", int64_t(0)) +
                          r.value("allocator_slack", int64_t(0))),
                      gib(r.value("runtime", int64_t(0))))
                 .arg(e.value("world_size", 1))
                 .arg(QStringLiteral("%1, %2")
                          .arg(e.value("zero_stage", 0))
                          .arg(QString::fromStdString(e.value("precision", std::string()))));
    const QString offOpt = QString::fromStdString(e.value("offload_optimizer", std::string("none")));
    const QString offParam = QString::fromStdString(e.value("offload_param", std::string("none")));
    if ((hostOff > 0 || nvmeOff > 0) && offParam == QLatin1String("none"))
        lines
            << tr("Optimizer state offloaded (%1): %2 in host memory, %3 on NVMe; the optimizer step runs on the CPU.")
                   .arg(offOpt, gib(hostOff), gib(nvmeOff));
    else if (hostOff > 0 || nvmeOff > 0)
        lines << tr("Offloaded (optimizer state: %1, parameter shards: %2): %3 in host memory, %4 on NVMe.")
                     .arg(offOpt, offParam, gib(hostOff), gib(nvmeOff));
    if (bar.capacity <= 0) lines << tr("The device's capacity is not known here: the estimate is not judged.");
    const bool fits = e.value("fits", true);
    if (!fits) {
        lines << tr("<b>It does not fit in %1.</b> Suggestions:").arg(gib(bar.capacity));
        for (const auto& s : e["suggestions"])
            lines << QStringLiteral("• %1 → %2%3")
                         .arg(QString::fromStdString(s.value("description", std::string())).toHtmlEscaped(),
                              gib(s.value("total", int64_t(0))), s.value("fits", false) ? tr(" (fits)") : QString());
    }
    m_estimateText->setText(lines.join(QStringLiteral("<br>")));
    m_estimateText->setStyleSheet(fits ? QString() : QStringLiteral("color: #c01c28;"));
}

QString ConfigForm::fieldForIssue(const QString& issueKeyPath) {
    if (issueKeyPath.isEmpty()) return {};
    for (const ConfigField& f : configFields())
        if (f.key == issueKeyPath) return f.key;
    for (const ConfigField& f : configFields())
        if (issueKeyPath.startsWith(f.key + QLatin1Char('.')) || issueKeyPath.startsWith(f.key + QLatin1Char('[')))
            return f.key;
    for (const ConfigField& f : configFields())
        if (f.key.startsWith(issueKeyPath + QLatin1Char('.'))) return f.key;
    return {};
}

void ConfigForm::browse(const QString& key) {
    const auto it = m_rows.find(key);
    if (it == m_rows.end()) return;
    QString start = it->edit->text();
    if (start.isEmpty() || QDir::isRelativePath(start)) start = QDir(m_editor->baseDir()).absoluteFilePath(start);
    const QString label = trField(it->field->label);
    const QString path = it->field->kind == FieldKind::DirPath ? existingDirectory(this, label, start)
                                                               : openFileName(this, label, start);
    if (!path.isEmpty()) setFieldText(key, path);
}

void ConfigForm::retranslate() {
    for (FieldSection s : allSections()) m_sections[int(s)]->setTitle(sectionTitle(s));
    if (m_lrChart) applyLrSchedule();
    for (Row& row : m_rows) {
        row.label->setText(trField(row.field->label));
        if (row.field->kind == FieldKind::Block)
            for (int i = 0; i < 2; ++i)
                row.combo->setItemText(i, trField(row.field->choices.value(i).toUtf8().constData()));
        QWidget* input = row.edit ? static_cast<QWidget*>(row.edit) : row.combo;
        if (row.error->isHidden()) input->setToolTip(trField(row.field->help));
    }
    m_banner->setText(tr("The JSON has a syntax error: fix it in the JSON editor; the form follows once it parses."));
    m_methodNote->setText(
        tr("Full fine-tuning trains every weight; LoRA trains small adapters next to the frozen "
           "weights (model.lora). The run stops by steps when max steps > 0, else by epochs."));
    m_sweepText->setText(
        tr("This config has a sweep block: it is a set of runs, one per combination of the swept values, and they "
           "go to the queue rather than start here. Start is off while the block is there."));
    m_sweepQueue->setText(tr("Add to queue"));
    m_pickModel->setText(tr("Pick a model…"));
    m_previewData->setText(tr("Preview the data…"));
    m_ranksLabel->setText(tr("Ranks (processes)"));
    m_estimateTitle->setText(tr("Memory per rank (estimate)"));
    m_ranks->setToolTip(
        tr("Local processes to launch (fts train --nproc); the batch sizes are validated for this "
           "world size"));
    if (m_editor->isValidated()) applyIssues();
}

// What an "auto" the config leaves to the run's start becomes, said for the field it is in: the precision where the
// device supports bf16, the data format from the data's first rows, anything else at the start.
QString ConfigForm::autoAtRunStartText(const QString& key) {
    if (key.contains(QLatin1String("bf16")) || key.contains(QLatin1String("bfloat16")) ||
        key.contains(QLatin1String("fp16")))
        return tr("\"auto\": decided at run start (bf16 where the device supports it)");
    if (key == QLatin1String("data.format")) return tr("\"auto\": read from the data's first rows at run start");
    return tr("\"auto\": decided at run start");
}

void ConfigForm::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) retranslate();
    QWidget::changeEvent(event);
}

}  // namespace fts
