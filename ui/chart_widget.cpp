// SeriesChart: QCustomPlot set-up shared by the run view's charts (see chart_widget.h).
#include "ui/chart_widget.h"

#include <algorithm>

#include <QAbstractScrollArea>
#include <QFontMetrics>
#include <QApplication>
#include <QEvent>
#include <QMouseEvent>
#include <QResizeEvent>
#include <QWheelEvent>

namespace fts {

SeriesChart::SeriesChart(const QString& title, const QString& xLabel, const QString& yLabel, QWidget* parent)
    : QCustomPlot(parent) {
    plotLayout()->insertRow(0);
    m_title = new QCPTextElement(this, title, QFont(font().family(), font().pointSize() + 1, QFont::Bold));
    plotLayout()->addElement(0, 0, m_title);
    xAxis->setLabel(xLabel);
    yAxis->setLabel(yLabel);
    legend->setVisible(true);
    legend->setFont(QFont(font().family(), std::max(7, font().pointSize() - 1)));
    legend->setBrush(QColor(255, 255, 255, 200));
    axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    setNoAntialiasingOnDrag(true);
    setMinimumHeight(120);  // two charts and the log still fit a 640-pixel-high screen
    applyPalette();
    connect(this, &QCustomPlot::beforeReplot, this, &SeriesChart::fitTickCount);
}

// As many value labels as the plot's height holds apart (a short chart's labels would overlap): one label per one
// and a half lines of its font, 2 to 5 of them (QCustomPlot takes the count as a wish and rounds the step). Before each replot, so a ticker set since (the log scale's) gets it too.
void SeriesChart::fitTickCount() {
    // The plot's height at the size about to be laid out: the widget's height less what the last layout gave the
    // title and the x axis (the axis rect itself is still the last layout's: a resize has not reached it yet).
    const int laidOut = axisRect()->rect().height();
    const int aroundPlot = laidOut > 0 && m_laidOutHeight > 0 ? m_laidOutHeight - laidOut : 70;
    const int plot = height() - aroundPlot;
    m_laidOutHeight = height();
    const int perLabel = 3 * QFontMetrics(yAxis->tickLabelFont()).height() / 2;
    const bool log = yAxis->scaleType() == QCPAxis::stLogarithmic;  // its ticker adds ticks between the decades
    const int count = std::clamp(plot / std::max(1, perLabel), log ? 1 : 2, 5);
    if (yAxis->ticker()->tickCount() != count) yAxis->ticker()->setTickCount(count);
}

void SeriesChart::resizeEvent(QResizeEvent* event) {
    placeLegend(event->size().height() >= kLegendInsideMinHeight);
    QCustomPlot::resizeEvent(event);
}

void SeriesChart::placeLegend(bool inside) {
    inside = inside || !legend->visible();  // a hidden legend takes no column
    if (inside == m_legendInside) return;
    if (inside) {
        m_legendColumn->take(legend);
        plotLayout()->remove(m_legendColumn);  // deletes the column and its filler
        m_legendColumn = nullptr;
        plotLayout()->simplify();
        axisRect()->insetLayout()->addElement(legend, Qt::AlignTop | Qt::AlignRight);
    } else {
        axisRect()->insetLayout()->take(legend);
        // a column beside the axis rect (row 1; row 0 holds the title): the legend at its top, as narrow as its
        // names, an empty element below taking the rest of the height
        m_legendColumn = new QCPLayoutGrid;
        plotLayout()->addElement(1, 1, m_legendColumn);
        m_legendColumn->setAutoMargins(QCP::msNone);
        m_legendColumn->setMargins(QMargins(2, 6, 8, 0));
        plotLayout()->setColumnStretchFactor(1, 0.001);
        m_legendColumn->addElement(0, 0, legend);
        m_legendColumn->addElement(1, 0, new QCPLayoutElement(this));
        m_legendColumn->setRowStretchFactors({0.001, 1.0});
    }
    m_legendInside = inside;
}

void SeriesChart::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange) {
        applyPalette();
        replot();
    }
    QCustomPlot::changeEvent(event);
}

void SeriesChart::applyPalette() {
    const QPalette p = palette();
    const QColor fg = p.color(QPalette::WindowText), bg = p.color(QPalette::Base);
    setBackground(bg);
    for (QCPAxis* a : {xAxis, yAxis, xAxis2, yAxis2}) {
        a->setBasePen(QPen(fg));
        a->setTickPen(QPen(fg));
        a->setSubTickPen(QPen(fg));
        a->setTickLabelColor(fg);
        a->setLabelColor(fg);
        QColor grid = fg;
        grid.setAlpha(40);
        a->grid()->setPen(QPen(grid, 1, Qt::DotLine));
    }
    if (m_title) m_title->setTextColor(fg);
    QColor legendBg = bg;
    legendBg.setAlpha(200);
    legend->setBrush(legendBg);
    legend->setTextColor(fg);
    legend->setBorderPen(QPen(fg));
}

QCPGraph* SeriesChart::ensureGraph(const QString& key, const QString& legendName, const QPen& pen) {
    if (auto* g = m_graphs.value(key)) return g;
    QCPGraph* g = addGraph();
    g->setName(legendName);
    g->setPen(pen);
    g->setAdaptiveSampling(true);
    m_graphs.insert(key, g);
    return g;
}

QCPGraph* SeriesChart::graphByKey(const QString& key) const { return m_graphs.value(key); }

