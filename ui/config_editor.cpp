// ConfigEditor: JSON editing, debounced validation on a worker thread, inline issue marks (see config_editor.h).
#include "ui/config_editor.h"

#include <QDir>
#include <QFontDatabase>
#include <QHelpEvent>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSplitter>
#include <QTextBlock>
#include <QThread>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/config/memory_estimate.h"
#include "core/config/lr_schedule.h"
#include "core/config/preflight.h"
#include "ui/issue_text.h"
#include "core/config/train_config.h"
#include "ui/memory_bars.h"

namespace fts {
namespace {

// The config with every key that has an error taken out, when it then parses: so the paths a run opens are checked
// beside a value error elsewhere, and both errors show at once (the core reports every key; the paths need a
// parsed config). nullopt when nothing could be taken out or the rest still does not parse.
std::optional<TrainConfig> configWithoutErrorKeys(const std::string& text, const ConfigParseResult& result,
                                                  const std::filesystem::path& base, int worldSize) {
    nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
    bool removed = false;
    for (const ConfigIssue& issue : result.issues) {
        if (!issue.isError || issue.keyPath.empty()) continue;
        nlohmann::json* node = &doc;
        std::string key;
        std::istringstream parts(issue.keyPath);
        std::vector<std::string> path;
        while (std::getline(parts, key, '.')) path.push_back(key);
        for (size_t i = 0; node && i + 1 < path.size(); ++i)
            node = node->is_object() && node->contains(path[i]) ? &(*node)[path[i]] : nullptr;
        if (node && node->is_object() && !path.empty() && node->erase(path.back()) > 0) removed = true;
    }
    if (!removed) return std::nullopt;
    ConfigParseResult rest = parseTrainConfig(doc, base, worldSize);
    if (!rest.ok()) return std::nullopt;
    return std::move(rest.config);
}

const QColor kErrorColor(0xc0, 0x1c, 0x28);
const QColor kWarningColor(0xb3, 0x6b, 0x00);

struct PathSegment {
    QString key;     // object key (may be numeric text: then it also matches an array index)
    int index = -1;  // array index from "[n]"
};

std::vector<PathSegment> splitKeyPath(const QString& keyPath) {
    std::vector<PathSegment> out;
    for (const QString& part : keyPath.split(QLatin1Char('.'), Qt::SkipEmptyParts)) {
        int bracket = part.indexOf(QLatin1Char('['));
        const QString name = bracket < 0 ? part : part.left(bracket);
        if (!name.isEmpty()) out.push_back({name, -1});
        while (bracket >= 0) {
            const int close = part.indexOf(QLatin1Char(']'), bracket);
            if (close < 0) break;
            bool ok = false;
            const int idx = part.mid(bracket + 1, close - bracket - 1).toInt(&ok);
            if (ok) out.push_back({QString(), idx});
            bracket = part.indexOf(QLatin1Char('['), close);
        }
    }
    return out;
}

struct Frame {
    bool object = true;
    QString key;                  // object: the key whose value is being read
    int index = 0;                // array: the current element
    bool elementStarted = false;  // array: the current element's value has begun
};

bool frameMatches(const Frame& f, const PathSegment& s) {
    if (f.object) return s.index < 0 && f.key == s.key;
    if (s.index >= 0) return f.index == s.index;
    bool ok = false;
    const int idx = s.key.toInt(&ok);
    return ok && idx == f.index;
}

// Reads a JSON string starting at the opening quote; returns its (unescaped) text, advances i past it.
QString readString(const QString& text, int& i) {
    QString out;
    const int n = static_cast<int>(text.size());
    ++i;  // opening quote
    while (i < n) {
        const QChar c = text[i];
        if (c == QLatin1Char('"')) {
            ++i;
            return out;
        }
        if (c == QLatin1Char('\n'))  // unterminated string: stop at the line end
            return out;
        if (c == QLatin1Char('\\') && i + 1 < n) {
            const QChar e = text[i + 1];
            switch (e.unicode()) {
                case 'n':
                    out += QLatin1Char('\n');
                    break;
                case 't':
                    out += QLatin1Char('\t');
                    break;
                case 'r':
                    out += QLatin1Char('\r');
                    break;
                case 'b':
                    out += QLatin1Char('\b');
                    break;
                case 'f':
                    out += QLatin1Char('\f');
                    break;
                case 'u':
                    if (i + 5 < n) {
                        bool ok = false;
                        const ushort code = text.mid(i + 2, 4).toUShort(&ok, 16);
                        if (ok) {
                            out += QChar(code);
                            i += 6;
                            continue;
                        }
                    }
                    out += e;
                    break;
                default:
                    out += e;
                    break;  // \" \\ \/
            }
            i += 2;
            continue;
        }
        out += c;
        ++i;
    }
    return out;
}

int skipSpace(const QString& text, int i) {
    const int n = static_cast<int>(text.size());
    while (i < n && text[i].isSpace()) ++i;
    return i;
}

}  // namespace

KeyLocation locateKeyPath(const QString& json, const QString& keyPath) {
    KeyLocation best;
    const std::vector<PathSegment> segs = splitKeyPath(keyPath);
    if (segs.empty()) return best;
    std::vector<Frame> stack;
    int bestPos = -1, bestDepth = 0;
    bool bestExact = false;

    // The current path (one segment per open container) sits at `pos`: keep it when it is a prefix of
    // the target at least as deep as the best so far (later occurrences win, as in JSON parsers).
    const auto consider = [&](int pos) {
        const size_t depth = stack.size();
        if (depth > segs.size()) return;
        for (size_t k = 0; k < depth; ++k)
            if (!frameMatches(stack[k], segs[k])) return;
        if (static_cast<int>(depth) >= bestDepth) {
            bestDepth = static_cast<int>(depth);
            bestPos = pos;
            bestExact = depth == segs.size();
        }
    };
    const auto valueStarts = [&](int pos) {
        if (!stack.empty() && !stack.back().object && !stack.back().elementStarted) {
            stack.back().elementStarted = true;
            consider(pos);
        }
    };

    const int n = static_cast<int>(json.size());
    int i = 0;
    while (i < n) {
        const QChar c = json[i];
        if (c.isSpace()) {
            ++i;
            continue;
        }
        switch (c.unicode()) {
            case '"': {
                const int start = i;
                const QString s = readString(json, i);
                const int after = skipSpace(json, i);
                if (!stack.empty() && stack.back().object && after < n && json[after] == QLatin1Char(':')) {
                    stack.back().key = s;  // a key (recognised by its colon, even after a missing comma)
                    consider(start);
                } else {
                    valueStarts(start);
                }
                continue;
            }
            case '{':
            case '[':
                valueStarts(i);
                stack.push_back(Frame{c == QLatin1Char('{'), QString(), 0, false});
                break;
            case '}':
            case ']':
                if (!stack.empty()) stack.pop_back();
                break;
            case ',':
                if (!stack.empty()) {
                    if (stack.back().object) {
                        stack.back().key.clear();
                    } else {
                        ++stack.back().index;
                        stack.back().elementStarted = false;
                    }
                }
                break;
            case ':':
                break;
            default: {  // a number, true/false/null, or stray text: one token
                valueStarts(i);
                while (i < n && !json[i].isSpace() && !QStringLiteral(",]}:\"{[").contains(json[i])) ++i;
                continue;
            }
        }
        ++i;
    }
    if (bestPos < 0) return best;
    best.found = true;
    best.exact = bestExact;
    best.position = bestPos;
    best.matchedSegments = bestDepth;
    const QStringView before = QStringView(json).left(bestPos);
    best.line = static_cast<int>(before.count(QLatin1Char('\n')));
    best.column = bestPos - (static_cast<int>(before.lastIndexOf(QLatin1Char('\n'))) + 1);
    return best;
}

int lineFromMessage(const QString& message) {
    static const QRegularExpression re(QStringLiteral("\\bline\\s+(\\d+)"), QRegularExpression::CaseInsensitiveOption);
    const auto m = re.match(message);
    if (!m.hasMatch()) return -1;
    const int line = m.captured(1).toInt();
    return line > 0 ? line - 1 : -1;
}

void ConfigValidatorWorker::validate(quint64 generation, const QString& text, const QString& baseDir, int worldSize,
                                     qint64 gpuCapacity) {
    QVector<EditorIssue> out;
    QString resolved, defaults, estimate, estimateError;
    QVector<QPointF> lrSchedule;
    try {
        const std::filesystem::path base(baseDir.isEmpty() ? QDir::currentPath().toStdString() : baseDir.toStdString());
        const ConfigParseResult result = parseTrainConfigText(text.toStdString(), base, worldSize);
        if (result.ok()) {
            resolved = QString::fromStdString(configToResolvedJson(*result.config).dump(2));
            // The schedule the run will follow (as the trainer resolves it), for the form's preview.
            if (const int64_t total = result.config->training.maxSteps; total > 0) {
                const SchedulerConfig schedule = resolveScheduleForRun(result.config->deepspeed.scheduler, total);
                const int64_t n = std::min<int64_t>(total, ConfigEditor::kLrSchedulePoints);
                for (int64_t i = 0; i < n; ++i) {
                    const int64_t update = n == 1 ? 0 : i * (total - 1) / (n - 1);  // 0-based optimizer update
                    lrSchedule.push_back(QPointF(
                        double(update + 1), learningRateAt(schedule, result.config->deepspeed.optimizer.lr, update)));
                }
            }
            // The per-rank memory estimate; one rank's capacity is known on CPU only (ranks share the host RAM).
            try {
                EstimateOptions eo;
                eo.worldSize = worldSize;
                const std::string device = result.config->training.device;
                if (gpuCapacity > 0 && device != "cpu") {  // GPUs chosen in the form: judged against the smallest
                    eo.device = EstimateDevice::Cuda;
                    eo.deviceCapacity = gpuCapacity;
                } else if (device.rfind("cuda", 0) != 0) {  // "auto" trains on CPU here as in the estimate
                    const auto [used, total] = hostMemory();
                    if (total > 0) eo.deviceCapacity = total / std::max(1, worldSize);
                }
                estimate = QString::fromStdString(toJson(estimateMemory(*result.config, eo)).dump());
            } catch (const std::exception& ex) {
                estimateError = QString::fromStdString(ex.what());
            }
        } else {
            // The core's defaults: a minimal config with only the required keys, resolved.
            static const nlohmann::json minimal = nlohmann::json::parse(R"({"model": {"path": "model"},
                "data": {"train": "train.jsonl"}, "training": {"output_dir": "out", "max_steps": 1},
                "deepspeed": {"train_micro_batch_size_per_gpu": 1}})");
            const ConfigParseResult probe = parseTrainConfig(minimal, base, worldSize);
            if (probe.ok()) {
                nlohmann::json d = configToResolvedJson(*probe.config);
                // Only defaults: the probe's own required values are not the user's.
                d["model"].erase("path");
                d["model"].erase("tokenizer");
                d["data"].erase("train");
                d["training"].erase("output_dir");
                d["training"].erase("max_steps");
                d["training"].erase("run_name");
                defaults = QString::fromStdString(d.dump(2));
            }
        }
        std::vector<ConfigIssue> issues = result.issues;
        // "Valid" means it will start: the paths a run opens, with the loaders' messages (beside the value errors
        // of other keys too).
        if (result.ok()) {
            for (ConfigIssue& missing : preflightPaths(*result.config)) issues.push_back(std::move(missing));
        } else if (const std::optional<TrainConfig> rest =
                       configWithoutErrorKeys(text.toStdString(), result, base, worldSize)) {
            for (ConfigIssue& missing : preflightPaths(*rest)) issues.push_back(std::move(missing));
        }
        for (const ConfigIssue& issue : issues) {
            EditorIssue e;
            e.keyPath = QString::fromStdString(issue.keyPath);
            e.message = issueText(QString::fromStdString(issue.message));  // the studio's language
            e.isError = issue.isError;
            out.push_back(e);
        }
    } catch (const std::exception& ex) {
        EditorIssue e;
        e.message = tr("validation failed: %1").arg(QString::fromStdString(ex.what()));
        out.push_back(e);
    }
    // Locate each issue in the text it was computed for.
    const QStringList lines = text.split(QLatin1Char('\n'));
    for (EditorIssue& e : out) {
        const KeyLocation loc = locateKeyPath(text, e.keyPath);
        if (loc.found) {
            e.line = loc.line;
            e.position = loc.position;
        } else if (const int line = lineFromMessage(e.message); line >= 0 && line < lines.size()) {
            e.line = line;
            int pos = 0;
            for (int k = 0; k < line; ++k) pos += static_cast<int>(lines[k].size()) + 1;
            e.position = pos;
        }
    }
    emit validated(generation, out, resolved, defaults, estimate, estimateError, lrSchedule);
}

