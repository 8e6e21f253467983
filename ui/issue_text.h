// The studio's words for the core's config and path messages. The core writes English (it stays Qt-free);
// messages of a known kind (core/config/issue_kinds.h) are said here from a translated template per kind, with
// the common descriptions of expected values translated too; any other message is shown as the core wrote it.
#pragma once
#include <QString>

namespace fts {

QString issueText(const QString& coreMessage);

}  // namespace fts
