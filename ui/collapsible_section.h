// CollapsibleSection: a titled block whose body folds away (a flat arrow button as header). The title can
// carry a problem count and turns red when it has errors.
#pragma once
#include <QWidget>

class QToolButton;

namespace fts {

class CollapsibleSection : public QWidget {
    Q_OBJECT
public:
    explicit CollapsibleSection(const QString& title, QWidget* parent = nullptr);
    QWidget* body() const { return m_body; }
    void setTitle(const QString& title);
    void setErrorCount(int errors);  // shown after the title; red when > 0
    void setExpanded(bool expanded);
    QToolButton* header() const { return m_header; }

private:
    void updateHeader();
    QToolButton* m_header;
    QWidget* m_body;
    QString m_title;
    int m_errors = 0;
};

}  // namespace fts
