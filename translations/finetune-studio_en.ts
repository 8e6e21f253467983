<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>QAbstractFileIconProvider</name>
    <message>
        <source>Folder</source>
        <comment>All other platforms</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shortcut</source>
        <comment>All other platforms</comment>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Drive</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::ChatEngine</name>
    <message>
        <source>fts chat ended (exit code %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model process ended: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This model has no chat template: the conversation goes in as plain text and the model continues it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 with the LoRA adapter %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, %2 parameters, %3 on %4</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::ChatPage</name>
    <message numerus="yes">
        <source>%n new token(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source> · first token after %1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> · %1 tokens/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> · stopped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> · the model&apos;s context is full: Clear</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Error: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compare with</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send every message to a second model too, e.g. the base model next to the fine-tune</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A model folder: a run&apos;s export (output_dir/final), a checkpoint, a LoRA adapter or a Hugging Face download</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optional: how the assistant should behave</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Max new tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sample</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Off: greedy decoding (the same reply every time). On: sampling with the temperature and top-p beside it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Type a message; Ctrl+Enter sends it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clear</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start a new conversation (the models stay loaded)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model loads when you send the first message.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>You</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loading %1 …</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Generating…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Complete the text alone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This model has no chat template: each message is continued on its own, as fts generate does, without the conversation before it (a base or LM-trained model often ends a plain-text conversation at once).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> · the model ended its reply at once (its end-of-text came first)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>: with no chat template, try &quot;Complete the text alone&quot;</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::CliProcess</name>
    <message>
        <source>Cannot start %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::CollapsibleSection</name>
    <message numerus="yes">
        <source>%1 (%n error(s))</source>
        <translation>
            <numerusform>%1 (%n error)</numerusform>
            <numerusform>%1 (%n errors)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fts::CompareView</name>
    <message>
        <source>%1 MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Eval loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Grad norm</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens seen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wall time (s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>EMA smoothing weight (0 = raw values)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Log scale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export PNG…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export PDF…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Vector export (SVG needs the Qt SVG module, which this build does not have)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export CSV…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Metric:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>X axis:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Smoothing:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Differences only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Summary</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Config diff</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export chart</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PNG images (*.png)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PDF files (*.pdf)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export data</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Loading %n run(s)…</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Cannot compare: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select two or more runs in the list (Ctrl+click or Shift+click), then Compare.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;Comparing %n run(s)&lt;/b&gt;</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>run %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Final loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Final eval loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Best eval loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Peak memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Duration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(absent)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 keys differ</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (resolved configs: defaults filled in)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (configs as written: some no longer validate)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot write the chart to %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Eval accuracy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Eval F1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Eval MSE</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Eval Pearson r</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Eval F1 (micro)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reward margin</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reward accuracy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chosen reward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rejected reward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Eval reward margin</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Eval reward accuracy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sweep</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load-balancing loss</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::ConfigEditor</name>
    <message>
        <source>config</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (line %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not validated yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The config is valid.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n error(s)</source>
        <translation>
            <numerusform>%n error</numerusform>
            <numerusform>%n errors</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n warning(s)</source>
        <translation>
            <numerusform>%n warning</numerusform>
            <numerusform>%n warnings</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fts::ConfigForm</name>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Data</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Method</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optimisation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Precision</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ZeRO and offload</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checkpointing and logging</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Devices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>required</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not set</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>default: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>default (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The JSON has a syntax error: fix it in the JSON editor; the form follows once it parses.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pick a model…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Preview the data…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ranks (processes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Local processes to launch (fts train --nproc); the batch sizes are validated for this world size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model folder or id</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hugging Face model folder (config.json + weights) or a model id found in the HF cache</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Initialisation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>pretrained: load the weights; random: seeded init from config.json</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokenizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The tokenizer.json to use</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Training data</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Evaluation data</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Evaluation file; when empty, the eval fraction of the training data is held out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Text field</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The JSONL field that holds the text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Eval fraction</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fraction held out for evaluation, in [0, 1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Max length (tokens)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens per training sequence (&gt;= 2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Activation checkpointing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recompute each transformer block in backward: less memory, more compute</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Max steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optimizer steps; 0 = use epochs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Epochs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Passes over the data when max steps is 0</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Data order, dropout and random init</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Micro-batch per GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sequences per rank per forward/backward (&quot;auto&quot; = derived)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gradient accumulation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Micro-batches per optimizer step (&quot;auto&quot; = derived)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Global batch size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>micro-batch x accumulation x world size (&quot;auto&quot; = derived)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Adam or AdamW (DeepSpeed names)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Betas</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Two numbers in [0, 1), e.g. 0.9, 0.95</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Epsilon</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Adam&apos;s epsilon</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Weight decay</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Weight decay (&gt;= 0)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Decoupled weight decay</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Adam with adam_w_mode = AdamW; false = L2 decay added to the gradient</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gradient clipping</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Global norm limit; 0 = off</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>LR scheduler</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>DeepSpeed warm-up schedulers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Warm-up steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Steps of warm-up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Warm-up shape</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>log or linear</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Warm-up start lr</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Learning rate at the first step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Warm-up peak lr</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Schedule length</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Steps of the whole schedule (default: max steps)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Warm-up start ratio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start of warm-up as a fraction of the lr</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cosine floor ratio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>End of the cosine as a fraction of the lr</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bf16 mixed precision</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Train in bfloat16</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fp16 mixed precision</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Train in float16 with loss scaling</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loss scale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>0 = dynamic; otherwise a static scale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Initial scale power</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dynamic scaling starts at 2^power</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loss scale window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Steps without overflow before the scale doubles</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hysteresis</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Overflows tolerated before the scale shrinks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Consecutive hysteresis</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Refill the hysteresis after a step without overflow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Min loss scale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Floor of the dynamic scale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ZeRO stage</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>0: replicate; 1: shard optimizer states; 2: + gradients; 3: + parameters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Offload optimizer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep optimizer states on: none, cpu or nvme</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Offload parameters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Overlap communication</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reduce bucket size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Elements per gradient reduction bucket</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Output folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>checkpoints/ and export/ go here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name shown in the run list</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save every (steps)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>0 = only at the end</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checkpoints kept</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>0 = keep all</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Evaluate every (steps)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Eval batches</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>0 = the whole eval split</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Log every (steps)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Metrics every N steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Print every (steps)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Progress lines in the log</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>auto (CUDA if present, else CPU), cpu, cuda or cuda:N</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No estimate while the config has errors.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No estimate: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>per rank (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The device&apos;s capacity is not known here: the estimate is not judged.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;b&gt;It does not fit in %1.&lt;/b&gt; Suggestions:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (fits)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory per rank (estimate)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Format</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chat template</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>auto: from the model folder (tokenizer_config.json), else a named template</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Train on the prompt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>false: the loss counts the responses only (prompt tokens masked)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Packing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Several samples per sequence, each attending only to itself</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shuffle</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shuffle the samples every epoch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Data seed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seed of the sample order (default: the training seed)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bad rows</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>skip: report a malformed row by line and go on; stop: fail the run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Column: instruction</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The JSONL field holding the instruction (alpaca)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Column: input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The JSONL field holding the optional input (alpaca)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Column: output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The JSONL field holding the response (alpaca)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Column: system</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The JSONL field holding the system prompt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Column: messages</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The JSONL field holding the conversation list (sharegpt, messages)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Column: role</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The key of a message&apos;s speaker (e.g. role, from)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Column: content</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The key of a message&apos;s text (e.g. content, value)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Token cache folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Where tokenized data is cached and reused by later runs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fine-tuning method</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Full fine-tuning trains every weight; LoRA trains low-rank adapters only (model.lora)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Full fine-tuning</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>LoRA adapters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>LoRA rank (r)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rank of the adapters (a positive integer)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>LoRA alpha</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scaling: alpha / r (alpha / sqrt(r) with rsLoRA)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>LoRA dropout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dropout on the adapters&apos; input, in [0, 1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Target modules</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Module names (q_proj, v_proj), &quot;all-linear&quot;, or a regular expression; empty: the model&apos;s PEFT default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>LoRA bias</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only &quot;none&quot; is supported: biases stay frozen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>rsLoRA scaling</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scale by alpha / sqrt(r) instead of alpha / r</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start from adapter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A PEFT adapter folder to continue; its adapter_config.json sets r, alpha and targets</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Merge on export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The final export is the merged model (the adapter is written to adapter/ too)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All-gather bucket size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Elements per parameter all-gather bucket</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Contiguous gradients</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy reduced gradients into one contiguous buffer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reduce-scatter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reduce gradients with reduce-scatter instead of all-reduce</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Full fine-tuning trains every weight; LoRA trains small adapters next to the frozen weights (model.lora). The run stops by steps when max steps &gt; 0, else by epochs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optimizer NVMe folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A folder on a local SSD for the optimizer swap files (removed when the run ends)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optimizer swap buffers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Host buffers of one sub-group each; 2 or more read ahead and write behind</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Read ahead</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Read the next sub-group while this one steps (default on; DeepSpeed: off)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write behind</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write a sub-group back while the next one steps (default on; DeepSpeed: off)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pinned host memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Page-locked host buffers for GPU transfers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Offload ratio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stage 3 partial offload; only 1.0 (all) runs in this version</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Parameter NVMe folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Parameters pinned</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Parameter buffers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Parameter buffer size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Parameters kept in CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sub-group size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Elements per offloaded optimizer step piece (the unit of NVMe swapping)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NVMe block size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bytes per I/O request (a multiple of 4096)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NVMe queue depth</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>I/O requests in flight per thread</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NVMe I/O threads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Threads doing swap I/O, each with its own queue</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NVMe single submit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Submit I/O requests one at a time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NVMe overlap events</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Submit new requests while earlier ones complete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No effect in this version: each bucket is reduced when it fills</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stage 3 prefetch bucket size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stage 3: parameter elements gathered ahead of the block that runs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stage 3 persistence threshold</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stage 3: parameters this small stay whole on every rank</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stage 3 max live parameters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stage 3: most parameter elements gathered at once</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optimizer state offloaded (%1): %2 in host memory, %3 on NVMe; the optimizer step runs on the CPU.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>host (offload)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NVMe (offload)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stage 3: where parameter shards rest between uses: device (none), host memory (cpu) or an SSD (nvme)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A folder on a local SSD for the parameter swap file (removed when the run ends)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Page-locked host memory for the parameter shards (GPU training)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Host buffers that read the next blocks&apos; parameters ahead from the SSD</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Elements per read-ahead buffer; at least the largest parameter&apos;s shard</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Elements of the shard kept in host memory; the rest goes to the SSD</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Offloaded (optimizer state: %1, parameter shards: %2): %3 in host memory, %4 on NVMe.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Trainer LR schedule</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The Hugging Face Trainer&apos;s schedule (lr_scheduler_type), used when the DeepSpeed block has no scheduler</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Trainer warm-up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Warm-up of the Trainer&apos;s schedule and of &quot;auto&quot; warm-up steps: steps (&gt;= 1) or a fraction of all steps (&lt; 1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;auto&quot;: decided at run start (bf16 where the device supports it)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;auto&quot; resolves to %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Training data: .txt or .jsonl; instruction and classification formats also .json, .csv, .tsv</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Column: text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The column holding the text to classify (default: the text field)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Column: text pair</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The column holding the second sentence of a pair (BERT&apos;s token types); default text_pair, used when the file has it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Column: label</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The label column: integers or strings are classes, numbers with a fraction a regression target, lists multi-label</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Peak learning rate. WarmupLR and WarmupDecayLR overwrite the optimizer&apos;s lr every step and peak at the scheduler&apos;s warm-up peak lr (DeepSpeed), so editing either here sets both; with WarmupCosineLR this value is the peak.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The peak learning rate, reached after warm-up: this scheduler sets the optimizer&apos;s lr from it every step (editing it here sets Learning rate too)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Learning-rate schedule: shown once the config is valid and sets max steps (with epochs the steps are known at run start).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Learning-rate schedule of this run (step → lr):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>lr</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chunked loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compute the output layer and the loss a chunk of tokens at a time: the full logits never exist at once (same loss and gradients)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>at the start of backward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>at the end of backward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>during the optimizer step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>At its peak (%1): parameters %2 · gradients %3 · optimizer %4 · activations %5 · buckets and workspace %6 · runtime %7 (%8 ranks, ZeRO %9)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quantize the base model (4-bit)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>QLoRA: hold the frozen base weights in bitsandbytes&apos; 4-bit format (model.quantization); about a quarter of their memory in bf16, the adapters train as before</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>4-bit type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>nf4 (QLoRA&apos;s NormalFloat, the usual choice) or fp4; not set: fp4, as BitsAndBytesConfig</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Double quantization</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quantize the per-block scales too: about 0.4 bits less per weight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>4-bit compute dtype</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The dtype the weights are dequantized to for each product (default float32, as BitsAndBytesConfig; bfloat16 with bf16 training)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep unquantized</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Module names left in full precision (a weight whose name contains one); the LM head always is</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>4-bit storage</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only uint8: two 4-bit codes per byte</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quantization method</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only bitsandbytes&apos; 4-bit format</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time forward / backward / step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Record each step&apos;s forward, backward and optimizer-step times as metrics (DeepSpeed&apos;s wall_clock_breakdown)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Profile steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Record a few steps kernel by kernel into &lt;output_dir&gt;/profile/ (trace.json, summary.txt)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No profile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Profile a few steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Steps before the profile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Steps run first (default 5), so the profile sees settled steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Steps profiled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How many steps are recorded (default 3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The learning rate each optimizer step will use, as the run computes it. With a warm-up from 0 (warmup_min_lr 0) the first step&apos;s rate is 0, so the loss does not move at step 1: DeepSpeed&apos;s WarmupLR does the same (it sets the minimum before the first step), and configs train here as they do there. Set warmup_min_lr above 0 to start moving at once.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(step 1 at 0: see the tooltip)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>lm: documents concatenated into blocks; auto/text/alpaca/sharegpt/messages: one sample per row, rendered with the chat template; classification: text (and text_pair) with a label per row, for a BERT classifier; with a preference objective, auto/trl/alpaca/sharegpt: chosen/rejected pairs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Objective</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Beta</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>dpo: how far the policy may move from the reference; orpo: weight of the odds-ratio term; simpo: reward scale (TRL&apos;s default 0.1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loss weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One weight per DPO loss type (default 1 each)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Label smoothing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The chance a pair&apos;s labels are flipped: DPO&apos;s robust and exo_pair losses, SimPO</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>DiscoPOP tau</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Temperature of the discopop loss&apos;s blend (0.05)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SimPO gamma</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The target reward margin (TRL&apos;s default 0.5)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NLL weight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cpo_alpha: weight of the chosen completions&apos; NLL next to SimPO&apos;s loss (TRL&apos;s default 1; 0: SimPO alone)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Truncation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Which end of a sequence longer than max length is kept; with keep_start a pair whose prompt fills max length is dropped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Max prompt length</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Older TRL&apos;s key: the prompt keeps its last N tokens before max length applies</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Precompute the reference</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Score every pair with the reference once before training and keep the values, instead of holding a frozen copy of the model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reference model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A model folder to compare against; empty: the model itself before training (with LoRA: the adapters switched off)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No dropout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Train without dropout, as TRL does by default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sft: the language-model loss on the data (the responses of instruction data); dpo, orpo, simpo: preference training on chosen/rejected pairs; kto: on completions labelled desirable or not; as TRL computes them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loss type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TRL&apos;s loss_type. DPO: sigmoid, hinge (SLiC), ipo, robust, sigmoid_norm, ... (a list in the JSON sums several with loss_weights); KTO: kto or apo_zero_unpaired</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Desirable weight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Weight of the desirable examples&apos; loss (TRL&apos;s default 1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Undesirable weight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Weight of the undesirable examples&apos; loss; balance it against their share of the data</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Column: prompt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The field of a preference row&apos;s prompt (default: prompt)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Column: chosen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The field of the preferred completion (default: chosen)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Column: rejected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The field of the dispreferred completion (default: rejected)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This config has a sweep block: it is a set of runs, one per combination of the swept values, and they go to the queue rather than start here. Start is off while the block is there.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add to queue</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;auto&quot;: read from the data&apos;s first rows at run start</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;auto&quot;: decided at run start</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Target parameters (experts)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A mixture of experts&apos; stacked expert tensors (mlp.experts.gate_up_proj, mlp.experts.down_proj) or router weight (gate.weight), adapted as PEFT&apos;s target_parameters; empty: none</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::ConfigValidatorWorker</name>
    <message>
        <source>validation failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::DataPreviewDialog</name>
    <message>
        <source>The config has errors; fix them to preview its data.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The config names no training data (data.train).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>prompt: no loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>trained on</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Line %1 · %2 tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> · truncated</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Samples: %1 (format %2, template %3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens per sample: mean %1, p50 %2, p95 %3, max %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Truncated to %1 tokens: %2 · dropped (nothing left to train on): %3 · bad rows: %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Data preview</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reading and tokenizing %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The preview failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>The first %n sample(s), as the model sees them:</source>
        <translation>
            <numerusform>The first sample, as the model sees it:</numerusform>
            <numerusform>The first %n samples, as the model sees them:</numerusform>
        </translation>
    </message>
    <message>
        <source>Labels in the training data</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Line %1 · label %2 · %3 tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rows: %1 (%2, %3 labels%4)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, sentence pairs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens per row: mean %1, max %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Truncated to %1 tokens: %2 · bad rows: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>chosen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>rejected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Line %1 · prompt %2 tokens · chosen %3 · rejected %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pairs: %1 (layout %2, %3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>template %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>plain text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens per sequence: mean %1, max %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cut to %1 tokens: %2 sequence(s) · dropped (the prompt alone fills it): %3 · bad rows: %4</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::DevicePanel</name>
    <message>
        <source>No NVIDIA GPU found (%1 could not be started: %2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No NVIDIA GPU found (%1 did not answer within %2 s).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>exit code %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No NVIDIA GPU found (%1: %2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No NVIDIA GPU found (%1 listed none).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Looking for NVIDIA GPUs…</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n NVIDIA GPU(s) found. Checked GPUs get one rank each (fts train --include localhost:…).</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n line(s) of nvidia-smi&apos;s output could not be read.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory in use</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>CPU (%n thread(s))</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>%1 / %2 GiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Train on the CPU; the ranks (processes) are set below</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU %1 · %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Query the GPUs again (nvidia-smi)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::DoctorPanel</name>
    <message>
        <source>Check this machine</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPUs, CUDA and NCCL, memory, disk, the run store&apos;s health, the Hugging Face cache and the ssh hosts (fts doctor)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Check</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Result</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OK</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Warning</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Info</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fts doctor gave no result: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 error(s), %2 warning(s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Runtime</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run store</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Disk (run store)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HF cache</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Host %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::ExportDialog</name>
    <message>
        <source>Export the model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A run&apos;s output folder: its latest checkpoint is exported (a LoRA run merged into its base model)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>From:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GGUF file (llama.cpp, Ollama, LM Studio)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hugging Face folder (transformers, vLLM)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Format:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Q4_K_M: 4-bit, the usual choice (about a third of float16&apos;s size)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Q5_K_M: 5-bit, a little closer to the original</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Q6_K: 6-bit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Q8_0: 8-bit, nearly lossless (about half of float16&apos;s size)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Q4_0: 4-bit, the oldest format (for old llama.cpp builds)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>F16: float16, no quantization</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>BF16: bfloat16, no quantization</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>F32: float32, exact</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quantization:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rows whose length is not a multiple of 256 use llama.cpp&apos;s fallback types (Q5_0, Q5_1, Q8_0), as llama-quantize does.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>float32</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>bfloat16</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>float16</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Precision:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The folder the file (and the Modelfile) is written to</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export to</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>To folder:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write an Ollama Modelfile beside the file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The chat template the run trained with, its stop tokens and system prompt, as Ollama reads them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the folder to export to.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reading the checkpoint…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Writing the tensors: %1 of %2 MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Merging the LoRA adapter into its base model…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gathering the ZeRO stage 3 shards…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Written: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>To run it with Ollama:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>llama.cpp differs from the trained model here:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Done.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelled; nothing was written.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The export failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, %2; tensors: %3</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::HostsPanel</name>
    <message>
        <source>this machine is always part of the run; add the other hosts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not checked yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add an SSH host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Host name, ~/.ssh/config alias or address (ssh must reach it without a password):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; cannot be used: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No ~/.ssh/config to read hosts from.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n host(s) added from ~/.ssh/config.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Add a host first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot write a temporary hostfile: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The check did not answer: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no output</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Checking %n host(s): ssh, fts, GPUs, then collectives and links…</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>GPU %1 · %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 / %2 GiB in use</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n GPU(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>reachable (%1), fts %2, %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no GPU: CPU ranks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>link %1 ↔ %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 Gbit/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 failed: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All checks passed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The hosts are not ready for training.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SSH host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ranks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add host…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>From ~/.ssh/config</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Check hosts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fts hosts check: reach each host over ssh in BatchMode, compare fts versions, list GPUs, then run broadcast, all-reduce and a transfer per pair of hosts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checked hosts train with this machine: their GPUs (or CPU ranks), one rank each. The same fts, config, model and data paths must exist on every host (docs/multinode.md).</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::IssueText</name>
    <message>
        <source>a number &gt;= 0</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a positive integer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an integer &gt;= 0</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a learning rate &gt;= 0</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>true or false</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a string</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a non-empty string</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an object {...}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a number of elements &gt;= 0</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a number of elements &gt; 0</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a probability in [0, 1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a positive number of steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected a Hugging Face model folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a Hugging Face model folder needs config.json</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected the model&apos;s tokenizer.json</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected a PEFT LoRA adapter folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expected %1, got %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown key &quot;%1&quot; (ignored)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, did you mean &quot;%1&quot;?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: not found</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: not found (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a number</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a number in [0, 1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a non-negative integer (0 = only at the end)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an integer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a number &gt;= 0 (0 turns clipping off)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a non-negative integer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an integer from 1 to 64</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an integer from 1 to 4096</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an integer from 1 to 1000</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an integer &gt;= 2 (tokens per training sequence)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a whole number of cycles &gt;= 1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a positive integer, or null for never</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a positive integer or &quot;auto&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a positive integer (the adapter rank)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a number of waves &gt; 0</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a number of bytes &gt; 0</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a number &gt;= 0 (0 enables dynamic loss scaling)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a number &gt; 0</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a non-negative integer (default: training.seed)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a non-negative integer (0 = use epochs)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a non-negative integer (0 = the whole eval split)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a non-negative integer (0 = keep all)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a fraction of the total steps in [0, 1]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a fraction of the peak learning rate in [0, 1]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a fraction from 0 to 1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a dropout probability in [0, 1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a ZeRO stage 0-3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: no store yet (the first run creates it)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: schema %2, %3 run(s), quick_check %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the store is damaged: copy it aside (runs.sqlite, -wal, -shm) and let the next run create a new one, or repair it with sqlite3&apos;s .recover</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it is brought up to date the next time a run starts or the studio opens it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>move the file aside (a new store is created by the next run), or point --store at another file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: free space unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 free on %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>free space there: checkpoints, the token cache and the store need it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a checkpoint of a 1B-parameter model takes about 16 GB with its optimizer state: free space there</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>/proc/meminfo could not be read</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 available of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>little host memory is free: close other programs, or lower the batch size (fts estimate CONFIG)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 model(s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no Hugging Face cache (searched %1); model folders work without one</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>check `ssh %1` works without a password (BatchMode) and fts is installed there</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>reachable (%1), fts %2, %3 GPU(s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>give an ssh host name or address</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>multi-GPU training needs NCCL: reinstall the torch wheel of packaging/requirements-run.txt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no CUDA device visible to LibTorch: training runs on the CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>install the NVIDIA driver (nvidia-smi must list the GPUs) and check CUDA_VISIBLE_DEVICES</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>given together with model.lora.init_from, whose adapter_config.json defines it; remove one of them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 has no adapter_config.json; expected a PEFT LoRA adapter folder (adapter_config.json + adapter_model.safetensors)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a valid regular expression (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>only &quot;none&quot; is supported (PEFT&apos;s &quot;all&quot; and &quot;lora_only&quot; train biases too; not available here), got %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>LoRA adapts pretrained weights, but model.init is &quot;random&quot;; use &quot;pretrained&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a folder (%2 does not exist) and %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a classification row is one sequence with one label; set &quot;packing&quot;: false</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ignored: data.columns.text names the text column</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>names the column &apos;%1&apos;, which is already data.columns.%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>max_steps is 0 and epochs is 0: nothing to train; expected max_steps &gt; 0 or epochs &gt; 0</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>missing; expected an object with %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>missing; expected %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>one of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a positive integer up to %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: has %2 but only safetensors weights are supported (model.safetensors or model.safetensors.index.json); convert the checkpoint to safetensors first</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: no model.safetensors or model.safetensors.index.json found (or set model.init to &quot;random&quot; to train from a fresh initialisation)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: not a directory (expected a Hugging Face model folder)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: is a directory; expected a tokenizer.json file (%2?)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: is a directory; expected a data file (.jsonl, .json, .csv, .tsv or .txt)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: cannot open data file (not readable)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: not a directory; the output folder %2 cannot be created there</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: not writable (checkpoints and the export go here)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: cannot be created (%2 is not writable)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: key &quot;%2&quot;: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: cannot read the model&apos;s config.json</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: expected a JSON object (a Hugging Face config.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: not valid JSON (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>missing (supported: %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unsupported model type &quot;%1&quot; (supported: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>null is not allowed; expected %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>hidden size %1 must be divisible by %2 heads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>num_attention_heads (%1) must be a multiple of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;pretrained&quot; or &quot;random&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a module name (e.g. &quot;q_proj&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a non-empty list of module names (matched exactly or as the last dotted parts) or a regular expression string</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;auto&quot;, &quot;cpu&quot;, &quot;cuda&quot; or &quot;cuda:N&quot; (N a device index)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a list of 1 to 16 prompts (strings)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a non-empty prompt of at most 4096 bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>true, false or {&quot;wait&quot;: steps before the profile, &quot;active&quot;: steps profiled}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;path&quot; (the Hugging Face model folder)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;train&quot; (the training text: .txt or .jsonl)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;output_dir&quot; and &quot;max_steps&quot; or &quot;epochs&quot;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the Hugging Face model folder (config.json, plus weights unless init is &quot;random&quot;)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the training data file (.txt or .jsonl)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the folder for checkpoints and exports</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the DeepSpeed config object (at least train_micro_batch_size_per_gpu or train_batch_size)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the optimizer type: Adam or AdamW</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>true (the base weights held 4-bit under LoRA)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CUDA runtime %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>built without CUDA</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NCCL not loaded</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::LogLineText</name>
    <message>
        <source>host %1 (%2): node started, pid %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>worker rank %1 of %2 started on %3 (pid %4)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>rank %1 model states, ZeRO stage %2, %3 parameters:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>training on %1: %2 parameters, %3 train / %4 eval sequences, steps %5 → %6</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>checkpoint at step %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>first step %1 s after the start</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>resumed from %1 at step %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stop requested: saving a checkpoint at step %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stop requested before the ranks started: nothing to checkpoint</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>step %1: fp16 gradients overflowed, step skipped; loss scale %2 → %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>rendezvous store on %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1float32%2total</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1parameters%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1gradients%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1optimizer%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1on device%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>info</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>warning</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>supervisor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>warn</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::MainWindow</name>
    <message>
        <source>Finetune Studio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a config…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Store: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;New run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New run from the quick-start config (Ctrl+N)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Open config…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Save config</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save config &amp;as…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S&amp;tart</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start a run with this config (Ctrl+Return)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>St&amp;op</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ask the selected run to checkpoint and stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;About Finetune Studio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>About Finetune Studio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;b&gt;Finetune Studio %1&lt;/b&gt;&lt;p&gt;Fine-tune language models with DeepSpeed-style configs. Runs are supervised by the &lt;code&gt;fts&lt;/code&gt; command-line tool and recorded in %2.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Main</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Validating the config…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fix the config errors first</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(unsaved config)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quick-start: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (modified)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The quick-start config is missing: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot read %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save config</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JSON configs (*.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open config</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JSON configs (*.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A run is being started; wait until it appears in the list.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The config is still being validated.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The config has errors; fix them first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The run exited before it appeared in the store. See its log: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Store: %1 (not available)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unsaved config</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The config in the editor has unsaved changes. Save them?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Compare runs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Overlay the curves and diff the configs of the selected runs (Ctrl+Shift+C)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select two or more runs to compare (Ctrl+click or Shift+click in the list).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All statuses</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Any time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Today</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Last 7 days</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Last 30 days</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All models</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All datasets</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All tags</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n run(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n run(s) shown</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Notes and tags…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rename run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New name of run %1:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Notes and tags of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>comma-separated, e.g. baseline, lr-sweep</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tags:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Notes:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete runs</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Delete %n run(s) from the history? Their metrics and logs are removed.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Also delete checkpoints and outputs:
%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run %1 has no stored config.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A new run from the config of &quot;%1&quot; (unsaved).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start from this run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Se&amp;ttings…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopping run %1 without a checkpoint…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run &quot;%1&quot; completed (final loss %2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run &quot;%1&quot; completed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run &quot;%1&quot; failed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run &quot;%1&quot; failed: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run &quot;%1&quot; stopped.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Measure ZeRO stages…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run a few steps of this config at each ZeRO stage and compare peak memory and speed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The probe runs on this machine&apos;s ranks only; the SSH hosts are left out.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Resume</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Continue the selected stopped or failed run from its last checkpoint (Ctrl+Shift+R)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Starting the run &quot;%1&quot; (supervisor pid %2) in %3…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Its config&apos;s folder holds another run, so this run got a folder of its own.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>• %1 (%2 per rank)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The estimate does not fit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This config needs about %1 per rank, and a rank has %2. The run will probably run out of memory. Start it anyway?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Changes that would fit:
%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start anyway</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run %1 is not in the store.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resuming run &quot;%1&quot; from its last checkpoint (supervisor pid %2)…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kill the run&apos;s workers without writing a checkpoint? The steps since the last saved checkpoint are lost. (Stop &amp; save checkpoints first.)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resume</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a model folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The documentation is not installed with this build.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Documentation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;h2&gt;Finetune Studio&lt;/h2&gt;&lt;p&gt;Fine-tune a language model on this machine or on your GPU servers. Start with the quick-start (a tiny model that trains in a minute on a CPU), pick a Hugging Face model folder, or open a DeepSpeed or Trainer config you already have.&lt;/p&gt;&lt;p&gt;Runs you start appear on the left; select one to see its charts.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;a href=&quot;%1&quot;&gt;Documentation&lt;/a&gt; (configs, data formats, ZeRO and offload, several hosts)&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Try the quick-start</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New run with a model folder…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search the runs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A new run with %1: set the training data and check the settings, then Start.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>C&amp;hat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Talk to the selected run&apos;s fine-tuned model, or to any model folder (Ctrl+Shift+T)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The run was not started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Its memory estimate does not fit the free memory of the device it would use, so it would probably run out of memory. The details list the estimate, the free memory and the changes that would fit; change the config, or start it anyway.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The run was not started: its memory estimate does not fit the device&apos;s free memory.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The config already uses this variant.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Changed in the config: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(not set)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This run has no checkpoint to export yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export the model…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Fit to my hardware…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Find the fastest ZeRO stage, offload, checkpointing and micro-batch that fit, by the estimate and a few measured steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add to &amp;queue</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Queue this config (a sweep: each of its runs); it starts when its devices are free</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Queue</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The runs waiting for their devices, running and finished</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fit to my hardware…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add to queue</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The plan measures this machine&apos;s ranks only; the SSH hosts are left out.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not write %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not queued: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Queued. It starts when its devices are free.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A config with a sweep block is a set of runs: Add to queue queues them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sweeping %1 also sets %2 in each run: the scheduler sets the learning rate from it every step.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the sweep&apos;s key %1 does nothing in this config (another key overrides it), so its runs would train alike. Details: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This config has a sweep block: its runs are queued, not started. Use Add to queue.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::MemoryBars</name>
    <message>
        <source>%1 / %2 GiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 GiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>reserved %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>peak %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>estimate %1: peak %2%</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>estimate %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::ModelPicker</name>
    <message>
        <source>Pick a model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dtype</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Vocab</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Context</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Source</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add a folder…</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Scanning %n folder(s) and the Hugging Face cache…</source>
        <translation>
            <numerusform>Scanning %n folder and the Hugging Face cache…</numerusform>
            <numerusform>Scanning %n folders and the Hugging Face cache…</numerusform>
        </translation>
    </message>
    <message>
        <source>unreadable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unreadable weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HF cache</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No models found. Add a folder holding Hugging Face model folders.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n model(s) found.</source>
        <translation>
            <numerusform>%n model found.</numerusform>
            <numerusform>%n models found.</numerusform>
        </translation>
    </message>
    <message>
        <source>Model folder</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::PlanDialog</name>
    <message>
        <source>CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NVMe</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stage %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>optimizer offload to %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>parameter offload to %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>micro-batch %1 × %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>checkpointing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>chunked loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>whole logits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fit to my hardware</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Finds the fastest way to train this config that fits the memory of a rank: ZeRO stage, offload, activation checkpointing, micro-batch with gradient accumulation (the global batch stays the same) and chunked loss. The estimate drops what does not fit; the most promising few are run for a few steps each (runs in the runs list, their checkpoints not kept).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory per rank:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>free memory of the devices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The memory one rank may use, e.g. 24GiB; empty: the free memory of the devices, as a start judges it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Probes:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How many variants to run for a few steps (0: by the estimate alone)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time box (min):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No probe starts once this much time has gone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Variant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Estimate per rank</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Measured peak</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>State</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Apply</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write the proposal&apos;s keys (only those) into the config</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The plan ended without a result: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Estimating the variants…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Estimating the variants against the memory of a rank…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Probing variant %1 of at most %2…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The time box is reached; no more probes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>probed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not probed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>does not fit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>proposal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the config now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Proposal: %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Measured %1 tokens/s, peak %2 of the %3 a rank may use.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(By the estimate alone.)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(not set)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The config already is this variant.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Apply changes: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Done in %1 s.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The time box stopped the probes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing fits in %1 per rank.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The two fastest are close: running both once more…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The smallest estimate is %1 per rank (%2), over the %3 a rank may use.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>More GPUs: with %1 ranks of this size, ZeRO stage 3 at micro-batch 1 with checkpointing needs %2 per rank.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fits with NVMe offload (stage 3, optimizer and parameters on NVMe with an nvme_path): %1 per rank.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Still over with NVMe offload (stage 3, optimizer and parameters on NVMe with an nvme_path): %1 per rank.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fits as QLoRA (a 4-bit base with LoRA adapters instead of a full fine-tune; it trains differently): %1 per rank.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Still over as QLoRA (a 4-bit base with LoRA adapters instead of a full fine-tune; it trains differently): %1 per rank.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every probe failed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>over the memory</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::ProbeDialog</name>
    <message>
        <source>Measure ZeRO stages</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Runs a few steps of this config at each chosen ZeRO stage on the same ranks and data, and measures each rank&apos;s peak memory and the speed next to the estimate. Each variant is a run in the runs list; its checkpoints are not kept.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stage %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Also with CPU offload</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>offload_optimizer cpu at stages 1-3, and offload_param cpu at stage 3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Steps:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optimizer steps per variant; the first is not timed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Variant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Estimate per rank</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Measured peak per rank</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Steps/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose at least one stage.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Running %1 (%2 of %3)…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Done. Pick the cheapest variant whose measured peak fits your devices.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every variant failed; see the reasons in the table.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The probe ended without a result: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Starting the probe…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> + optimizer offload</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> + parameter offload</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use this variant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write the selected variant&apos;s ZeRO stage and offload settings into the config</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::QueuePage</name>
    <message>
        <source>waiting for %1 CPU slot(s) (%2 of %3 in use)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>waiting for %1 GPU(s) (%2 of %3 in use)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>waiting behind entry %1 (%2) for the same devices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>interrupted; resumes from its checkpoint</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cancelled before it started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>one GPU, else the CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU, %1 ranks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 GPU(s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Runs wait here for their devices (a GPU, a CPU slot or SSH hosts) and start in this order when they are free, also after the studio or the machine restarts. Add a config from the editor (Add to queue); a config with a sweep block adds each of its runs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>State</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Devices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Why / result</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sweep</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start the queue runner</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Starts `fts queue run` in the background; it ends when the queue is empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move down</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A waiting run is cancelled; a running one saves a checkpoint and stops; a finished one leaves the list (its run stays)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clear finished</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compare this sweep</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Queue runner: not running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The queue could not be read: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>waiting</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>done</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Queue runner: running (process %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Queue runner: running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The queue runner could not be started (%1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>needs %1 GPU(s); this machine has %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>needs %1 CPU slots; the queue runner has %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>needs GPU %1, which this machine does not have</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stopped at step %1 outside the queue (resume it from its run page)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cancelled at step %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not started: %1 reached the sweep&apos;s target (%2 %3, target %4)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Queue runner asked to start; its log: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Back to the config</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The config in the editor, as you left it (queued entries keep copies of their own)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::RunFolder</name>
    <message>
        <source>Cannot write %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>another run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>training.output_dir is not set: the run needs a folder for its checkpoints.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>training.output_dir: %1 already holds the checkpoints of %2. A new run there would mix its checkpoints with them; choose another folder, or resume that run.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot create the run&apos;s folder %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run &quot;%1&quot; cannot be resumed: only a stopped, failed or interrupted run can.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run &quot;%1&quot; has no checkpoint in %2 to resume from; use &quot;Start from this run&quot; to start it again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The config file of run &quot;%1&quot; is gone (%2); use &quot;Start from this run&quot; instead.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::RunLauncher</name>
    <message>
        <source>Cannot write %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The config is not a JSON object.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot create the folder %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The command-line tool was not found at %1 (set FTS_CLI to its path).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot start %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::RunView</name>
    <message>
        <source>Status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ETA</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Device memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>train loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>eval loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Log lines of this run appear here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 allocated</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 peak</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No run selected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stopping…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (eval %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>took %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop &amp;&amp; save</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The ranks finish the current step, write a checkpoint and stop; the run can be resumed (fts train --resume)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kill the workers without a checkpoint (after confirmation): the steps since the last saved checkpoint are lost</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>train loss (smoothed)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>lr</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Gradient norm</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>norm</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loss scale (fp16)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>scale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Grad norm</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Loss scale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory history</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>EMA smoothing weight of the loss (0 = raw values)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Log scale</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Smoothing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>rank %1 · %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>host RAM</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>step %v of %m (%p%)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>step %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%3 · rank %1 · %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 allocated (of %2 MiB)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Eval metrics</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>accuracy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>F1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>F1 (micro)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>MSE</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pearson r</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resume</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Continue this run from its last checkpoint: same run, its curves continue (fts train CONFIG --resume)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Prompt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reply</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Samples</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>forward pass</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>backward pass</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>optimizer step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>evaluation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>checkpoint</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Out of memory while setting up.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Out of memory at step %1, in the %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lower the memory it needs with one of the changes below (each with its estimate), then start it again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>took %1 of training, over %2 (stopped and resumed)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rewards</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>chosen reward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>rejected reward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>reward margin</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>reward accuracy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>reward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>chosen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>rejected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>margin (chosen - rejected)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model of this run&apos;s latest checkpoint as a GGUF file for llama.cpp, Ollama and LM Studio (quantized), or as a Hugging Face folder (fts export)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load-balancing loss (mixture of experts)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>aux loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Router</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::RunsTableModel</name>
    <message>
        <source>pending</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>completed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stopped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Final loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dataset</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Best eval</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Duration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ranks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tags</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run store</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SQLite files (*.sqlite)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Light</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dark</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A new store location is used from the next start (empty: $FTS_STORE or the default).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model folders</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Theme</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This window uses %1 (given with --store); the setting above is the store the studio opens when started without --store.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::StorePoller</name>
    <message>
        <source>No run store yet at %1 (it is created by the first run).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot open the run store %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reading the run store failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run %1 is not in the store.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run %1 is not running (status: %2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run %1 has no supervisor process id.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run %1 is supervised on host %2; stop it there.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot signal the supervisor (pid %1): %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop requested: the run checkpoints, then stops.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::StoreWriter</name>
    <message>
        <source>Run %1 renamed to &quot;%2&quot;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot rename run %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Notes of run %1 saved.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot save the notes of run %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tags of run %1 saved.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot save the tags of run %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run %1 deleted.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Its output folder %1 was kept: other runs write there too.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Its output folder %1 was not removed (missing or not a folder).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Removing %1 failed: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Removed its checkpoints and outputs in %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot delete run %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>fts::SweepPlot</name>
    <message>
        <source>These runs are not from one sweep.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>final loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (lowest)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (highest)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (values in the order seen)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 runs of the sweep &quot;%2&quot;; one point per run.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 against %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Fine-tune language models: edit a config, start runs, watch them live.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The run store to show (default: $FTS_STORE or %1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open the new-run editor with the quick-start config, ready to start.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>User interface language (zh_CN, en; default: the system&apos;s).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>language</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
