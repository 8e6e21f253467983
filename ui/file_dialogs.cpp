// The studio's file dialogs (see file_dialogs.h): a proxy over Qt's file system model re-formats the size and date
// columns with the default locale (the studio's language) instead of the system's.
#include "ui/file_dialogs.h"

#include <QCoreApplication>
#include <QFileSystemModel>
#include <QIdentityProxyModel>
#include <QLocale>

namespace fts {

namespace {

// The texts Qt's file dialog asks of its catalogue that Qt's zh_CN one lacks (lupdate takes them into the studio's).
[[maybe_unused]] const struct {
    const char* source;
    const char* comment;
} kQtTexts[] = {
    QT_TRANSLATE_NOOP3("QAbstractFileIconProvider", "Folder", "All other platforms"),
    QT_TRANSLATE_NOOP3("QAbstractFileIconProvider", "Shortcut", "All other platforms"),
    {QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Unknown"), nullptr},
    {QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Drive"), nullptr},
};

class LocaleColumns : public QIdentityProxyModel {
public:
    using QIdentityProxyModel::QIdentityProxyModel;

    QVariant data(const QModelIndex& index, int role) const override {
        if (role == Qt::DisplayRole) {
            const auto* files = qobject_cast<const QFileSystemModel*>(sourceModel());
            const QModelIndex source = mapToSource(index);
            if (files && source.isValid()) {
                const QFileInfo info = files->fileInfo(source);
                if (index.column() == 1 && info.isFile()) return QLocale().formattedDataSize(info.size());
                if (index.column() == 3) return QLocale().toString(info.lastModified(), QLocale::ShortFormat);
            }
        }
        return QIdentityProxyModel::data(index, role);
    }
};

QString firstSelected(QFileDialog* dialog) {
    const QString chosen = dialog->exec() == QDialog::Accepted ? dialog->selectedFiles().value(0) : QString();
    delete dialog;
    return chosen;
}

}  // namespace

QFileDialog* newStudioFileDialog(QWidget* parent, const QString& caption, const QString& dir, const QString& filter) {
    auto* dialog = new QFileDialog(parent, caption, dir, filter);
    dialog->setProxyModel(new LocaleColumns(dialog));  // Qt's own dialog only; a native one ignores it
    return dialog;
}

QString existingDirectory(QWidget* parent, const QString& caption, const QString& dir) {
    QFileDialog* d = newStudioFileDialog(parent, caption, dir, QString());
    d->setFileMode(QFileDialog::Directory);
    d->setOption(QFileDialog::ShowDirsOnly);
    return firstSelected(d);
}

QString openFileName(QWidget* parent, const QString& caption, const QString& dir, const QString& filter) {
    QFileDialog* d = newStudioFileDialog(parent, caption, dir, filter);
    d->setFileMode(QFileDialog::ExistingFile);
    return firstSelected(d);
}

QString saveFileName(QWidget* parent, const QString& caption, const QString& dir, const QString& filter,
                     QFileDialog::Options options) {
    QFileDialog* d = newStudioFileDialog(parent, caption, dir, filter);
    d->setAcceptMode(QFileDialog::AcceptSave);
    d->setFileMode(QFileDialog::AnyFile);
    d->setOptions(d->options() | options);
    return firstSelected(d);
}

}  // namespace fts
