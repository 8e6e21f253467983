// ModelInfo: config.json + safetensors headers, folder and HF cache scans (see model_info.h).
#include "ui/model_info.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QSet>
#include <QtEndian>
#include <nlohmann/json.hpp>

#include "core/config/hf_cache.h"

namespace fts {
namespace {

constexpr qint64 kMaxHeaderBytes = 100 * 1024 * 1024;  // safetensors' own limit on the header

// Adds the tensors of one safetensors file's header: parameter count and element count per dtype.
bool readSafetensorsHeader(const QString& file, int64_t& params, QHash<QString, int64_t>& perDtype) {
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly)) return false;
    char lenBytes[8];
    if (f.read(lenBytes, 8) != 8) return false;
    const quint64 len = qFromLittleEndian<quint64>(lenBytes);
    if (len == 0 || len > quint64(kMaxHeaderBytes)) return false;
    const QByteArray header = f.read(qint64(len));
    if (header.size() != qint64(len)) return false;
    const nlohmann::json doc = nlohmann::json::parse(header.constData(), header.constData() + header.size(), nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) return false;
    for (auto it = doc.begin(); it != doc.end(); ++it) {
        if (it.key() == "__metadata__" || !it->is_object() || !it->contains("shape")) continue;
        int64_t n = 1;
        for (const auto& d : (*it)["shape"]) n *= d.get<int64_t>();
        params += n;
        if (it->contains("dtype")) perDtype[QString::fromStdString((*it)["dtype"].get<std::string>())] += n;
    }
    return true;
}

int64_t intOf(const nlohmann::json& c, std::initializer_list<const char*> keys) {
    for (const char* k : keys)
        if (c.contains(k) && c[k].is_number_integer()) return c[k].get<int64_t>();
    // Multimodal configs nest the language model's.
    if (c.contains("text_config") && c["text_config"].is_object()) return intOf(c["text_config"], keys);
    return -1;
}

}  // namespace

ModelInfo readModelInfo(const QString& folder) {
    ModelInfo info;
    info.path = QDir(folder).absolutePath();
    info.source = QStringLiteral("folder");
    QFile cfgFile(QDir(folder).filePath(QStringLiteral("config.json")));
    if (!cfgFile.open(QIODevice::ReadOnly)) {
        info.error = QStringLiteral("%1: cannot read (%2)").arg(cfgFile.fileName(), cfgFile.errorString());
        return info;
    }
    const QByteArray bytes = cfgFile.readAll();
    const nlohmann::json cfg = nlohmann::json::parse(bytes.constData(), bytes.constData() + bytes.size(), nullptr, false);
    if (cfg.is_discarded() || !cfg.is_object()) {
        info.error = QStringLiteral("%1: not a JSON object").arg(cfgFile.fileName());
        return info;
    }
    if (cfg.contains("model_type") && cfg["model_type"].is_string())
        info.modelType = QString::fromStdString(cfg["model_type"].get<std::string>());
    if (cfg.contains("architectures") && cfg["architectures"].is_array() && !cfg["architectures"].empty() &&
        cfg["architectures"][0].is_string())
        info.architecture = QString::fromStdString(cfg["architectures"][0].get<std::string>());
    if (info.architecture.isEmpty()) info.architecture = info.modelType;
    info.vocabSize = intOf(cfg, {"vocab_size"});
    info.contextLength = intOf(cfg, {"max_position_embeddings", "n_positions", "n_ctx", "seq_length"});

    // Weights: the sharded index's files, else every *.safetensors but the test fixtures' inputs/outputs.
    QStringList files;
    const QDir dir(folder);
    QFile index(dir.filePath(QStringLiteral("model.safetensors.index.json")));
    if (index.open(QIODevice::ReadOnly)) {
        const QByteArray b = index.readAll();
        const nlohmann::json idx = nlohmann::json::parse(b.constData(), b.constData() + b.size(), nullptr, false);
        if (!idx.is_discarded() && idx.contains("weight_map") && idx["weight_map"].is_object()) {
            QSet<QString> shards;
            for (const auto& v : idx["weight_map"])
                if (v.is_string()) shards.insert(QString::fromStdString(v.get<std::string>()));
            for (const QString& s : shards) files << dir.filePath(s);
        }
    }
    if (files.isEmpty() && dir.exists(QStringLiteral("model.safetensors")))
        files << dir.filePath(QStringLiteral("model.safetensors"));
    int64_t params = 0;
    QHash<QString, int64_t> perDtype;
    for (const QString& f : files)
        if (readSafetensorsHeader(f, params, perDtype)) ++info.weightFiles;
    if (info.weightFiles > 0) info.parameters = params;
    int64_t best = -1;
    for (auto it = perDtype.begin(); it != perDtype.end(); ++it)
        if (it.value() > best) {
            best = it.value();
            info.dtype = it.key();
        }
    if (info.dtype.isEmpty()) {
        for (const char* k : {"torch_dtype", "dtype"})
            if (cfg.contains(k) && cfg[k].is_string()) {
                info.dtype = QString::fromStdString(cfg[k].get<std::string>());
                break;
            }
    }
    return info;
}