ConfigEditor::ConfigEditor(QWidget* parent)
    : QWidget(parent), m_thread(new QThread(this)), m_worker(new ConfigValidatorWorker) {
    qRegisterMetaType<fts::EditorIssue>();
    qRegisterMetaType<QVector<fts::EditorIssue>>();

    m_edit = new QPlainTextEdit(this);
    m_edit->setObjectName(QStringLiteral("configText"));
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_edit->setFont(mono);
    m_edit->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_edit->setTabStopDistance(QFontMetricsF(mono).horizontalAdvance(QLatin1Char(' ')) * 4);
    m_edit->viewport()->installEventFilter(this);

    m_summary = new QLabel(this);
    m_list = new QListWidget(this);
    m_list->setObjectName(QStringLiteral("configIssues"));
    m_list->setWordWrap(true);
    m_list->setAlternatingRowColors(true);
    m_list->setIconSize(QSize(16, 16));

    auto* bottom = new QWidget(this);
    auto* bottomLayout = new QVBoxLayout(bottom);
    bottomLayout->setContentsMargins(0, 0, 0, 0);
    bottomLayout->addWidget(m_summary);
    bottomLayout->addWidget(m_list);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_edit);
    split->addWidget(bottom);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);

    m_debounce.setSingleShot(true);
    m_debounce.setInterval(kDebounceMs);
    connect(&m_debounce, &QTimer::timeout, this, &ConfigEditor::validateNow);
    connect(m_edit, &QPlainTextEdit::textChanged, this, &ConfigEditor::onTextChanged);
    connect(m_edit->document(), &QTextDocument::modificationChanged, this, &ConfigEditor::modificationChanged);
    connect(m_list, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) { goToIssue(m_list->row(item)); });
    connect(m_list, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) { goToIssue(m_list->row(item)); });

    m_worker->moveToThread(m_thread);
    m_thread->setObjectName(QStringLiteral("fts-config-validator"));
    connect(m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(this, &ConfigEditor::requestValidation, m_worker, &ConfigValidatorWorker::validate);
    connect(m_worker, &ConfigValidatorWorker::validated, this, &ConfigEditor::onValidated);
    m_thread->start();
    applyIssues();
}

