// DeepSpeed's resource filter and rank numbering (see launch_plan.h).
#include "core/launch/launch_plan.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "core/util/error.h"

namespace fts {

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> parts;
    std::string part;
    std::istringstream in(text);
    while (std::getline(in, part, sep)) parts.push_back(part);
    if (!text.empty() && text.back() == sep) parts.push_back("");
    return parts;
}

struct NodeSpec {
    std::string host;
    bool allSlots = true;
    std::vector<int> slots;
};

// "h1@h2:0,2" -> {h1 all}, {h2 0,2}. A ':' followed by slot ids ends the host name (addresses with ':' work
// when written without slots, and with slots when the last ':' starts the list).
std::vector<NodeSpec> parseSpec(const std::string& text, const std::string& option) {
    std::vector<NodeSpec> specs;
    for (const std::string& part : split(text, '@')) {
        if (part.empty()) throw ConfigError(option + " \"" + text + "\": an empty host between '@' separators");
        NodeSpec spec;
        const size_t colon = part.rfind(':');
        const bool hasSlots =
            colon != std::string::npos && part.find_first_not_of("0123456789,", colon + 1) == std::string::npos;
        spec.host = hasSlots ? part.substr(0, colon) : part;
        if (hasSlots) {
            spec.allSlots = false;
            for (const std::string& id : split(part.substr(colon + 1), ',')) {
                if (id.empty() || id.size() > 6)
                    throw ConfigError(option + " \"" + text + "\": \"" + part +
                                      "\" is not HOST:SLOT[,SLOT...] (slots are GPU ids such as 0,1)");
                spec.slots.push_back(std::stoi(id));
            }
        }
        specs.push_back(spec);
    }
    return specs;
}

std::vector<int> parseIdList(const std::string& text, const std::string& option) {
    std::vector<int> ids;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (item.empty()) continue;
        size_t used = 0;
        int v = -1;
        try {
            v = std::stoi(item, &used);
        } catch (const std::exception&) {
        }
        if (v < 0 || used != item.size())
            throw ConfigError(option + ": \"" + item +
                              "\" is not a GPU id (expected non-negative integers, e.g. localhost:0,1)");
        ids.push_back(v);
    }
    return ids;
}

// "localhost:0,1" -> {0,1}; "localhost" -> nullopt-like (all): returns false in `all`.
std::vector<int> parseHostSlots(const std::string& spec, const std::string& option, bool& all) {
    all = false;
    std::vector<int> ids;
    std::stringstream ss(spec);
    std::string part;
    while (std::getline(ss, part, '@')) {
        const size_t colon = part.find(':');
        const std::string host = part.substr(0, colon);
        if (host != "localhost" && host != "127.0.0.1")
            throw ConfigError(option + ": host \"" + host + "\" is not this machine; only localhost is supported here");
        if (colon == std::string::npos) {
            all = true;
            continue;
        }
        for (int id : parseIdList(part.substr(colon + 1), option)) ids.push_back(id);
    }
    return ids;
}

}  // namespace

LocalLaunch resolveLocalLaunch(int nproc, int numGpus, const std::string& include, const std::string& exclude,
                               const char* cudaVisible) {
    if (nproc < 0) throw ConfigError("--nproc: must be at least 1, got " + std::to_string(nproc));
    if (numGpus < 0) throw ConfigError("--num_gpus: must be at least 1, got " + std::to_string(numGpus));
    if (!include.empty() && !exclude.empty())
        throw ConfigError("--include and --exclude: give one or the other (as DeepSpeed's launcher)");
    if ((!include.empty() || !exclude.empty()) && numGpus > 0)
        throw ConfigError("--num_gpus cannot be combined with --include/--exclude (as DeepSpeed's launcher)");
    std::vector<int> visible;
    const bool visibleKnown = cudaVisible != nullptr && *cudaVisible != '\0';
    if (visibleKnown) visible = parseIdList(cudaVisible, "CUDA_VISIBLE_DEVICES");
    LocalLaunch out;
    if (!include.empty()) {
        bool all = false;
        out.gpus = parseHostSlots(include, "--include", all);
        if (all) {
            if (!visibleKnown)
                throw ConfigError("--include localhost: which GPUs exist is unknown; list them (localhost:0,1)");
            out.gpus = visible;
        }
        if (visibleKnown)
            for (int id : out.gpus)
                if (std::find(visible.begin(), visible.end(), id) == visible.end())
                    throw ConfigError("--include: GPU " + std::to_string(id) +
                                      " is not in CUDA_VISIBLE_DEVICES=" + cudaVisible);
    } else if (!exclude.empty()) {
        if (!visibleKnown)
            throw ConfigError("--exclude: set CUDA_VISIBLE_DEVICES so the GPUs to exclude from are known");
        bool all = false;
        std::vector<int> gone = parseHostSlots(exclude, "--exclude", all);
        for (int id : visible)
            if (!all && std::find(gone.begin(), gone.end(), id) == gone.end()) out.gpus.push_back(id);
    } else if (numGpus > 0) {
        if (visibleKnown && numGpus > int(visible.size()))
            throw ConfigError("--num_gpus " + std::to_string(numGpus) + ": only " + std::to_string(visible.size()) +
                              " GPUs in CUDA_VISIBLE_DEVICES=" + cudaVisible);
        for (int i = 0; i < numGpus; ++i) out.gpus.push_back(visibleKnown ? visible[size_t(i)] : i);
    }
    if (std::set<int>(out.gpus.begin(), out.gpus.end()).size() != out.gpus.size())
        throw ConfigError("--include: a GPU id is listed twice");
    if (!include.empty() || !exclude.empty() || numGpus > 0) {
        if (out.gpus.empty()) throw ConfigError("--include/--exclude: no GPU is left to train on");
        if (nproc > 0 && nproc != int(out.gpus.size()))
            throw ConfigError("--nproc " + std::to_string(nproc) + " contradicts the " +
                              std::to_string(out.gpus.size()) + " GPUs selected (one rank per GPU)");
        out.worldSize = int(out.gpus.size());
    } else {
        out.worldSize = nproc > 0 ? nproc : 1;
    }
    return out;
}

