// LiveSeries: a bounded (x, y) buffer for live charts. Non-finite values are dropped on arrival; x stays
// sorted (equal x replaces); when full, the older half is thinned 2:1 so the whole history stays visible.
#pragma once
#include <QVector>
#include <cstddef>

namespace fts {

class LiveSeries {
public:
    static constexpr int kDefaultCapacity = 20000;
    explicit LiveSeries(int capacity = kDefaultCapacity);

    // Returns false (and stores nothing) when x or y is NaN or infinite.
    bool append(double x, double y);
    void clear();

    int size() const { return static_cast<int>(m_x.size()); }
    bool isEmpty() const { return m_x.isEmpty(); }
    int capacity() const { return m_capacity; }
    const QVector<double>& xs() const { return m_x; }
    const QVector<double>& ys() const { return m_y; }
    double lastX() const { return m_x.isEmpty() ? 0.0 : m_x.constLast(); }
    double lastY() const { return m_y.isEmpty() ? 0.0 : m_y.constLast(); }
    int droppedNonFinite() const { return m_dropped; }
    // Bumped on every change; charts compare it to skip unchanged series.
    quint64 revision() const { return m_revision; }
    // Bumped when points already stored change (out-of-order insert, equal-x replace, thinning, clear), not by
    // appends at the end: a chart that saw the same layout revision only needs the points past its count.
    quint64 layoutRevision() const { return m_layoutRevision; }

private:
    void thin();

    QVector<double> m_x, m_y;
    int m_capacity;
    int m_dropped = 0;
    quint64 m_revision = 0;
    quint64 m_layoutRevision = 0;
};

}  // namespace fts