ConfigEditor::~ConfigEditor() {
    m_thread->quit();
    m_thread->wait();
}

void ConfigEditor::setConfigText(const QString& text, const QString& baseDir) {
    m_baseDir = baseDir;
    m_lastGoodResolved.clear();  // another file: its own defaults and resolved values
    m_resolvedJson.clear();
    m_settingText = true;
    m_edit->setPlainText(text);
    m_settingText = false;
    m_edit->document()->setModified(false);
    validateNow();
}

QString ConfigEditor::text() const { return m_edit->toPlainText(); }

void ConfigEditor::replaceText(const QString& text) {
    if (text == m_edit->toPlainText()) return;
    const int scroll = m_edit->verticalScrollBar()->value();
    QTextCursor cursor(m_edit->document());
    cursor.beginEditBlock();
    cursor.select(QTextCursor::Document);
    cursor.insertText(text);
    cursor.endEditBlock();
    m_edit->verticalScrollBar()->setValue(scroll);
}

void ConfigEditor::setBaseDir(const QString& dir) {
    if (dir == m_baseDir) return;
    m_baseDir = dir;
    validateNow();
}

void ConfigEditor::setGpuCapacity(qint64 bytes) {
    bytes = bytes > 0 ? bytes : -1;
    if (bytes == m_gpuCapacity) return;
    m_gpuCapacity = bytes;
    validateNow();
}