bool LaunchPlan::remote() const {
    return std::any_of(nodes.begin(), nodes.end(), [](const NodePlan& n) { return !n.local; });
}

LaunchPlan planLaunch(const std::vector<HostSlots>& hosts, const std::string& include, const std::string& exclude,
                      int numNodes, int numGpus) {
    if (!include.empty() && !exclude.empty())
        throw ConfigError("--include and --exclude: give one or the other (as DeepSpeed's launcher)");
    if ((numNodes > 0 || numGpus > 0) && (!include.empty() || !exclude.empty()))
        throw ConfigError(
            "--num_nodes/--num_gpus cannot be combined with --include/--exclude (as DeepSpeed's launcher)");
    std::map<std::string, std::set<int>> pool;  // host -> slots available
    for (const HostSlots& h : hosts)
        for (int s = 0; s < h.slotCount; ++s) pool[h.host].insert(s);
    std::map<std::string, std::set<int>> chosen;
    if (include.empty() && exclude.empty()) {
        chosen = pool;
    } else {
        const std::string option = include.empty() ? "--exclude" : "--include";
        if (!exclude.empty()) chosen = pool;
        for (const NodeSpec& spec : parseSpec(include.empty() ? exclude : include, option)) {
            auto it = pool.find(spec.host);
            if (it == pool.end()) throw ConfigError(option + ": host \"" + spec.host + "\" is not in the hostfile");
            for (int s : spec.slots)
                if (!it->second.count(s))
                    throw ConfigError(option + ": host " + spec.host + " has no slot " + std::to_string(s) +
                                      " (it has " + std::to_string(it->second.size()) + " slots: 0.." +
                                      std::to_string(it->second.size() - 1) + ")");
            if (!include.empty()) {
                std::set<int>& mine = chosen[spec.host];
                if (spec.allSlots)
                    mine = it->second;
                else
                    mine.insert(spec.slots.begin(), spec.slots.end());
            } else if (spec.allSlots) {
                chosen[spec.host].clear();
            } else {
                for (int s : spec.slots) chosen[spec.host].erase(s);
            }
        }
    }
    LaunchPlan plan;
    for (const HostSlots& h : hosts) {
        auto it = chosen.find(h.host);
        if (it == chosen.end() || it->second.empty()) continue;
        NodePlan node;
        node.host = h.host;
        node.slotIds.assign(it->second.begin(), it->second.end());
        node.local = isLocalHostName(h.host);
        plan.nodes.push_back(node);
    }
    if (numNodes > 0) {
        if (numNodes > int(plan.nodes.size()))
            throw ConfigError("--num_nodes " + std::to_string(numNodes) + ": the hostfile lists only " +
                              std::to_string(plan.nodes.size()) + " hosts");
        plan.nodes.resize(size_t(numNodes));
    }
    if (numGpus > 0) {
        for (NodePlan& node : plan.nodes) {
            const int has = int(pool[node.host].size());
            if (numGpus > has)
                throw ConfigError("--num_gpus " + std::to_string(numGpus) + ": host " + node.host + " has only " +
                                  std::to_string(has) + " slots in the hostfile");
            node.slotIds.clear();
            for (int s = 0; s < numGpus; ++s) node.slotIds.push_back(s);
        }
    }
    if (plan.nodes.empty()) throw ConfigError("--include/--exclude: no slot is left to train on");
    int rank = 0;
    for (NodePlan& node : plan.nodes) {
        node.firstRank = rank;
        rank += int(node.slotIds.size());
    }
    plan.worldSize = rank;
    return plan;
}

std::string describePlan(const LaunchPlan& plan) {
    std::ostringstream ss;
    for (size_t i = 0; i < plan.nodes.size(); ++i) {
        const NodePlan& n = plan.nodes[i];
        const int last = n.firstRank + int(n.slotIds.size()) - 1;
        ss << (i ? "; " : "") << n.host << ": rank" << (last > n.firstRank ? "s " : " ") << n.firstRank;
        if (last > n.firstRank) ss << '-' << last;
        ss << " (slots ";
        for (size_t s = 0; s < n.slotIds.size(); ++s) ss << (s ? "," : "") << n.slotIds[s];
        ss << ')';
    }
    return ss.str();
}

}  // namespace fts
