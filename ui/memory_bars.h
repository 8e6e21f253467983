// MemoryBars: one horizontal bar per (rank, device) with the latest allocated / reserved / peak memory
// against its capacity (nvitop style), plus the host's RAM in use. Painted, no child widgets per rank.
#pragma once
#include <QString>
#include <QVector>
#include <QWidget>
#include <cstdint>

namespace fts {

struct MemoryBar {
    QString label;                                                // "rank 0 · cuda:0", "host RAM"
    int64_t allocated = 0, reserved = 0, peak = 0, capacity = 0;  // bytes; capacity 0 = unknown
    int64_t estimate = 0;  // the run's memory estimate for this device (bytes; 0 = none), drawn as a marker
};

class MemoryBars : public QWidget {
    Q_OBJECT
public:
    explicit MemoryBars(QWidget* parent = nullptr);
    void setBars(const QVector<MemoryBar>& bars);
    const QVector<MemoryBar>& bars() const { return m_bars; }
    // "1.2 / 16.0 GiB (reserved 2.0, peak 3.1, estimate 3.0: peak 103%)"
    static QString barText(const MemoryBar& bar);
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QVector<MemoryBar> m_bars;
};

// The machine's RAM: {in use, total} bytes from /proc/meminfo (MemTotal - MemAvailable); {0, 0} if unknown.
std::pair<int64_t, int64_t> hostMemory();

}  // namespace fts
