// CollapsibleSection (see collapsible_section.h).
#include "ui/collapsible_section.h"

#include <QToolButton>
#include <QVBoxLayout>

namespace fts {

CollapsibleSection::CollapsibleSection(const QString& title, QWidget* parent)
    : QWidget(parent), m_header(new QToolButton(this)), m_body(new QWidget(this)), m_title(title) {
    m_header->setCheckable(true);
    m_header->setChecked(true);
    m_header->setAutoRaise(true);
    m_header->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_header->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    QFont bold = m_header->font();
    bold.setBold(true);
    m_header->setFont(bold);
    connect(m_header, &QToolButton::toggled, this, [this](bool on) {
        m_body->setVisible(on);
        updateHeader();
    });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_header);
    layout->addWidget(m_body);
    updateHeader();
}

void CollapsibleSection::setTitle(const QString& title) {
    m_title = title;
    updateHeader();
}

void CollapsibleSection::setErrorCount(int errors) {
    if (errors == m_errors) return;
    m_errors = errors;
    updateHeader();
}

void CollapsibleSection::setExpanded(bool expanded) { m_header->setChecked(expanded); }

void CollapsibleSection::updateHeader() {
    m_header->setArrowType(m_header->isChecked() ? Qt::DownArrow : Qt::RightArrow);
    m_header->setText(m_errors > 0 ? tr("%1 (%n error(s))", nullptr, m_errors).arg(m_title) : m_title);
    m_header->setStyleSheet(m_errors > 0 ? QStringLiteral("QToolButton { color: #c01c28; }") : QString());
}

}  // namespace fts
