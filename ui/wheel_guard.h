// Scrolling never edits a setting by accident: a wheel turn over a combo box, spin box or slider that does not
// have the keyboard focus goes to the widget around it (the form scrolls) instead of changing the value; click
// or tab into the widget first to wheel through its values (the usual Qt idiom). Installed application-wide,
// so every form and dialog of the studio gets it.
#pragma once
#include <QObject>

namespace fts {

class WheelGuard : public QObject {
    Q_OBJECT
public:
    // Installs itself as an event filter of the application; removed when `parent` goes away.
    explicit WheelGuard(QObject* parent);
    ~WheelGuard() override;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
};

}  // namespace fts
