// Hostfile and include list from the hosts panel's choice; ssh config Host entries (see multi_host_launch.h).
#include "ui/multi_host_launch.h"

#include <QRegularExpression>

#include <algorithm>

namespace fts {

namespace {
// One hostfile line and one include part for a host.
void addHost(MultiHostLaunch& out, const QString& host, const QList<int>& gpus, int cpuRanks) {
    QList<int> slotIds = gpus;
    int count = cpuRanks;
    if (!gpus.isEmpty()) {
        std::sort(slotIds.begin(), slotIds.end());
        count = slotIds.back() + 1;
    } else {
        for (int i = 0; i < cpuRanks; ++i) slotIds << i;
    }
    out.hostfileText += QStringLiteral("%1 slots=%2\n").arg(host).arg(std::max(1, count));
    QStringList ids;
    for (int s : slotIds) ids << QString::number(s);
    if (!out.include.isEmpty()) out.include += QLatin1Char('@');
    out.include += host + QLatin1Char(':') + ids.join(QLatin1Char(','));
}
}  // namespace

MultiHostLaunch multiHostLaunch(const QList<int>& localGpus, int localRanks, const QList<RemoteHostChoice>& remote) {
    MultiHostLaunch out;
    addHost(out, QStringLiteral("localhost"), localGpus, std::max(1, localRanks));
    for (const RemoteHostChoice& h : remote) addHost(out, h.host, h.gpus, std::max(1, h.cpuRanks));
    return out;
}

QStringList sshConfigHosts(const QString& configText) {
    QStringList hosts;
    static const QRegularExpression hostLine(QStringLiteral("^\\s*Host\\s+(.+)$"),
                                             QRegularExpression::CaseInsensitiveOption);
    for (const QString& line : configText.split(QLatin1Char('\n'))) {
        const auto m = hostLine.match(line);
        if (!m.hasMatch()) continue;
        for (const QString& name :
             m.captured(1).split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts)) {
            if (name.startsWith(QLatin1Char('#'))) break;
            if (name.contains(QLatin1Char('*')) || name.contains(QLatin1Char('?')) || name.contains(QLatin1Char('!')))
                continue;
            if (!hosts.contains(name)) hosts << name;
        }
    }
    return hosts;
}

}  // namespace fts
