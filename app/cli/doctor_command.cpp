// `fts doctor [--store FILE] [--host H]... [--hostfile FILE] [--json]`: what to check when something fails. One line
// per fact, OK / info / warning / error, with what to do; exit code 1 when any line is an error. The studio runs
// `fts doctor --json` for its settings page.
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "core/config/message_templates.h"
#include "core/launch/doctor.h"
#include "core/launch/hostfile.h"
#include "core/store/run_store.h"
#include "core/train/runtime_versions.h"

namespace fts::cli {

namespace {

std::vector<DoctorLine> runtimeLines() {
    std::vector<DoctorLine> out;
    const std::string versions = runtimeVersionText();
    const std::string libtorch =
        versions.substr(versions.find('\n') + 1, versions.rfind('\n') - versions.find('\n') - 1);
    DoctorLine rt{DoctorLine::Level::Ok, "runtime", libtorch, ""};
    if (libtorch.find(msg::kNcclNotLoaded) != std::string::npos) {
        rt.level = DoctorLine::Level::Warning;
        rt.fix = msg::kNcclMissingFix;
    }
    out.push_back(rt);
    const auto gpus = cudaDeviceDescriptions();
    if (gpus.empty()) {
        out.push_back(
            {DoctorLine::Level::Warning, "gpus", std::string(msg::kNoCudaDevice), std::string(msg::kNoCudaDeviceFix)});
    } else {
        for (const auto& g : gpus) out.push_back({DoctorLine::Level::Ok, "gpu", g, ""});
    }
    return out;
}

}  // namespace

void addDoctorCommand(CLI::App& app) {
    auto* cmd = app.add_subcommand("doctor", "Check this machine, the run store and the ssh hosts; say what to fix");
    auto store = std::make_shared<std::filesystem::path>(RunStore::defaultPath());
    auto hosts = std::make_shared<std::vector<std::string>>();
    auto hostfile = std::make_shared<std::filesystem::path>();
    auto json = std::make_shared<bool>(false);
    cmd->add_option("--store", *store, "Run store file (default: $XDG_DATA_HOME/finetune-studio/runs.sqlite)");
    cmd->add_option("--host", *hosts, "An ssh host to probe (repeatable)");
    cmd->add_option("--hostfile", *hostfile, "Probe every host of a DeepSpeed hostfile");
    cmd->add_flag("--json", *json, "One JSON object per line: {level, topic, detail, fix}");
    cmd->callback([store, hosts, hostfile, json] {
        std::vector<DoctorLine> lines = runtimeLines();
        lines.push_back(checkMemory());
        lines.push_back(checkStore(*store));
        lines.push_back(checkDisk("disk (store)", store->parent_path()));
        lines.push_back(checkHfCache());
        std::vector<std::string> all;
        for (const auto& h : *hosts) {
            if (const std::string why = hostNameProblem(h); !why.empty())
                lines.push_back({DoctorLine::Level::Error, "host " + h, why, std::string(msg::kHostNameFix)});
            else
                all.push_back(h);
        }
        if (!hostfile->empty())
            for (const auto& h : readHostfile(*hostfile)) all.push_back(h.host);
        if (!all.empty()) {
            TransportOptions transport;
            transport.localFts = selfExecutable();
            for (auto& l : checkHosts(all, transport, 15000)) lines.push_back(std::move(l));
        }
        bool error = false;
        for (const DoctorLine& l : lines) {
            error = error || l.level == DoctorLine::Level::Error;
            if (*json) {
                std::cout << nlohmann::json{{"level", doctorLevelName(l.level)},
                                            {"topic", l.topic},
                                            {"detail", l.detail},
                                            {"fix", l.fix}}
                                 .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                          << "\n";
                continue;
            }
            std::string level = doctorLevelName(l.level);
            for (auto& c : level) c = char(std::toupper(static_cast<unsigned char>(c)));
            std::cout << level << std::string(9 - level.size(), ' ') << l.topic
                      << std::string(l.topic.size() < 14 ? 14 - l.topic.size() : 1, ' ') << l.detail << "\n";
            if (!l.fix.empty()) std::cout << std::string(23, ' ') << "-> " << l.fix << "\n";
        }
        exitCode() = error ? 1 : 0;
    });
}

}  // namespace fts::cli
