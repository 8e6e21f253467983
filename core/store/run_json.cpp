// Run records as JSON and as aligned plain text. Column widths are measured in terminal cells
// (UTF-8 decoded, East Asian wide characters count 2), so non-ASCII run names keep the table straight.
#include "core/store/run_json.h"
#include "core/util/json_parse.h"
#include "core/util/wall_clock.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace fts {
namespace {

using nlohmann::json;

double currentTime(double now) { return now > 0 ? now : unixNow(); }

// The stored JSON text as a value: null when empty, the raw string when it does not parse.
json parsedOrRaw(const std::string& text) {
    if (text.empty()) return nullptr;
    json j = parseJsonOrDiscarded(text);
    if (j.is_discarded()) return text;
    return j;
}

json timeOrNull(double t, bool iso) {
    if (t <= 0) return nullptr;
    if (iso) return isoUtc(t);
    return t;
}

std::string formatNumber(double v, int significant = 6) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", significant, v);
    return buf;
}

std::string valueText(const json& v) {
    if (v.is_number()) return formatNumber(v.get<double>());
    if (v.is_string()) return v.get<std::string>();
    return v.dump();
}

// --- display width ---------------------------------------------------------------------------

// Decodes one UTF-8 sequence at s[i]; returns its length (1 for an invalid byte) and the code point.
size_t decodeUtf8(const std::string& s, size_t i, char32_t& cp) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + len > s.size()) {
        cp = c;
        return 1;
    }
    cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    for (size_t k = 1; k < len; ++k) {
        const auto cc = static_cast<unsigned char>(s[i + k]);
        if ((cc >> 6) != 0x2) {
            cp = c;
            return 1;
        }
        cp = (cp << 6) | (cc & 0x3F);
    }
    return len;
}

int cellWidth(char32_t cp) {
    if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0)) return 0;                            // control characters
    if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F)) return 0;  // combining, zero-width
    const bool wide =
        (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0x303E) || (cp >= 0x3041 && cp <= 0x33FF) ||
        (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xA000 && cp <= 0xA4CF) ||
        (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F) ||
        (cp >= 0xFF00 && cp <= 0xFF60) || (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
        (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD);
    return wide ? 2 : 1;
}

struct Glyph {
    size_t offset, length;
    int width;
};

std::vector<Glyph> glyphs(const std::string& s) {
    std::vector<Glyph> out;
    for (size_t i = 0; i < s.size();) {
        char32_t cp;
        const size_t len = decodeUtf8(s, i, cp);
        out.push_back({i, len, cellWidth(cp)});
        i += len;
    }
    return out;
}

int displayWidth(const std::string& s) {
    int w = 0;
    for (const Glyph& g : glyphs(s)) w += g.width;
    return w;
}

// Shortens s to at most maxWidth cells with "..." at the end (keepTail: at the start, for paths).
std::string shorten(const std::string& s, int maxWidth, bool keepTail) {
    if (displayWidth(s) <= maxWidth) return s;
    const std::vector<Glyph> gs = glyphs(s);
    const int budget = maxWidth - 3;
    int w = 0;
    if (keepTail) {
        size_t start = s.size();
        for (auto it = gs.rbegin(); it != gs.rend() && w + it->width <= budget; ++it) {
            w += it->width;
            start = it->offset;
        }
        return "..." + s.substr(start);
    }
    size_t end = 0;
    for (const Glyph& g : gs) {
        if (w + g.width > budget) break;
        w += g.width;
        end = g.offset + g.length;
    }
    return s.substr(0, end) + "...";
}

// Control characters (a newline in a run name) would break the table's lines.
std::string singleLine(std::string s) {
    for (char& c : s)
        if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    return s;
}

enum class Align { Left, Right };

std::string pad(const std::string& s, int width, Align align) {
    const std::string fill(static_cast<size_t>(std::max(0, width - displayWidth(s))), ' ');
    return align == Align::Left ? s + fill : fill + s;
}

std::string rstrip(std::string s) {
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
}

// Renders rows (the first is the header) with two blanks between columns.
std::string renderTable(const std::vector<std::vector<std::string>>& rows, const std::vector<Align>& align,
                        const std::string& indent = "") {
    std::vector<int> widths(align.size(), 0);
    for (const auto& row : rows)
        for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], displayWidth(row[c]));
    std::string out;
    for (const auto& row : rows) {
        std::string line = indent;
        for (size_t c = 0; c < row.size(); ++c) {
            if (c) line += "  ";
            line += pad(row[c], widths[c], align[c]);
        }
        out += rstrip(line) + "\n";
    }
    return out;
}

