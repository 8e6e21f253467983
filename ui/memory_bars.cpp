// MemoryBars (see memory_bars.h).
#include "ui/memory_bars.h"

#include <QFile>
#include <QPainter>
#include <algorithm>

namespace fts {
namespace {

constexpr int kRowHeight = 22;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

QString gib(int64_t bytes) { return QString::number(double(bytes) / kGiB, 'f', bytes < int64_t(kGiB) ? 2 : 1); }

}  // namespace

MemoryBars::MemoryBars(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("memoryBars"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void MemoryBars::setBars(const QVector<MemoryBar>& bars) {
    const bool resized = bars.size() != m_bars.size();
    m_bars = bars;
    if (resized) updateGeometry();
    update();
}

QString MemoryBars::barText(const MemoryBar& b) {
    QString text =
        b.capacity > 0 ? tr("%1 / %2 GiB").arg(gib(b.allocated), gib(b.capacity)) : tr("%1 GiB").arg(gib(b.allocated));
    QStringList extra;
    if (b.reserved > 0) extra << tr("reserved %1").arg(gib(b.reserved));
    if (b.peak > 0) extra << tr("peak %1").arg(gib(b.peak));
    if (b.estimate > 0 && b.peak > 0)  // how good the estimate was: the measured peak as a share of it
        extra << tr("estimate %1: peak %2%")
                     .arg(gib(b.estimate))
                     .arg(qRound(100.0 * double(b.peak) / double(b.estimate)));
    else if (b.estimate > 0)
        extra << tr("estimate %1").arg(gib(b.estimate));
    if (!extra.isEmpty()) text += QStringLiteral(" (") + extra.join(QStringLiteral(", ")) + QLatin1Char(')');
    return text;
}

QSize MemoryBars::sizeHint() const { return {400, std::max<int>(1, int(m_bars.size())) * kRowHeight + 4}; }
QSize MemoryBars::minimumSizeHint() const { return sizeHint(); }

void MemoryBars::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, false);
    const int labelWidth = std::min(170, width() / 4);
    const QColor alloc(0x1f, 0x77, 0xb4), reserved(0x9e, 0xc6, 0xe6), peak(0xd6, 0x27, 0x28);
    for (int i = 0; i < m_bars.size(); ++i) {
        const MemoryBar& b = m_bars[i];
        const QRect row(0, 2 + i * kRowHeight, width(), kRowHeight - 4);
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(QRect(row.left(), row.top(), labelWidth - 6, row.height()), Qt::AlignVCenter | Qt::AlignLeft,
                   b.label);
        const QRect bar(labelWidth, row.top(), width() - labelWidth - 2, row.height());
        p.fillRect(bar, palette().color(QPalette::AlternateBase));
        const int64_t scale =
            b.capacity > 0 ? b.capacity : std::max({b.allocated, b.reserved, b.peak, b.estimate, int64_t(1)});
        const auto w = [&](int64_t v) {
            return int(double(bar.width()) * std::clamp(double(v) / double(scale), 0.0, 1.0));
        };
        if (b.reserved > 0) p.fillRect(QRect(bar.left(), bar.top(), w(b.reserved), bar.height()), reserved);
        QColor a = alloc;
        if (b.capacity > 0 && double(b.allocated) / double(b.capacity) > 0.9) a = QColor(0xc0, 0x1c, 0x28);
        p.fillRect(QRect(bar.left(), bar.top(), w(b.allocated), bar.height()), a);
        if (b.peak > 0) {
            p.setPen(QPen(peak, 2));
            const int x = bar.left() + w(b.peak);
            p.drawLine(x, bar.top(), x, bar.bottom());
        }
        if (b.estimate > 0) {  // the estimate: a dashed marker next to the peak's solid one
            p.setPen(QPen(palette().color(QPalette::WindowText), 1, Qt::DashLine));
            const int x = bar.left() + w(b.estimate);
            p.drawLine(x, bar.top(), x, bar.bottom());
        }
        p.setPen(palette().color(QPalette::Mid));
        p.drawRect(bar.adjusted(0, 0, -1, -1));
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(bar.adjusted(6, 0, -6, 0), Qt::AlignVCenter | Qt::AlignRight, barText(b));
    }
}

std::pair<int64_t, int64_t> hostMemory() {
    QFile f(QStringLiteral("/proc/meminfo"));
    if (!f.open(QIODevice::ReadOnly)) return {0, 0};
    int64_t total = -1, available = -1;
    for (const QByteArray& line : f.readAll().split('\n')) {
        const auto value = [&] { return line.simplified().split(' ').value(1).toLongLong() * 1024; };
        if (line.startsWith("MemTotal:"))
            total = value();
        else if (line.startsWith("MemAvailable:"))
            available = value();
    }
    if (total <= 0 || available < 0) return {0, 0};
    return {total - available, total};
}

}  // namespace fts
