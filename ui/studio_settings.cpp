// Theme switching (see studio_settings.h).
#include "ui/studio_settings.h"

#include <QApplication>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>

namespace fts {
namespace {
QString g_theme;
QString g_platformStyle;
}  // namespace

void applyTheme(const QString& theme) {
    if (!qApp) return;
    if (g_platformStyle.isEmpty()) g_platformStyle = QApplication::style()->name();
    g_theme = theme;
    if (theme == QLatin1String("dark")) {
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QPalette p;
        const QColor window(0x2b, 0x2d, 0x30), base(0x1e, 0x1f, 0x22), text(0xe6, 0xe6, 0xe6);
        p.setColor(QPalette::Window, window);
        p.setColor(QPalette::WindowText, text);
        p.setColor(QPalette::Base, base);
        p.setColor(QPalette::AlternateBase, window);
        p.setColor(QPalette::ToolTipBase, base);
        p.setColor(QPalette::ToolTipText, text);
        p.setColor(QPalette::Text, text);
        p.setColor(QPalette::Button, window);
        p.setColor(QPalette::ButtonText, text);
        p.setColor(QPalette::BrightText, Qt::red);
        p.setColor(QPalette::Highlight, QColor(0x3d, 0x7e, 0xc6));
        p.setColor(QPalette::HighlightedText, Qt::white);
        p.setColor(QPalette::PlaceholderText, QColor(0x8a, 0x8d, 0x91));
        p.setColor(QPalette::Mid, QColor(0x5a, 0x5d, 0x61));
        p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x7a, 0x7d, 0x81));
        p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x7a, 0x7d, 0x81));
        QApplication::setPalette(p);
    } else if (theme == QLatin1String("light")) {
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(QApplication::style()->standardPalette());
    } else {
        QApplication::setStyle(QStyleFactory::create(g_platformStyle));
        QApplication::setPalette(QApplication::style()->standardPalette());
    }
}

QString currentTheme() { return g_theme; }

}  // namespace fts
