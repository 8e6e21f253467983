// What is still English in a text shown in Chinese: the Latin-letter words of three letters or more that are not
// names a Chinese user reads as they are (products, formats, units, keys, paths, files, values in quotes).
#pragma once
#include <QRegularExpression>
#include <QSet>
#include <QString>
#include <QStringList>

namespace fts::test {

inline QStringList englishWords(const QString& text) {
    static const QSet<QString> names{
        // products, libraries, formats and hardware
        "LoRA", "QLoRA", "ZeRO", "DeepSpeed", "Hugging", "Face", "GPU", "GPUs", "CPU", "CUDA", "cuDNN", "NCCL",
        "LibTorch", "JSON", "JSONL", "PEFT", "NVMe", "SSH", "ssh", "fts", "Adam", "AdamW", "EMA", "PNG", "PDF", "CSV",
        "SVG", "SQLite", "NVIDIA", "Gloo", "TRL", "Trainer", "Llama", "Mistral", "Qwen", "Qwen2", "BERT", "GPT",
        "Pearson", "micro", "macro", "BatchMode", "WarmupLR", "WarmupDecayLR", "WarmupCosineLR", "OneCycle", "MSE",
        "RMSNorm", "SwiGLU", "RoPE", "MFU", "ETA", "Ctrl", "Shift", "Enter", "Alt", "Esc", "Xvfb", "Ollama", "GGUF",
        "quick_check", "recover", "wheel", "torch", "safetensors", "hostfile", "Modelfile",
        // the product, keys, and machine-learning terms Chinese texts keep in English (as Chinese ML writing does)
        "Finetune", "Studio", "Return", "Transformer", "bitsandbytes", "SSD", "rsLoRA", "dropout", "alpha", "epsilon",
        "Epsilon", "Betas", "rank", "ranks",
        // preference training: the methods' names and TRL's words for the two sides of a pair
        "Beta", "DPO", "ORPO", "SimPO", "KTO", "TRL", "NLL", "SLiC", "DiscoPOP", "tau", "gamma", "chosen", "rejected",
        "sigmoid", "hinge", "ipo", "robust", "sigmoid_norm", "dpo", "orpo", "simpo", "sft",
        // units
        "MiB", "GiB", "KiB", "TiB", "Gbit", "TFLOP",
        // JSON values and config words users type
        "true", "false", "null", "auto", "cpu", "cuda", "none", "random", "pretrained", "sft", "nvme", "gpt2", "llama",
        "mistral", "qwen2", "bert", "all", "lora_only", "packing", "epochs", "max_steps", "path", "train", "export",
        "output_dir"};
    QString t = text;
    // Quoted values, paths, file names, keys, options and numbers with units are names, not words.
    static const QRegularExpression quoted(QStringLiteral("\"[^\"]*\"|“[^”]*”|'[^']*'|`[^`]*`"));
    static const QRegularExpression token(QStringLiteral("[^\\s，。：；（）、,;()\\[\\]{}<>]+"));
    t.remove(quoted);
    QStringList out;
    for (const auto& m : token.globalMatch(t)) {
        const QString tok = m.captured();
        if (tok.contains(QRegularExpression(QStringLiteral("[/\\\\._=@~:0-9%-]")))) continue;  // path, key, number
        static const QRegularExpression word(QStringLiteral("[A-Za-z]{3,}"));
        for (const auto& w : word.globalMatch(tok))
            if (!names.contains(w.captured())) out << w.captured();
    }
    return out;
}

}  // namespace fts::test
