// The new-run form's field table (see config_fields.h). Keys and rules are the core's (docs/config.md).
#include "ui/config_fields.h"

#include <QCoreApplication>

namespace fts {
namespace {

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
    const QString format = QStringLiteral("data.format");
    const QStringList instruction{QStringLiteral("auto"), QStringLiteral("text"), QStringLiteral("alpaca"),
                                  QStringLiteral("sharegpt"), QStringLiteral("messages")};
    const QStringList labelled{QStringLiteral("classification")};
    QStringList withBadRows = instruction;
    withBadRows << QStringLiteral("classification");
    const QString lora = QStringLiteral("model.lora");
    return {
        // Model
        {"model.path", S::Model, K::DirPath, QT_TRANSLATE_NOOP("fts::ConfigForm", "Model folder or id"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Hugging Face model folder (config.json + weights) or a model id found in the HF cache"), {}, false, {}, {}, true},
        {"model.init", S::Model, K::Choice, QT_TRANSLATE_NOOP("fts::ConfigForm", "Initialisation"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "pretrained: load the weights; random: seeded init from config.json"),
         {QStringLiteral("pretrained"), QStringLiteral("random")}},
        {"model.tokenizer", S::Model, K::FilePath, QT_TRANSLATE_NOOP("fts::ConfigForm", "Tokenizer"), QT_TRANSLATE_NOOP("fts::ConfigForm", "The tokenizer.json to use")},
        // Data
        {"data.train", S::Data, K::FilePath, QT_TRANSLATE_NOOP("fts::ConfigForm", "Training data"), QT_TRANSLATE_NOOP("fts::ConfigForm", "Training data: .txt or .jsonl; instruction and classification formats also .json, .csv, .tsv"), {}, false, {}, {}, true},
        {"data.eval", S::Data, K::FilePath, QT_TRANSLATE_NOOP("fts::ConfigForm", "Evaluation data"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Evaluation file; when empty, the eval fraction of the training data is held out")},
        {"data.text_field", S::Data, K::Text, QT_TRANSLATE_NOOP("fts::ConfigForm", "Text field"), QT_TRANSLATE_NOOP("fts::ConfigForm", "The JSONL field that holds the text")},
        {"data.eval_fraction", S::Data, K::Number, QT_TRANSLATE_NOOP("fts::ConfigForm", "Eval fraction"), QT_TRANSLATE_NOOP("fts::ConfigForm", "Fraction held out for evaluation, in [0, 1)")},
        {"data.max_length", S::Data, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "Max length (tokens)"), QT_TRANSLATE_NOOP("fts::ConfigForm", "Tokens per training sequence (>= 2)")},
        {"data.format", S::Data, K::Choice, QT_TRANSLATE_NOOP("fts::ConfigForm", "Format"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "lm: documents concatenated into blocks; auto/text/alpaca/sharegpt/messages: one sample per row, rendered with the chat template; classification: text (and text_pair) with a label per row, for a BERT classifier"),
         {QStringLiteral("lm"), QStringLiteral("auto"), QStringLiteral("text"), QStringLiteral("alpaca"), QStringLiteral("sharegpt"),
          QStringLiteral("messages"), QStringLiteral("classification")}},
        {"data.template", S::Data, K::Choice, QT_TRANSLATE_NOOP("fts::ConfigForm", "Chat template"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "auto: from the model folder (tokenizer_config.json), else a named template"),
         {QStringLiteral("auto"), QStringLiteral("chatml"), QStringLiteral("qwen"), QStringLiteral("qwen2.5"), QStringLiteral("llama3"), QStringLiteral("mistral"),
          QStringLiteral("llama2"), QStringLiteral("alpaca"), QStringLiteral("none")}, false, format, instruction},
        {"data.train_on_prompt", S::Data, K::Boolean, QT_TRANSLATE_NOOP("fts::ConfigForm", "Train on the prompt"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "false: the loss counts the responses only (prompt tokens masked)"), {}, false, format, instruction},
        {"data.packing", S::Data, K::Boolean, QT_TRANSLATE_NOOP("fts::ConfigForm", "Packing"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Several samples per sequence, each attending only to itself"), {}, false, format, instruction},
        {"data.shuffle", S::Data, K::Boolean, QT_TRANSLATE_NOOP("fts::ConfigForm", "Shuffle"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Shuffle the samples every epoch"), {}, false, format, instruction},
        {"data.seed", S::Data, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "Data seed"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Seed of the sample order (default: the training seed)")},
        {"data.on_bad_row", S::Data, K::Choice, QT_TRANSLATE_NOOP("fts::ConfigForm", "Bad rows"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "skip: report a malformed row by line and go on; stop: fail the run"),
         {QStringLiteral("skip"), QStringLiteral("stop")}, false, format, withBadRows},
        {"data.columns.text", S::Data, K::Text, QT_TRANSLATE_NOOP("fts::ConfigForm", "Column: text"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "The column holding the text to classify (default: the text field)"), {}, false, format, labelled},
        {"data.columns.text_pair", S::Data, K::Text, QT_TRANSLATE_NOOP("fts::ConfigForm", "Column: text pair"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "The column holding the second sentence of a pair (BERT's token types); default text_pair, used when the file has it"), {}, false, format, labelled},
        {"data.columns.label", S::Data, K::Text, QT_TRANSLATE_NOOP("fts::ConfigForm", "Column: label"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "The label column: integers or strings are classes, numbers with a fraction a regression target, lists multi-label"), {}, false, format, labelled},
        {"data.columns.instruction", S::Data, K::Text, QT_TRANSLATE_NOOP("fts::ConfigForm", "Column: instruction"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "The JSONL field holding the instruction (alpaca)"), {}, false, format, instruction},
        {"data.columns.input", S::Data, K::Text, QT_TRANSLATE_NOOP("fts::ConfigForm", "Column: input"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "The JSONL field holding the optional input (alpaca)"), {}, false, format, instruction},
        {"data.columns.output", S::Data, K::Text, QT_TRANSLATE_NOOP("fts::ConfigForm", "Column: output"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "The JSONL field holding the response (alpaca)"), {}, false, format, instruction},
        {"data.columns.system", S::Data, K::Text, QT_TRANSLATE_NOOP("fts::ConfigForm", "Column: system"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "The JSONL field holding the system prompt"), {}, false, format, instruction},
        {"data.columns.messages", S::Data, K::Text, QT_TRANSLATE_NOOP("fts::ConfigForm", "Column: messages"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "The JSONL field holding the conversation list (sharegpt, messages)"), {}, false, format, instruction},
        {"data.columns.role", S::Data, K::Text, QT_TRANSLATE_NOOP("fts::ConfigForm", "Column: role"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "The key of a message's speaker (e.g. role, from)"), {}, false, format, instruction},
        {"data.columns.content", S::Data, K::Text, QT_TRANSLATE_NOOP("fts::ConfigForm", "Column: content"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "The key of a message's text (e.g. content, value)"), {}, false, format, instruction},
        {"data.cache_dir", S::Data, K::DirPath, QT_TRANSLATE_NOOP("fts::ConfigForm", "Token cache folder"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Where tokenized data is cached and reused by later runs"), {}, false, format, instruction},
        // Method (LoRA: PEFT's LoraConfig keys under model.lora; the block's presence turns LoRA on)
        {"model.lora", S::Method, K::Block, QT_TRANSLATE_NOOP("fts::ConfigForm", "Fine-tuning method"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Full fine-tuning trains every weight; LoRA trains low-rank adapters only (model.lora)"),
         {QString::fromLatin1(QT_TRANSLATE_NOOP("fts::ConfigForm", "Full fine-tuning")),
          QString::fromLatin1(QT_TRANSLATE_NOOP("fts::ConfigForm", "LoRA adapters"))}},
        {"model.lora.r", S::Method, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "LoRA rank (r)"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Rank of the adapters (a positive integer)"), {}, false, lora, {}},
        {"model.lora.lora_alpha", S::Method, K::Number, QT_TRANSLATE_NOOP("fts::ConfigForm", "LoRA alpha"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Scaling: alpha / r (alpha / sqrt(r) with rsLoRA)"), {}, false, lora, {}},
        {"model.lora.lora_dropout", S::Method, K::Number, QT_TRANSLATE_NOOP("fts::ConfigForm", "LoRA dropout"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Dropout on the adapters' input, in [0, 1)"), {}, false, lora, {}},
        {"model.lora.target_modules", S::Method, K::StringList, QT_TRANSLATE_NOOP("fts::ConfigForm", "Target modules"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Module names (q_proj, v_proj), \"all-linear\", or a regular expression; empty: the model's PEFT default"),
         {}, false, lora, {}},
        {"model.lora.bias", S::Method, K::Choice, QT_TRANSLATE_NOOP("fts::ConfigForm", "LoRA bias"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Only \"none\" is supported: biases stay frozen"), {QStringLiteral("none")}, false, lora, {}},
        {"model.lora.use_rslora", S::Method, K::Boolean, QT_TRANSLATE_NOOP("fts::ConfigForm", "rsLoRA scaling"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Scale by alpha / sqrt(r) instead of alpha / r"), {}, false, lora, {}},
        {"model.lora.init_from", S::Method, K::DirPath, QT_TRANSLATE_NOOP("fts::ConfigForm", "Start from adapter"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "A PEFT adapter folder to continue; its adapter_config.json sets r, alpha and targets"),
         {}, false, lora, {}},
        {"model.lora.merge_on_export", S::Method, K::Boolean, QT_TRANSLATE_NOOP("fts::ConfigForm", "Merge on export"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "The final export is the merged model (the adapter is written to adapter/ too)"),
         {}, false, lora, {}},
        {"model.activation_checkpointing", S::Method, K::Boolean, QT_TRANSLATE_NOOP("fts::ConfigForm", "Activation checkpointing"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Recompute each transformer block in backward: less memory, more compute")},
        {"training.max_steps", S::Method, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "Max steps"), QT_TRANSLATE_NOOP("fts::ConfigForm", "Optimizer steps; 0 = use epochs")},
        {"training.epochs", S::Method, K::Number, QT_TRANSLATE_NOOP("fts::ConfigForm", "Epochs"), QT_TRANSLATE_NOOP("fts::ConfigForm", "Passes over the data when max steps is 0")},
        {"training.seed", S::Method, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "Seed"), QT_TRANSLATE_NOOP("fts::ConfigForm", "Data order, dropout and random init")},
        // Optimisation
        {"deepspeed.train_micro_batch_size_per_gpu", S::Optimisation, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "Micro-batch per GPU"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Sequences per rank per forward/backward (\"auto\" = derived)")},
        {"deepspeed.gradient_accumulation_steps", S::Optimisation, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "Gradient accumulation"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Micro-batches per optimizer step (\"auto\" = derived)")},
        {"deepspeed.train_batch_size", S::Optimisation, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "Global batch size"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "micro-batch x accumulation x world size (\"auto\" = derived)")},
        {"deepspeed.optimizer.type", S::Optimisation, K::Choice, QT_TRANSLATE_NOOP("fts::ConfigForm", "Optimizer"), QT_TRANSLATE_NOOP("fts::ConfigForm", "Adam or AdamW (DeepSpeed names)"),
         {QStringLiteral("AdamW"), QStringLiteral("Adam")}},
        {"deepspeed.optimizer.params.lr", S::Optimisation, K::Number, QT_TRANSLATE_NOOP("fts::ConfigForm", "Learning rate"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Peak learning rate. WarmupLR and WarmupDecayLR overwrite the optimizer's lr "
                                              "every step and peak at the scheduler's warm-up peak lr (DeepSpeed), so "
                                              "editing either here sets both; with WarmupCosineLR this value is the peak.")},
        {"deepspeed.optimizer.params.betas", S::Optimisation, K::NumberList, QT_TRANSLATE_NOOP("fts::ConfigForm", "Betas"), QT_TRANSLATE_NOOP("fts::ConfigForm", "Two numbers in [0, 1), e.g. 0.9, 0.95")},
        {"deepspeed.optimizer.params.eps", S::Optimisation, K::Number, QT_TRANSLATE_NOOP("fts::ConfigForm", "Epsilon"), QT_TRANSLATE_NOOP("fts::ConfigForm", "Adam's epsilon")},
        {"deepspeed.optimizer.params.weight_decay", S::Optimisation, K::Number, QT_TRANSLATE_NOOP("fts::ConfigForm", "Weight decay"), QT_TRANSLATE_NOOP("fts::ConfigForm", "Weight decay (>= 0)")},
        {"deepspeed.optimizer.params.adam_w_mode", S::Optimisation, K::Boolean, QT_TRANSLATE_NOOP("fts::ConfigForm", "Decoupled weight decay"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Adam with adam_w_mode = AdamW; false = L2 decay added to the gradient")},
        {"deepspeed.gradient_clipping", S::Optimisation, K::Number, QT_TRANSLATE_NOOP("fts::ConfigForm", "Gradient clipping"), QT_TRANSLATE_NOOP("fts::ConfigForm", "Global norm limit; 0 = off")},
        {"deepspeed.scheduler.type", S::Optimisation, K::Choice, QT_TRANSLATE_NOOP("fts::ConfigForm", "LR scheduler"), QT_TRANSLATE_NOOP("fts::ConfigForm", "DeepSpeed warm-up schedulers"),
         anySched},
        {"deepspeed.scheduler.params.warmup_num_steps", S::Optimisation, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "Warm-up steps"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Steps of warm-up"), {}, false, sched, anySched},
        {"deepspeed.scheduler.params.warmup_type", S::Optimisation, K::Choice, QT_TRANSLATE_NOOP("fts::ConfigForm", "Warm-up shape"), QT_TRANSLATE_NOOP("fts::ConfigForm", "log or linear"),
         {QStringLiteral("log"), QStringLiteral("linear")}, false, sched, anySched},
        {"deepspeed.scheduler.params.warmup_min_lr", S::Optimisation, K::Number, QT_TRANSLATE_NOOP("fts::ConfigForm", "Warm-up start lr"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Learning rate at the first step"), {}, false, sched, warmupLr},
        {"deepspeed.scheduler.params.warmup_max_lr", S::Optimisation, K::Number, QT_TRANSLATE_NOOP("fts::ConfigForm", "Warm-up peak lr"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "The peak learning rate, reached after warm-up: this scheduler sets the "
                                              "optimizer's lr from it every step (editing it here sets Learning rate too)"),
         {}, false, sched, warmupLr},
        {"deepspeed.scheduler.params.total_num_steps", S::Optimisation, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "Schedule length"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Steps of the whole schedule (default: max steps)"), {}, false, sched, decaying},
        {"deepspeed.scheduler.params.warmup_min_ratio", S::Optimisation, K::Number, QT_TRANSLATE_NOOP("fts::ConfigForm", "Warm-up start ratio"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Start of warm-up as a fraction of the lr"), {}, false, sched, cosine},
        {"deepspeed.scheduler.params.cos_min_ratio", S::Optimisation, K::Number, QT_TRANSLATE_NOOP("fts::ConfigForm", "Cosine floor ratio"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "End of the cosine as a fraction of the lr"), {}, false, sched, cosine},
        {"training.lr_scheduler_type", S::Optimisation, K::Choice, QT_TRANSLATE_NOOP("fts::ConfigForm", "Trainer LR schedule"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "The Hugging Face Trainer's schedule (lr_scheduler_type), used when the DeepSpeed block has no scheduler"),
         {QStringLiteral("linear"), QStringLiteral("cosine"), QStringLiteral("cosine_with_restarts"), QStringLiteral("polynomial"),
          QStringLiteral("constant"), QStringLiteral("constant_with_warmup"), QStringLiteral("inverse_sqrt"),
          QStringLiteral("cosine_with_min_lr")}},
        {"training.warmup_steps", S::Optimisation, K::Number, QT_TRANSLATE_NOOP("fts::ConfigForm", "Trainer warm-up"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Warm-up of the Trainer's schedule and of \"auto\" warm-up steps: steps (>= 1) or a fraction of all steps (< 1)")},
        // Precision
        {"deepspeed.bf16.enabled", S::Precision, K::Boolean, QT_TRANSLATE_NOOP("fts::ConfigForm", "bf16 mixed precision"), QT_TRANSLATE_NOOP("fts::ConfigForm", "Train in bfloat16")},
        {"deepspeed.fp16.enabled", S::Precision, K::Boolean, QT_TRANSLATE_NOOP("fts::ConfigForm", "fp16 mixed precision"), QT_TRANSLATE_NOOP("fts::ConfigForm", "Train in float16 with loss scaling")},
        {"deepspeed.fp16.loss_scale", S::Precision, K::Number, QT_TRANSLATE_NOOP("fts::ConfigForm", "Loss scale"), QT_TRANSLATE_NOOP("fts::ConfigForm", "0 = dynamic; otherwise a static scale"),
         {}, false, fp16, on},
        {"deepspeed.fp16.initial_scale_power", S::Precision, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "Initial scale power"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Dynamic scaling starts at 2^power"), {}, false, fp16, on},
        {"deepspeed.fp16.loss_scale_window", S::Precision, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "Loss scale window"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Steps without overflow before the scale doubles"), {}, false, fp16, on},
        {"deepspeed.fp16.hysteresis", S::Precision, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "Hysteresis"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Overflows tolerated before the scale shrinks"), {}, false, fp16, on},
        {"deepspeed.fp16.consecutive_hysteresis", S::Precision, K::Boolean, QT_TRANSLATE_NOOP("fts::ConfigForm", "Consecutive hysteresis"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Refill the hysteresis after a step without overflow"), {}, false, fp16, on},
        {"deepspeed.fp16.min_loss_scale", S::Precision, K::Number, QT_TRANSLATE_NOOP("fts::ConfigForm", "Min loss scale"), QT_TRANSLATE_NOOP("fts::ConfigForm", "Floor of the dynamic scale"),
         {}, false, fp16, on},
        // ZeRO and offload
        {"deepspeed.zero_optimization.stage", S::Zero, K::Choice, QT_TRANSLATE_NOOP("fts::ConfigForm", "ZeRO stage"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "0: replicate; 1: shard optimizer states; 2: + gradients; 3: + parameters"),
         {QStringLiteral("0"), QStringLiteral("1"), QStringLiteral("2"), QStringLiteral("3")}},
        {"deepspeed.zero_optimization.offload_optimizer.device", S::Zero, K::Choice, QT_TRANSLATE_NOOP("fts::ConfigForm", "Offload optimizer"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Keep optimizer states on: none, cpu or nvme"),
         {QStringLiteral("none"), QStringLiteral("cpu"), QStringLiteral("nvme")}},
        {"deepspeed.zero_optimization.offload_param.device", S::Zero, K::Choice, QT_TRANSLATE_NOOP("fts::ConfigForm", "Offload parameters"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Stage 3: where parameter shards rest between uses: device (none), host memory (cpu) or an SSD (nvme)"),
         {QStringLiteral("none"), QStringLiteral("cpu"), QStringLiteral("nvme")}},
        {"deepspeed.zero_optimization.offload_optimizer.nvme_path", S::Zero, K::DirPath, QT_TRANSLATE_NOOP("fts::ConfigForm", "Optimizer NVMe folder"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "A folder on a local SSD for the optimizer swap files (removed when the run ends)"), {}, false,
         QStringLiteral("deepspeed.zero_optimization.offload_optimizer.device"), {QStringLiteral("nvme")}},
        {"deepspeed.zero_optimization.offload_optimizer.buffer_count", S::Zero, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "Optimizer swap buffers"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Host buffers of one sub-group each; 2 or more read ahead and write behind"), {}, false,
         QStringLiteral("deepspeed.zero_optimization.offload_optimizer.device"), {QStringLiteral("nvme")}},
        {"deepspeed.zero_optimization.offload_optimizer.pipeline_read", S::Zero, K::Boolean, QT_TRANSLATE_NOOP("fts::ConfigForm", "Read ahead"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Read the next sub-group while this one steps (default on; DeepSpeed: off)"), {}, false,
         QStringLiteral("deepspeed.zero_optimization.offload_optimizer.device"), {QStringLiteral("nvme")}},
        {"deepspeed.zero_optimization.offload_optimizer.pipeline_write", S::Zero, K::Boolean, QT_TRANSLATE_NOOP("fts::ConfigForm", "Write behind"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Write a sub-group back while the next one steps (default on; DeepSpeed: off)"), {}, false,
         QStringLiteral("deepspeed.zero_optimization.offload_optimizer.device"), {QStringLiteral("nvme")}},
        {"deepspeed.zero_optimization.offload_optimizer.pin_memory", S::Zero, K::Boolean, QT_TRANSLATE_NOOP("fts::ConfigForm", "Pinned host memory"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Page-locked host buffers for GPU transfers"), {}, false,
         QStringLiteral("deepspeed.zero_optimization.offload_optimizer.device"), {QStringLiteral("cpu"), QStringLiteral("nvme")}},
        {"deepspeed.zero_optimization.offload_optimizer.ratio", S::Zero, K::Number, QT_TRANSLATE_NOOP("fts::ConfigForm", "Offload ratio"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Stage 3 partial offload; only 1.0 (all) runs in this version"), {}, false,
         QStringLiteral("deepspeed.zero_optimization.offload_optimizer.device"), {QStringLiteral("cpu"), QStringLiteral("nvme")}},
        {"deepspeed.zero_optimization.offload_param.nvme_path", S::Zero, K::DirPath, QT_TRANSLATE_NOOP("fts::ConfigForm", "Parameter NVMe folder"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "A folder on a local SSD for the parameter swap file (removed when the run ends)"), {}, false,
         QStringLiteral("deepspeed.zero_optimization.offload_param.device"), {QStringLiteral("nvme")}},
        {"deepspeed.zero_optimization.offload_param.pin_memory", S::Zero, K::Boolean, QT_TRANSLATE_NOOP("fts::ConfigForm", "Parameters pinned"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Page-locked host memory for the parameter shards (GPU training)"), {}, false,
         QStringLiteral("deepspeed.zero_optimization.offload_param.device"), {QStringLiteral("cpu"), QStringLiteral("nvme")}},
        {"deepspeed.zero_optimization.offload_param.buffer_count", S::Zero, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "Parameter buffers"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Host buffers that read the next blocks' parameters ahead from the SSD"), {}, false,
         QStringLiteral("deepspeed.zero_optimization.offload_param.device"), {QStringLiteral("nvme")}},
        {"deepspeed.zero_optimization.offload_param.buffer_size", S::Zero, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "Parameter buffer size"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Elements per read-ahead buffer; at least the largest parameter's shard"), {}, false,
         QStringLiteral("deepspeed.zero_optimization.offload_param.device"), {QStringLiteral("nvme")}},
        {"deepspeed.zero_optimization.offload_param.max_in_cpu", S::Zero, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "Parameters kept in CPU"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Elements of the shard kept in host memory; the rest goes to the SSD"), {}, false,
         QStringLiteral("deepspeed.zero_optimization.offload_param.device"), {QStringLiteral("nvme")}},
        {"deepspeed.zero_optimization.sub_group_size", S::Zero, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "Sub-group size"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Elements per offloaded optimizer step piece (the unit of NVMe swapping)")},
        {"deepspeed.aio.block_size", S::Zero, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "NVMe block size"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Bytes per I/O request (a multiple of 4096)")},
        {"deepspeed.aio.queue_depth", S::Zero, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "NVMe queue depth"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "I/O requests in flight per thread")},
        {"deepspeed.aio.intra_op_parallelism", S::Zero, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "NVMe I/O threads"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Threads doing swap I/O, each with its own queue")},
        {"deepspeed.aio.single_submit", S::Zero, K::Boolean, QT_TRANSLATE_NOOP("fts::ConfigForm", "NVMe single submit"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Submit I/O requests one at a time")},
        {"deepspeed.aio.overlap_events", S::Zero, K::Boolean, QT_TRANSLATE_NOOP("fts::ConfigForm", "NVMe overlap events"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Submit new requests while earlier ones complete")},
        {"deepspeed.zero_optimization.overlap_comm", S::Zero, K::Boolean, QT_TRANSLATE_NOOP("fts::ConfigForm", "Overlap communication"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "No effect in this version: each bucket is reduced when it fills")},
        {"deepspeed.zero_optimization.reduce_bucket_size", S::Zero, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "Reduce bucket size"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Elements per gradient reduction bucket")},
        {"deepspeed.zero_optimization.allgather_bucket_size", S::Zero, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "All-gather bucket size"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Elements per parameter all-gather bucket")},
        {"deepspeed.zero_optimization.contiguous_gradients", S::Zero, K::Boolean, QT_TRANSLATE_NOOP("fts::ConfigForm", "Contiguous gradients"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Copy reduced gradients into one contiguous buffer")},
        {"deepspeed.zero_optimization.reduce_scatter", S::Zero, K::Boolean, QT_TRANSLATE_NOOP("fts::ConfigForm", "Reduce-scatter"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Reduce gradients with reduce-scatter instead of all-reduce")},
        {"deepspeed.zero_optimization.stage3_prefetch_bucket_size", S::Zero, K::Integer,
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Stage 3 prefetch bucket size"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Stage 3: parameter elements gathered ahead of the block that runs")},
        {"deepspeed.zero_optimization.stage3_param_persistence_threshold", S::Zero, K::Integer,
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Stage 3 persistence threshold"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Stage 3: parameters this small stay whole on every rank")},
        {"deepspeed.zero_optimization.stage3_max_live_parameters", S::Zero, K::Integer,
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Stage 3 max live parameters"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "Stage 3: most parameter elements gathered at once")},
        // Checkpointing and logging
        {"training.output_dir", S::Checkpointing, K::DirPath, QT_TRANSLATE_NOOP("fts::ConfigForm", "Output folder"),
         QT_TRANSLATE_NOOP("fts::ConfigForm", "checkpoints/ and export/ go here"), {}, false, {}, {}, true},
        {"training.run_name", S::Checkpointing, K::Text, QT_TRANSLATE_NOOP("fts::ConfigForm", "Run name"), QT_TRANSLATE_NOOP("fts::ConfigForm", "Name shown in the run list")},
        {"training.save_interval", S::Checkpointing, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "Save every (steps)"), QT_TRANSLATE_NOOP("fts::ConfigForm", "0 = only at the end")},
        {"training.keep_checkpoints", S::Checkpointing, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "Checkpoints kept"), QT_TRANSLATE_NOOP("fts::ConfigForm", "0 = keep all")},
        {"training.eval_interval", S::Checkpointing, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "Evaluate every (steps)"), QT_TRANSLATE_NOOP("fts::ConfigForm", "0 = only at the end")},
        {"training.eval_batches", S::Checkpointing, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "Eval batches"), QT_TRANSLATE_NOOP("fts::ConfigForm", "0 = the whole eval split")},
        {"training.log_interval", S::Checkpointing, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "Log every (steps)"), QT_TRANSLATE_NOOP("fts::ConfigForm", "Metrics every N steps")},
        {"deepspeed.steps_per_print", S::Checkpointing, K::Integer, QT_TRANSLATE_NOOP("fts::ConfigForm", "Print every (steps)"), QT_TRANSLATE_NOOP("fts::ConfigForm", "Progress lines in the log")},
        // Devices
        {"training.device", S::Devices, K::Choice, QT_TRANSLATE_NOOP("fts::ConfigForm", "Device"), QT_TRANSLATE_NOOP("fts::ConfigForm", "auto (CUDA if present, else CPU), cpu, cuda or cuda:N"),
         {QStringLiteral("auto"), QStringLiteral("cpu"), QStringLiteral("cuda")}, true},
    };
}

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