void ConfigEditor::setWorldSize(int worldSize) {
    if (worldSize == m_worldSize) return;
    m_worldSize = std::max(1, worldSize);
    validateNow();
}

bool ConfigEditor::isModified() const { return m_edit->document()->isModified(); }

void ConfigEditor::setModified(bool modified) { m_edit->document()->setModified(modified); }

bool ConfigEditor::hasErrors() const { return errorCount() > 0; }

int ConfigEditor::errorCount() const {
    return static_cast<int>(
        std::count_if(m_issues.begin(), m_issues.end(), [](const EditorIssue& i) { return i.isError; }));
}

int ConfigEditor::warningCount() const { return static_cast<int>(m_issues.size()) - errorCount(); }

void ConfigEditor::onTextChanged() {
    if (m_settingText) return;
    ++m_generation;
    emit validationChanged();
    m_debounce.start();  // restarts: validate once typing pauses
}

void ConfigEditor::validateNow() {
    m_debounce.stop();
    // A new generation even for the same text: the files it names may have appeared or gone since.
    ++m_generation;
    emit validationChanged();
    emit requestValidation(m_generation, m_edit->toPlainText(), m_baseDir, m_worldSize, m_gpuCapacity);
}

void ConfigEditor::onValidated(quint64 generation, const QVector<EditorIssue>& issues, const QString& resolved,
                               const QString& defaultsResolved, const QString& estimate, const QString& estimateError,
                               const QVector<QPointF>& lrSchedule) {
    if (generation != m_generation) return;  // the text changed since: a newer request is on its way
    m_validatedGeneration = generation;
    m_lrSchedule = lrSchedule;
    m_issues = issues;
    m_resolvedJson = resolved;
    m_estimateJson = estimate;
    m_estimateError = resolved.isEmpty() ? QString() : estimateError;
    if (!resolved.isEmpty())
        m_lastGoodResolved = resolved;
    else if (m_lastGoodResolved.isEmpty())
        m_lastGoodResolved = defaultsResolved;
    applyIssues();
    emit validationChanged();
}

