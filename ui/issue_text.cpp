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
};

QString phrase(const std::string& english) {
    return QCoreApplication::translate("fts::IssueText", english.c_str());  // itself when not in the catalogue
}

QString q(const std::string& s) { return QString::fromStdString(s); }

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
        case IssueKind::Other:
            break;
    }
    return coreMessage;
}

}  // namespace fts
