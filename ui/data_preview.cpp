// DataPreview (see data_preview.h).
#include "ui/data_preview.h"

#include <QApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QPointer>
#include <QProgressBar>
#include <QTextBrowser>
#include <QThread>
#include <QVBoxLayout>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "core/config/hf_cache.h"
#include "core/data/classification_dataset.h"
#include "core/data/preference_pairs.h"
#include "core/data/sft_dataset.h"
#include "core/data/tokenizer.h"
#include "core/util/json_parse.h"

namespace fts {
namespace {

QString str(const nlohmann::json& doc, const char* section, const char* key) {
    if (!doc.is_object() || !doc.contains(section) || !doc[section].is_object()) return {};
    const auto& s = doc[section];
    if (!s.contains(key)) return {};
    if (s[key].is_string()) return QString::fromStdString(s[key].get<std::string>());
    if (s[key].is_number_integer()) return QString::number(s[key].get<qint64>());
    if (s[key].is_boolean()) return s[key].get<bool>() ? QStringLiteral("true") : QStringLiteral("false");
    return {};
}

}  // namespace

std::optional<DataPreviewRequest> previewRequestFromConfig(const QString& resolvedJson, const QString& rawJson,
                                                           QString* error) {
    const nlohmann::json resolved = parseJsonOrDiscarded(resolvedJson.toStdString());
    const nlohmann::json raw = parseJsonOrDiscarded(rawJson.toStdString());
    if (resolved.is_discarded() || !resolved.is_object()) {
        if (error)
            *error = QCoreApplication::translate("fts::DataPreviewDialog",
                                                 "The config has errors; fix them to preview its data.");
        return std::nullopt;
    }
    DataPreviewRequest r;
    r.train = str(resolved, "data", "train");
    if (r.train.isEmpty()) {
        if (error)
            *error = QCoreApplication::translate("fts::DataPreviewDialog",
                                                 "The config names no training data (data.train).");
        return std::nullopt;
    }
    if (const QString f = str(resolved, "data", "text_field"); !f.isEmpty()) r.textField = f;
    if (const QString v = str(resolved, "training", "objective"); !v.isEmpty()) r.objective = v;
    r.keepEnd = str(resolved, "preference", "truncation_mode") == QLatin1String("keep_end");
    r.maxPromptLength = str(resolved, "preference", "max_prompt_length").toLongLong();
    r.maxLength = str(resolved, "data", "max_length").toLongLong();
    r.modelDir = str(resolved, "model", "path");
    r.tokenizer = str(resolved, "model", "tokenizer");
    // Data keys of the SFT pipeline, read from whichever form carries them.
    for (const nlohmann::json* doc : {&resolved, &raw}) {
        if (doc->is_discarded()) continue;
        if (const QString v = str(*doc, "data", "format"); !v.isEmpty()) r.format = v;
        for (const char* k : {"template", "chat_template"})
            if (const QString v = str(*doc, "data", k); !v.isEmpty()) r.chatTemplate = v;
        if (const QString v = str(*doc, "data", "train_on_prompt"); !v.isEmpty()) r.trainOnPrompt = v == "true";
        if (doc->contains("data") && (*doc)["data"].is_object() && (*doc)["data"].contains("columns") &&
            (*doc)["data"]["columns"].is_object())
            for (const auto& [role, name] : (*doc)["data"]["columns"].items())
                if (name.is_string())
                    r.columns[QString::fromStdString(role)] = QString::fromStdString(name.get<std::string>());
    }
    return r;
}

namespace {

// Classification rows: the label distribution of the whole training file as bars, then the first rows with their
// label and token count (a sentence pair as text ‖ pair).
void previewClassification(const DataPreviewRequest& request, const Tokenizer& tokenizer, DataPreviewResult& out) {
    ClassificationOptions o;
    o.trainPath = request.train.toStdString();
    std::map<std::string, std::string> columns;
    for (const auto& [role, name] : request.columns) columns[role.toStdString()] = name.toStdString();
    o.columns = classificationColumns(request.textField.toStdString(), columns, o.textPairNamed);
    if (request.maxLength > 0) o.maxLength = request.maxLength;
    const ClassificationData d = buildClassificationData(o, tokenizer);
    const ClassificationSplit& t = d.train;
    out.samples = t.size();
    out.truncated = d.truncated;
    out.badRows = d.badRows;
    for (int64_t i = 0; i < t.size(); ++i) out.maxTokens = std::max<qint64>(out.maxTokens, t.length(i));
    out.meanTokens = t.size() > 0 ? double(t.inputIds.size()) / double(t.size()) : 0.0;
    QString html;
    if (d.kind != LabelKind::Regression) {
        html += QStringLiteral("<h4>%1</h4><table cellspacing=\"4\">")
                    .arg(QCoreApplication::translate("fts::DataPreviewDialog", "Labels in the training data")
                             .toHtmlEscaped());
        const double total = double(std::max<int64_t>(1, t.size()));
        for (size_t k = 0; k < d.labelNames.size(); ++k) {
            const QString name = QString::fromStdString(d.labelNames[k]);
            out.labelNames << name;
            out.labelCounts << d.trainLabelCounts[k];
            const int width = int(std::lround(240.0 * double(d.trainLabelCounts[k]) / total));
            html += QStringLiteral(
                        "<tr><td>%1 · %2</td><td><table cellspacing=\"0\" cellpadding=\"0\"><tr><td width=\"%3\" "
                        "style=\"background:#3584e4\">&nbsp;</td></tr></table></td><td>%4 (%5%)</td></tr>")
                        .arg(k)
                        .arg(name.toHtmlEscaped())
                        .arg(std::max(1, width))
                        .arg(d.trainLabelCounts[k])
                        .arg(100.0 * double(d.trainLabelCounts[k]) / total, 0, 'f', 1);
        }
        html += QStringLiteral("</table>");
    }
    const int shown = int(std::min<int64_t>(request.samples, t.size()));
    for (int i = 0; i < shown; ++i) {
        const int64_t width = d.targetWidth;
        QStringList labels;
        for (int64_t k = 0; k < width; ++k) {
            const float v = t.targets[size_t(i * width + k)];
            if (d.kind == LabelKind::Regression)
                labels << QString::number(v);
            else if (d.kind == LabelKind::SingleLabel)
                labels << QString::fromStdString(d.labelNames[size_t(v)]);
            else if (v > 0.5f)
                labels << QString::fromStdString(d.labelNames[size_t(k)]);
        }
        std::vector<int32_t> a, b;
        for (int64_t p = t.offsets[size_t(i)]; p < t.offsets[size_t(i) + 1]; ++p)
            (t.typeIds[size_t(p)] == 0 ? a : b).push_back(t.inputIds[size_t(p)]);
        QString text = QString::fromStdString(tokenizer.decode(a, true)).toHtmlEscaped();
        if (d.pairs)
            text += QStringLiteral(" <span style=\"color:#3584e4\">‖</span> ") +
                    QString::fromStdString(tokenizer.decode(b, true)).toHtmlEscaped();
        html += QStringLiteral("<h4>%1</h4><p>%2</p>")
                    .arg(QCoreApplication::translate("fts::DataPreviewDialog", "Line %1 · label %2 · %3 tokens")
                             .arg(t.lines[size_t(i)])
                             .arg(labels.join(QStringLiteral(", ")))
                             .arg(t.length(i))
                             .toHtmlEscaped(),
                         text);
    }
    out.html = html;
    out.shown = shown;
    QStringList lines;
    lines << QCoreApplication::translate("fts::DataPreviewDialog", "Rows: %1 (%2, %3 labels%4)")
                 .arg(t.size())
                 .arg(QString::fromLatin1(problemTypeName(d.kind)))
                 .arg(d.numLabels())
                 .arg(d.pairs ? QCoreApplication::translate("fts::DataPreviewDialog", ", sentence pairs") : QString());
    lines << QCoreApplication::translate("fts::DataPreviewDialog", "Tokens per row: mean %1, max %2")
                 .arg(out.meanTokens, 0, 'f', 1)
                 .arg(out.maxTokens);
    lines << QCoreApplication::translate("fts::DataPreviewDialog", "Truncated to %1 tokens: %2 · bad rows: %3")
                 .arg(o.maxLength)
                 .arg(d.truncated)
                 .arg(d.badRows);
    for (const std::string& m : d.badRowMessages) lines << QString::fromStdString(m);
    out.statsText = lines.join(QLatin1Char('\n'));
    out.ok = true;
}

// Preference pairs: the first pairs as the objective tokenizes them (the prompt, then each completion), with the
// pairs, dropped and truncated counts over the whole training file.
void previewPairs(const DataPreviewRequest& request, const Tokenizer& tokenizer, const std::filesystem::path& modelDir,
                  DataPreviewResult& out) {
    PreferenceOptions o;
    o.files.trainPath = request.train.toStdString();
    if (request.maxLength > 0) o.files.maxLength = request.maxLength;
    o.files.modelDir = modelDir;
    if (!request.chatTemplate.isEmpty()) o.files.chatTemplate = request.chatTemplate.toStdString();
    o.files.shuffle = false;
    o.files.maxBadRowsShown = 5;
    o.layout = pairLayoutFromName(request.format.isEmpty() ? "auto" : request.format.toStdString());
    o.tokenization = request.objective == QLatin1String("dpo") ? PairTokenization::Dpo : PairTokenization::Cpo;
    o.keepEnd = request.keepEnd;
    if (request.maxPromptLength > 0) o.maxPromptLength = request.maxPromptLength;
    for (const auto& [role, name] : request.columns) {
        const std::string n = name.toStdString();
        if (role == QLatin1String("prompt")) o.promptField = n;
        if (role == QLatin1String("chosen")) o.chosenField = n;
        if (role == QLatin1String("rejected")) o.rejectedField = n;
        if (role == QLatin1String("instruction")) o.files.fields.instruction = n;
        if (role == QLatin1String("input")) o.files.fields.input = n;
        if (role == QLatin1String("system")) o.files.fields.system = n;
        if (role == QLatin1String("messages")) o.files.fields.messages = n;
    }
    const PreferenceData d = buildPreferenceData(o, tokenizer);
    const PreferenceStats& s = d.stats;
    out.samples = s.pairs;
    out.truncated = s.truncated;
    out.dropped = s.promptTooLong;
    out.badRows = s.badRows;
    out.maxTokens = s.maxTokens;
    out.meanTokens = s.meanTokens;
    auto marked = [](const char* style, const QString& text) {
        return QStringLiteral("<span style=\"%1\">%2</span>").arg(QLatin1String(style), text.toHtmlEscaped());
    };
    auto span = [&](const std::vector<int32_t>& ids, int64_t from, int64_t to, const char* style) {
        const std::vector<int32_t> part(ids.begin() + from, ids.begin() + to);
        return marked(style, QString::fromStdString(tokenizer.decode(part, false)));
    };
    const char* prompt = "background:#dde1e6;color:#555";
    const char* chosen = "background:#dff3dc";
    const char* rejected = "background:#f6d8d8";
    const auto legend = [](const char* text) { return QCoreApplication::translate("fts::DataPreviewDialog", text); };
    QString html = QStringLiteral("<p>%1 &nbsp; %2 &nbsp; %3</p>")
                       .arg(marked(prompt, legend(QT_TRANSLATE_NOOP("fts::DataPreviewDialog", "prompt: no loss"))),
                            marked(chosen, legend(QT_TRANSLATE_NOOP("fts::DataPreviewDialog", "chosen"))),
                            marked(rejected, legend(QT_TRANSLATE_NOOP("fts::DataPreviewDialog", "rejected"))));
    const int shown = int(std::min<size_t>(size_t(std::max(0, request.samples)), d.train.size()));
    std::vector<const PreferencePair*> first;
    for (const PreferencePair& p : d.train) first.push_back(&p);
    std::sort(first.begin(), first.end(), [](const auto* a, const auto* b) { return a->line < b->line; });
    for (int i = 0; i < shown; ++i) {
        const PreferencePair& p = *first[size_t(i)];
        const auto& c = p.chosen.ids;
        const auto& r = p.rejected.ids;
        html += QStringLiteral(
                    "<h4>%1</h4><pre style=\"white-space:pre-wrap\">%2%3</pre><pre "
                    "style=\"white-space:pre-wrap\">%4%5</pre>")
                    .arg(QCoreApplication::translate("fts::DataPreviewDialog",
                                                     "Line %1 · prompt %2 tokens · chosen %3 · rejected %4")
                             .arg(p.line)
                             .arg(p.chosen.promptLength)
                             .arg(p.chosen.completionTokens())
                             .arg(p.rejected.completionTokens())
                             .toHtmlEscaped(),
                         span(c, 0, p.chosen.promptLength, prompt),
                         span(c, p.chosen.promptLength, int64_t(c.size()), chosen),
                         span(r, 0, p.rejected.promptLength, prompt),
                         span(r, p.rejected.promptLength, int64_t(r.size()), rejected));
        out.maskedSpans += 2;
    }
    out.html = html;
    out.shown = shown;
    QStringList lines;
    lines << QCoreApplication::translate("fts::DataPreviewDialog", "Pairs: %1 (layout %2, %3)")
                 .arg(s.pairs)
                 .arg(QString::fromStdString(s.layout),
                      s.conversational ? QCoreApplication::translate("fts::DataPreviewDialog", "template %1")
                                             .arg(QString::fromStdString(s.chatTemplate))
                                       : QCoreApplication::translate("fts::DataPreviewDialog", "plain text"));
    lines << QCoreApplication::translate("fts::DataPreviewDialog", "Tokens per sequence: mean %1, max %2")
                 .arg(s.meanTokens, 0, 'f', 1)
                 .arg(s.maxTokens);
    lines << QCoreApplication::translate("fts::DataPreviewDialog",
                                         "Cut to %1 tokens: %2 sequence(s) · dropped (the prompt alone fills it): %3 "
                                         "· bad rows: %4")
                 .arg(o.files.maxLength)
                 .arg(s.truncated)
                 .arg(s.promptTooLong)
                 .arg(s.badRows);
    for (const std::string& m : s.badRowMessages) lines << QString::fromStdString(m);
    out.statsText = lines.join(QLatin1Char('\n'));
    out.ok = true;
}

}  // namespace

DataPreviewResult runDataPreview(const DataPreviewRequest& request) {
    DataPreviewResult out;
    try {
        std::filesystem::path modelDir = request.modelDir.toStdString();
        if (!modelDir.empty() && !std::filesystem::is_directory(modelDir) && looksLikeHfModelId(modelDir.string()))
            modelDir = resolveHfCachedModel(modelDir.string());
        std::filesystem::path tokenizerPath = request.tokenizer.toStdString();
        if (tokenizerPath.empty() || !std::filesystem::exists(tokenizerPath))
            tokenizerPath = modelDir / "tokenizer.json";
        const auto tokenizer = Tokenizer::fromFile(tokenizerPath);
        if (request.format == QLatin1String("classification")) {
            previewClassification(request, *tokenizer, out);
            return out;
        }
        if (request.objective != QLatin1String("sft") && !request.objective.isEmpty()) {
            previewPairs(request, *tokenizer, modelDir, out);
            return out;
        }
        SftOptions o;
        o.trainPath = request.train.toStdString();
        o.textField = request.textField.toStdString();
        if (request.maxLength > 0) o.maxLength = request.maxLength;
        o.modelDir = modelDir;
        if (!request.format.isEmpty()) o.format = sampleFormatFromName(request.format.toStdString());
        if (!request.chatTemplate.isEmpty()) o.chatTemplate = request.chatTemplate.toStdString();
        o.trainOnPrompt = request.trainOnPrompt;
        o.packing = false;
        const DataPreview p = previewSftData(o, *tokenizer, request.samples);
        const SftStats& s = p.stats;
        out.samples = s.samples;
        out.truncated = s.truncated;
        out.dropped = s.dropped;
        out.badRows = s.badRows;
        out.maxTokens = s.maxTokens;
        out.meanTokens = s.meanTokens;
        out.p50Tokens = s.p50Tokens;
        out.p95Tokens = s.p95Tokens;
        out.shown = int(p.samples.size());
        QString html =
            QStringLiteral(
                "<p><span style=\"background:#dde1e6;color:#555\">%1</span> &nbsp; "
                "<span style=\"background:#dff3dc\">%2</span></p>")
                .arg(QCoreApplication::translate("fts::DataPreviewDialog", "prompt: no loss").toHtmlEscaped(),
                     QCoreApplication::translate("fts::DataPreviewDialog", "trained on").toHtmlEscaped());
        for (const PreviewSample& sample : p.samples) {
            html += QStringLiteral("<h4>%1</h4><pre style=\"white-space:pre-wrap\">")
                        .arg((QCoreApplication::translate("fts::DataPreviewDialog", "Line %1 · %2 tokens")
                                  .arg(sample.line)
                                  .arg(sample.tokens) +
                              (sample.truncated ? QCoreApplication::translate("fts::DataPreviewDialog", " · truncated")
                                                : QString()))
                                 .toHtmlEscaped());
            for (const RenderedSegment& seg : sample.segments) {
                const QString text = QString::fromStdString(seg.text).toHtmlEscaped();
                if (seg.trainable) {
                    html += QStringLiteral("<span style=\"background:#dff3dc\">%1</span>").arg(text);
                } else {
                    html += QStringLiteral("<span style=\"background:#dde1e6;color:#555\">%1</span>").arg(text);
                    ++out.maskedSpans;
                }
            }
            html += QStringLiteral("</pre>");
        }
        out.html = html;
        QStringList lines;
        lines << QCoreApplication::translate("fts::DataPreviewDialog", "Samples: %1 (format %2, template %3)")
                     .arg(s.samples)
                     .arg(QString::fromStdString(s.format), QString::fromStdString(s.chatTemplate));
        lines << QCoreApplication::translate("fts::DataPreviewDialog",
                                             "Tokens per sample: mean %1, p50 %2, p95 %3, max %4")
                     .arg(s.meanTokens, 0, 'f', 1)
                     .arg(s.p50Tokens, 0, 'f', 0)
                     .arg(s.p95Tokens, 0, 'f', 0)
                     .arg(s.maxTokens);
        lines << QCoreApplication::translate(
                     "fts::DataPreviewDialog",
                     "Truncated to %1 tokens: %2 · dropped (nothing left to train on): %3 · bad rows: %4")
                     .arg(o.maxLength)
                     .arg(s.truncated)
                     .arg(s.dropped)
                     .arg(s.badRows);
        for (const std::string& m : s.badRowMessages) lines << QString::fromStdString(m);
        out.statsText = lines.join(QLatin1Char('\n'));
        out.ok = true;
    } catch (const std::exception& e) {
        out.error = QString::fromStdString(e.what());
    }
    return out;
}

DataPreviewDialog::DataPreviewDialog(const DataPreviewRequest& request, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Data preview"));
    setObjectName(QStringLiteral("dataPreview"));
    m_title = new QLabel(tr("Reading and tokenizing %1…").arg(QDir::toNativeSeparators(request.train)), this);
    m_title->setWordWrap(true);
    m_busy = new QProgressBar(this);
    m_busy->setRange(0, 0);
    m_stats = new QLabel(this);
    m_stats->setObjectName(QStringLiteral("previewStats"));
    m_stats->setWordWrap(true);
    m_stats->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_view = new QTextBrowser(this);
    m_view->setObjectName(QStringLiteral("previewSamples"));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_busy);
    layout->addWidget(m_stats);
    layout->addWidget(m_view, 1);
    layout->addWidget(buttons);
    resize(820, 600);

    QPointer<DataPreviewDialog> self(this);
    m_thread = QThread::create([self, request] {
        DataPreviewResult r = runDataPreview(request);
        QMetaObject::invokeMethod(
            qApp,
            [self, r] {
                if (self) self->showResult(r);
            },
            Qt::QueuedConnection);
    });
    m_thread->start();
}

DataPreviewDialog::~DataPreviewDialog() {
    m_thread->wait();
    delete m_thread;
}

void DataPreviewDialog::showResult(const DataPreviewResult& result) {
    m_result = result;
    m_running = false;
    m_busy->hide();
    if (!result.ok) {
        m_title->setText(tr("The preview failed: %1").arg(result.error));
        m_title->setStyleSheet(QStringLiteral("color: #c01c28;"));
    } else {
        m_title->setText(tr("The first %n sample(s), as the model sees them:", nullptr, result.shown));
        m_stats->setText(result.statsText);
        m_view->setHtml(result.html);
    }
    emit finished();
}

}  // namespace fts
