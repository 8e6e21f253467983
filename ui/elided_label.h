// A one-line label that never widens its window: its minimum width is a few characters, and text longer than the
// room it gets is drawn elided ("…") with the whole text in its tooltip. For facts, titles and paths that can be
// long (a resumed run's "took … over …", a sweep run's name, a config's path) beside a window's 1024-pixel limit.
#pragma once
#include <QLabel>

namespace fts {

class ElidedLabel : public QLabel {
    Q_OBJECT
public:
    explicit ElidedLabel(QWidget* parent = nullptr, Qt::TextElideMode mode = Qt::ElideRight);

    QSize minimumSizeHint() const override;
    // Whether the text is cut at the label's present width.
    bool isElided() const;
    // The text as it is drawn at the present width (elided where it is cut).
    QString shownText() const;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    Qt::TextElideMode m_mode;
};

}  // namespace fts
