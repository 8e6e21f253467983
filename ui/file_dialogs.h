// The studio's file dialogs: Qt's getOpenFileName / getSaveFileName / getExistingDirectory, with Qt's own dialog
// (where the desktop has none of its own) in the studio's language: its file sizes and dates follow the studio's
// locale (Qt formats them with the system's) and the folder type comes from the studio's catalogue (Qt's zh_CN
// catalogue lacks it). A desktop's native dialog is left as the desktop shows it.
#pragma once
#include <QFileDialog>
#include <QString>

namespace fts {

QString existingDirectory(QWidget* parent, const QString& caption, const QString& dir);
QString openFileName(QWidget* parent, const QString& caption, const QString& dir, const QString& filter = QString());
QString saveFileName(QWidget* parent, const QString& caption, const QString& dir, const QString& filter = QString(),
                     QFileDialog::Options options = {});

// The dialog those build, not yet shown (for tests and callers that set more on it).
QFileDialog* newStudioFileDialog(QWidget* parent, const QString& caption, const QString& dir, const QString& filter);

}  // namespace fts
