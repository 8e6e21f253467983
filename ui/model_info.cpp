// ModelFolderInfo: config.json + the core's weights reader, folder and HF cache scans (see model_info.h).
#include "ui/model_info.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSet>
#include <nlohmann/json.hpp>

#include "core/config/hf_cache.h"
#include "core/config/model_shape.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"
#include "core/weights/model_weights.h"

namespace fts {
namespace {

int64_t intOf(const nlohmann::json& c, std::initializer_list<const char*> keys) {
    for (const char* k : keys)
        if (c.contains(k) && c[k].is_number_integer()) return c[k].get<int64_t>();
    // Multimodal configs nest the language model's.
    if (c.contains("text_config") && c["text_config"].is_object()) return intOf(c["text_config"], keys);
    return -1;
}

}  // namespace

ModelFolderInfo readModelInfo(const QString& folder) {
    ModelFolderInfo info;
    info.path = QDir(folder).absolutePath();
    info.source = QStringLiteral("folder");
    QFile cfgFile(QDir(folder).filePath(QStringLiteral("config.json")));
    if (!cfgFile.open(QIODevice::ReadOnly)) {
        info.error = QStringLiteral("%1: cannot read (%2)").arg(cfgFile.fileName(), cfgFile.errorString());
        return info;
    }
    const QByteArray bytes = cfgFile.readAll();
    const nlohmann::json cfg = parseJsonOrDiscarded(std::string_view(bytes.constData(), size_t(bytes.size())));
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

    // Weights: read by the core's own loader (headers only; the data is mapped, never read), so a folder the
    // picker lists without an error is one a run can open. A folder without weights (initialised from config)
    // is not an error here; anything else the loader would refuse is shown as the weights' error.
    const std::filesystem::path dir = folder.toStdString();
    if (hasSafetensorsWeights(dir)) {
        try {
            const ModelWeights weights = openModelWeights(dir);
            info.weightFiles = weights.fileCount;
            info.parameters = weights.numElements();
            info.dtype = QString::fromStdString(weights.mainDtypeName());
        } catch (const Error& e) {
            info.weightsError = QString::fromStdString(e.what());
        }
    }
    // Saved 4-bit (bitsandbytes): the stored elements are packed codes and scales, so the count comes from the
    // shapes config.json gives, and the dtype says what the weights are.
    if (cfg.contains("quantization_config") && cfg["quantization_config"].is_object()) {
        const nlohmann::json& q = cfg["quantization_config"];
        const bool fourBit = q.value("load_in_4bit", false) || q.value("_load_in_4bit", false);
        if (q.value("quant_method", std::string()) == "bitsandbytes" && fourBit) {
            info.dtype = QStringLiteral("4-bit %1")
                             .arg(QString::fromStdString(q.value("bnb_4bit_quant_type", std::string("fp4"))).toUpper());
            if (info.weightFiles > 0) {
                try {
                    info.parameters = readModelShape(dir).numParameters();
                } catch (const std::exception&) {
                    info.parameters = -1;
                }
            }
        } else {
            info.weightsError =
                QStringLiteral("%1: quantization_config (%2): only bitsandbytes' 4-bit format loads")
                    .arg(cfgFile.fileName(), QString::fromStdString(q.value("quant_method", std::string("unknown"))));
        }
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

QVector<ModelFolderInfo> scanModels(const QStringList& roots, const QStringList& hubDirs) {
    QVector<ModelFolderInfo> out;
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
            if (snapshot.isEmpty() || !QFileInfo::exists(QDir(snapshot).filePath(QStringLiteral("config.json"))))
                continue;
            ModelFolderInfo info = readModelInfo(snapshot);
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