QStringList defaultHubDirs() {
    QStringList out;
    for (const auto& d : hfHubCacheDirs()) {
        const QString s = QString::fromStdString(d.string());
        if (QFileInfo(s).isDir() && !out.contains(s)) out << s;
    }
    return out;
}

QVector<ModelInfo> scanModels(const QStringList& roots, const QStringList& hubDirs) {
    QVector<ModelInfo> out;
    QSet<QString> seen;
    const auto add = [&](const QString& folder) {
        const QString canonical = QFileInfo(folder).canonicalFilePath();
        if (canonical.isEmpty() || seen.contains(canonical)) return;
        seen.insert(canonical);
        out.push_back(readModelInfo(folder));
    };
    for (const QString& root : roots) {
        if (QFileInfo::exists(QDir(root).filePath(QStringLiteral("config.json")))) add(root);
        const QDir r(root);
        for (const QString& sub : r.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
            const QDir d(r.filePath(sub));
            if (QFileInfo::exists(d.filePath(QStringLiteral("config.json")))) add(d.path());
            for (const QString& sub2 : d.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
                if (QFileInfo::exists(QDir(d.filePath(sub2)).filePath(QStringLiteral("config.json"))))
                    add(d.filePath(sub2));
        }
    }
    for (const QString& hub : hubDirs) {
        const QDir h(hub);
        for (const QString& entry : h.entryList({QStringLiteral("models--*")}, QDir::Dirs, QDir::Name)) {
            const QString id = entry.mid(8).replace(QStringLiteral("--"), QStringLiteral("/"));
            // refs/main names the snapshot huggingface_hub resolves by default; else the first one.
            QString snapshot;
            QFile ref(h.filePath(entry + QStringLiteral("/refs/main")));
            if (ref.open(QIODevice::ReadOnly)) {
                const QString commit = QString::fromUtf8(ref.readAll()).trimmed();
                if (!commit.isEmpty()) snapshot = h.filePath(entry + QStringLiteral("/snapshots/") + commit);
            }
            if (!QFileInfo::exists(QDir(snapshot).filePath(QStringLiteral("config.json")))) {
                snapshot.clear();
                const QDir snaps(h.filePath(entry + QStringLiteral("/snapshots")));
                for (const QString& s : snaps.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
                    if (QFileInfo::exists(QDir(snaps.filePath(s)).filePath(QStringLiteral("config.json")))) {
                        snapshot = snaps.filePath(s);
                        break;
                    }
            }
            if (snapshot.isEmpty() || !QFileInfo::exists(QDir(snapshot).filePath(QStringLiteral("config.json")))) continue;
            ModelInfo info = readModelInfo(snapshot);
            info.id = id;
            info.source = QStringLiteral("hf-cache");
            const QString canonical = QFileInfo(snapshot).canonicalFilePath();
            if (seen.contains(canonical)) continue;
            seen.insert(canonical);
            out.push_back(info);
        }
    }
    return out;
}

QString formatParameterCount(int64_t n) {
    if (n < 0) return QStringLiteral("?");
    if (n >= 1'000'000'000) return QString::number(double(n) / 1e9, 'f', 2) + QLatin1Char('B');
    if (n >= 1'000'000) return QString::number(double(n) / 1e6, 'f', 1) + QLatin1Char('M');
    if (n >= 1'000) return QString::number(double(n) / 1e3, 'f', 1) + QLatin1Char('K');
    return QString::number(n);
}

}  // namespace fts
