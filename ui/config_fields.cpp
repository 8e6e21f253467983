// The new-run form's field table (see config_fields.h). Keys and rules are the core's (docs/config.md).
#include "ui/config_fields.h"

#include <QCoreApplication>

namespace fts {
namespace {

#define L(text) QT_TRANSLATE_NOOP("fts::ConfigForm", text)
using S = FieldSection;
using K = FieldKind;

std::vector<ConfigField> buildFields() {
    const QString sched = QStringLiteral("deepspeed.scheduler.type");
    const QStringList warmupLr{QStringLiteral("WarmupLR"), QStringLiteral("WarmupDecayLR")};
    const QStringList anySched{QStringLiteral("WarmupLR"), QStringLiteral("WarmupDecayLR"),
                               QStringLiteral("WarmupCosineLR")};
    const QStringList decaying{QStringLiteral("WarmupDecayLR"), QStringLiteral("WarmupCosineLR")};
    const QStringList cosine{QStringLiteral("WarmupCosineLR")};
    const QString fp16 = QStringLiteral("deepspeed.fp16.enabled");
    const QStringList on{QStringLiteral("true")};
    return {
        // Model
        {"model.path", S::Model, K::DirPath, L("Model folder or id"),
         L("Hugging Face model folder (config.json + weights) or a model id found in the HF cache"), {}, false, {}, {}, true},
        {"model.init", S::Model, K::Choice, L("Initialisation"),
         L("pretrained: load the weights; random: seeded init from config.json"),
         {QStringLiteral("pretrained"), QStringLiteral("random")}},
        {"model.tokenizer", S::Model, K::FilePath, L("Tokenizer"), L("The tokenizer.json to use")},
        // Data
        {"data.train", S::Data, K::FilePath, L("Training data"), L("Training text: .txt or .jsonl"), {}, false, {}, {}, true},
        {"data.eval", S::Data, K::FilePath, L("Evaluation data"),
         L("Evaluation file; when empty, the eval fraction of the training data is held out")},
        {"data.text_field", S::Data, K::Text, L("Text field"), L("The JSONL field that holds the text")},
        {"data.eval_fraction", S::Data, K::Number, L("Eval fraction"), L("Fraction held out for evaluation, in [0, 1)")},
        {"data.max_length", S::Data, K::Integer, L("Max length (tokens)"), L("Tokens per training sequence (>= 2)")},
        // Method
        {"model.activation_checkpointing", S::Method, K::Boolean, L("Activation checkpointing"),
         L("Recompute each transformer block in backward: less memory, more compute")},
        {"training.max_steps", S::Method, K::Integer, L("Max steps"), L("Optimizer steps; 0 = use epochs")},
        {"training.epochs", S::Method, K::Number, L("Epochs"), L("Passes over the data when max steps is 0")},
        {"training.seed", S::Method, K::Integer, L("Seed"), L("Data order, dropout and random init")},
        // Optimisation
        {"deepspeed.train_micro_batch_size_per_gpu", S::Optimisation, K::Integer, L("Micro-batch per GPU"),
         L("Sequences per rank per forward/backward (\"auto\" = derived)")},
        {"deepspeed.gradient_accumulation_steps", S::Optimisation, K::Integer, L("Gradient accumulation"),
         L("Micro-batches per optimizer step (\"auto\" = derived)")},
        {"deepspeed.train_batch_size", S::Optimisation, K::Integer, L("Global batch size"),
         L("micro-batch x accumulation x world size (\"auto\" = derived)")},
        {"deepspeed.optimizer.type", S::Optimisation, K::Choice, L("Optimizer"), L("Adam or AdamW (DeepSpeed names)"),
         {QStringLiteral("AdamW"), QStringLiteral("Adam")}},
        {"deepspeed.optimizer.params.lr", S::Optimisation, K::Number, L("Learning rate"), L("Peak learning rate")},
        {"deepspeed.optimizer.params.betas", S::Optimisation, K::NumberList, L("Betas"), L("Two numbers in [0, 1), e.g. 0.9, 0.95")},
        {"deepspeed.optimizer.params.eps", S::Optimisation, K::Number, L("Epsilon"), L("Adam's epsilon")},
        {"deepspeed.optimizer.params.weight_decay", S::Optimisation, K::Number, L("Weight decay"), L("Weight decay (>= 0)")},
        {"deepspeed.optimizer.params.adam_w_mode", S::Optimisation, K::Boolean, L("Decoupled weight decay"),
         L("Adam with adam_w_mode = AdamW; false = L2 decay added to the gradient")},
        {"deepspeed.gradient_clipping", S::Optimisation, K::Number, L("Gradient clipping"), L("Global norm limit; 0 = off")},
        {"deepspeed.scheduler.type", S::Optimisation, K::Choice, L("LR scheduler"), L("DeepSpeed warm-up schedulers"),
         anySched},
        {"deepspeed.scheduler.params.warmup_num_steps", S::Optimisation, K::Integer, L("Warm-up steps"),
         L("Steps of warm-up"), {}, false, sched, anySched},
        {"deepspeed.scheduler.params.warmup_type", S::Optimisation, K::Choice, L("Warm-up shape"), L("log or linear"),
         {QStringLiteral("log"), QStringLiteral("linear")}, false, sched, anySched},
        {"deepspeed.scheduler.params.warmup_min_lr", S::Optimisation, K::Number, L("Warm-up start lr"),
         L("Learning rate at the first step"), {}, false, sched, warmupLr},
        {"deepspeed.scheduler.params.warmup_max_lr", S::Optimisation, K::Number, L("Warm-up peak lr"),
         L("Learning rate after warm-up"), {}, false, sched, warmupLr},
        {"deepspeed.scheduler.params.total_num_steps", S::Optimisation, K::Integer, L("Schedule length"),
         L("Steps of the whole schedule (default: max steps)"), {}, false, sched, decaying},
        {"deepspeed.scheduler.params.warmup_min_ratio", S::Optimisation, K::Number, L("Warm-up start ratio"),
         L("Start of warm-up as a fraction of the lr"), {}, false, sched, cosine},
        {"deepspeed.scheduler.params.cos_min_ratio", S::Optimisation, K::Number, L("Cosine floor ratio"),
         L("End of the cosine as a fraction of the lr"), {}, false, sched, cosine},
        // Precision
        {"deepspeed.bf16.enabled", S::Precision, K::Boolean, L("bf16 mixed precision"), L("Train in bfloat16")},
        {"deepspeed.fp16.enabled", S::Precision, K::Boolean, L("fp16 mixed precision"), L("Train in float16 with loss scaling")},
        {"deepspeed.fp16.loss_scale", S::Precision, K::Number, L("Loss scale"), L("0 = dynamic; otherwise a static scale"),
         {}, false, fp16, on},
        {"deepspeed.fp16.initial_scale_power", S::Precision, K::Integer, L("Initial scale power"),
         L("Dynamic scaling starts at 2^power"), {}, false, fp16, on},
        {"deepspeed.fp16.loss_scale_window", S::Precision, K::Integer, L("Loss scale window"),
         L("Steps without overflow before the scale doubles"), {}, false, fp16, on},
        {"deepspeed.fp16.hysteresis", S::Precision, K::Integer, L("Hysteresis"),
         L("Overflows tolerated before the scale shrinks"), {}, false, fp16, on},
        {"deepspeed.fp16.consecutive_hysteresis", S::Precision, K::Boolean, L("Consecutive hysteresis"),
         L("Refill the hysteresis after a step without overflow"), {}, false, fp16, on},
        {"deepspeed.fp16.min_loss_scale", S::Precision, K::Number, L("Min loss scale"), L("Floor of the dynamic scale"),
         {}, false, fp16, on},
        // ZeRO and offload
        {"deepspeed.zero_optimization.stage", S::Zero, K::Choice, L("ZeRO stage"),
         L("0: replicate; 1: shard optimizer states; 2: + gradients; 3: + parameters"),
         {QStringLiteral("0"), QStringLiteral("1"), QStringLiteral("2"), QStringLiteral("3")}},
        {"deepspeed.zero_optimization.offload_optimizer.device", S::Zero, K::Choice, L("Offload optimizer"),
         L("Keep optimizer states on: none, cpu or nvme"),
         {QStringLiteral("none"), QStringLiteral("cpu"), QStringLiteral("nvme")}},
        {"deepspeed.zero_optimization.offload_param.device", S::Zero, K::Choice, L("Offload parameters"),
         L("Keep parameters on: none, cpu or nvme (stage 3)"),
         {QStringLiteral("none"), QStringLiteral("cpu"), QStringLiteral("nvme")}},
        {"deepspeed.zero_optimization.overlap_comm", S::Zero, K::Boolean, L("Overlap communication"),
         L("Overlap gradient reduction with backward")},
        {"deepspeed.zero_optimization.reduce_bucket_size", S::Zero, K::Integer, L("Reduce bucket size"),
         L("Elements per gradient reduction bucket")},
        // Checkpointing and logging
        {"training.output_dir", S::Checkpointing, K::DirPath, L("Output folder"),
         L("checkpoints/ and export/ go here"), {}, false, {}, {}, true},
        {"training.run_name", S::Checkpointing, K::Text, L("Run name"), L("Name shown in the run list")},
        {"training.save_interval", S::Checkpointing, K::Integer, L("Save every (steps)"), L("0 = only at the end")},
        {"training.keep_checkpoints", S::Checkpointing, K::Integer, L("Checkpoints kept"), L("0 = keep all")},
        {"training.eval_interval", S::Checkpointing, K::Integer, L("Evaluate every (steps)"), L("0 = only at the end")},
        {"training.eval_batches", S::Checkpointing, K::Integer, L("Eval batches"), L("0 = the whole eval split")},
        {"training.log_interval", S::Checkpointing, K::Integer, L("Log every (steps)"), L("Metrics every N steps")},
        {"deepspeed.steps_per_print", S::Checkpointing, K::Integer, L("Print every (steps)"), L("Progress lines in the log")},
        // Devices
        {"training.device", S::Devices, K::Choice, L("Device"), L("auto (CUDA if present, else CPU), cpu, cuda or cuda:N"),
         {QStringLiteral("auto"), QStringLiteral("cpu"), QStringLiteral("cuda")}, true},
    };
}
#undef L

}  // namespace

const std::vector<ConfigField>& configFields() {
    static const std::vector<ConfigField> fields = buildFields();
    return fields;
}

const ConfigField* findConfigField(const QString& key) {
    for (const ConfigField& f : configFields())
        if (f.key == key) return &f;
    return nullptr;
}

QList<FieldSection> allSections() {
    return {FieldSection::Model,     FieldSection::Data, FieldSection::Method,        FieldSection::Optimisation,
            FieldSection::Precision, FieldSection::Zero, FieldSection::Checkpointing, FieldSection::Devices};
}

QString sectionTitle(FieldSection section) {
    switch (section) {
        case FieldSection::Model: return QCoreApplication::translate("fts::ConfigForm", "Model");
        case FieldSection::Data: return QCoreApplication::translate("fts::ConfigForm", "Data");
        case FieldSection::Method: return QCoreApplication::translate("fts::ConfigForm", "Method");
        case FieldSection::Optimisation: return QCoreApplication::translate("fts::ConfigForm", "Optimisation");
        case FieldSection::Precision: return QCoreApplication::translate("fts::ConfigForm", "Precision");
        case FieldSection::Zero: return QCoreApplication::translate("fts::ConfigForm", "ZeRO and offload");
        case FieldSection::Checkpointing: return QCoreApplication::translate("fts::ConfigForm", "Checkpointing and logging");
        case FieldSection::Devices: return QCoreApplication::translate("fts::ConfigForm", "Devices");
    }
    return {};
}

}  // namespace fts
