// Translations: the zh_CN catalogue is embedded and complete (every source text of the .ts translated),
// loads for --lang zh_CN and reaches the widgets; English plural forms come from the en catalogue.
#include <QApplication>
#include <QFile>
#include <QTest>
#include <QRegularExpression>
#include <QXmlStreamReader>

#include "ui/app_translations.h"
#include "ui/file_dialogs.h"
#include <memory>
#include <QAbstractProxyModel>
#include "tests/ui/latin_words.h"
#include <QDir>
#include <QFileDialog>
#include <QFileSystemModel>
#include <QTemporaryDir>
#include "core/config/message_templates.h"
#include "ui/issue_text.h"
#include "ui/collapsible_section.h"
#include "ui/config_editor.h"
#include "ui/config_form.h"
#include "ui/model_picker.h"
#include <QPushButton>
#include <QDialogButtonBox>
#include <QToolButton>
#include <QLabel>
#include <QCheckBox>
#include <QTabWidget>

#include "ui/compare_view.h"
#include "ui/config_editor.h"
#include "ui/runs_table_model.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

class TestAppTranslations : public QObject {
    Q_OBJECT
private slots:
    void zhCatalogueIsComplete_data() {
        QTest::addColumn<QString>("source");
        QFile ts((QString::fromUtf8(FTS_SOURCE_DIR) + QStringLiteral("/translations/finetune-studio_zh_CN.ts")));
        QVERIFY(ts.open(QIODevice::ReadOnly));
        QXmlStreamReader xml(&ts);
        QString source;
        int n = 0;
        while (!xml.atEnd()) {
            xml.readNext();
            if (!xml.isStartElement()) continue;
            if (xml.name() == QLatin1String("source")) {
                source = xml.readElementText();
            } else if (xml.name() == QLatin1String("translation")) {
                const bool unfinished = xml.attributes().value(QLatin1String("type")) == QLatin1String("unfinished");
                QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(++n).arg(source.left(40))))
                    << (unfinished ? QString() : source);
            }
        }
        QVERIFY(!xml.hasError());
        QVERIFY(n > 50);
    }
    void zhCatalogueIsComplete() {
        QFETCH(QString, source);
        QVERIFY2(!source.isEmpty(), "an unfinished translation");
    }

    // The new-run form built in English follows a live switch to Chinese (LanguageChange).
    void formSwitchesLanguageLive() {
        fts::ConfigEditor editor;
        fts::ConfigForm form(&editor);
        const QString lr = QStringLiteral("deepspeed.optimizer.params.lr");
        QCOMPARE(form.fieldLabel(lr)->text(), QStringLiteral("Learning rate"));
        QVERIFY(fts::installStudioTranslations(QStringLiteral("zh_CN")).startsWith(QLatin1String("zh")));
        QTRY_COMPARE(form.fieldLabel(lr)->text(), QStringLiteral("学习率"));
        QCOMPARE(form.section(fts::FieldSection::Zero)->header()->text(), QStringLiteral("ZeRO 与卸载"));
        QCOMPARE(form.pickModelButton()->text(), QStringLiteral("选择模型…"));
        fts::ModelPicker picker({}, {});
        QCOMPARE(picker.windowTitle(), QStringLiteral("选择模型"));
        QTRY_VERIFY(!picker.isScanning());
    }

    // Qt's own strings (the standard buttons of message boxes and dialogs) come from Qt's zh_CN catalogue
    // (Debian's qt6-translations-l10n, installed by packaging/setup-debian.sh).
    void zhStandardButtonsAreTranslated() {
        QVERIFY(fts::installStudioTranslations(QStringLiteral("zh_CN")).startsWith(QLatin1String("zh")));
        QDialogButtonBox box(QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::Save |
                             QDialogButtonBox::Discard);
        QCOMPARE(box.button(QDialogButtonBox::Cancel)->text(), QStringLiteral("取消"));
        QCOMPARE(box.button(QDialogButtonBox::Save)->text(), QStringLiteral("保存"));
        QVERIFY2(box.button(QDialogButtonBox::Ok)->text() != QStringLiteral("OK") &&
                     box.button(QDialogButtonBox::Discard)->text() != QStringLiteral("Discard"),
                 qPrintable(box.button(QDialogButtonBox::Ok)->text()));
        fts::installStudioTranslations(QStringLiteral("en"));
    }

    // Qt's file dialog (the one the studio opens where the desktop has none of its own) in Chinese: the type, size
    // and date of a folder and a JSON file carry no English word (Qt's catalogue, and the locale for sizes, dates
    // and the MIME types' names).
    void zhFileDialogIsChinese() {
        QVERIFY(fts::installStudioTranslations(QStringLiteral("zh_CN")).startsWith(QLatin1String("zh")));
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("runs")));
        QFile json(dir.filePath(QStringLiteral("config.json")));
        QVERIFY(json.open(QIODevice::WriteOnly) && json.write("{\"model\": {}}\n") > 0);
        json.close();
        std::unique_ptr<QFileDialog> dialog(
            fts::newStudioFileDialog(nullptr, QStringLiteral("x"), dir.path(), QStringLiteral("JSON (*.json)")));
        dialog->setOption(QFileDialog::DontUseNativeDialog);
        dialog->setViewMode(QFileDialog::Detail);
        auto* model = dialog->findChild<QFileSystemModel*>();
        QVERIFY(model && dialog->proxyModel());
        dialog->show();
        QTRY_VERIFY(model->index(dir.filePath(QStringLiteral("config.json"))).isValid() &&
                    model->rowCount(model->index(dir.path())) >= 2);
        QStringList english;
        for (const QString& name : {QStringLiteral("runs"), QStringLiteral("config.json")}) {
            const QModelIndex at = dialog->proxyModel()->mapFromSource(model->index(dir.filePath(name)));
            for (int col = 1; col < model->columnCount(); ++col) {
                const QString text = dialog->proxyModel()->data(at.siblingAtColumn(col)).toString();
                if (!fts::test::englishWords(text).isEmpty()) english << name + QStringLiteral(": ") + text;
            }
        }
        for (int col = 0; col < model->columnCount(); ++col) {
            const QString header = model->headerData(col, Qt::Horizontal).toString();
            if (!fts::test::englishWords(header).isEmpty()) english << header;
        }
        dialog->close();
        fts::installStudioTranslations(QStringLiteral("en"));
        QVERIFY2(english.isEmpty(), qPrintable(english.join(QLatin1Char('\n'))));
    }

    // The core's config messages in the studio's language: known kinds from the catalogue, other messages as
    // the core wrote them.
    void zhIssueTexts() {
        QVERIFY(fts::installStudioTranslations(QStringLiteral("zh_CN")).startsWith(QLatin1String("zh")));
        QCOMPARE(fts::issueText(QStringLiteral("expected a positive integer, got 0")),
                 QStringLiteral("应为正整数，实际为 0"));
        QCOMPARE(fts::issueText(QStringLiteral("unknown key \"sed\" (ignored), did you mean \"seed\"?")),
                 QStringLiteral("未知的键“sed”（已忽略），是否想写“seed”？"));
        QCOMPARE(fts::issueText(QStringLiteral("/d/t.jsonl: not found")), QStringLiteral("/d/t.jsonl：未找到"));
        const QString other = QStringLiteral("WarmupLR does not take \"total_num_steps\"");
        QCOMPARE(fts::issueText(other), other);
        fts::installStudioTranslations(QStringLiteral("en"));
        QCOMPARE(fts::issueText(QStringLiteral("expected a positive integer, got 0")),
                 QStringLiteral("expected a positive integer, got 0"));
    }

    // Every template the core lists (core/config/message_templates.h) has a zh_CN translation with the same %N, and a
    // filled one reads in Chinese with its values kept and nested messages translated too: a model config.json's
    // bad key (an estimate's reason), a cross-key config error, a doctor line.
    void zhCoreTemplates() {
        QVERIFY(fts::installStudioTranslations(QStringLiteral("zh_CN")).startsWith(QLatin1String("zh")));
        const QRegularExpression placeholder(QStringLiteral("%[1-9]"));
        QStringList missing;
        for (std::string_view t : fts::messageTemplates()) {
            const QString en = QString::fromUtf8(t.data(), qsizetype(t.size()));
            const QString zh = QCoreApplication::translate("fts::IssueText", en.toUtf8().constData());
            QStringList enMarks, zhMarks;
            for (const auto& m : placeholder.globalMatch(en)) enMarks << m.captured();
            for (const auto& m : placeholder.globalMatch(zh)) zhMarks << m.captured();
            enMarks.sort();
            zhMarks.sort();
            if (zh == en || enMarks != zhMarks) missing << en;
        }
        QVERIFY2(missing.isEmpty(), qPrintable(missing.join(QLatin1Char('\n'))));
        QCOMPARE(fts::issueText(QString::fromStdString(fts::fillTemplate(
                     fts::msg::kModelConfigKey,
                     {"/m/config.json", "hidden_size", "expected a positive integer up to 16384, got 99999"}))),
                 QStringLiteral("/m/config.json：键“hidden_size”：应为不超过 16384 的正整数，实际为 99999"));
        QCOMPARE(fts::issueText(QString::fromStdString(std::string(fts::msg::kLoraOverRandomInit))),
                 QCoreApplication::translate("fts::IssueText", fts::msg::kLoraOverRandomInit.data()));
        const QString disk =
            fts::issueText(QString::fromStdString(fts::fillTemplate(fts::msg::kDiskFree, {"12.5 GiB", "/data"})));
        QVERIFY2(disk.contains(QLatin1String("12.5 GiB")) && disk.contains(QLatin1String("/data")) &&
                     !disk.contains(QLatin1String("free on")),
                 qPrintable(disk));
        fts::installStudioTranslations(QStringLiteral("en"));
        QCOMPARE(fts::issueText(QString::fromStdString(fts::fillTemplate(fts::msg::kDiskFree, {"12.5 GiB", "/data"}))),
                 QStringLiteral("12.5 GiB free on /data"));
    }

    void zhLoadsAndReachesWidgets() {
        const QString lang = fts::installStudioTranslations(QStringLiteral("zh_CN"));
        QVERIFY2(lang.startsWith(QLatin1String("zh")), qPrintable(lang));
        QCOMPARE(QCoreApplication::translate("fts::MainWindow", "&New run"), QStringLiteral("新建运行(&N)"));
        fts::RunsTableModel model;
        QCOMPARE(model.headerData(fts::RunsTableModel::StatusColumn, Qt::Horizontal).toString(),
                 QStringLiteral("状态"));
        QCOMPARE(fts::RunsTableModel::statusText(fts::RunStatus::Running), QStringLiteral("运行中"));
        QCOMPARE(model.headerData(fts::RunsTableModel::BestEvalColumn, Qt::Horizontal).toString(),
                 QStringLiteral("最佳验证"));
        fts::CompareView compare;  // the compare page's labels
        QCOMPARE(compare.diffOnlyCheck()->text(), QStringLiteral("仅显示差异"));
        QCOMPARE(compare.tabs()->tabText(1), QStringLiteral("配置差异"));
        QCOMPARE(QCoreApplication::translate("fts::ConfigEditor", "%n error(s)", nullptr, 3),
                 QStringLiteral("3 个错误"));
    }
};

class TestEnglishPlurals : public QObject {
    Q_OBJECT
private slots:
    void plurals() {
        QVERIFY(!fts::installStudioTranslations(QStringLiteral("en")).isEmpty());
        QCOMPARE(QCoreApplication::translate("fts::ConfigEditor", "%n error(s)", nullptr, 1),
                 QStringLiteral("1 error"));
        QCOMPARE(QCoreApplication::translate("fts::ConfigEditor", "%n error(s)", nullptr, 2),
                 QStringLiteral("2 errors"));
    }
};

FTS_SUITE_MAIN(argc, argv) {
    int status = 0;
    {
        QApplication app(argc, argv);
        TestEnglishPlurals en;
        status |= QTest::qExec(&en, argc, argv);
    }
    {
        QApplication app(argc, argv);
        TestAppTranslations zh;
        status |= QTest::qExec(&zh, argc, argv);
    }
    return status;
}
#include "test_app_translations.moc"