void ConfigEditor::applyIssues() {
    // Inline marks: warnings first so that an error on the same line is drawn on top.
    QList<QTextEdit::ExtraSelection> selections;
    for (const bool errors : {false, true}) {
        for (const EditorIssue& issue : m_issues) {
            if (issue.isError != errors || issue.line < 0) continue;
            const QTextBlock block = m_edit->document()->findBlockByNumber(issue.line);
            if (!block.isValid()) continue;
            const QString lineText = block.text();
            int indent = 0;
            while (indent < lineText.size() && lineText[indent].isSpace()) ++indent;
            QTextEdit::ExtraSelection sel;
            sel.cursor = QTextCursor(block);
            sel.cursor.setPosition(block.position() + indent);
            sel.cursor.setPosition(block.position() + std::max<int>(static_cast<int>(lineText.size()), indent + 1),
                                   QTextCursor::KeepAnchor);
            const QColor color = issue.isError ? kErrorColor : kWarningColor;
            sel.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
            sel.format.setUnderlineColor(color);
            QColor bg = color;
            bg.setAlpha(28);
            sel.format.setBackground(bg);
            sel.format.setToolTip(issue.message);
            selections.append(sel);
        }
    }
    m_edit->setExtraSelections(selections);

    m_list->clear();
    for (const EditorIssue& issue : m_issues) {
        const QString where = issue.keyPath.isEmpty() ? tr("config") : issue.keyPath;
        QString text = tr("%1: %2").arg(where, issue.message);
        if (issue.line >= 0) text += tr(" (line %1)").arg(issue.line + 1);
        auto* item = new QListWidgetItem(text, m_list);
        item->setForeground(issue.isError ? kErrorColor : kWarningColor);
        item->setIcon(
            style()->standardIcon(issue.isError ? QStyle::SP_MessageBoxCritical : QStyle::SP_MessageBoxWarning));
        item->setToolTip(issue.message);
    }
    const int errors = errorCount(), warnings = warningCount();
    if (m_validatedGeneration == 0)
        m_summary->setText(tr("Not validated yet."));
    else if (errors == 0 && warnings == 0)
        m_summary->setText(tr("The config is valid."));
    else
        m_summary->setText(tr("%n error(s)", nullptr, errors) + QStringLiteral(", ") +
                           tr("%n warning(s)", nullptr, warnings));
    m_summary->setStyleSheet(errors > 0 ? QStringLiteral("color: #c01c28;") : QString());
}

void ConfigEditor::goToIssue(int index) {
    if (index < 0 || index >= m_issues.size()) return;
    const EditorIssue& issue = m_issues[index];
    if (issue.position < 0) return;
    QTextCursor cursor(m_edit->document());
    cursor.setPosition(std::min(issue.position, m_edit->document()->characterCount() - 1));
    m_edit->setTextCursor(cursor);
    m_edit->ensureCursorVisible();
    m_edit->setFocus(Qt::OtherFocusReason);
}

void ConfigEditor::changeEvent(QEvent* event) {
    // The issues are said in the studio's language (issue_text.h): validate again in the new one.
    if (event->type() == QEvent::LanguageChange) validateNow();
    QWidget::changeEvent(event);
}

bool ConfigEditor::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_edit->viewport() && event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int line = m_edit->cursorForPosition(help->pos()).blockNumber();
        QStringList messages;
        for (const EditorIssue& issue : m_issues)
            if (issue.line == line)
                messages << (issue.keyPath.isEmpty() ? issue.message : tr("%1: %2").arg(issue.keyPath, issue.message));
        if (messages.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), messages.join(QLatin1Char('\n')), m_edit->viewport());
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

}  // namespace fts
