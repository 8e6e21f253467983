// What the model picker shows about a Hugging Face model folder, read without LibTorch: config.json
// (architecture, vocab, context length, declared dtype) and the weights through the core's openModelWeights
// (parameter count and stored dtype; headers validated as a run would, the tensor data never read). Also lists the models in
// local folders and in the HF hub cache. Invariant: read-only; a broken folder gives an entry with `error`.
#pragma once
#include <QString>
#include <QStringList>
#include <QVector>
#include <cstdint>

namespace fts {

struct ModelFolderInfo {
    QString path;          // the folder (a snapshot folder for HF cache entries)
    QString id;            // "org/name" for HF cache entries (what the config's model.path takes), else ""
    QString source;        // "folder" or "hf-cache"
    QString architecture;  // architectures[0], else model_type
    QString modelType;
    int64_t parameters = -1;  // from the safetensors headers; -1 = no weights found (or unreadable)
    QString dtype;            // the most common stored dtype (e.g. "F32", "BF16"), else config's torch_dtype;
                              // "4-bit NF4" / "4-bit FP4" for a folder saved by bitsandbytes
    int64_t vocabSize = -1;
    int64_t contextLength = -1;  // max_position_embeddings / n_positions / n_ctx / seq_length
    int weightFiles = 0;
    QString error;         // why the folder could not be read (config.json missing or invalid...)
    QString weightsError;  // why its weights could not be opened (the loader's message); empty when fine or absent
    QString configValue() const { return id.isEmpty() ? path : id; }
};

// Reads one folder (config.json required).
ModelFolderInfo readModelInfo(const QString& folder);
// Folders to show: every subfolder (depth <= 2) of `roots` holding a config.json (a root itself too), and
// every model snapshot in the HF hub cache folders (`hubDirs`, normally hfHubCacheDirs()).
QVector<ModelFolderInfo> scanModels(const QStringList& roots, const QStringList& hubDirs);
// The HF hub cache folders that exist, as fts::hfHubCacheDirs() lists them.
QStringList defaultHubDirs();
// "124.4M", "7.24B", "950K"
QString formatParameterCount(int64_t n);

}  // namespace fts
