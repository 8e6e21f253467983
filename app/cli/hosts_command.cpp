// `fts hosts check --hostfile FILE [...]`: the hosts check (core/launch/hosts_check.h); --json for the studio.
#include <iostream>

#include "app/cli/commands.h"
#include "core/launch/hosts_check.h"

namespace fts::cli {

void addHostsCommand(CLI::App& app) {
    auto* hosts = app.add_subcommand("hosts", "Hosts of a hostfile: check they are ready for multi-node training");
    hosts->require_subcommand(1);
    auto* check =
        hosts->add_subcommand("check", "Probe every host, then run broadcast, all-reduce and per-link transfers");
    auto o = std::make_shared<HostsCheckOptions>();
    auto asJson = std::make_shared<bool>(false);
    check->add_option("-H,--hostfile", o->hostfile, "DeepSpeed hostfile")->required()->check(CLI::ExistingFile);
    check->add_option("--include", o->include, "Hosts and slots to use, DeepSpeed syntax: host1:0,2@host2");
    check->add_option("--exclude", o->exclude, "Hosts and slots to leave out");
    check->add_option("--num_nodes,--num-nodes", o->numNodes, "Use the first N hosts");
    check->add_option("--num_gpus,--num-gpus", o->numGpus, "Use slots 0..N-1 of every host");
    check->add_option("--master_addr,--master-addr", o->masterAddr, "This machine's address the ranks reach");
    check->add_option("--master_port,--master-port", o->masterPort, "Rendezvous port (default: a free one)");
    check->add_option("--ssh_port,--ssh-port", o->sshPort, "ssh port of the hosts");
    check->add_option("--ssh-config", o->sshConfig, "ssh client config file (ssh -F)");
    check->add_option("--remote-fts", o->remoteFts, "Path of fts on the remote hosts (default: the same as here)");
    check->add_option("--timeout", o->timeoutMs, "Milliseconds each collective may take (default 30000)");
    check->add_flag("--json", *asJson, "Print the report as JSON");
    check->callback([o, asJson] {
        o->localFts = selfExecutable();
        o->hostStore = hostRendezvousStore;
        const nlohmann::json report = checkHosts(*o, *asJson ? nullptr : &std::cerr);
        if (*asJson)
            std::cout << report.dump(2) << "\n";
        else
            std::cout << formatHostsReport(report);
        exitCode() = report.value("ok", false) ? 0 : 1;
    });
}

}  // namespace fts::cli
