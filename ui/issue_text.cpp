// The message catalogue of the core's issues (see issue_text.h).
#include "ui/issue_text.h"

#include <QCoreApplication>

#include "core/config/issue_kinds.h"

namespace fts {
namespace {

// The descriptions of expected values the core's readers use most (config_reader, deepspeed_block,
// offload_block); lupdate collects them from here.
[[maybe_unused]] const char* const kExpectedPhrases[] = {
    QT_TRANSLATE_NOOP("fts::IssueText", "a number >= 0"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a positive integer"),
    QT_TRANSLATE_NOOP("fts::IssueText", "an integer >= 0"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a learning rate >= 0"),
    QT_TRANSLATE_NOOP("fts::IssueText", "true or false"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a string"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a non-empty string"),
    QT_TRANSLATE_NOOP("fts::IssueText", "an object {...}"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a number of elements >= 0"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a number of elements > 0"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a probability in [0, 1)"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a positive number of steps"),
    QT_TRANSLATE_NOOP("fts::IssueText", "expected a Hugging Face model folder"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a Hugging Face model folder needs config.json"),
    QT_TRANSLATE_NOOP("fts::IssueText", "expected the model's tokenizer.json"),
    QT_TRANSLATE_NOOP("fts::IssueText", "expected a PEFT LoRA adapter folder"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a number"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a number in [0, 1)"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a non-negative integer (0 = only at the end)"),
    QT_TRANSLATE_NOOP("fts::IssueText", "an integer"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a number >= 0 (0 turns clipping off)"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a non-negative integer"),
    QT_TRANSLATE_NOOP("fts::IssueText", "an integer from 1 to 64"),
    QT_TRANSLATE_NOOP("fts::IssueText", "an integer from 1 to 4096"),
    QT_TRANSLATE_NOOP("fts::IssueText", "an integer from 1 to 1000"),
    QT_TRANSLATE_NOOP("fts::IssueText", "an integer >= 2 (tokens per training sequence)"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a whole number of cycles >= 1"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a positive integer, or null for never"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a positive integer or \"auto\""),
    QT_TRANSLATE_NOOP("fts::IssueText", "a positive integer (the adapter rank)"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a number of waves > 0"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a number of bytes > 0"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a number >= 0 (0 enables dynamic loss scaling)"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a number > 0"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a non-negative integer (default: training.seed)"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a non-negative integer (0 = use epochs)"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a non-negative integer (0 = the whole eval split)"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a non-negative integer (0 = keep all)"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a fraction of the total steps in [0, 1]"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a fraction of the peak learning rate in [0, 1]"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a fraction from 0 to 1"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a dropout probability in [0, 1)"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a ZeRO stage 0-3"),
    QT_TRANSLATE_NOOP("fts::IssueText", "\"pretrained\" or \"random\""),
    QT_TRANSLATE_NOOP("fts::IssueText", "a module name (e.g. \"q_proj\")"),
    QT_TRANSLATE_NOOP("fts::IssueText",
                      "a non-empty list of module names (matched exactly or as the last dotted parts) or a regular "
                      "expression string"),
    QT_TRANSLATE_NOOP("fts::IssueText", "\"auto\", \"cpu\", \"cuda\" or \"cuda:N\" (N a device index)"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a list of 1 to 16 prompts (strings)"),
    QT_TRANSLATE_NOOP("fts::IssueText", "a non-empty prompt of at most 4096 bytes"),
    QT_TRANSLATE_NOOP("fts::IssueText",
                      "true, false or {\"wait\": steps before the profile, \"active\": steps profiled}"),
    // What a missing section or key should hold ("missing; expected ...").
    QT_TRANSLATE_NOOP("fts::IssueText", "\"path\" (the Hugging Face model folder)"),
    QT_TRANSLATE_NOOP("fts::IssueText", "\"train\" (the training text: .txt or .jsonl)"),
    QT_TRANSLATE_NOOP("fts::IssueText", "\"output_dir\" and \"max_steps\" or \"epochs\""),
    QT_TRANSLATE_NOOP("fts::IssueText",
                      "the Hugging Face model folder (config.json, plus weights unless init is \"random\")"),
    QT_TRANSLATE_NOOP("fts::IssueText", "the training data file (.txt or .jsonl)"),
    QT_TRANSLATE_NOOP("fts::IssueText", "the folder for checkpoints and exports"),
    QT_TRANSLATE_NOOP("fts::IssueText",
                      "the DeepSpeed config object (at least train_micro_batch_size_per_gpu or train_batch_size)"),
    QT_TRANSLATE_NOOP("fts::IssueText", "the optimizer type: Adam or AdamW"),
    QT_TRANSLATE_NOOP("fts::IssueText", "true (the base weights held 4-bit under LoRA)"),
};

QString q(const std::string& s) { return QString::fromStdString(s); }

// A part of a message (an expected value, a nested message): said through the catalogue when it is a message of a
// kind or template, or a phrase the catalogue has; itself otherwise (paths, keys, numbers).
QString phrase(const std::string& english) { return issueText(q(english)); }

}  // namespace

QString issueText(const QString& coreMessage) {
    const IssueParts parts = splitIssueMessage(coreMessage.toStdString());
    const auto& a = parts.args;
    switch (parts.kind) {
        case IssueKind::Expected:
            return QCoreApplication::translate("fts::IssueText", "expected %1, got %2").arg(phrase(a[0]), q(a[1]));
        case IssueKind::UnknownKey: {
            QString text = QCoreApplication::translate("fts::IssueText", "unknown key \"%1\" (ignored)").arg(q(a[0]));
            if (!a[1].empty())
                text += QCoreApplication::translate("fts::IssueText", ", did you mean \"%1\"?").arg(q(a[1]));
            if (!a[2].empty()) text += QStringLiteral(" ") + q(a[2]);
            return text;
        }
        case IssueKind::NotFound:
            return a[1].empty()
                       ? QCoreApplication::translate("fts::IssueText", "%1: not found").arg(q(a[0]))
                       : QCoreApplication::translate("fts::IssueText", "%1: not found (%2)").arg(q(a[0]), phrase(a[1]));
        case IssueKind::Template: {  // the template in the studio's language, each value said the same way
            const QString text = QCoreApplication::translate("fts::IssueText", a[0].c_str());
            QString out;  // %N replaced in one pass, so a value holding "%2" stays as it is
            for (qsizetype i = 0; i < text.size(); ++i) {
                const int n = i + 1 < text.size() ? text[i + 1].digitValue() : -1;
                if (text[i] == QLatin1Char('%') && n >= 1 && size_t(n) < a.size()) {
                    out += phrase(a[size_t(n)]);
                    ++i;
                } else {
                    out += text[i];
                }
            }
            return out;
        }
        case IssueKind::Other:
            break;
    }
    return QCoreApplication::translate("fts::IssueText", coreMessage.toUtf8().constData());  // itself when unknown
}

}  // namespace fts
