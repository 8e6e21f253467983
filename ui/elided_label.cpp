// ElidedLabel (see elided_label.h): QLabel's text and font, painted elided to the width it is given.
#include "ui/elided_label.h"

#include <QHelpEvent>
#include <QPainter>
#include <QStyle>
#include <QToolTip>

#include <algorithm>

namespace fts {

namespace {
constexpr int kMinimumCharacters = 6;  // what the label keeps at its smallest: "took…" reads as cut, not as gone
}

ElidedLabel::ElidedLabel(QWidget* parent, Qt::TextElideMode mode) : QLabel(parent), m_mode(mode) {
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
}

QSize ElidedLabel::minimumSizeHint() const {
    QSize s = QLabel::minimumSizeHint();
    const QMargins m = contentsMargins();
    s.setWidth(std::min(s.width(), fontMetrics().averageCharWidth() * kMinimumCharacters + m.left() + m.right()));
    return s;
}

bool ElidedLabel::isElided() const {
    return fontMetrics().horizontalAdvance(text()) > contentsRect().width() - 2 * margin();
}

QString ElidedLabel::shownText() const {
    if (!isElided()) return text();
    return fontMetrics().elidedText(text(), m_mode, contentsRect().width() - 2 * margin());
}

void ElidedLabel::paintEvent(QPaintEvent* event) {
    if (!isElided() || textFormat() == Qt::RichText) {
        QLabel::paintEvent(event);
        return;
    }
    QPainter painter(this);
    const QRect room = contentsRect().adjusted(margin(), margin(), -margin(), -margin());
    style()->drawItemText(&painter, room, int(alignment()), palette(), isEnabled(), shownText(), foregroundRole());
}

bool ElidedLabel::event(QEvent* event) {
    // the whole text as the tooltip while it is cut (a tooltip of its own, if set, comes first)
    if (event->type() == QEvent::ToolTip && toolTip().isEmpty() && isElided()) {
        QToolTip::showText(static_cast<QHelpEvent*>(event)->globalPos(), text(), this);
        return true;
    }
    return QLabel::event(event);
}

}  // namespace fts
