// SeriesChart: a QCustomPlot holding named graphs fed from LiveSeries buffers. Callers batch redraws
// (RunView's 40 ms timer); sync() copies only series whose revision changed. Auto-ranging follows new
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

    // Copies the series into its graph when it changed since the last sync. Returns true when it did.
    bool sync(const QString& key, const LiveSeries& series);
    void removeAllSeries();
    // Rescales (when auto-ranging) and replots.
    void refresh();
    bool autoRange() const { return m_autoRange; }
    void setAutoRange(bool on);
    void setTitle(const QString& title);

    // A distinct colour per index (cycles through a colour-blind-friendly palette).
    static QColor seriesColor(int index);

protected:
    void mousePressEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void changeEvent(QEvent* event) override;  // follows the palette (light/dark theme)

private:
    void applyPalette();
    QCPTextElement* m_title = nullptr;
    QHash<QString, QCPGraph*> m_graphs;
    QHash<QString, quint64> m_syncedRevision;
    bool m_autoRange = true;
};

}  // namespace fts
