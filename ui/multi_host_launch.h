// What the studio's hosts panel turns into `fts train` arguments: a DeepSpeed hostfile and an --include list
// naming this machine's chosen devices and each chosen remote host's slots (GPUs, or CPU ranks). Also the
// `Host` entries of an OpenSSH client config, offered as hosts to add. Pure functions (tested).
#pragma once
#include <QList>
#include <QString>
#include <QStringList>

namespace fts {

struct RemoteHostChoice {
    QString host;      // an ssh destination (a name, an alias from ~/.ssh/config or an address)
    QList<int> gpus;   // the GPU ids chosen there; empty: CPU ranks
    int cpuRanks = 1;  // ranks when there are no GPUs
};

struct MultiHostLaunch {
    QString hostfileText;  // "localhost slots=N\nh1 slots=M\n..."
    QString include;       // "localhost:0,1@h1:0@h2:0,1"
};

// localGpus empty: this machine trains on the CPU with localRanks ranks. GPU slots in the hostfile cover the
// highest chosen id; CPU hosts get exactly their rank count.
MultiHostLaunch multiHostLaunch(const QList<int>& localGpus, int localRanks, const QList<RemoteHostChoice>& remote);

// Host aliases of an ssh client config ("Host a b" lines; patterns with * ? or ! are skipped), in order, unique.
QStringList sshConfigHosts(const QString& configText);

}  // namespace fts