QStringList SeriesChart::graphKeys() const { return m_graphs.keys(); }

int SeriesChart::pointCount(const QString& key) const {
    const QCPGraph* g = m_graphs.value(key);
    return g ? g->data()->size() : 0;
}

bool SeriesChart::sync(const QString& key, const LiveSeries& series) {
    QCPGraph* g = m_graphs.value(key);
    if (!g) return false;
    const auto it = m_synced.constFind(key);
    if (it != m_synced.constEnd() && it->revision == series.revision()) return false;
    const bool appendOnly = it != m_synced.constEnd() && it->layoutRevision == series.layoutRevision() &&
                            it->count <= series.size() && g->data()->size() == it->count;
    if (appendOnly) {
        g->addData(series.xs().mid(it->count), series.ys().mid(it->count), /*alreadySorted=*/true);
    } else {
        g->setData(series.xs(), series.ys(), /*alreadySorted=*/true);
    }
    m_synced.insert(key, Synced{series.revision(), series.layoutRevision(), series.size()});
    return true;
}

void SeriesChart::removeAllSeries() {
    clearGraphs();
    m_graphs.clear();
    m_synced.clear();
    m_autoRange = true;
}

void SeriesChart::refresh() {
    if (m_autoRange && graphCount() > 0) {
        rescaleAxes(/*onlyVisiblePlottables=*/true);
        // Give flat or single-point curves some room, and a little headroom above the top. QCustomPlot keeps the
        // previous span around a flat curve, so the data's own value range decides.
        QCPRange y = yAxis->range();
        bool any = false;
        const bool logAxis = yAxis->scaleType() == QCPAxis::stLogarithmic;  // only positive values can be drawn
        for (int i = 0; i < graphCount(); ++i) {
            if (!graph(i)->visible()) continue;
            bool found = false;
            const QCPRange r = graph(i)->getValueRange(found, logAxis ? QCP::sdPositive : QCP::sdBoth);
            if (!found) continue;
            if (!any)
                y = r;
            else
                y.expand(r);
            any = true;
        }
        if (yAxis->scaleType() == QCPAxis::stLogarithmic) {
            yAxis->setRange(y.lower / 1.15, y.upper * 1.15);  // multiplicative room: a log axis stays > 0
        } else {
            // A flat curve gets 10 % of its value (a constant lr of 1e-3 stays readable), or 1 around zero.
            const double pad = y.size() > 0 ? y.size() * 0.05 : (y.center() != 0.0 ? std::abs(y.center()) * 0.1 : 1.0);
            yAxis->setRange(y.lower - pad, y.upper + pad);
        }
        // A little room on both sides, so the newest point (often an eval marker) is not cut by the frame and the
        // first (the step-0 eval) does not sit on the y axis behind it.
        QCPRange x = xAxis->range();
        if (x.size() <= 0)
            xAxis->setRange(x.lower - 1, x.upper + 1);
        else
            xAxis->setRange(x.lower - x.size() * 0.02, x.upper + x.size() * 0.02);
    }
    replot();
}

void SeriesChart::setTitle(const QString& title) { m_title->setText(title); }
QString SeriesChart::title() const { return m_title->text(); }

void SeriesChart::setAxisLabels(const QString& xLabel, const QString& yLabel) {
    xAxis->setLabel(xLabel);
    yAxis->setLabel(yLabel);
}

void SeriesChart::setAutoRange(bool on) {
    m_autoRange = on;
    if (on) refresh();
}

QColor SeriesChart::seriesColor(int index) {
    // Okabe-Ito palette (distinguishable with common colour-vision deficiencies).
    static const QColor palette[] = {QColor(0, 114, 178),   QColor(213, 94, 0),  QColor(0, 158, 115),
                                     QColor(204, 121, 167), QColor(230, 159, 0), QColor(86, 180, 233),
                                     QColor(0, 0, 0),       QColor(240, 228, 66)};
    constexpr int n = sizeof(palette) / sizeof(palette[0]);
    return palette[((index % n) + n) % n];
}

void SeriesChart::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton) m_autoRange = false;  // the user is dragging: stop following new data
    QCustomPlot::mousePressEvent(event);
}

void SeriesChart::setZoomable(bool on) {
    m_zoomable = on;
    setInteractions(on ? QCP::Interactions(QCP::iRangeDrag | QCP::iRangeZoom) : QCP::Interactions());
}

void SeriesChart::wheelEvent(QWheelEvent* event) {
    if (!m_zoomable) {
        // A chart inside a scrolled form: the turn scrolls the form. Handed to the scroll area's viewport directly
        // (QCustomPlot's ignored wheel events did not reach it).
        for (QWidget* p = parentWidget(); p; p = p->parentWidget())
            if (auto* area = qobject_cast<QAbstractScrollArea*>(p)) {
                QWheelEvent copy(area->viewport()->mapFromGlobal(event->globalPosition()), event->globalPosition(),
                                 event->pixelDelta(), event->angleDelta(), event->buttons(), event->modifiers(),
                                 event->phase(), event->inverted(), event->source());
                QApplication::sendEvent(area->viewport(), &copy);
                event->setAccepted(copy.isAccepted());
                return;
            }
        event->ignore();
        return;
    }
    m_autoRange = false;
    QCustomPlot::wheelEvent(event);
}

void SeriesChart::mouseDoubleClickEvent(QMouseEvent* event) {
    QCustomPlot::mouseDoubleClickEvent(event);
    setAutoRange(true);
}

}  // namespace fts
