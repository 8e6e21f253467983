// SeriesChart: a QCustomPlot holding named graphs fed from LiveSeries buffers. Callers batch redraws
// (RunView's replot timer); sync() copies only series whose revision changed, and of those only the appended points. Auto-ranging follows new
// data until the user drags or zooms; a double click returns to auto-range.
#pragma once
#include <qcustomplot.h>

#include <QHash>
#include <QPen>
#include <QString>

#include "ui/live_series.h"

namespace fts {

class SeriesChart : public QCustomPlot {
    Q_OBJECT
public:
    SeriesChart(const QString& title, const QString& xLabel, const QString& yLabel, QWidget* parent = nullptr);

    // Creates the graph on first use; later calls only return it.
    QCPGraph* ensureGraph(const QString& key, const QString& legendName, const QPen& pen);
    QCPGraph* graphByKey(const QString& key) const;
    QStringList graphKeys() const;
    int pointCount(const QString& key) const;  // points in the graph's data (what is drawn)

    // Copies the series into its graph when it changed since the last sync: only the new points when the
    // series was only appended to since (same layoutRevision), else all of it. Returns true when it did.
    bool sync(const QString& key, const LiveSeries& series);
    void removeAllSeries();
    // Rescales (when auto-ranging) and replots.
    void refresh();
    bool autoRange() const { return m_autoRange; }
    void setAutoRange(bool on);
    void setTitle(const QString& title);
    QString title() const;
    void setAxisLabels(const QString& xLabel, const QString& yLabel);
    // Off: no drag or wheel zoom, and wheel turns pass to the widget around it (a chart inside a scrolled form).
    void setZoomable(bool on);

    // A distinct colour per index (cycles through a colour-blind-friendly palette).
    static QColor seriesColor(int index);

protected:
    void mousePressEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void changeEvent(QEvent* event) override;  // follows the palette (light/dark theme)
    void resizeEvent(QResizeEvent* event) override;

public:
    // Below this height the legend leaves the plot for a column at its right, so it covers no data or axis.
    static constexpr int kLegendInsideMinHeight = 260;
    bool legendInsidePlot() const { return m_legendInside; }

private:
    void applyPalette();
    void placeLegend(bool inside);
    void fitTickCount();
    int m_laidOutHeight = 0;  // the height the last replot laid the plot out for
    bool m_legendInside = true;
    QCPLayoutGrid* m_legendColumn = nullptr;  // holds the legend while it is outside the plot
    bool m_zoomable = true;
    QCPTextElement* m_title = nullptr;
    QHash<QString, QCPGraph*> m_graphs;
    struct Synced {
        quint64 revision = 0, layoutRevision = 0;
        int count = 0;
    };
    QHash<QString, Synced> m_synced;
    bool m_autoRange = true;
};

}  // namespace fts