std::string stepsText(const RunRecord& r, const char* separator) {
    std::string s = std::to_string(r.lastStep);
    if (r.totalSteps > 0) s += separator + std::to_string(r.totalSteps);
    return s;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

std::string isoUtc(double unixSeconds) {
    const auto t = static_cast<std::time_t>(std::floor(unixSeconds));
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::string formatLocalTime(double unixSeconds) {
    if (unixSeconds <= 0) return "-";
    const auto t = static_cast<std::time_t>(std::floor(unixSeconds));
    std::tm tm{};
    localtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
    return buf;
}

std::string formatDuration(double seconds) {
    if (!(seconds >= 0)) return "-";
    const auto s = static_cast<int64_t>(std::floor(seconds));
    char buf[48];
    if (s < 60)
        std::snprintf(buf, sizeof buf, "%llds", static_cast<long long>(s));
    else if (s < 3600)
        std::snprintf(buf, sizeof buf, "%lldm%02llds", static_cast<long long>(s / 60), static_cast<long long>(s % 60));
    else if (s < 86400)
        std::snprintf(buf, sizeof buf, "%lldh%02lldm", static_cast<long long>(s / 3600),
                      static_cast<long long>(s % 3600 / 60));
    else
        std::snprintf(buf, sizeof buf, "%lldd%02lldh", static_cast<long long>(s / 86400),
                      static_cast<long long>(s % 86400 / 3600));
    return buf;
}

std::optional<double> trainingSeconds(const RunRecord& run) {
    const json j = parsedOrRaw(run.finalMetricsJson);
    if (!j.is_object()) return std::nullopt;
    const auto it = j.find("elapsed_s");
    if (it == j.end() || !it->is_number() || !std::isfinite(it->get<double>())) return std::nullopt;
    return it->get<double>();
}

double runDurationSeconds(const RunRecord& run, double now) {
    const bool running = run.status == RunStatus::Running || run.status == RunStatus::Pending;
    if (running) {
        if (run.startedAt <= 0) return -1;
        // a resumed run: the earlier sessions' training time (its stop's final metrics) and this session's
        return trainingSeconds(run).value_or(0.0) + std::max(0.0, currentTime(now) - run.startedAt);
    }
    if (run.endedAt > 0)
        if (const std::optional<double> trained = trainingSeconds(run)) return std::max(0.0, *trained);
    if (run.startedAt <= 0) return -1;
    if (run.endedAt > 0) return std::max(0.0, run.endedAt - run.startedAt);
    return -1;  // started but ended without an end time recorded: unknown
}

std::optional<double> finalLoss(const RunRecord& run) {
    // a run training again after a stop still holds the stop's metrics: not final
    if (run.status == RunStatus::Running || run.status == RunStatus::Pending) return std::nullopt;
    const json j = parsedOrRaw(run.finalMetricsJson);
    if (!j.is_object()) return std::nullopt;
    for (const char* key : {"loss", "train_loss"}) {
        const auto it = j.find(key);
        if (it != j.end() && it->is_number() && std::isfinite(it->get<double>())) return it->get<double>();
    }
    return std::nullopt;
}

json runToJson(const RunRecord& run) {
    json j;
    j["id"] = run.id;
    j["name"] = run.name;
    j["status"] = toString(run.status);
    j["created_at"] = timeOrNull(run.createdAt, true);
    j["created_at_unix"] = timeOrNull(run.createdAt, false);
    j["started_at"] = timeOrNull(run.startedAt, true);
    j["started_at_unix"] = timeOrNull(run.startedAt, false);
    j["ended_at"] = timeOrNull(run.endedAt, true);
    j["ended_at_unix"] = timeOrNull(run.endedAt, false);
    j["duration_s"] = run.startedAt > 0 && run.endedAt > 0 ? json(run.endedAt - run.startedAt) : json(nullptr);
    const std::optional<double> trained = trainingSeconds(run);
    j["training_s"] = trained ? json(*trained) : json(nullptr);
    j["config"] = parsedOrRaw(run.configJson);
    if (!run.resolvedConfigJson.empty()) j["resolved_config"] = parsedOrRaw(run.resolvedConfigJson);
    j["config_path"] = run.configPath;
    j["model"] = run.model;
    j["dataset"] = run.dataset;
    j["output_dir"] = run.outputDir;
    j["host"] = run.host;
    j["versions"] = parsedOrRaw(run.versionsJson);
    j["final_metrics"] = parsedOrRaw(run.finalMetricsJson);
    j["failure_reason"] = run.failureReason;
    j["pid"] = run.pid;
    j["world_size"] = run.worldSize;
    j["total_steps"] = run.totalSteps;
    j["last_step"] = run.lastStep;
    j["notes"] = run.notes;
    j["tags"] = run.tags;
    return j;
}

std::string formatRunTable(const std::vector<RunRecord>& runs, double now) {
    constexpr int kNameWidth = 32, kModelWidth = 36;
    std::vector<std::vector<std::string>> rows;
    rows.push_back({"ID", "NAME", "STATUS", "MODEL", "STEPS", "FINAL LOSS", "STARTED", "DURATION"});
    for (const RunRecord& r : runs) {
        const std::optional<double> loss = finalLoss(r);
        rows.push_back({std::to_string(r.id), shorten(singleLine(r.name), kNameWidth, false), toString(r.status),
                        shorten(singleLine(r.model), kModelWidth, true), stepsText(r, "/"),
                        loss ? formatNumber(*loss, 4) : "-", formatLocalTime(r.startedAt),
                        formatDuration(runDurationSeconds(r, now))});
    }
    return renderTable(rows, {Align::Right, Align::Left, Align::Left, Align::Left, Align::Right, Align::Right,
                              Align::Left, Align::Right});
}

std::string formatRunDetails(const RunRecord& run, const std::vector<MetricPoint>& lastMetrics, double now) {
    std::vector<std::vector<std::string>> fields;
    auto field = [&](const char* label, const std::string& value) {
        fields.push_back({std::string(label) + ":", value.empty() ? "-" : singleLine(value)});
    };
    field("Status", toString(run.status));
    if (!run.failureReason.empty()) field("Failure", run.failureReason);
    field("Model", run.model);
    field("Dataset", run.dataset);
    field("Output", run.outputDir);
    field("Config", run.configPath);
    field("Host", run.pid > 0 ? run.host + " (pid " + std::to_string(run.pid) + ")" : run.host);
    field("World size", std::to_string(run.worldSize));
    field("Created", formatLocalTime(run.createdAt));
    field("Started", formatLocalTime(run.startedAt));
    field("Ended", formatLocalTime(run.endedAt));
    field("Duration", formatDuration(runDurationSeconds(run, now)));
    field("Steps", stepsText(run, " / "));
    const json versions = parsedOrRaw(run.versionsJson);
    if (versions.is_object()) {
        std::string v;
        for (const auto& [k, val] : versions.items()) v += (v.empty() ? "" : ", ") + k + " " + valueText(val);
        field("Versions", v);
    } else if (!versions.is_null()) {
        field("Versions", valueText(versions));
    }

    std::string out = "Run " + std::to_string(run.id) + (run.name.empty() ? "" : ": " + singleLine(run.name)) + "\n";
    out += renderTable(fields, {Align::Left, Align::Left}, "  ");

    const json finals = parsedOrRaw(run.finalMetricsJson);
    if (finals.is_object() && !finals.empty()) {
        std::vector<std::vector<std::string>> rows;
        for (const auto& [k, val] : finals.items()) rows.push_back({k, valueText(val)});
        out += "Final metrics:\n" + renderTable(rows, {Align::Left, Align::Right}, "  ");
    } else if (!finals.is_null() && !finals.is_object()) {
        out += "Final metrics: " + singleLine(valueText(finals)) + "\n";
    }

    if (!lastMetrics.empty()) {
        std::vector<std::vector<std::string>> rows;
        rows.push_back({"NAME", "STEP", "VALUE"});
        for (const MetricPoint& p : lastMetrics)
            rows.push_back({singleLine(p.name), std::to_string(p.step), formatNumber(p.value)});
        out += "Latest metrics:\n" + renderTable(rows, {Align::Left, Align::Right, Align::Right}, "  ");
    }
    return out;
}

}  // namespace fts
