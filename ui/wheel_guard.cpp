// The wheel guard (see wheel_guard.h).
#include "ui/wheel_guard.h"

#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QScrollBar>
#include <QEvent>
#include <QWidget>

namespace fts {
namespace {

// Scroll bars are sliders too, but scrolling is their job: the scroll area hands them its wheel events.
bool isValueWidget(QObject* o) {
    return qobject_cast<QComboBox*>(o) || qobject_cast<QAbstractSpinBox*>(o) ||
           (qobject_cast<QAbstractSlider*>(o) && !qobject_cast<QScrollBar*>(o));
}

}  // namespace

WheelGuard::WheelGuard(QObject* parent) : QObject(parent) {
    if (qApp) qApp->installEventFilter(this);
}

WheelGuard::~WheelGuard() {
    if (qApp) qApp->removeEventFilter(this);
}

bool WheelGuard::eventFilter(QObject* watched, QEvent* event) {
    switch (event->type()) {
        case QEvent::Polish:
            // A wheel turn must not give these widgets the focus either (spin boxes take it by default).
            if (isValueWidget(watched)) {
                auto* w = static_cast<QWidget*>(watched);
                if (w->focusPolicy() == Qt::WheelFocus) w->setFocusPolicy(Qt::StrongFocus);
            }
            break;
        case QEvent::Wheel:
            // Ignored and filtered: QApplication passes an ignored wheel event on to the parent widgets.
            if (isValueWidget(watched) && !static_cast<QWidget*>(watched)->hasFocus()) {
                event->ignore();
                return true;
            }
            break;
        default:
            break;
    }
    return QObject::eventFilter(watched, event);
}

}  // namespace fts
