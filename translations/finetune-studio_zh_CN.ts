<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>QAbstractFileIconProvider</name>
    <message>
        <source>Folder</source>
        <comment>All other platforms</comment>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Shortcut</source>
        <comment>All other platforms</comment>
        <translation>快捷方式</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Drive</source>
        <translation>驱动器</translation>
    </message>
</context>
<context>
    <name>fts::ChatEngine</name>
    <message>
        <source>fts chat ended (exit code %1)</source>
        <translation>fts chat 已结束（退出码 %1）</translation>
    </message>
    <message>
        <source>The model process ended: %1</source>
        <translation>模型进程已结束：%1</translation>
    </message>
    <message>
        <source>This model has no chat template: the conversation goes in as plain text and the model continues it.</source>
        <translation>此模型没有对话模板：对话以纯文本输入，由模型接着写下去。</translation>
    </message>
    <message>
        <source>%1 with the LoRA adapter %2</source>
        <translation>%1 加 LoRA 适配器 %2</translation>
    </message>
    <message>
        <source>%1, %2 parameters, %3 on %4</source>
        <translation>%1，%2 参数，%3，运行于 %4</translation>
    </message>
</context>
<context>
    <name>fts::ChatPage</name>
    <message numerus="yes">
        <source>%n new token(s)</source>
        <translation>
            <numerusform>%n 个新词元</numerusform>
        </translation>
    </message>
    <message>
        <source> · first token after %1 s</source>
        <translation> · 首个词元用时 %1 秒</translation>
    </message>
    <message>
        <source> · %1 tokens/s</source>
        <translation> · %1 词元/秒</translation>
    </message>
    <message>
        <source> · stopped</source>
        <translation> · 已停止</translation>
    </message>
    <message>
        <source> · the model&apos;s context is full: Clear</source>
        <translation> · 模型上下文已满：请清空</translation>
    </message>
    <message>
        <source>Error: %1</source>
        <translation>错误：%1</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Compare with</source>
        <translation>对比模型</translation>
    </message>
    <message>
        <source>Send every message to a second model too, e.g. the base model next to the fine-tune</source>
        <translation>把每条消息也发给第二个模型，例如把基础模型与微调后的模型并排对比</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>A model folder: a run&apos;s export (output_dir/final), a checkpoint, a LoRA adapter or a Hugging Face download</source>
        <translation>模型文件夹：运行的导出（output_dir/final）、检查点、LoRA 适配器或 Hugging Face 下载的模型</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <source>Optional: how the assistant should behave</source>
        <translation>可选：助手应如何表现</translation>
    </message>
    <message>
        <source>Max new tokens</source>
        <translation>最大新词元数</translation>
    </message>
    <message>
        <source>Sample</source>
        <translation>采样</translation>
    </message>
    <message>
        <source>Off: greedy decoding (the same reply every time). On: sampling with the temperature and top-p beside it</source>
        <translation>关闭：贪心解码（每次回复相同）。开启：按旁边的温度和 top-p 采样</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>Type a message; Ctrl+Enter sends it</source>
        <translation>输入消息；Ctrl+Enter 发送</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清空</translation>
    </message>
    <message>
        <source>Start a new conversation (the models stay loaded)</source>
        <translation>开始新的对话（模型保持加载）</translation>
    </message>
    <message>
        <source>The model loads when you send the first message.</source>
        <translation>发送第一条消息时加载模型。</translation>
    </message>
    <message>
        <source>Model folder</source>
        <translation>模型文件夹</translation>
    </message>
    <message>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <source>Loading %1 …</source>
        <translation>正在加载 %1 …</translation>
    </message>
    <message>
        <source>Generating…</source>
        <translation>正在生成…</translation>
    </message>
    <message>
        <source>Complete the text alone</source>
        <translation>单独续写文本</translation>
    </message>
    <message>
        <source>This model has no chat template: each message is continued on its own, as fts generate does, without the conversation before it (a base or LM-trained model often ends a plain-text conversation at once).</source>
        <translation>此模型没有对话模板：每条消息单独续写（与 fts generate 相同），不带之前的对话（基础模型或按语言模型训练的模型常会立即结束纯文本对话）。</translation>
    </message>
    <message>
        <source> · the model ended its reply at once (its end-of-text came first)</source>
        <translation> · 模型立即结束了回复（首先生成了文本结束符）</translation>
    </message>
    <message>
        <source>: with no chat template, try &quot;Complete the text alone&quot;</source>
        <translation>：此模型没有对话模板，可试试“单独续写文本”</translation>
    </message>
</context>
<context>
    <name>fts::CliProcess</name>
    <message>
        <source>Cannot start %1: %2</source>
        <translation>无法启动 %1：%2</translation>
    </message>
</context>
<context>
    <name>fts::CollapsibleSection</name>
    <message numerus="yes">
        <source>%1 (%n error(s))</source>
        <translation>
            <numerusform>%1（%n 个错误）</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fts::CompareView</name>
    <message>
        <source>%1 MiB</source>
        <translation>%1 MiB</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>Eval loss</source>
        <translation>验证损失</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>Grad norm</source>
        <translation>梯度范数</translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation>词元/秒</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Tokens seen</source>
        <translation>已见词元</translation>
    </message>
    <message>
        <source>Wall time (s)</source>
        <translation>墙钟时间（秒）</translation>
    </message>
    <message>
        <source>EMA smoothing weight (0 = raw values)</source>
        <translation>EMA 平滑权重（0 = 原始值）</translation>
    </message>
    <message>
        <source>Log scale</source>
        <translation>对数坐标</translation>
    </message>
    <message>
        <source>Export PNG…</source>
        <translation>导出 PNG…</translation>
    </message>
    <message>
        <source>Export PDF…</source>
        <translation>导出 PDF…</translation>
    </message>
    <message>
        <source>Vector export (SVG needs the Qt SVG module, which this build does not have)</source>
        <translation>矢量导出（SVG 需要 Qt SVG 模块，本构建中没有）</translation>
    </message>
    <message>
        <source>Export CSV…</source>
        <translation>导出 CSV…</translation>
    </message>
    <message>
        <source>Metric:</source>
        <translation>指标：</translation>
    </message>
    <message>
        <source>X axis:</source>
        <translation>X 轴：</translation>
    </message>
    <message>
        <source>Smoothing:</source>
        <translation>平滑：</translation>
    </message>
    <message>
        <source>Differences only</source>
        <translation>仅显示差异</translation>
    </message>
    <message>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <source>Config diff</source>
        <translation>配置差异</translation>
    </message>
    <message>
        <source>Export chart</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <source>PNG images (*.png)</source>
        <translation>PNG 图像 (*.png)</translation>
    </message>
    <message>
        <source>PDF files (*.pdf)</source>
        <translation>PDF 文件 (*.pdf)</translation>
    </message>
    <message>
        <source>Export data</source>
        <translation>导出数据</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message numerus="yes">
        <source>Loading %n run(s)…</source>
        <translation>
            <numerusform>正在加载 %n 个运行…</numerusform>
        </translation>
    </message>
    <message>
        <source>Cannot compare: %1</source>
        <translation>无法比较：%1</translation>
    </message>
    <message>
        <source>Select two or more runs in the list (Ctrl+click or Shift+click), then Compare.</source>
        <translation>在列表中选择两个或更多运行（Ctrl+单击或 Shift+单击），然后点击比较。</translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;Comparing %n run(s)&lt;/b&gt;</source>
        <translation>
            <numerusform>&lt;b&gt;正在比较 %n 个运行&lt;/b&gt;</numerusform>
        </translation>
    </message>
    <message>
        <source>run %1</source>
        <translation>运行 %1</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Final loss</source>
        <translation>最终损失</translation>
    </message>
    <message>
        <source>Final eval loss</source>
        <translation>最终验证损失</translation>
    </message>
    <message>
        <source>Best eval loss</source>
        <translation>最佳验证损失</translation>
    </message>
    <message>
        <source>Peak memory</source>
        <translation>峰值内存</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>Key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>(absent)</source>
        <translation>（缺失）</translation>
    </message>
    <message>
        <source>%1 of %2 keys differ</source>
        <translation>%2 个键中有 %1 个不同</translation>
    </message>
    <message>
        <source> (resolved configs: defaults filled in)</source>
        <translation>（解析后的配置：已填入默认值）</translation>
    </message>
    <message>
        <source> (configs as written: some no longer validate)</source>
        <translation>（原始配置：部分已无法通过校验）</translation>
    </message>
    <message>
        <source>Cannot write the chart to %1</source>
        <translation>无法将图表写入 %1</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Eval accuracy</source>
        <translation>验证准确率</translation>
    </message>
    <message>
        <source>Eval F1</source>
        <translation>验证 F1</translation>
    </message>
    <message>
        <source>Eval MSE</source>
        <translation>验证 MSE</translation>
    </message>
    <message>
        <source>Eval Pearson r</source>
        <translation>验证 Pearson r</translation>
    </message>
    <message>
        <source>Eval F1 (micro)</source>
        <translation>验证 F1（micro）</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Reward margin</source>
        <translation>奖励间隔</translation>
    </message>
    <message>
        <source>Reward accuracy</source>
        <translation>奖励准确率</translation>
    </message>
    <message>
        <source>Chosen reward</source>
        <translation>chosen 奖励</translation>
    </message>
    <message>
        <source>Rejected reward</source>
        <translation>rejected 奖励</translation>
    </message>
    <message>
        <source>Eval reward margin</source>
        <translation>验证奖励间隔</translation>
    </message>
    <message>
        <source>Eval reward accuracy</source>
        <translation>验证奖励准确率</translation>
    </message>
    <message>
        <source>Sweep</source>
        <translation>扫参</translation>
    </message>
    <message>
        <source>Load-balancing loss</source>
        <translation>负载均衡损失</translation>
    </message>
</context>
<context>
    <name>fts::ConfigEditor</name>
    <message>
        <source>config</source>
        <translation>配置</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source> (line %1)</source>
        <translation>（第 %1 行）</translation>
    </message>
    <message>
        <source>Not validated yet.</source>
        <translation>尚未校验。</translation>
    </message>
    <message>
        <source>The config is valid.</source>
        <translation>配置有效。</translation>
    </message>
    <message numerus="yes">
        <source>%n error(s)</source>
        <translation>
            <numerusform>%n 个错误</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n warning(s)</source>
        <translation>
            <numerusform>%n 个警告</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fts::ConfigForm</name>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>方法</translation>
    </message>
    <message>
        <source>Optimisation</source>
        <translation>优化</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>ZeRO and offload</source>
        <translation>ZeRO 与卸载</translation>
    </message>
    <message>
        <source>Checkpointing and logging</source>
        <translation>检查点与日志</translation>
    </message>
    <message>
        <source>Devices</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>required</source>
        <translation>必填</translation>
    </message>
    <message>
        <source>not set</source>
        <translation>未设置</translation>
    </message>
    <message>
        <source>default: %1</source>
        <translation>默认：%1</translation>
    </message>
    <message>
        <source>default (%1)</source>
        <translation>默认（%1）</translation>
    </message>
    <message>
        <source>The JSON has a syntax error: fix it in the JSON editor; the form follows once it parses.</source>
        <translation>JSON 有语法错误：请在 JSON 编辑器中修正；解析成功后表单会随之更新。</translation>
    </message>
    <message>
        <source>Pick a model…</source>
        <translation>选择模型…</translation>
    </message>
    <message>
        <source>Preview the data…</source>
        <translation>预览数据…</translation>
    </message>
    <message>
        <source>Ranks (processes)</source>
        <translation>进程数（rank）</translation>
    </message>
    <message>
        <source>Local processes to launch (fts train --nproc); the batch sizes are validated for this world size</source>
        <translation>要启动的本地进程数（fts train --nproc）；批大小按此总进程数校验</translation>
    </message>
    <message>
        <source>Model folder or id</source>
        <translation>模型文件夹或 ID</translation>
    </message>
    <message>
        <source>Hugging Face model folder (config.json + weights) or a model id found in the HF cache</source>
        <translation>Hugging Face 模型文件夹（config.json + 权重），或 HF 缓存中的模型 ID</translation>
    </message>
    <message>
        <source>Initialisation</source>
        <translation>初始化</translation>
    </message>
    <message>
        <source>pretrained: load the weights; random: seeded init from config.json</source>
        <translation>pretrained：加载权重；random：按 config.json 以随机种子初始化</translation>
    </message>
    <message>
        <source>Tokenizer</source>
        <translation>分词器</translation>
    </message>
    <message>
        <source>The tokenizer.json to use</source>
        <translation>要使用的 tokenizer.json</translation>
    </message>
    <message>
        <source>Training data</source>
        <translation>训练数据</translation>
    </message>
    <message>
        <source>Evaluation data</source>
        <translation>评估数据</translation>
    </message>
    <message>
        <source>Evaluation file; when empty, the eval fraction of the training data is held out</source>
        <translation>评估文件；为空时从训练数据中按评估比例留出</translation>
    </message>
    <message>
        <source>Text field</source>
        <translation>文本字段</translation>
    </message>
    <message>
        <source>The JSONL field that holds the text</source>
        <translation>JSONL 中保存文本的字段</translation>
    </message>
    <message>
        <source>Eval fraction</source>
        <translation>评估比例</translation>
    </message>
    <message>
        <source>Fraction held out for evaluation, in [0, 1)</source>
        <translation>留作评估的比例，取值 [0, 1)</translation>
    </message>
    <message>
        <source>Max length (tokens)</source>
        <translation>最大长度（词元）</translation>
    </message>
    <message>
        <source>Tokens per training sequence (&gt;= 2)</source>
        <translation>每条训练序列的词元数（&gt;= 2）</translation>
    </message>
    <message>
        <source>Activation checkpointing</source>
        <translation>激活检查点</translation>
    </message>
    <message>
        <source>Recompute each transformer block in backward: less memory, more compute</source>
        <translation>反向传播时重算每个 Transformer 块：省显存，多计算</translation>
    </message>
    <message>
        <source>Max steps</source>
        <translation>最大步数</translation>
    </message>
    <message>
        <source>Optimizer steps; 0 = use epochs</source>
        <translation>优化器步数；0 = 按轮数</translation>
    </message>
    <message>
        <source>Epochs</source>
        <translation>轮数</translation>
    </message>
    <message>
        <source>Passes over the data when max steps is 0</source>
        <translation>最大步数为 0 时遍历数据的次数</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>Data order, dropout and random init</source>
        <translation>数据顺序、dropout 与随机初始化</translation>
    </message>
    <message>
        <source>Micro-batch per GPU</source>
        <translation>每 GPU 微批大小</translation>
    </message>
    <message>
        <source>Sequences per rank per forward/backward (&quot;auto&quot; = derived)</source>
        <translation>每个 rank 每次前向/反向的序列数（&quot;auto&quot; = 推导）</translation>
    </message>
    <message>
        <source>Gradient accumulation</source>
        <translation>梯度累积</translation>
    </message>
    <message>
        <source>Micro-batches per optimizer step (&quot;auto&quot; = derived)</source>
        <translation>每个优化器步的微批数（&quot;auto&quot; = 推导）</translation>
    </message>
    <message>
        <source>Global batch size</source>
        <translation>全局批大小</translation>
    </message>
    <message>
        <source>micro-batch x accumulation x world size (&quot;auto&quot; = derived)</source>
        <translation>微批 × 累积 × 总进程数（&quot;auto&quot; = 推导）</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>Adam or AdamW (DeepSpeed names)</source>
        <translation>Adam 或 AdamW（DeepSpeed 名称）</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>Betas</source>
        <translation>Betas</translation>
    </message>
    <message>
        <source>Two numbers in [0, 1), e.g. 0.9, 0.95</source>
        <translation>两个 [0, 1) 内的数，例如 0.9, 0.95</translation>
    </message>
    <message>
        <source>Epsilon</source>
        <translation>Epsilon</translation>
    </message>
    <message>
        <source>Adam&apos;s epsilon</source>
        <translation>Adam 的 epsilon</translation>
    </message>
    <message>
        <source>Weight decay</source>
        <translation>权重衰减</translation>
    </message>
    <message>
        <source>Weight decay (&gt;= 0)</source>
        <translation>权重衰减（&gt;= 0）</translation>
    </message>
    <message>
        <source>Decoupled weight decay</source>
        <translation>解耦权重衰减</translation>
    </message>
    <message>
        <source>Adam with adam_w_mode = AdamW; false = L2 decay added to the gradient</source>
        <translation>Adam 且 adam_w_mode = AdamW；false = 将 L2 衰减加到梯度上</translation>
    </message>
    <message>
        <source>Gradient clipping</source>
        <translation>梯度裁剪</translation>
    </message>
    <message>
        <source>Global norm limit; 0 = off</source>
        <translation>全局范数上限；0 = 关闭</translation>
    </message>
    <message>
        <source>LR scheduler</source>
        <translation>学习率调度器</translation>
    </message>
    <message>
        <source>DeepSpeed warm-up schedulers</source>
        <translation>DeepSpeed 预热调度器</translation>
    </message>
    <message>
        <source>Warm-up steps</source>
        <translation>预热步数</translation>
    </message>
    <message>
        <source>Steps of warm-up</source>
        <translation>预热的步数</translation>
    </message>
    <message>
        <source>Warm-up shape</source>
        <translation>预热曲线</translation>
    </message>
    <message>
        <source>log or linear</source>
        <translation>&quot;log&quot; 或 &quot;linear&quot;</translation>
    </message>
    <message>
        <source>Warm-up start lr</source>
        <translation>预热起始学习率</translation>
    </message>
    <message>
        <source>Learning rate at the first step</source>
        <translation>第一步的学习率</translation>
    </message>
    <message>
        <source>Warm-up peak lr</source>
        <translation>预热峰值学习率</translation>
    </message>
    <message>
        <source>Schedule length</source>
        <translation>调度总长度</translation>
    </message>
    <message>
        <source>Steps of the whole schedule (default: max steps)</source>
        <translation>整个调度的步数（默认：最大步数）</translation>
    </message>
    <message>
        <source>Warm-up start ratio</source>
        <translation>预热起始比例</translation>
    </message>
    <message>
        <source>Start of warm-up as a fraction of the lr</source>
        <translation>预热起点占学习率的比例</translation>
    </message>
    <message>
        <source>Cosine floor ratio</source>
        <translation>余弦下限比例</translation>
    </message>
    <message>
        <source>End of the cosine as a fraction of the lr</source>
        <translation>余弦终点占学习率的比例</translation>
    </message>
    <message>
        <source>bf16 mixed precision</source>
        <translation>bf16 混合精度</translation>
    </message>
    <message>
        <source>Train in bfloat16</source>
        <translation>以 bfloat16 训练</translation>
    </message>
    <message>
        <source>fp16 mixed precision</source>
        <translation>fp16 混合精度</translation>
    </message>
    <message>
        <source>Train in float16 with loss scaling</source>
        <translation>以 float16 训练并进行损失缩放</translation>
    </message>
    <message>
        <source>Loss scale</source>
        <translation>损失缩放</translation>
    </message>
    <message>
        <source>0 = dynamic; otherwise a static scale</source>
        <translation>0 = 动态；否则为静态缩放值</translation>
    </message>
    <message>
        <source>Initial scale power</source>
        <translation>初始缩放指数</translation>
    </message>
    <message>
        <source>Dynamic scaling starts at 2^power</source>
        <translation>动态缩放从 2^指数 开始</translation>
    </message>
    <message>
        <source>Loss scale window</source>
        <translation>损失缩放窗口</translation>
    </message>
    <message>
        <source>Steps without overflow before the scale doubles</source>
        <translation>无溢出多少步后缩放翻倍</translation>
    </message>
    <message>
        <source>Hysteresis</source>
        <translation>滞后</translation>
    </message>
    <message>
        <source>Overflows tolerated before the scale shrinks</source>
        <translation>缩放减小前容忍的溢出次数</translation>
    </message>
    <message>
        <source>Consecutive hysteresis</source>
        <translation>连续滞后</translation>
    </message>
    <message>
        <source>Refill the hysteresis after a step without overflow</source>
        <translation>无溢出的一步之后重置滞后计数</translation>
    </message>
    <message>
        <source>Min loss scale</source>
        <translation>最小损失缩放</translation>
    </message>
    <message>
        <source>Floor of the dynamic scale</source>
        <translation>动态缩放的下限</translation>
    </message>
    <message>
        <source>ZeRO stage</source>
        <translation>ZeRO 阶段</translation>
    </message>
    <message>
        <source>0: replicate; 1: shard optimizer states; 2: + gradients; 3: + parameters</source>
        <translation>0：复制；1：切分优化器状态；2：+ 梯度；3：+ 参数</translation>
    </message>
    <message>
        <source>Offload optimizer</source>
        <translation>卸载优化器</translation>
    </message>
    <message>
        <source>Keep optimizer states on: none, cpu or nvme</source>
        <translation>优化器状态存放位置：none、cpu 或 nvme</translation>
    </message>
    <message>
        <source>Offload parameters</source>
        <translation>卸载参数</translation>
    </message>
    <message>
        <source>Overlap communication</source>
        <translation>通信重叠</translation>
    </message>
    <message>
        <source>Reduce bucket size</source>
        <translation>归约桶大小</translation>
    </message>
    <message>
        <source>Elements per gradient reduction bucket</source>
        <translation>每个梯度归约桶的元素数</translation>
    </message>
    <message>
        <source>Output folder</source>
        <translation>输出文件夹</translation>
    </message>
    <message>
        <source>checkpoints/ and export/ go here</source>
        <translation>checkpoints/ 与 export/ 存放于此</translation>
    </message>
    <message>
        <source>Run name</source>
        <translation>运行名称</translation>
    </message>
    <message>
        <source>Name shown in the run list</source>
        <translation>运行列表中显示的名称</translation>
    </message>
    <message>
        <source>Save every (steps)</source>
        <translation>保存间隔（步）</translation>
    </message>
    <message>
        <source>0 = only at the end</source>
        <translation>0 = 仅在结束时</translation>
    </message>
    <message>
        <source>Checkpoints kept</source>
        <translation>保留的检查点数</translation>
    </message>
    <message>
        <source>0 = keep all</source>
        <translation>0 = 全部保留</translation>
    </message>
    <message>
        <source>Evaluate every (steps)</source>
        <translation>评估间隔（步）</translation>
    </message>
    <message>
        <source>Eval batches</source>
        <translation>评估批数</translation>
    </message>
    <message>
        <source>0 = the whole eval split</source>
        <translation>0 = 整个评估集</translation>
    </message>
    <message>
        <source>Log every (steps)</source>
        <translation>日志间隔（步）</translation>
    </message>
    <message>
        <source>Metrics every N steps</source>
        <translation>每 N 步记录指标</translation>
    </message>
    <message>
        <source>Print every (steps)</source>
        <translation>打印间隔（步）</translation>
    </message>
    <message>
        <source>Progress lines in the log</source>
        <translation>日志中的进度行</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>auto (CUDA if present, else CPU), cpu, cuda or cuda:N</source>
        <translation>auto（有 CUDA 用 CUDA，否则 CPU）、cpu、cuda 或 cuda:N</translation>
    </message>
    <message>
        <source>No estimate while the config has errors.</source>
        <translation>配置有错误时无法估算。</translation>
    </message>
    <message>
        <source>No estimate: %1</source>
        <translation>无法估算：%1</translation>
    </message>
    <message>
        <source>per rank (%1)</source>
        <translation>每个 rank（%1）</translation>
    </message>
    <message>
        <source>The device&apos;s capacity is not known here: the estimate is not judged.</source>
        <translation>此处无法得知设备容量：不判断是否放得下。</translation>
    </message>
    <message>
        <source>&lt;b&gt;It does not fit in %1.&lt;/b&gt; Suggestions:</source>
        <translation>&lt;b&gt;超出 %1。&lt;/b&gt;建议：</translation>
    </message>
    <message>
        <source> (fits)</source>
        <translation>（可放下）</translation>
    </message>
    <message>
        <source>Memory per rank (estimate)</source>
        <translation>每个 rank 的内存（估算）</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>Chat template</source>
        <translation>对话模板</translation>
    </message>
    <message>
        <source>auto: from the model folder (tokenizer_config.json), else a named template</source>
        <translation>auto：取自模型文件夹（tokenizer_config.json），否则为指定名称的模板</translation>
    </message>
    <message>
        <source>Train on the prompt</source>
        <translation>在提示上训练</translation>
    </message>
    <message>
        <source>false: the loss counts the responses only (prompt tokens masked)</source>
        <translation>false：损失只计算回答部分（提示词元被屏蔽）</translation>
    </message>
    <message>
        <source>Packing</source>
        <translation>打包</translation>
    </message>
    <message>
        <source>Several samples per sequence, each attending only to itself</source>
        <translation>一个序列中放入多个样本，每个样本只关注自身</translation>
    </message>
    <message>
        <source>Shuffle</source>
        <translation>打乱</translation>
    </message>
    <message>
        <source>Shuffle the samples every epoch</source>
        <translation>每个轮次打乱样本顺序</translation>
    </message>
    <message>
        <source>Data seed</source>
        <translation>数据种子</translation>
    </message>
    <message>
        <source>Seed of the sample order (default: the training seed)</source>
        <translation>样本顺序的随机种子（默认：训练种子）</translation>
    </message>
    <message>
        <source>Bad rows</source>
        <translation>错误行</translation>
    </message>
    <message>
        <source>skip: report a malformed row by line and go on; stop: fail the run</source>
        <translation>skip：按行号报告格式错误的行并继续；stop：使运行失败</translation>
    </message>
    <message>
        <source>Column: instruction</source>
        <translation>列：instruction</translation>
    </message>
    <message>
        <source>The JSONL field holding the instruction (alpaca)</source>
        <translation>存放指令的 JSONL 字段（alpaca）</translation>
    </message>
    <message>
        <source>Column: input</source>
        <translation>列：input</translation>
    </message>
    <message>
        <source>The JSONL field holding the optional input (alpaca)</source>
        <translation>存放可选输入的 JSONL 字段（alpaca）</translation>
    </message>
    <message>
        <source>Column: output</source>
        <translation>列：output</translation>
    </message>
    <message>
        <source>The JSONL field holding the response (alpaca)</source>
        <translation>存放回答的 JSONL 字段（alpaca）</translation>
    </message>
    <message>
        <source>Column: system</source>
        <translation>列：system</translation>
    </message>
    <message>
        <source>The JSONL field holding the system prompt</source>
        <translation>存放系统提示的 JSONL 字段</translation>
    </message>
    <message>
        <source>Column: messages</source>
        <translation>列：messages</translation>
    </message>
    <message>
        <source>The JSONL field holding the conversation list (sharegpt, messages)</source>
        <translation>存放对话列表的 JSONL 字段（sharegpt、messages）</translation>
    </message>
    <message>
        <source>Column: role</source>
        <translation>列：role</translation>
    </message>
    <message>
        <source>The key of a message&apos;s speaker (e.g. role, from)</source>
        <translation>消息中说话者的键（如 role、from）</translation>
    </message>
    <message>
        <source>Column: content</source>
        <translation>列：content</translation>
    </message>
    <message>
        <source>The key of a message&apos;s text (e.g. content, value)</source>
        <translation>消息中文本的键（如 content、value）</translation>
    </message>
    <message>
        <source>Token cache folder</source>
        <translation>词元缓存文件夹</translation>
    </message>
    <message>
        <source>Where tokenized data is cached and reused by later runs</source>
        <translation>分词结果的缓存位置，之后的运行会复用</translation>
    </message>
    <message>
        <source>Fine-tuning method</source>
        <translation>微调方法</translation>
    </message>
    <message>
        <source>Full fine-tuning trains every weight; LoRA trains low-rank adapters only (model.lora)</source>
        <translation>全量微调训练所有权重；LoRA 只训练低秩适配器（model.lora）</translation>
    </message>
    <message>
        <source>Full fine-tuning</source>
        <translation>全量微调</translation>
    </message>
    <message>
        <source>LoRA adapters</source>
        <translation>LoRA 适配器</translation>
    </message>
    <message>
        <source>LoRA rank (r)</source>
        <translation>LoRA 秩（r）</translation>
    </message>
    <message>
        <source>Rank of the adapters (a positive integer)</source>
        <translation>适配器的秩（正整数）</translation>
    </message>
    <message>
        <source>LoRA alpha</source>
        <translation>LoRA alpha</translation>
    </message>
    <message>
        <source>Scaling: alpha / r (alpha / sqrt(r) with rsLoRA)</source>
        <translation>缩放：alpha / r（rsLoRA 时为 alpha / sqrt(r)）</translation>
    </message>
    <message>
        <source>LoRA dropout</source>
        <translation>LoRA dropout</translation>
    </message>
    <message>
        <source>Dropout on the adapters&apos; input, in [0, 1)</source>
        <translation>适配器输入上的 dropout，取值 [0, 1)</translation>
    </message>
    <message>
        <source>Target modules</source>
        <translation>目标模块</translation>
    </message>
    <message>
        <source>Module names (q_proj, v_proj), &quot;all-linear&quot;, or a regular expression; empty: the model&apos;s PEFT default</source>
        <translation>模块名（q_proj, v_proj）、&quot;all-linear&quot; 或正则表达式；留空：使用该模型的 PEFT 默认值</translation>
    </message>
    <message>
        <source>LoRA bias</source>
        <translation>LoRA 偏置</translation>
    </message>
    <message>
        <source>Only &quot;none&quot; is supported: biases stay frozen</source>
        <translation>仅支持 &quot;none&quot;：偏置保持冻结</translation>
    </message>
    <message>
        <source>rsLoRA scaling</source>
        <translation>rsLoRA 缩放</translation>
    </message>
    <message>
        <source>Scale by alpha / sqrt(r) instead of alpha / r</source>
        <translation>按 alpha / sqrt(r) 而不是 alpha / r 缩放</translation>
    </message>
    <message>
        <source>Start from adapter</source>
        <translation>从适配器继续</translation>
    </message>
    <message>
        <source>A PEFT adapter folder to continue; its adapter_config.json sets r, alpha and targets</source>
        <translation>要继续训练的 PEFT 适配器文件夹；其 adapter_config.json 决定 r、alpha 和目标模块</translation>
    </message>
    <message>
        <source>Merge on export</source>
        <translation>导出时合并</translation>
    </message>
    <message>
        <source>The final export is the merged model (the adapter is written to adapter/ too)</source>
        <translation>最终导出为合并后的模型（适配器也写入 adapter/）</translation>
    </message>
    <message>
        <source>Stage 3 prefetch bucket size</source>
        <translation>阶段 3 预取桶大小</translation>
    </message>
    <message>
        <source>Stage 3: parameter elements gathered ahead of the block that runs</source>
        <translation>阶段 3：在当前块运行前预先收集的参数元素数</translation>
    </message>
    <message>
        <source>Stage 3 persistence threshold</source>
        <translation>阶段 3 常驻阈值</translation>
    </message>
    <message>
        <source>Stage 3: parameters this small stay whole on every rank</source>
        <translation>阶段 3：不超过此大小的参数在每个 rank 上保持完整</translation>
    </message>
    <message>
        <source>Stage 3 max live parameters</source>
        <translation>阶段 3 最大在用参数数</translation>
    </message>
    <message>
        <source>Stage 3: most parameter elements gathered at once</source>
        <translation>阶段 3：同时收集的参数元素上限</translation>
    </message>
    <message>
        <source>All-gather bucket size</source>
        <translation>All-gather 桶大小</translation>
    </message>
    <message>
        <source>Elements per parameter all-gather bucket</source>
        <translation>每个参数 all-gather 桶的元素数</translation>
    </message>
    <message>
        <source>Contiguous gradients</source>
        <translation>连续梯度</translation>
    </message>
    <message>
        <source>Copy reduced gradients into one contiguous buffer</source>
        <translation>将归约后的梯度复制到一块连续缓冲区</translation>
    </message>
    <message>
        <source>Reduce-scatter</source>
        <translation>Reduce-scatter</translation>
    </message>
    <message>
        <source>Reduce gradients with reduce-scatter instead of all-reduce</source>
        <translation>用 reduce-scatter 而不是 all-reduce 归约梯度</translation>
    </message>
    <message>
        <source>Full fine-tuning trains every weight; LoRA trains small adapters next to the frozen weights (model.lora). The run stops by steps when max steps &gt; 0, else by epochs.</source>
        <translation>全量微调训练所有权重；LoRA 在冻结的权重旁训练小型适配器（model.lora）。最大步数 &gt; 0 时按步数停止，否则按轮次停止。</translation>
    </message>
    <message>
        <source>Optimizer NVMe folder</source>
        <translation>优化器 NVMe 文件夹</translation>
    </message>
    <message>
        <source>A folder on a local SSD for the optimizer swap files (removed when the run ends)</source>
        <translation>本地 SSD 上存放优化器交换文件的文件夹（运行结束时删除）</translation>
    </message>
    <message>
        <source>Optimizer swap buffers</source>
        <translation>优化器交换缓冲区</translation>
    </message>
    <message>
        <source>Host buffers of one sub-group each; 2 or more read ahead and write behind</source>
        <translation>主机缓冲区数量，每个容纳一个子组；2 个及以上时可预读并后台写回</translation>
    </message>
    <message>
        <source>Read ahead</source>
        <translation>预读</translation>
    </message>
    <message>
        <source>Read the next sub-group while this one steps (default on; DeepSpeed: off)</source>
        <translation>在当前子组更新时读取下一个子组（默认开启；DeepSpeed 默认关闭）</translation>
    </message>
    <message>
        <source>Write behind</source>
        <translation>后台写回</translation>
    </message>
    <message>
        <source>Write a sub-group back while the next one steps (default on; DeepSpeed: off)</source>
        <translation>在下一个子组更新时写回当前子组（默认开启；DeepSpeed 默认关闭）</translation>
    </message>
    <message>
        <source>Pinned host memory</source>
        <translation>锁页主机内存</translation>
    </message>
    <message>
        <source>Page-locked host buffers for GPU transfers</source>
        <translation>用于 GPU 传输的锁页主机缓冲区</translation>
    </message>
    <message>
        <source>Offload ratio</source>
        <translation>卸载比例</translation>
    </message>
    <message>
        <source>Stage 3 partial offload; only 1.0 (all) runs in this version</source>
        <translation>阶段 3 部分卸载；本版本仅支持 1.0（全部）</translation>
    </message>
    <message>
        <source>Parameter NVMe folder</source>
        <translation>参数 NVMe 文件夹</translation>
    </message>
    <message>
        <source>Parameters pinned</source>
        <translation>参数锁页</translation>
    </message>
    <message>
        <source>Parameter buffers</source>
        <translation>参数缓冲区</translation>
    </message>
    <message>
        <source>Parameter buffer size</source>
        <translation>参数缓冲区大小</translation>
    </message>
    <message>
        <source>Parameters kept in CPU</source>
        <translation>保留在 CPU 中的参数</translation>
    </message>
    <message>
        <source>Sub-group size</source>
        <translation>子组大小</translation>
    </message>
    <message>
        <source>Elements per offloaded optimizer step piece (the unit of NVMe swapping)</source>
        <translation>卸载优化器每次更新的分片元素数（NVMe 交换的单位）</translation>
    </message>
    <message>
        <source>NVMe block size</source>
        <translation>NVMe 块大小</translation>
    </message>
    <message>
        <source>Bytes per I/O request (a multiple of 4096)</source>
        <translation>每个 I/O 请求的字节数（4096 的倍数）</translation>
    </message>
    <message>
        <source>NVMe queue depth</source>
        <translation>NVMe 队列深度</translation>
    </message>
    <message>
        <source>I/O requests in flight per thread</source>
        <translation>每个线程同时进行的 I/O 请求数</translation>
    </message>
    <message>
        <source>NVMe I/O threads</source>
        <translation>NVMe I/O 线程数</translation>
    </message>
    <message>
        <source>Threads doing swap I/O, each with its own queue</source>
        <translation>执行交换 I/O 的线程数，每个线程有自己的队列</translation>
    </message>
    <message>
        <source>NVMe single submit</source>
        <translation>NVMe 逐个提交</translation>
    </message>
    <message>
        <source>Submit I/O requests one at a time</source>
        <translation>逐个提交 I/O 请求</translation>
    </message>
    <message>
        <source>NVMe overlap events</source>
        <translation>NVMe 重叠事件</translation>
    </message>
    <message>
        <source>Submit new requests while earlier ones complete</source>
        <translation>在先前请求完成的同时提交新请求</translation>
    </message>
    <message>
        <source>No effect in this version: each bucket is reduced when it fills</source>
        <translation>本版本中无效：每个桶填满时即归约</translation>
    </message>
    <message>
        <source>Optimizer state offloaded (%1): %2 in host memory, %3 on NVMe; the optimizer step runs on the CPU.</source>
        <translation>优化器状态已卸载（%1）：主机内存 %2，NVMe %3；优化器更新在 CPU 上运行。</translation>
    </message>
    <message>
        <source>host (offload)</source>
        <translation>主机（卸载）</translation>
    </message>
    <message>
        <source>NVMe (offload)</source>
        <translation>NVMe（卸载）</translation>
    </message>
    <message>
        <source>Stage 3: where parameter shards rest between uses: device (none), host memory (cpu) or an SSD (nvme)</source>
        <translation>阶段 3：参数分片在两次使用之间存放的位置：设备（none）、主机内存（cpu）或 SSD（nvme）</translation>
    </message>
    <message>
        <source>A folder on a local SSD for the parameter swap file (removed when the run ends)</source>
        <translation>本地 SSD 上存放参数交换文件的文件夹（运行结束时删除）</translation>
    </message>
    <message>
        <source>Page-locked host memory for the parameter shards (GPU training)</source>
        <translation>参数分片使用页锁定主机内存（GPU 训练）</translation>
    </message>
    <message>
        <source>Host buffers that read the next blocks&apos; parameters ahead from the SSD</source>
        <translation>从 SSD 预读后续模块参数的主机缓冲区</translation>
    </message>
    <message>
        <source>Elements per read-ahead buffer; at least the largest parameter&apos;s shard</source>
        <translation>每个预读缓冲区的元素数；至少为最大参数的分片大小</translation>
    </message>
    <message>
        <source>Elements of the shard kept in host memory; the rest goes to the SSD</source>
        <translation>分片中保留在主机内存的元素数；其余存放到 SSD</translation>
    </message>
    <message>
        <source>Offloaded (optimizer state: %1, parameter shards: %2): %3 in host memory, %4 on NVMe.</source>
        <translation>已卸载（优化器状态：%1，参数分片：%2）：主机内存 %3，NVMe %4。</translation>
    </message>
    <message>
        <source>Trainer LR schedule</source>
        <translation>Trainer 学习率调度</translation>
    </message>
    <message>
        <source>The Hugging Face Trainer&apos;s schedule (lr_scheduler_type), used when the DeepSpeed block has no scheduler</source>
        <translation>Hugging Face Trainer 的学习率调度（lr_scheduler_type），在 DeepSpeed 配置没有 &quot;scheduler&quot; 块时使用</translation>
    </message>
    <message>
        <source>Trainer warm-up</source>
        <translation>Trainer 预热</translation>
    </message>
    <message>
        <source>Warm-up of the Trainer&apos;s schedule and of &quot;auto&quot; warm-up steps: steps (&gt;= 1) or a fraction of all steps (&lt; 1)</source>
        <translation>Trainer 调度和 &quot;auto&quot; 预热步数的预热：步数（&gt;= 1）或占总步数的比例（&lt; 1）</translation>
    </message>
    <message>
        <source>&quot;auto&quot;: decided at run start (bf16 where the device supports it)</source>
        <translation>&quot;auto&quot;：运行开始时决定（设备支持时使用 bf16）</translation>
    </message>
    <message>
        <source>&quot;auto&quot; resolves to %1</source>
        <translation>&quot;auto&quot; 解析为 %1</translation>
    </message>
    <message>
        <source>Training data: .txt or .jsonl; instruction and classification formats also .json, .csv, .tsv</source>
        <translation>训练数据：.txt 或 .jsonl；指令与分类格式还支持 .json、.csv、.tsv</translation>
    </message>
    <message>
        <source>Column: text</source>
        <translation>列：文本</translation>
    </message>
    <message>
        <source>The column holding the text to classify (default: the text field)</source>
        <translation>保存待分类文本的列（默认：文本字段）</translation>
    </message>
    <message>
        <source>Column: text pair</source>
        <translation>列：文本对</translation>
    </message>
    <message>
        <source>The column holding the second sentence of a pair (BERT&apos;s token types); default text_pair, used when the file has it</source>
        <translation>保存句对中第二个句子的列（BERT 的 token 类型）；默认 text_pair，文件中有该列时使用</translation>
    </message>
    <message>
        <source>Column: label</source>
        <translation>列：标签</translation>
    </message>
    <message>
        <source>The label column: integers or strings are classes, numbers with a fraction a regression target, lists multi-label</source>
        <translation>标签列：整数或字符串为类别，带小数的数为回归目标，列表为多标签</translation>
    </message>
    <message>
        <source>Peak learning rate. WarmupLR and WarmupDecayLR overwrite the optimizer&apos;s lr every step and peak at the scheduler&apos;s warm-up peak lr (DeepSpeed), so editing either here sets both; with WarmupCosineLR this value is the peak.</source>
        <translation>峰值学习率。WarmupLR 和 WarmupDecayLR 每一步都会改写优化器的 lr，峰值取调度器的预热峰值 lr（DeepSpeed 的语义），因此在这里修改其中任一项都会同时设置两者；使用 WarmupCosineLR 时，此值就是峰值。</translation>
    </message>
    <message>
        <source>The peak learning rate, reached after warm-up: this scheduler sets the optimizer&apos;s lr from it every step (editing it here sets Learning rate too)</source>
        <translation>峰值学习率，预热结束时达到：此调度器每一步都据此设置优化器的 lr（在这里修改也会同时设置“学习率”）</translation>
    </message>
    <message>
        <source>Learning-rate schedule: shown once the config is valid and sets max steps (with epochs the steps are known at run start).</source>
        <translation>学习率调度：配置有效并设置了最大步数后显示（按轮数训练时，步数在运行开始时才确定）。</translation>
    </message>
    <message>
        <source>Learning-rate schedule of this run (step → lr):</source>
        <translation>此运行的学习率调度（步 → 学习率）：</translation>
    </message>
    <message>
        <source>lr</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>Chunked loss</source>
        <translation>分块损失</translation>
    </message>
    <message>
        <source>Compute the output layer and the loss a chunk of tokens at a time: the full logits never exist at once (same loss and gradients)</source>
        <translation>按词元分块计算输出层和损失：完整的输出层结果从不同时存在（损失和梯度不变）</translation>
    </message>
    <message>
        <source>at the start of backward</source>
        <translation>反向传播开始时</translation>
    </message>
    <message>
        <source>at the end of backward</source>
        <translation>反向传播结束时</translation>
    </message>
    <message>
        <source>during the optimizer step</source>
        <translation>优化器步骤中</translation>
    </message>
    <message>
        <source>At its peak (%1): parameters %2 · gradients %3 · optimizer %4 · activations %5 · buckets and workspace %6 · runtime %7 (%8 ranks, ZeRO %9)</source>
        <translation>峰值时（%1）：参数 %2 · 梯度 %3 · 优化器 %4 · 激活 %5 · 通信桶与工作区 %6 · 运行时 %7（%8 个 rank，ZeRO %9）</translation>
    </message>
    <message>
        <source>Quantize the base model (4-bit)</source>
        <translation>量化基础模型（4 位）</translation>
    </message>
    <message>
        <source>QLoRA: hold the frozen base weights in bitsandbytes&apos; 4-bit format (model.quantization); about a quarter of their memory in bf16, the adapters train as before</source>
        <translation>QLoRA：以 bitsandbytes 的 4 位格式保存冻结的基础权重（model.quantization），约为 bf16 内存的四分之一，适配器照常训练</translation>
    </message>
    <message>
        <source>4-bit type</source>
        <translation>4 位类型</translation>
    </message>
    <message>
        <source>nf4 (QLoRA&apos;s NormalFloat, the usual choice) or fp4; not set: fp4, as BitsAndBytesConfig</source>
        <translation>nf4（QLoRA 的 NormalFloat，常用选择）或 fp4；未设置时为 fp4，与 BitsAndBytesConfig 相同</translation>
    </message>
    <message>
        <source>Double quantization</source>
        <translation>双重量化</translation>
    </message>
    <message>
        <source>Quantize the per-block scales too: about 0.4 bits less per weight</source>
        <translation>同时量化每块的缩放因子：每个权重约少 0.4 位</translation>
    </message>
    <message>
        <source>4-bit compute dtype</source>
        <translation>4 位计算精度</translation>
    </message>
    <message>
        <source>The dtype the weights are dequantized to for each product (default float32, as BitsAndBytesConfig; bfloat16 with bf16 training)</source>
        <translation>每次矩阵乘法时权重反量化到的数据类型（默认 float32，与 BitsAndBytesConfig 相同；bf16 训练时用 bfloat16）</translation>
    </message>
    <message>
        <source>Keep unquantized</source>
        <translation>保持不量化</translation>
    </message>
    <message>
        <source>Module names left in full precision (a weight whose name contains one); the LM head always is</source>
        <translation>保持全精度的模块名（名称包含其一的权重）；语言模型输出头始终不量化</translation>
    </message>
    <message>
        <source>4-bit storage</source>
        <translation>4 位存储类型</translation>
    </message>
    <message>
        <source>Only uint8: two 4-bit codes per byte</source>
        <translation>仅支持 uint8：每字节两个 4 位编码</translation>
    </message>
    <message>
        <source>Quantization method</source>
        <translation>量化方法</translation>
    </message>
    <message>
        <source>Only bitsandbytes&apos; 4-bit format</source>
        <translation>仅支持 bitsandbytes 的 4 位格式</translation>
    </message>
    <message>
        <source>Time forward / backward / step</source>
        <translation>计时前向 / 反向 / 优化步</translation>
    </message>
    <message>
        <source>Record each step&apos;s forward, backward and optimizer-step times as metrics (DeepSpeed&apos;s wall_clock_breakdown)</source>
        <translation>将每步的前向、反向和优化器步耗时记录为指标（DeepSpeed 的 wall_clock_breakdown）</translation>
    </message>
    <message>
        <source>Profile steps</source>
        <translation>性能剖析</translation>
    </message>
    <message>
        <source>Record a few steps kernel by kernel into &lt;output_dir&gt;/profile/ (trace.json, summary.txt)</source>
        <translation>逐内核记录几个训练步到 &lt;output_dir&gt;/profile/（trace.json、summary.txt）</translation>
    </message>
    <message>
        <source>No profile</source>
        <translation>不剖析</translation>
    </message>
    <message>
        <source>Profile a few steps</source>
        <translation>剖析几个步骤</translation>
    </message>
    <message>
        <source>Steps before the profile</source>
        <translation>剖析前的步数</translation>
    </message>
    <message>
        <source>Steps run first (default 5), so the profile sees settled steps</source>
        <translation>先运行的步数（默认 5），使剖析看到稳定的步骤</translation>
    </message>
    <message>
        <source>Steps profiled</source>
        <translation>剖析的步数</translation>
    </message>
    <message>
        <source>How many steps are recorded (default 3)</source>
        <translation>记录多少步（默认 3）</translation>
    </message>
    <message>
        <source>The learning rate each optimizer step will use, as the run computes it. With a warm-up from 0 (warmup_min_lr 0) the first step&apos;s rate is 0, so the loss does not move at step 1: DeepSpeed&apos;s WarmupLR does the same (it sets the minimum before the first step), and configs train here as they do there. Set warmup_min_lr above 0 to start moving at once.</source>
        <translation>运行时每个优化器步骤将使用的学习率。预热从 0 开始（warmup_min_lr 为 0）时，第 1 步的学习率为 0，因此第 1 步损失不变：DeepSpeed 的 WarmupLR 也是如此（它在第一步之前设为最小值），这里的配置与在 DeepSpeed 中训练结果一致。将 warmup_min_lr 设为大于 0 即可从第一步开始更新。</translation>
    </message>
    <message>
        <source>(step 1 at 0: see the tooltip)</source>
        <translation>（第 1 步为 0：见提示）</translation>
    </message>
    <message>
        <source>lm: documents concatenated into blocks; auto/text/alpaca/sharegpt/messages: one sample per row, rendered with the chat template; classification: text (and text_pair) with a label per row, for a BERT classifier; with a preference objective, auto/trl/alpaca/sharegpt: chosen/rejected pairs</source>
        <translation>lm：文档拼接后切成块；auto/text/alpaca/sharegpt/messages：每行一个样本，用对话模板渲染；classification：每行一段文本（及 text_pair）和一个标签，用于 BERT 分类器；偏好训练时，auto/trl/alpaca/sharegpt：chosen/rejected 偏好对</translation>
    </message>
    <message>
        <source>Objective</source>
        <translation>训练目标</translation>
    </message>
    <message>
        <source>Beta</source>
        <translation>Beta</translation>
    </message>
    <message>
        <source>dpo: how far the policy may move from the reference; orpo: weight of the odds-ratio term; simpo: reward scale (TRL&apos;s default 0.1)</source>
        <translation>dpo：策略模型可偏离参考模型的程度；orpo：几率比项的权重；simpo：奖励的缩放（TRL 默认 0.1）</translation>
    </message>
    <message>
        <source>Loss weights</source>
        <translation>损失权重</translation>
    </message>
    <message>
        <source>One weight per DPO loss type (default 1 each)</source>
        <translation>每种 DPO 损失一个权重（默认均为 1）</translation>
    </message>
    <message>
        <source>Label smoothing</source>
        <translation>标签平滑</translation>
    </message>
    <message>
        <source>The chance a pair&apos;s labels are flipped: DPO&apos;s robust and exo_pair losses, SimPO</source>
        <translation>偏好对标签被翻转的概率：用于 DPO 的 robust 与 exo_pair 损失，以及 SimPO</translation>
    </message>
    <message>
        <source>DiscoPOP tau</source>
        <translation>DiscoPOP tau</translation>
    </message>
    <message>
        <source>Temperature of the discopop loss&apos;s blend (0.05)</source>
        <translation>discopop 损失混合的温度（0.05）</translation>
    </message>
    <message>
        <source>SimPO gamma</source>
        <translation>SimPO gamma</translation>
    </message>
    <message>
        <source>The target reward margin (TRL&apos;s default 0.5)</source>
        <translation>目标奖励间隔（TRL 默认 0.5）</translation>
    </message>
    <message>
        <source>NLL weight</source>
        <translation>NLL 权重</translation>
    </message>
    <message>
        <source>cpo_alpha: weight of the chosen completions&apos; NLL next to SimPO&apos;s loss (TRL&apos;s default 1; 0: SimPO alone)</source>
        <translation>cpo_alpha：chosen 回复的 NLL 在 SimPO 损失之外的权重（TRL 默认 1；0 表示只用 SimPO）</translation>
    </message>
    <message>
        <source>Truncation</source>
        <translation>截断</translation>
    </message>
    <message>
        <source>Which end of a sequence longer than max length is kept; with keep_start a pair whose prompt fills max length is dropped</source>
        <translation>序列超过最大长度时保留哪一端；keep_start 时，提示词本身就占满最大长度的偏好对会被丢弃</translation>
    </message>
    <message>
        <source>Max prompt length</source>
        <translation>最大提示词长度</translation>
    </message>
    <message>
        <source>Older TRL&apos;s key: the prompt keeps its last N tokens before max length applies</source>
        <translation>旧版 TRL 的键：先让提示词只保留最后 N 个词元，再应用最大长度</translation>
    </message>
    <message>
        <source>Precompute the reference</source>
        <translation>预先计算参考模型</translation>
    </message>
    <message>
        <source>Score every pair with the reference once before training and keep the values, instead of holding a frozen copy of the model</source>
        <translation>训练前用参考模型为每个偏好对打分一次并保存结果，而不是在内存中保留一份冻结的模型副本</translation>
    </message>
    <message>
        <source>Reference model</source>
        <translation>参考模型</translation>
    </message>
    <message>
        <source>A model folder to compare against; empty: the model itself before training (with LoRA: the adapters switched off)</source>
        <translation>用作对照的模型文件夹；留空：训练前的模型本身（LoRA 时为关闭适配器后的模型）</translation>
    </message>
    <message>
        <source>No dropout</source>
        <translation>不用 dropout</translation>
    </message>
    <message>
        <source>Train without dropout, as TRL does by default</source>
        <translation>训练时不使用 dropout（TRL 默认如此）</translation>
    </message>
    <message>
        <source>sft: the language-model loss on the data (the responses of instruction data); dpo, orpo, simpo: preference training on chosen/rejected pairs; kto: on completions labelled desirable or not; as TRL computes them</source>
        <translation>sft：数据上的语言模型损失（指令数据只算回复）；dpo、orpo、simpo：在 chosen/rejected 偏好对上做偏好训练；kto：在标注为可取或不可取的回复上训练；计算方式与 TRL 相同</translation>
    </message>
    <message>
        <source>Loss type</source>
        <translation>损失类型</translation>
    </message>
    <message>
        <source>TRL&apos;s loss_type. DPO: sigmoid, hinge (SLiC), ipo, robust, sigmoid_norm, ... (a list in the JSON sums several with loss_weights); KTO: kto or apo_zero_unpaired</source>
        <translation>TRL 的 loss_type。DPO：sigmoid、hinge（SLiC）、ipo、robust、sigmoid_norm 等（在 JSON 中写成列表时按 loss_weights 加权求和）；KTO：kto 或 apo_zero_unpaired</translation>
    </message>
    <message>
        <source>Desirable weight</source>
        <translation>可取样本权重</translation>
    </message>
    <message>
        <source>Weight of the desirable examples&apos; loss (TRL&apos;s default 1)</source>
        <translation>可取样本损失的权重（TRL 默认 1）</translation>
    </message>
    <message>
        <source>Undesirable weight</source>
        <translation>不可取样本权重</translation>
    </message>
    <message>
        <source>Weight of the undesirable examples&apos; loss; balance it against their share of the data</source>
        <translation>不可取样本损失的权重；按它们在数据中的占比来平衡</translation>
    </message>
    <message>
        <source>Column: prompt</source>
        <translation>列：prompt</translation>
    </message>
    <message>
        <source>The field of a preference row&apos;s prompt (default: prompt)</source>
        <translation>偏好数据行中提示词所在的字段（默认：prompt）</translation>
    </message>
    <message>
        <source>Column: chosen</source>
        <translation>列：chosen</translation>
    </message>
    <message>
        <source>The field of the preferred completion (default: chosen)</source>
        <translation>被选中回复所在的字段（默认：chosen）</translation>
    </message>
    <message>
        <source>Column: rejected</source>
        <translation>列：rejected</translation>
    </message>
    <message>
        <source>The field of the dispreferred completion (default: rejected)</source>
        <translation>被拒绝回复所在的字段（默认：rejected）</translation>
    </message>
    <message>
        <source>This config has a sweep block: it is a set of runs, one per combination of the swept values, and they go to the queue rather than start here. Start is off while the block is there.</source>
        <translation>此配置含有 sweep 块：它是一组运行，每种扫描取值组合一个，这些运行进入队列，而不是在这里启动。有该块时“开始”不可用。</translation>
    </message>
    <message>
        <source>Add to queue</source>
        <translation>加入队列</translation>
    </message>
    <message>
        <source>&quot;auto&quot;: read from the data&apos;s first rows at run start</source>
        <translation>&quot;auto&quot;：运行开始时从数据的前几行读出</translation>
    </message>
    <message>
        <source>&quot;auto&quot;: decided at run start</source>
        <translation>&quot;auto&quot;：运行开始时决定</translation>
    </message>
    <message>
        <source>Target parameters (experts)</source>
        <translation>目标参数（专家）</translation>
    </message>
    <message>
        <source>A mixture of experts&apos; stacked expert tensors (mlp.experts.gate_up_proj, mlp.experts.down_proj) or router weight (gate.weight), adapted as PEFT&apos;s target_parameters; empty: none</source>
        <translation>混合专家模型的堆叠专家张量（mlp.experts.gate_up_proj、mlp.experts.down_proj）或路由权重（gate.weight），按 PEFT 的 target_parameters 适配；留空：不适配</translation>
    </message>
</context>
<context>
    <name>fts::ConfigValidatorWorker</name>
    <message>
        <source>validation failed: %1</source>
        <translation>校验失败：%1</translation>
    </message>
</context>
<context>
    <name>fts::DataPreviewDialog</name>
    <message>
        <source>The config has errors; fix them to preview its data.</source>
        <translation>配置有错误；修正后才能预览数据。</translation>
    </message>
    <message>
        <source>The config names no training data (data.train).</source>
        <translation>配置中没有训练数据（data.train）。</translation>
    </message>
    <message>
        <source>prompt: no loss</source>
        <translation>提示：不计损失</translation>
    </message>
    <message>
        <source>trained on</source>
        <translation>参与训练</translation>
    </message>
    <message>
        <source>Line %1 · %2 tokens</source>
        <translation>第 %1 行 · %2 个 token</translation>
    </message>
    <message>
        <source> · truncated</source>
        <translation> · 已截断</translation>
    </message>
    <message>
        <source>Samples: %1 (format %2, template %3)</source>
        <translation>样本：%1（格式 %2，模板 %3）</translation>
    </message>
    <message>
        <source>Tokens per sample: mean %1, p50 %2, p95 %3, max %4</source>
        <translation>每个样本的 token 数：平均 %1，p50 %2，p95 %3，最大 %4</translation>
    </message>
    <message>
        <source>Truncated to %1 tokens: %2 · dropped (nothing left to train on): %3 · bad rows: %4</source>
        <translation>截断到 %1 个 token：%2 · 丢弃（无可训练内容）：%3 · 坏行：%4</translation>
    </message>
    <message>
        <source>Data preview</source>
        <translation>数据预览</translation>
    </message>
    <message>
        <source>Reading and tokenizing %1…</source>
        <translation>正在读取并分词 %1…</translation>
    </message>
    <message>
        <source>The preview failed: %1</source>
        <translation>预览失败：%1</translation>
    </message>
    <message numerus="yes">
        <source>The first %n sample(s), as the model sees them:</source>
        <translation>
            <numerusform>前 %n 个样本（模型所见）：</numerusform>
        </translation>
    </message>
    <message>
        <source>Labels in the training data</source>
        <translation>训练数据中的标签</translation>
    </message>
    <message>
        <source>Line %1 · label %2 · %3 tokens</source>
        <translation>第 %1 行 · 标签 %2 · %3 个 token</translation>
    </message>
    <message>
        <source>Rows: %1 (%2, %3 labels%4)</source>
        <translation>行数：%1（%2，%3 个标签%4）</translation>
    </message>
    <message>
        <source>, sentence pairs</source>
        <translation>，句对</translation>
    </message>
    <message>
        <source>Tokens per row: mean %1, max %2</source>
        <translation>每行 token 数：平均 %1，最大 %2</translation>
    </message>
    <message>
        <source>Truncated to %1 tokens: %2 · bad rows: %3</source>
        <translation>截断到 %1 个 token：%2 · 坏行：%3</translation>
    </message>
    <message>
        <source>chosen</source>
        <translation>chosen（选中）</translation>
    </message>
    <message>
        <source>rejected</source>
        <translation>rejected（拒绝）</translation>
    </message>
    <message>
        <source>Line %1 · prompt %2 tokens · chosen %3 · rejected %4</source>
        <translation>第 %1 行 · 提示词 %2 个词元 · chosen %3 · rejected %4</translation>
    </message>
    <message>
        <source>Pairs: %1 (layout %2, %3)</source>
        <translation>偏好对：%1（布局 %2，%3）</translation>
    </message>
    <message>
        <source>template %1</source>
        <translation>模板 %1</translation>
    </message>
    <message>
        <source>plain text</source>
        <translation>纯文本</translation>
    </message>
    <message>
        <source>Tokens per sequence: mean %1, max %2</source>
        <translation>每条序列的词元数：平均 %1，最多 %2</translation>
    </message>
    <message>
        <source>Cut to %1 tokens: %2 sequence(s) · dropped (the prompt alone fills it): %3 · bad rows: %4</source>
        <translation>截断到 %1 个词元：%2 条序列 · 丢弃（提示词本身已占满）：%3 · 错误行：%4</translation>
    </message>
</context>
<context>
    <name>fts::DevicePanel</name>
    <message>
        <source>No NVIDIA GPU found (%1 could not be started: %2).</source>
        <translation>未找到 NVIDIA GPU（无法启动 %1：%2）。</translation>
    </message>
    <message>
        <source>No NVIDIA GPU found (%1 did not answer within %2 s).</source>
        <translation>未找到 NVIDIA GPU（%1 在 %2 秒内没有响应）。</translation>
    </message>
    <message>
        <source>exit code %1</source>
        <translation>退出码 %1</translation>
    </message>
    <message>
        <source>No NVIDIA GPU found (%1: %2).</source>
        <translation>未找到 NVIDIA GPU（%1：%2）。</translation>
    </message>
    <message>
        <source>No NVIDIA GPU found (%1 listed none).</source>
        <translation>未找到 NVIDIA GPU（%1 未列出任何 GPU）。</translation>
    </message>
    <message>
        <source>Looking for NVIDIA GPUs…</source>
        <translation>正在查找 NVIDIA GPU…</translation>
    </message>
    <message numerus="yes">
        <source>%n NVIDIA GPU(s) found. Checked GPUs get one rank each (fts train --include localhost:…).</source>
        <translation>
            <numerusform>找到 %n 个 NVIDIA GPU。每个勾选的 GPU 运行一个 rank（fts train --include localhost:…）。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n line(s) of nvidia-smi&apos;s output could not be read.</source>
        <translation>
            <numerusform>nvidia-smi 输出中有 %n 行无法读取。</numerusform>
        </translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Memory in use</source>
        <translation>已用内存</translation>
    </message>
    <message>
        <source>Use</source>
        <translation>利用率</translation>
    </message>
    <message numerus="yes">
        <source>CPU (%n thread(s))</source>
        <translation>
            <numerusform>CPU（%n 个线程）</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 / %2 GiB</source>
        <translation>%1 / %2 GiB</translation>
    </message>
    <message>
        <source>Train on the CPU; the ranks (processes) are set below</source>
        <translation>在 CPU 上训练；rank（进程）数在下方设置</translation>
    </message>
    <message>
        <source>GPU %1 · %2</source>
        <translation>GPU %1 · %2</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Query the GPUs again (nvidia-smi)</source>
        <translation>重新查询 GPU（nvidia-smi）</translation>
    </message>
</context>
<context>
    <name>fts::DoctorPanel</name>
    <message>
        <source>Check this machine</source>
        <translation>检查本机</translation>
    </message>
    <message>
        <source>GPUs, CUDA and NCCL, memory, disk, the run store&apos;s health, the Hugging Face cache and the ssh hosts (fts doctor)</source>
        <translation>GPU、CUDA 与 NCCL、内存、磁盘、运行库的健康状况、Hugging Face 缓存和 ssh 主机（fts doctor）</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>检查项</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>OK</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>Warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>Info</source>
        <translation>信息</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>正在检查…</translation>
    </message>
    <message>
        <source>fts doctor gave no result: %1</source>
        <translation>fts doctor 没有给出结果：%1</translation>
    </message>
    <message>
        <source>%1 error(s), %2 warning(s)</source>
        <translation>%1 个错误，%2 个警告</translation>
    </message>
    <message>
        <source>Runtime</source>
        <translation>运行时</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>Run store</source>
        <translation>运行记录库</translation>
    </message>
    <message>
        <source>Disk (run store)</source>
        <translation>磁盘（运行记录库）</translation>
    </message>
    <message>
        <source>HF cache</source>
        <translation>HF 缓存</translation>
    </message>
    <message>
        <source>Host %1</source>
        <translation>主机 %1</translation>
    </message>
</context>
<context>
    <name>fts::ExportDialog</name>
    <message>
        <source>Export the model</source>
        <translation>导出模型</translation>
    </message>
    <message>
        <source>A run&apos;s output folder: its latest checkpoint is exported (a LoRA run merged into its base model)</source>
        <translation>运行的输出文件夹：导出其最新的检查点（LoRA 运行会先合并到基础模型）</translation>
    </message>
    <message>
        <source>From:</source>
        <translation>来源：</translation>
    </message>
    <message>
        <source>GGUF file (llama.cpp, Ollama, LM Studio)</source>
        <translation>GGUF 文件（llama.cpp、Ollama、LM Studio）</translation>
    </message>
    <message>
        <source>Hugging Face folder (transformers, vLLM)</source>
        <translation>Hugging Face 文件夹（transformers、vLLM）</translation>
    </message>
    <message>
        <source>Format:</source>
        <translation>格式：</translation>
    </message>
    <message>
        <source>Q4_K_M: 4-bit, the usual choice (about a third of float16&apos;s size)</source>
        <translation>Q4_K_M：4 位，常用选择（约为 float16 大小的三分之一）</translation>
    </message>
    <message>
        <source>Q5_K_M: 5-bit, a little closer to the original</source>
        <translation>Q5_K_M：5 位，更接近原模型一些</translation>
    </message>
    <message>
        <source>Q6_K: 6-bit</source>
        <translation>Q6_K：6 位</translation>
    </message>
    <message>
        <source>Q8_0: 8-bit, nearly lossless (about half of float16&apos;s size)</source>
        <translation>Q8_0：8 位，几乎无损（约为 float16 大小的一半）</translation>
    </message>
    <message>
        <source>Q4_0: 4-bit, the oldest format (for old llama.cpp builds)</source>
        <translation>Q4_0：4 位，最早的格式（适合旧版 llama.cpp）</translation>
    </message>
    <message>
        <source>F16: float16, no quantization</source>
        <translation>F16：float16，不量化</translation>
    </message>
    <message>
        <source>BF16: bfloat16, no quantization</source>
        <translation>BF16：bfloat16，不量化</translation>
    </message>
    <message>
        <source>F32: float32, exact</source>
        <translation>F32：float32，完全精确</translation>
    </message>
    <message>
        <source>Quantization:</source>
        <translation>量化：</translation>
    </message>
    <message>
        <source>Rows whose length is not a multiple of 256 use llama.cpp&apos;s fallback types (Q5_0, Q5_1, Q8_0), as llama-quantize does.</source>
        <translation>行长度不是 256 倍数的张量改用 llama.cpp 的替代类型（Q5_0、Q5_1、Q8_0），与 llama-quantize 相同。</translation>
    </message>
    <message>
        <source>float32</source>
        <translation>float32</translation>
    </message>
    <message>
        <source>bfloat16</source>
        <translation>bfloat16</translation>
    </message>
    <message>
        <source>float16</source>
        <translation>float16</translation>
    </message>
    <message>
        <source>Precision:</source>
        <translation>精度：</translation>
    </message>
    <message>
        <source>The folder the file (and the Modelfile) is written to</source>
        <translation>写入文件（以及 Modelfile）的文件夹</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Export to</source>
        <translation>导出到</translation>
    </message>
    <message>
        <source>To folder:</source>
        <translation>目标文件夹：</translation>
    </message>
    <message>
        <source>Write an Ollama Modelfile beside the file</source>
        <translation>在文件旁写入 Ollama Modelfile</translation>
    </message>
    <message>
        <source>The chat template the run trained with, its stop tokens and system prompt, as Ollama reads them</source>
        <translation>运行训练时所用的对话模板、停止符和系统提示词，写成 Ollama 可读的形式</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Cancel export</source>
        <translation>取消导出</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Choose the folder to export to.</source>
        <translation>请选择导出到的文件夹。</translation>
    </message>
    <message>
        <source>Reading the checkpoint…</source>
        <translation>正在读取检查点…</translation>
    </message>
    <message>
        <source>Writing the tensors: %1 of %2 MiB</source>
        <translation>正在写入张量：%1 / %2 MiB</translation>
    </message>
    <message>
        <source>Merging the LoRA adapter into its base model…</source>
        <translation>正在把 LoRA 适配器合并到基础模型…</translation>
    </message>
    <message>
        <source>Gathering the ZeRO stage 3 shards…</source>
        <translation>正在汇集 ZeRO 阶段 3 的分片…</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Written: %1</source>
        <translation>已写入：%1</translation>
    </message>
    <message>
        <source>To run it with Ollama:</source>
        <translation>用 Ollama 运行它：</translation>
    </message>
    <message>
        <source>llama.cpp differs from the trained model here:</source>
        <translation>llama.cpp 在以下方面与训练的模型不同：</translation>
    </message>
    <message>
        <source>Done.</source>
        <translation>完成。</translation>
    </message>
    <message>
        <source>Cancelled; nothing was written.</source>
        <translation>已取消；没有写入任何文件。</translation>
    </message>
    <message>
        <source>The export failed: %1</source>
        <translation>导出失败：%1</translation>
    </message>
    <message>
        <source>%1, %2; tensors: %3</source>
        <translation>%1，%2；张量：%3</translation>
    </message>
</context>
<context>
    <name>fts::HostsPanel</name>
    <message>
        <source>this machine is always part of the run; add the other hosts</source>
        <translation>本机始终参与训练；请添加其他主机</translation>
    </message>
    <message>
        <source>not checked yet</source>
        <translation>尚未检查</translation>
    </message>
    <message>
        <source>Add an SSH host</source>
        <translation>添加 SSH 主机</translation>
    </message>
    <message>
        <source>Host name, ~/.ssh/config alias or address (ssh must reach it without a password):</source>
        <translation>主机名、~/.ssh/config 中的别名或地址（ssh 须能免密码登录）：</translation>
    </message>
    <message>
        <source>&quot;%1&quot; cannot be used: %2</source>
        <translation>无法使用“%1”：%2</translation>
    </message>
    <message>
        <source>No ~/.ssh/config to read hosts from.</source>
        <translation>没有可读取主机的 ~/.ssh/config。</translation>
    </message>
    <message numerus="yes">
        <source>%n host(s) added from ~/.ssh/config.</source>
        <translation>
            <numerusform>已从 ~/.ssh/config 添加 %n 台主机。</numerusform>
        </translation>
    </message>
    <message>
        <source>Add a host first.</source>
        <translation>请先添加主机。</translation>
    </message>
    <message>
        <source>Cannot write a temporary hostfile: %1</source>
        <translation>无法写入临时 hostfile：%1</translation>
    </message>
    <message>
        <source>The check did not answer: %1</source>
        <translation>检查没有返回结果：%1</translation>
    </message>
    <message>
        <source>no output</source>
        <translation>无输出</translation>
    </message>
    <message numerus="yes">
        <source>Checking %n host(s): ssh, fts, GPUs, then collectives and links…</source>
        <translation>
            <numerusform>正在检查 %n 台主机：ssh、fts、GPU，然后是集合通信和链路……</numerusform>
        </translation>
    </message>
    <message>
        <source>GPU %1 · %2</source>
        <translation>GPU %1 · %2</translation>
    </message>
    <message>
        <source>%1 / %2 GiB in use</source>
        <translation>已用 %1 / %2 GiB</translation>
    </message>
    <message numerus="yes">
        <source>%n GPU(s)</source>
        <translation>
            <numerusform>%n 块 GPU</numerusform>
        </translation>
    </message>
    <message>
        <source>reachable (%1), fts %2, %3</source>
        <translation>可连接（%1），fts %2，%3</translation>
    </message>
    <message>
        <source>no GPU: CPU ranks</source>
        <translation>无 GPU：使用 CPU 进程</translation>
    </message>
    <message>
        <source>link %1 ↔ %2</source>
        <translation>链路 %1 ↔ %2</translation>
    </message>
    <message>
        <source>%1: %2 Gbit/s</source>
        <translation>%1：%2 Gbit/s</translation>
    </message>
    <message>
        <source>%1 failed: %2</source>
        <translation>%1 失败：%2</translation>
    </message>
    <message>
        <source>All checks passed.</source>
        <translation>全部检查通过。</translation>
    </message>
    <message>
        <source>The hosts are not ready for training.</source>
        <translation>这些主机尚不能用于训练。</translation>
    </message>
    <message>
        <source>SSH host</source>
        <translation>SSH 主机</translation>
    </message>
    <message>
        <source>Ranks</source>
        <translation>进程数</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Add host…</source>
        <translation>添加主机…</translation>
    </message>
    <message>
        <source>From ~/.ssh/config</source>
        <translation>从 ~/.ssh/config 导入</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Check hosts</source>
        <translation>检查主机</translation>
    </message>
    <message>
        <source>fts hosts check: reach each host over ssh in BatchMode, compare fts versions, list GPUs, then run broadcast, all-reduce and a transfer per pair of hosts</source>
        <translation>“fts hosts check”：以 BatchMode 通过 ssh 连接每台主机，比对 fts 版本，列出 GPU，然后运行广播、all-reduce，并在每对主机之间传输数据</translation>
    </message>
    <message>
        <source>Checked hosts train with this machine: their GPUs (or CPU ranks), one rank each. The same fts, config, model and data paths must exist on every host (docs/multinode.md).</source>
        <translation>勾选的主机与本机一起训练：使用其 GPU（或 CPU 进程），每个一个 rank。每台主机上都必须在相同路径下有 fts、配置、模型和数据（见 docs/multinode.md）。</translation>
    </message>
</context>
<context>
    <name>fts::IssueText</name>
    <message>
        <source>a number &gt;= 0</source>
        <translation>≥ 0 的数</translation>
    </message>
    <message>
        <source>a positive integer</source>
        <translation>正整数</translation>
    </message>
    <message>
        <source>an integer &gt;= 0</source>
        <translation>≥ 0 的整数</translation>
    </message>
    <message>
        <source>a learning rate &gt;= 0</source>
        <translation>≥ 0 的学习率</translation>
    </message>
    <message>
        <source>true or false</source>
        <translation>true 或 false</translation>
    </message>
    <message>
        <source>a string</source>
        <translation>字符串</translation>
    </message>
    <message>
        <source>a non-empty string</source>
        <translation>非空字符串</translation>
    </message>
    <message>
        <source>an object {...}</source>
        <translation>对象 {...}</translation>
    </message>
    <message>
        <source>a number of elements &gt;= 0</source>
        <translation>≥ 0 的元素个数</translation>
    </message>
    <message>
        <source>a number of elements &gt; 0</source>
        <translation>&gt; 0 的元素个数</translation>
    </message>
    <message>
        <source>a probability in [0, 1)</source>
        <translation>[0, 1) 内的概率</translation>
    </message>
    <message>
        <source>a positive number of steps</source>
        <translation>正的步数</translation>
    </message>
    <message>
        <source>expected a Hugging Face model folder</source>
        <translation>应为 Hugging Face 模型文件夹</translation>
    </message>
    <message>
        <source>a Hugging Face model folder needs config.json</source>
        <translation>Hugging Face 模型文件夹需要 config.json</translation>
    </message>
    <message>
        <source>expected the model&apos;s tokenizer.json</source>
        <translation>应为模型的 tokenizer.json</translation>
    </message>
    <message>
        <source>expected a PEFT LoRA adapter folder</source>
        <translation>应为 PEFT LoRA 适配器文件夹</translation>
    </message>
    <message>
        <source>expected %1, got %2</source>
        <translation>应为%1，实际为 %2</translation>
    </message>
    <message>
        <source>unknown key &quot;%1&quot; (ignored)</source>
        <translation>未知的键“%1”（已忽略）</translation>
    </message>
    <message>
        <source>, did you mean &quot;%1&quot;?</source>
        <translation>，是否想写“%1”？</translation>
    </message>
    <message>
        <source>%1: not found</source>
        <translation>%1：未找到</translation>
    </message>
    <message>
        <source>%1: not found (%2)</source>
        <translation>%1：未找到（%2）</translation>
    </message>
    <message>
        <source>a number</source>
        <translation>一个数</translation>
    </message>
    <message>
        <source>a number in [0, 1)</source>
        <translation>[0, 1) 内的数</translation>
    </message>
    <message>
        <source>a non-negative integer (0 = only at the end)</source>
        <translation>非负整数（0 = 仅在结束时）</translation>
    </message>
    <message>
        <source>an integer</source>
        <translation>整数</translation>
    </message>
    <message>
        <source>a number &gt;= 0 (0 turns clipping off)</source>
        <translation>&gt;= 0 的数（0 表示不裁剪）</translation>
    </message>
    <message>
        <source>a non-negative integer</source>
        <translation>非负整数</translation>
    </message>
    <message>
        <source>an integer from 1 to 64</source>
        <translation>1 到 64 的整数</translation>
    </message>
    <message>
        <source>an integer from 1 to 4096</source>
        <translation>1 到 4096 的整数</translation>
    </message>
    <message>
        <source>an integer from 1 to 1000</source>
        <translation>1 到 1000 的整数</translation>
    </message>
    <message>
        <source>an integer &gt;= 2 (tokens per training sequence)</source>
        <translation>&gt;= 2 的整数（每条训练序列的词元数）</translation>
    </message>
    <message>
        <source>a whole number of cycles &gt;= 1</source>
        <translation>&gt;= 1 的整数个周期</translation>
    </message>
    <message>
        <source>a positive integer, or null for never</source>
        <translation>正整数，或 null 表示从不</translation>
    </message>
    <message>
        <source>a positive integer or &quot;auto&quot;</source>
        <translation>正整数或 &quot;auto&quot;</translation>
    </message>
    <message>
        <source>a positive integer (the adapter rank)</source>
        <translation>正整数（适配器的秩）</translation>
    </message>
    <message>
        <source>a number of waves &gt; 0</source>
        <translation>&gt; 0 的波数</translation>
    </message>
    <message>
        <source>a number of bytes &gt; 0</source>
        <translation>&gt; 0 的字节数</translation>
    </message>
    <message>
        <source>a number &gt;= 0 (0 enables dynamic loss scaling)</source>
        <translation>&gt;= 0 的数（0 表示启用动态损失缩放）</translation>
    </message>
    <message>
        <source>a number &gt; 0</source>
        <translation>&gt; 0 的数</translation>
    </message>
    <message>
        <source>a non-negative integer (default: training.seed)</source>
        <translation>非负整数（默认：training.seed）</translation>
    </message>
    <message>
        <source>a non-negative integer (0 = use epochs)</source>
        <translation>非负整数（0 = 按轮数）</translation>
    </message>
    <message>
        <source>a non-negative integer (0 = the whole eval split)</source>
        <translation>非负整数（0 = 整个验证集）</translation>
    </message>
    <message>
        <source>a non-negative integer (0 = keep all)</source>
        <translation>非负整数（0 = 全部保留）</translation>
    </message>
    <message>
        <source>a fraction of the total steps in [0, 1]</source>
        <translation>占总步数的比例，在 [0, 1] 内</translation>
    </message>
    <message>
        <source>a fraction of the peak learning rate in [0, 1]</source>
        <translation>峰值学习率的比例，在 [0, 1] 内</translation>
    </message>
    <message>
        <source>a fraction from 0 to 1</source>
        <translation>0 到 1 的比例</translation>
    </message>
    <message>
        <source>a dropout probability in [0, 1)</source>
        <translation>[0, 1) 内的丢弃概率</translation>
    </message>
    <message>
        <source>a ZeRO stage 0-3</source>
        <translation>ZeRO 阶段 0-3</translation>
    </message>
    <message>
        <source>%1: no store yet (the first run creates it)</source>
        <translation>%1：尚无运行库（首次运行时创建）</translation>
    </message>
    <message>
        <source>%1: schema %2, %3 run(s), quick_check %4</source>
        <translation>%1：模式版本 %2，%3 个运行，quick_check 结果 %4</translation>
    </message>
    <message>
        <source>the store is damaged: copy it aside (runs.sqlite, -wal, -shm) and let the next run create a new one, or repair it with sqlite3&apos;s .recover</source>
        <translation>运行库已损坏：把它（runs.sqlite、-wal、-shm）移到别处，让下次运行新建一个，或用 sqlite3 的 .recover 修复</translation>
    </message>
    <message>
        <source>it is brought up to date the next time a run starts or the studio opens it</source>
        <translation>下次开始运行或本程序打开它时会自动升级</translation>
    </message>
    <message>
        <source>move the file aside (a new store is created by the next run), or point --store at another file</source>
        <translation>把该文件移到别处（下次运行会新建运行库），或用 --store 指向另一个文件</translation>
    </message>
    <message>
        <source>%1: free space unknown</source>
        <translation>%1：可用空间未知</translation>
    </message>
    <message>
        <source>%1 free on %2</source>
        <translation>%2 上可用 %1</translation>
    </message>
    <message>
        <source>free space there: checkpoints, the token cache and the store need it</source>
        <translation>请在该处腾出空间：检查点、词元缓存和运行库都需要它</translation>
    </message>
    <message>
        <source>a checkpoint of a 1B-parameter model takes about 16 GB with its optimizer state: free space there</source>
        <translation>10 亿参数模型的检查点连同优化器状态约占 16 GB：请在该处腾出空间</translation>
    </message>
    <message>
        <source>/proc/meminfo could not be read</source>
        <translation>无法读取 /proc/meminfo</translation>
    </message>
    <message>
        <source>%1 available of %2</source>
        <translation>可用 %1，共 %2</translation>
    </message>
    <message>
        <source>little host memory is free: close other programs, or lower the batch size (fts estimate CONFIG)</source>
        <translation>主机空闲内存不多：关闭其他程序，或减小批大小（fts estimate CONFIG）</translation>
    </message>
    <message>
        <source>%1: %2 model(s)</source>
        <translation>%1：%2 个模型</translation>
    </message>
    <message>
        <source>no Hugging Face cache (searched %1); model folders work without one</source>
        <translation>没有 Hugging Face 缓存（已查找 %1）；不用缓存也可直接使用模型文件夹</translation>
    </message>
    <message>
        <source>check `ssh %1` works without a password (BatchMode) and fts is installed there</source>
        <translation>请确认 `ssh %1` 无需密码即可连接（BatchMode），且该主机已安装 fts</translation>
    </message>
    <message>
        <source>reachable (%1), fts %2, %3 GPU(s)</source>
        <translation>可连接（%1），fts %2，%3 块 GPU</translation>
    </message>
    <message>
        <source>give an ssh host name or address</source>
        <translation>请填写 ssh 主机名或地址</translation>
    </message>
    <message>
        <source>multi-GPU training needs NCCL: reinstall the torch wheel of packaging/requirements-run.txt</source>
        <translation>多 GPU 训练需要 NCCL：请重新安装 packaging/requirements-run.txt 中的 torch wheel</translation>
    </message>
    <message>
        <source>no CUDA device visible to LibTorch: training runs on the CPU</source>
        <translation>LibTorch 看不到 CUDA 设备：训练将在 CPU 上运行</translation>
    </message>
    <message>
        <source>install the NVIDIA driver (nvidia-smi must list the GPUs) and check CUDA_VISIBLE_DEVICES</source>
        <translation>请安装 NVIDIA 驱动（nvidia-smi 须能列出 GPU），并检查 CUDA_VISIBLE_DEVICES</translation>
    </message>
    <message>
        <source>given together with model.lora.init_from, whose adapter_config.json defines it; remove one of them</source>
        <translation>与 model.lora.init_from 同时给出，而后者的 adapter_config.json 已定义它；请删去其一</translation>
    </message>
    <message>
        <source>%1 has no adapter_config.json; expected a PEFT LoRA adapter folder (adapter_config.json + adapter_model.safetensors)</source>
        <translation>%1 中没有 adapter_config.json；应为 PEFT LoRA 适配器文件夹（adapter_config.json + adapter_model.safetensors）</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a valid regular expression (%2)</source>
        <translation>“%1”不是有效的正则表达式（%2）</translation>
    </message>
    <message>
        <source>only &quot;none&quot; is supported (PEFT&apos;s &quot;all&quot; and &quot;lora_only&quot; train biases too; not available here), got %1</source>
        <translation>仅支持 &quot;none&quot;（PEFT 的 &quot;all&quot; 和 &quot;lora_only&quot; 还会训练偏置，这里不提供），实际为 %1</translation>
    </message>
    <message>
        <source>LoRA adapts pretrained weights, but model.init is &quot;random&quot;; use &quot;pretrained&quot;</source>
        <translation>LoRA 适配的是预训练权重，但 model.init 为 &quot;random&quot;；请改用 &quot;pretrained&quot;</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a folder (%2 does not exist) and %3</source>
        <translation>“%1”不是文件夹（%2 不存在），并且%3</translation>
    </message>
    <message>
        <source>a classification row is one sequence with one label; set &quot;packing&quot;: false</source>
        <translation>分类数据的每一行是一条序列配一个标签；请设置 &quot;packing&quot;: false</translation>
    </message>
    <message>
        <source>ignored: data.columns.text names the text column</source>
        <translation>已忽略：文本列由 data.columns.text 指定</translation>
    </message>
    <message>
        <source>names the column &apos;%1&apos;, which is already data.columns.%2</source>
        <translation>指定的列“%1”已是 data.columns.%2</translation>
    </message>
    <message>
        <source>max_steps is 0 and epochs is 0: nothing to train; expected max_steps &gt; 0 or epochs &gt; 0</source>
        <translation>max_steps 为 0 且 epochs 为 0：没有可训练的；应为 max_steps &gt; 0 或 epochs &gt; 0</translation>
    </message>
    <message>
        <source>missing; expected an object with %1</source>
        <translation>缺失；应为含 %1 的对象</translation>
    </message>
    <message>
        <source>missing; expected %1</source>
        <translation>缺失；应为%1</translation>
    </message>
    <message>
        <source>one of %1</source>
        <translation>以下之一：%1</translation>
    </message>
    <message>
        <source>a positive integer up to %1</source>
        <translation>不超过 %1 的正整数</translation>
    </message>
    <message>
        <source>%1: has %2 but only safetensors weights are supported (model.safetensors or model.safetensors.index.json); convert the checkpoint to safetensors first</source>
        <translation>%1：含有 %2，但只支持 safetensors 权重（model.safetensors 或 model.safetensors.index.json）；请先把检查点转换为 safetensors</translation>
    </message>
    <message>
        <source>%1: no model.safetensors or model.safetensors.index.json found (or set model.init to &quot;random&quot; to train from a fresh initialisation)</source>
        <translation>%1：未找到 model.safetensors 或 model.safetensors.index.json（或将 model.init 设为 &quot;random&quot;，从随机初始化开始训练）</translation>
    </message>
    <message>
        <source>%1: not a directory (expected a Hugging Face model folder)</source>
        <translation>%1：不是文件夹（应为 Hugging Face 模型文件夹）</translation>
    </message>
    <message>
        <source>%1: is a directory; expected a tokenizer.json file (%2?)</source>
        <translation>%1：是文件夹；应为 tokenizer.json 文件（%2？）</translation>
    </message>
    <message>
        <source>%1: is a directory; expected a data file (.jsonl, .json, .csv, .tsv or .txt)</source>
        <translation>%1：是文件夹；应为数据文件（.jsonl、.json、.csv、.tsv 或 .txt）</translation>
    </message>
    <message>
        <source>%1: cannot open data file (not readable)</source>
        <translation>%1：无法打开数据文件（不可读）</translation>
    </message>
    <message>
        <source>%1: not a directory; the output folder %2 cannot be created there</source>
        <translation>%1：不是文件夹；无法在此创建输出文件夹 %2</translation>
    </message>
    <message>
        <source>%1: not writable (checkpoints and the export go here)</source>
        <translation>%1：不可写（检查点和导出都写在这里）</translation>
    </message>
    <message>
        <source>%1: cannot be created (%2 is not writable)</source>
        <translation>%1：无法创建（%2 不可写）</translation>
    </message>
    <message>
        <source>%1: key &quot;%2&quot;: %3</source>
        <translation>%1：键“%2”：%3</translation>
    </message>
    <message>
        <source>%1: cannot read the model&apos;s config.json</source>
        <translation>%1：无法读取模型的 config.json</translation>
    </message>
    <message>
        <source>%1: expected a JSON object (a Hugging Face config.json)</source>
        <translation>%1：应为 JSON 对象（Hugging Face 的 config.json）</translation>
    </message>
    <message>
        <source>%1: not valid JSON (%2)</source>
        <translation>%1：不是有效的 JSON（%2）</translation>
    </message>
    <message>
        <source>missing (supported: %1)</source>
        <translation>缺失（支持：%1）</translation>
    </message>
    <message>
        <source>unsupported model type &quot;%1&quot; (supported: %2)</source>
        <translation>不支持的模型类型“%1”（支持：%2）</translation>
    </message>
    <message>
        <source>null is not allowed; expected %1</source>
        <translation>不允许为 null；应为%1</translation>
    </message>
    <message>
        <source>hidden size %1 must be divisible by %2 heads</source>
        <translation>隐藏层大小 %1 必须能被 %2 个注意力头整除</translation>
    </message>
    <message>
        <source>num_attention_heads (%1) must be a multiple of %2</source>
        <translation>num_attention_heads（%1）必须是 %2 的倍数</translation>
    </message>
    <message>
        <source>&quot;pretrained&quot; or &quot;random&quot;</source>
        <translation>&quot;pretrained&quot; 或 &quot;random&quot;</translation>
    </message>
    <message>
        <source>a module name (e.g. &quot;q_proj&quot;)</source>
        <translation>模块名（如 &quot;q_proj&quot;）</translation>
    </message>
    <message>
        <source>a non-empty list of module names (matched exactly or as the last dotted parts) or a regular expression string</source>
        <translation>非空的模块名列表（完全匹配，或匹配以点分隔的末尾部分）或正则表达式字符串</translation>
    </message>
    <message>
        <source>&quot;auto&quot;, &quot;cpu&quot;, &quot;cuda&quot; or &quot;cuda:N&quot; (N a device index)</source>
        <translation>&quot;auto&quot;、&quot;cpu&quot;、&quot;cuda&quot; 或 &quot;cuda:N&quot;（N 为设备序号）</translation>
    </message>
    <message>
        <source>a list of 1 to 16 prompts (strings)</source>
        <translation>含 1 到 16 条提示词（字符串）的列表</translation>
    </message>
    <message>
        <source>a non-empty prompt of at most 4096 bytes</source>
        <translation>不超过 4096 字节的非空提示词</translation>
    </message>
    <message>
        <source>true, false or {&quot;wait&quot;: steps before the profile, &quot;active&quot;: steps profiled}</source>
        <translation>true、false 或 {&quot;wait&quot;: 分析前的步数, &quot;active&quot;: 分析的步数}</translation>
    </message>
    <message>
        <source>&quot;path&quot; (the Hugging Face model folder)</source>
        <translation>&quot;path&quot;（Hugging Face 模型文件夹）</translation>
    </message>
    <message>
        <source>&quot;train&quot; (the training text: .txt or .jsonl)</source>
        <translation>&quot;train&quot;（训练文本：.txt 或 .jsonl）</translation>
    </message>
    <message>
        <source>&quot;output_dir&quot; and &quot;max_steps&quot; or &quot;epochs&quot;</source>
        <translation>&quot;output_dir&quot; 以及 &quot;max_steps&quot; 或 &quot;epochs&quot;</translation>
    </message>
    <message>
        <source>the Hugging Face model folder (config.json, plus weights unless init is &quot;random&quot;)</source>
        <translation>Hugging Face 模型文件夹（config.json，除非 init 为 &quot;random&quot; 还需权重）</translation>
    </message>
    <message>
        <source>the training data file (.txt or .jsonl)</source>
        <translation>训练数据文件（.txt 或 .jsonl）</translation>
    </message>
    <message>
        <source>the folder for checkpoints and exports</source>
        <translation>存放检查点和导出的文件夹</translation>
    </message>
    <message>
        <source>the DeepSpeed config object (at least train_micro_batch_size_per_gpu or train_batch_size)</source>
        <translation>DeepSpeed 配置对象（至少含 train_micro_batch_size_per_gpu 或 train_batch_size）</translation>
    </message>
    <message>
        <source>the optimizer type: Adam or AdamW</source>
        <translation>优化器类型：Adam 或 AdamW</translation>
    </message>
    <message>
        <source>true (the base weights held 4-bit under LoRA)</source>
        <translation>true（在 LoRA 下以 4 位保存基础权重）</translation>
    </message>
    <message>
        <source>CUDA runtime %1</source>
        <translation>CUDA 运行时 %1</translation>
    </message>
    <message>
        <source>built without CUDA</source>
        <translation>构建时未含 CUDA</translation>
    </message>
    <message>
        <source>NCCL not loaded</source>
        <translation>NCCL 未加载</translation>
    </message>
</context>
<context>
    <name>fts::LogLineText</name>
    <message>
        <source>host %1 (%2): node started, pid %3</source>
        <translation>主机 %1（%2）：节点已启动，进程号 %3</translation>
    </message>
    <message>
        <source>worker rank %1 of %2 started on %3 (pid %4)</source>
        <translation>工作进程 rank %1（共 %2 个）已在 %3 上启动（进程号 %4）</translation>
    </message>
    <message>
        <source>rank %1 model states, ZeRO stage %2, %3 parameters:</source>
        <translation>rank %1 的模型状态，ZeRO 阶段 %2，%3 参数：</translation>
    </message>
    <message>
        <source>training on %1: %2 parameters, %3 train / %4 eval sequences, steps %5 → %6</source>
        <translation>在 %1 上训练：%2 个参数，%3 条训练 / %4 条评估序列，步数 %5 → %6</translation>
    </message>
    <message>
        <source>checkpoint at step %1: %2</source>
        <translation>第 %1 步的检查点：%2</translation>
    </message>
    <message>
        <source>first step %1 s after the start</source>
        <translation>启动后 %1 秒完成第一步</translation>
    </message>
    <message>
        <source>resumed from %1 at step %2</source>
        <translation>已从 %1 恢复，位于第 %2 步</translation>
    </message>
    <message>
        <source>stop requested: saving a checkpoint at step %1</source>
        <translation>已请求停止：在第 %1 步保存检查点</translation>
    </message>
    <message>
        <source>stop requested before the ranks started: nothing to checkpoint</source>
        <translation>在各 rank 启动前已请求停止：没有可保存的检查点</translation>
    </message>
    <message>
        <source>step %1: fp16 gradients overflowed, step skipped; loss scale %2 → %3</source>
        <translation>第 %1 步：fp16 梯度溢出，跳过此步；损失缩放 %2 → %3</translation>
    </message>
    <message>
        <source>rendezvous store on %1</source>
        <translation>汇合存储位于 %1</translation>
    </message>
    <message>
        <source>%1float32%2total</source>
        <translation>%1float32%2 合计</translation>
    </message>
    <message>
        <source>%1parameters%2</source>
        <translation>%1参数      %2</translation>
    </message>
    <message>
        <source>%1gradients%2</source>
        <translation>%1梯度     %2</translation>
    </message>
    <message>
        <source>%1optimizer%2</source>
        <translation>%1优化器   %2</translation>
    </message>
    <message>
        <source>%1on device%2</source>
        <translation>%1设备上   %2</translation>
    </message>
    <message>
        <source>info</source>
        <translation>信息</translation>
    </message>
    <message>
        <source>warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>supervisor</source>
        <translation>监管进程</translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation>rank %1</translation>
    </message>
    <message>
        <source>warn</source>
        <translation>警告</translation>
    </message>
</context>
<context>
    <name>fts::MainWindow</name>
    <message>
        <source>Finetune Studio</source>
        <translation>Finetune Studio</translation>
    </message>
    <message>
        <source>Open a config…</source>
        <translation>打开配置…</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>Store: %1</source>
        <translation>运行库：%1</translation>
    </message>
    <message>
        <source>&amp;New run</source>
        <translation>新建运行(&amp;N)</translation>
    </message>
    <message>
        <source>New run from the quick-start config (Ctrl+N)</source>
        <translation>从快速入门配置新建运行 (Ctrl+N)</translation>
    </message>
    <message>
        <source>&amp;Open config…</source>
        <translation>打开配置(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Save config</source>
        <translation>保存配置(&amp;S)</translation>
    </message>
    <message>
        <source>Save config &amp;as…</source>
        <translation>配置另存为(&amp;A)…</translation>
    </message>
    <message>
        <source>S&amp;tart</source>
        <translation>开始(&amp;T)</translation>
    </message>
    <message>
        <source>Start a run with this config (Ctrl+Return)</source>
        <translation>用此配置开始运行 (Ctrl+Return)</translation>
    </message>
    <message>
        <source>St&amp;op</source>
        <translation>停止(&amp;O)</translation>
    </message>
    <message>
        <source>Ask the selected run to checkpoint and stop</source>
        <translation>让所选运行保存检查点后停止</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About Finetune Studio</source>
        <translation>关于 Finetune Studio(&amp;A)</translation>
    </message>
    <message>
        <source>About Finetune Studio</source>
        <translation>关于 Finetune Studio</translation>
    </message>
    <message>
        <source>&lt;b&gt;Finetune Studio %1&lt;/b&gt;&lt;p&gt;Fine-tune language models with DeepSpeed-style configs. Runs are supervised by the &lt;code&gt;fts&lt;/code&gt; command-line tool and recorded in %2.&lt;/p&gt;</source>
        <translation>&lt;b&gt;Finetune Studio %1&lt;/b&gt;&lt;p&gt;使用 DeepSpeed 风格的配置微调语言模型。运行由 &lt;code&gt;fts&lt;/code&gt; 命令行工具监管，并记录在 %2 中。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <source>Validating the config…</source>
        <translation>正在校验配置…</translation>
    </message>
    <message>
        <source>Fix the config errors first</source>
        <translation>请先修正配置错误</translation>
    </message>
    <message>
        <source>(unsaved config)</source>
        <translation>（未保存的配置）</translation>
    </message>
    <message>
        <source>Quick-start: %1</source>
        <translation>快速入门：%1</translation>
    </message>
    <message>
        <source> (modified)</source>
        <translation>（已修改）</translation>
    </message>
    <message>
        <source>The quick-start config is missing: %1</source>
        <translation>缺少快速入门配置：%1</translation>
    </message>
    <message>
        <source>Cannot read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <source>Save config</source>
        <translation>保存配置</translation>
    </message>
    <message>
        <source>JSON configs (*.json)</source>
        <translation>JSON 配置 (*.json)</translation>
    </message>
    <message>
        <source>Open config</source>
        <translation>打开配置</translation>
    </message>
    <message>
        <source>JSON configs (*.json);;All files (*)</source>
        <translation>JSON 配置 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>A run is being started; wait until it appears in the list.</source>
        <translation>正在启动一个运行；请等待它出现在列表中。</translation>
    </message>
    <message>
        <source>The config is still being validated.</source>
        <translation>配置仍在校验中。</translation>
    </message>
    <message>
        <source>The config has errors; fix them first.</source>
        <translation>配置有错误；请先修正。</translation>
    </message>
    <message>
        <source>The run exited before it appeared in the store. See its log: %1</source>
        <translation>运行在写入运行库之前就已退出。请查看日志：%1</translation>
    </message>
    <message>
        <source>Store: %1 (not available)</source>
        <translation>运行库：%1（不可用）</translation>
    </message>
    <message>
        <source>Unsaved config</source>
        <translation>配置未保存</translation>
    </message>
    <message>
        <source>The config in the editor has unsaved changes. Save them?</source>
        <translation>编辑器中的配置有未保存的修改。是否保存？</translation>
    </message>
    <message>
        <source>&amp;Compare runs</source>
        <translation>比较运行(&amp;C)</translation>
    </message>
    <message>
        <source>Overlay the curves and diff the configs of the selected runs (Ctrl+Shift+C)</source>
        <translation>叠加所选运行的曲线并比较其配置 (Ctrl+Shift+C)</translation>
    </message>
    <message>
        <source>Select two or more runs to compare (Ctrl+click or Shift+click in the list).</source>
        <translation>请选择两个或更多运行进行比较（在列表中 Ctrl+单击或 Shift+单击）。</translation>
    </message>
    <message>
        <source>All statuses</source>
        <translation>所有状态</translation>
    </message>
    <message>
        <source>Any time</source>
        <translation>任意时间</translation>
    </message>
    <message>
        <source>Today</source>
        <translation>今天</translation>
    </message>
    <message>
        <source>Last 7 days</source>
        <translation>最近 7 天</translation>
    </message>
    <message>
        <source>Last 30 days</source>
        <translation>最近 30 天</translation>
    </message>
    <message>
        <source>All models</source>
        <translation>所有模型</translation>
    </message>
    <message>
        <source>All datasets</source>
        <translation>所有数据集</translation>
    </message>
    <message>
        <source>All tags</source>
        <translation>所有标签</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s)</source>
        <translation>
            <numerusform>%n 个运行</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n run(s) shown</source>
        <translation>
            <numerusform>显示 %n 个运行中的 %1 个</numerusform>
        </translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <source>Notes and tags…</source>
        <translation>备注和标签…</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Rename run</source>
        <translation>重命名运行</translation>
    </message>
    <message>
        <source>New name of run %1:</source>
        <translation>运行 %1 的新名称：</translation>
    </message>
    <message>
        <source>Notes and tags of %1</source>
        <translation>%1 的备注和标签</translation>
    </message>
    <message>
        <source>comma-separated, e.g. baseline, lr-sweep</source>
        <translation>以逗号分隔，例如 baseline, lr-sweep</translation>
    </message>
    <message>
        <source>Tags:</source>
        <translation>标签：</translation>
    </message>
    <message>
        <source>Notes:</source>
        <translation>备注：</translation>
    </message>
    <message>
        <source>Delete runs</source>
        <translation>删除运行</translation>
    </message>
    <message numerus="yes">
        <source>Delete %n run(s) from the history? Their metrics and logs are removed.</source>
        <translation>
            <numerusform>从历史中删除 %n 个运行？其指标和日志将被删除。</numerusform>
        </translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Also delete checkpoints and outputs:
%1</source>
        <translation>同时删除检查点和输出：
%1</translation>
    </message>
    <message>
        <source>Run %1 has no stored config.</source>
        <translation>运行 %1 没有保存的配置。</translation>
    </message>
    <message>
        <source>A new run from the config of &quot;%1&quot; (unsaved).</source>
        <translation>基于“%1”的配置新建运行（未保存）。</translation>
    </message>
    <message>
        <source>Start from this run</source>
        <translation>以此运行为起点</translation>
    </message>
    <message>
        <source>Se&amp;ttings…</source>
        <translation>设置(&amp;T)…</translation>
    </message>
    <message>
        <source>Stop now</source>
        <translation>立即停止</translation>
    </message>
    <message>
        <source>Stopping run %1 without a checkpoint…</source>
        <translation>正在不保存检查点地停止运行 %1…</translation>
    </message>
    <message>
        <source>Run &quot;%1&quot; completed (final loss %2).</source>
        <translation>运行“%1”已完成（最终损失 %2）。</translation>
    </message>
    <message>
        <source>Run &quot;%1&quot; completed.</source>
        <translation>运行“%1”已完成。</translation>
    </message>
    <message>
        <source>Run &quot;%1&quot; failed.</source>
        <translation>运行“%1”失败。</translation>
    </message>
    <message>
        <source>Run &quot;%1&quot; failed: %2</source>
        <translation>运行“%1”失败：%2</translation>
    </message>
    <message>
        <source>Run &quot;%1&quot; stopped.</source>
        <translation>运行“%1”已停止。</translation>
    </message>
    <message>
        <source>&amp;Measure ZeRO stages…</source>
        <translation>测量 ZeRO 阶段(&amp;M)…</translation>
    </message>
    <message>
        <source>Run a few steps of this config at each ZeRO stage and compare peak memory and speed</source>
        <translation>用此配置在每个 ZeRO 阶段运行几步，比较峰值内存和速度</translation>
    </message>
    <message>
        <source>The probe runs on this machine&apos;s ranks only; the SSH hosts are left out.</source>
        <translation>测量只在本机的进程上运行；不使用 SSH 主机。</translation>
    </message>
    <message>
        <source>&amp;Resume</source>
        <translation>恢复(&amp;R)</translation>
    </message>
    <message>
        <source>Continue the selected stopped or failed run from its last checkpoint (Ctrl+Shift+R)</source>
        <translation>从最近的检查点继续所选的已停止或失败的运行（Ctrl+Shift+R）</translation>
    </message>
    <message>
        <source>Starting the run &quot;%1&quot; (supervisor pid %2) in %3…</source>
        <translation>正在启动运行“%1”（监督进程 pid %2），目录 %3…</translation>
    </message>
    <message>
        <source>Its config&apos;s folder holds another run, so this run got a folder of its own.</source>
        <translation>配置中的输出文件夹已被另一个运行占用，因此此运行使用了自己的文件夹。</translation>
    </message>
    <message>
        <source>• %1 (%2 per rank)</source>
        <translation>• %1（每进程 %2）</translation>
    </message>
    <message>
        <source>The estimate does not fit</source>
        <translation>估算超出内存</translation>
    </message>
    <message>
        <source>This config needs about %1 per rank, and a rank has %2. The run will probably run out of memory. Start it anyway?</source>
        <translation>此配置每个进程约需 %1，而每个进程只有 %2。运行很可能会内存不足。仍要启动吗？</translation>
    </message>
    <message>
        <source>Changes that would fit:
%1</source>
        <translation>能放得下的修改：
%1</translation>
    </message>
    <message>
        <source>Start anyway</source>
        <translation>仍然启动</translation>
    </message>
    <message>
        <source>Run %1 is not in the store.</source>
        <translation>存储中没有运行 %1。</translation>
    </message>
    <message>
        <source>Resuming run &quot;%1&quot; from its last checkpoint (supervisor pid %2)…</source>
        <translation>正在从最近的检查点恢复运行“%1”（监督进程 pid %2）…</translation>
    </message>
    <message>
        <source>Kill the run&apos;s workers without writing a checkpoint? The steps since the last saved checkpoint are lost. (Stop &amp; save checkpoints first.)</source>
        <translation>不写检查点就终止此运行的工作进程吗？自上次保存检查点以来的训练步将丢失。（“停止并保存”会先写检查点。）</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>恢复</translation>
    </message>
    <message>
        <source>Open a model folder</source>
        <translation>打开模型文件夹</translation>
    </message>
    <message>
        <source>The documentation is not installed with this build.</source>
        <translation>此构建没有安装文档。</translation>
    </message>
    <message>
        <source>&amp;Documentation</source>
        <translation>文档(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>&lt;h2&gt;Finetune Studio&lt;/h2&gt;&lt;p&gt;Fine-tune a language model on this machine or on your GPU servers. Start with the quick-start (a tiny model that trains in a minute on a CPU), pick a Hugging Face model folder, or open a DeepSpeed or Trainer config you already have.&lt;/p&gt;&lt;p&gt;Runs you start appear on the left; select one to see its charts.&lt;/p&gt;</source>
        <translation>&lt;h2&gt;Finetune Studio&lt;/h2&gt;&lt;p&gt;在本机或你的 GPU 服务器上微调语言模型。可以从快速入门开始（一个在 CPU 上一分钟就能训练完的小模型），选择一个 Hugging Face 模型文件夹，或打开你已有的 DeepSpeed 或 Trainer 配置。&lt;/p&gt;&lt;p&gt;启动的运行会出现在左侧；选中一个即可查看其图表。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;a href=&quot;%1&quot;&gt;Documentation&lt;/a&gt; (configs, data formats, ZeRO and offload, several hosts)&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;a href=&quot;%1&quot;&gt;文档&lt;/a&gt;（配置、数据格式、ZeRO 与卸载、多主机）&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Try the quick-start</source>
        <translation>试试快速入门</translation>
    </message>
    <message>
        <source>New run with a model folder…</source>
        <translation>用模型文件夹新建运行…</translation>
    </message>
    <message>
        <source>Search the runs</source>
        <translation>搜索运行</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>A new run with %1: set the training data and check the settings, then Start.</source>
        <translation>用 %1 新建运行：请设置训练数据并检查各项设置，然后点击开始。</translation>
    </message>
    <message>
        <source>C&amp;hat</source>
        <translation>对话(&amp;H)</translation>
    </message>
    <message>
        <source>Talk to the selected run&apos;s fine-tuned model, or to any model folder (Ctrl+Shift+T)</source>
        <translation>与所选运行微调后的模型或任意模型文件夹对话（Ctrl+Shift+T）</translation>
    </message>
    <message>
        <source>The run was not started</source>
        <translation>运行未启动</translation>
    </message>
    <message>
        <source>Its memory estimate does not fit the free memory of the device it would use, so it would probably run out of memory. The details list the estimate, the free memory and the changes that would fit; change the config, or start it anyway.</source>
        <translation>它的显存估算超出了所用设备的空闲显存，运行很可能会显存不足。详细信息列出了估算值、空闲显存以及能放得下的修改；请修改配置，或仍然启动。</translation>
    </message>
    <message>
        <source>The run was not started: its memory estimate does not fit the device&apos;s free memory.</source>
        <translation>运行未启动：它的显存估算超出了设备的空闲显存。</translation>
    </message>
    <message>
        <source>The config already uses this variant.</source>
        <translation>配置已在使用此变体。</translation>
    </message>
    <message>
        <source>Changed in the config: %1</source>
        <translation>已修改配置：%1</translation>
    </message>
    <message>
        <source>(not set)</source>
        <translation>（未设置）</translation>
    </message>
    <message>
        <source>This run has no checkpoint to export yet.</source>
        <translation>此运行还没有可导出的检查点。</translation>
    </message>
    <message>
        <source>Export the model…</source>
        <translation>导出模型…</translation>
    </message>
    <message>
        <source>&amp;Fit to my hardware…</source>
        <translation>适配我的硬件(&amp;F)…</translation>
    </message>
    <message>
        <source>Find the fastest ZeRO stage, offload, checkpointing and micro-batch that fit, by the estimate and a few measured steps</source>
        <translation>按估算和几步实测，找出放得下的最快 ZeRO 阶段、卸载、检查点重算和微批次</translation>
    </message>
    <message>
        <source>Add to &amp;queue</source>
        <translation>加入队列(&amp;Q)</translation>
    </message>
    <message>
        <source>Queue this config (a sweep: each of its runs); it starts when its devices are free</source>
        <translation>把这个配置加入队列（扫参配置则加入其每个运行）；设备空闲时开始</translation>
    </message>
    <message>
        <source>&amp;Queue</source>
        <translation>队列(&amp;Q)</translation>
    </message>
    <message>
        <source>The runs waiting for their devices, running and finished</source>
        <translation>等待设备、正在运行和已结束的运行</translation>
    </message>
    <message>
        <source>Fit to my hardware…</source>
        <translation>适配我的硬件…</translation>
    </message>
    <message>
        <source>Add to queue</source>
        <translation>加入队列</translation>
    </message>
    <message>
        <source>The plan measures this machine&apos;s ranks only; the SSH hosts are left out.</source>
        <translation>规划只测量本机的进程；SSH 主机不参与。</translation>
    </message>
    <message>
        <source>Could not write %1.</source>
        <translation>无法写入 %1。</translation>
    </message>
    <message>
        <source>Not queued: %1</source>
        <translation>未加入队列：%1</translation>
    </message>
    <message>
        <source>Queued. It starts when its devices are free.</source>
        <translation>已加入队列。设备空闲时开始。</translation>
    </message>
    <message>
        <source>A config with a sweep block is a set of runs: Add to queue queues them</source>
        <translation>含 sweep 块的配置是一组运行：用“加入队列”将它们加入队列</translation>
    </message>
    <message>
        <source>Sweeping %1 also sets %2 in each run: the scheduler sets the learning rate from it every step.</source>
        <translation>扫描 %1 时每个运行也会设置 %2：调度器每一步都按它设置学习率。</translation>
    </message>
    <message>
        <source>the sweep&apos;s key %1 does nothing in this config (another key overrides it), so its runs would train alike. Details: %2</source>
        <translation>扫描的键 %1 在此配置中不起作用（被另一个键覆盖），各运行会训练得一模一样。详情：%2</translation>
    </message>
    <message>
        <source>This config has a sweep block: its runs are queued, not started. Use Add to queue.</source>
        <translation>此配置含有 sweep 块：它的运行是加入队列，而不是直接启动。请使用“加入队列”。</translation>
    </message>
</context>
<context>
    <name>fts::MemoryBars</name>
    <message>
        <source>%1 / %2 GiB</source>
        <translation>%1 / %2 GiB</translation>
    </message>
    <message>
        <source>%1 GiB</source>
        <translation>%1 GiB</translation>
    </message>
    <message>
        <source>reserved %1</source>
        <translation>预留 %1</translation>
    </message>
    <message>
        <source>peak %1</source>
        <translation>峰值 %1</translation>
    </message>
    <message>
        <source>estimate %1: peak %2%</source>
        <translation>估算 %1：峰值为其 %2%</translation>
    </message>
    <message>
        <source>estimate %1</source>
        <translation>估算 %1</translation>
    </message>
</context>
<context>
    <name>fts::ModelPicker</name>
    <message>
        <source>Pick a model</source>
        <translation>选择模型</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数量</translation>
    </message>
    <message>
        <source>Dtype</source>
        <translation>数据类型</translation>
    </message>
    <message>
        <source>Vocab</source>
        <translation>词表</translation>
    </message>
    <message>
        <source>Context</source>
        <translation>上下文长度</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Add a folder…</source>
        <translation>添加文件夹…</translation>
    </message>
    <message numerus="yes">
        <source>Scanning %n folder(s) and the Hugging Face cache…</source>
        <translation>
            <numerusform>正在扫描 %n 个文件夹和 Hugging Face 缓存…</numerusform>
        </translation>
    </message>
    <message>
        <source>unreadable</source>
        <translation>无法读取</translation>
    </message>
    <message>
        <source>no weights</source>
        <translation>无权重</translation>
    </message>
    <message>
        <source>unreadable weights</source>
        <translation>权重无法读取</translation>
    </message>
    <message>
        <source>HF cache</source>
        <translation>HF 缓存</translation>
    </message>
    <message>
        <source>No models found. Add a folder holding Hugging Face model folders.</source>
        <translation>未找到模型。请添加包含 Hugging Face 模型文件夹的目录。</translation>
    </message>
    <message numerus="yes">
        <source>%n model(s) found.</source>
        <translation>
            <numerusform>找到 %n 个模型。</numerusform>
        </translation>
    </message>
    <message>
        <source>Model folder</source>
        <translation>模型文件夹</translation>
    </message>
</context>
<context>
    <name>fts::PlanDialog</name>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>NVMe</source>
        <translation>NVMe</translation>
    </message>
    <message>
        <source>Stage %1</source>
        <translation>阶段 %1</translation>
    </message>
    <message>
        <source>optimizer offload to %1</source>
        <translation>优化器卸载到 %1</translation>
    </message>
    <message>
        <source>parameter offload to %1</source>
        <translation>参数卸载到 %1</translation>
    </message>
    <message>
        <source>micro-batch %1 × %2</source>
        <translation>微批次 %1 × %2</translation>
    </message>
    <message>
        <source>checkpointing</source>
        <translation>检查点重算</translation>
    </message>
    <message>
        <source>chunked loss</source>
        <translation>分块损失</translation>
    </message>
    <message>
        <source>whole logits</source>
        <translation>整体输出层（不分块）</translation>
    </message>
    <message>
        <source>Fit to my hardware</source>
        <translation>适配我的硬件</translation>
    </message>
    <message>
        <source>Finds the fastest way to train this config that fits the memory of a rank: ZeRO stage, offload, activation checkpointing, micro-batch with gradient accumulation (the global batch stays the same) and chunked loss. The estimate drops what does not fit; the most promising few are run for a few steps each (runs in the runs list, their checkpoints not kept).</source>
        <translation>找出在每个进程的内存内训练这个配置的最快方式：ZeRO 阶段、卸载、激活检查点重算、微批次与梯度累积（全局批次不变）以及分块损失。估算先剔除放不下的方案；最有希望的几个各运行几步（它们是运行列表中的运行，不保留检查点）。</translation>
    </message>
    <message>
        <source>Memory per rank:</source>
        <translation>每进程内存：</translation>
    </message>
    <message>
        <source>free memory of the devices</source>
        <translation>设备的空闲内存</translation>
    </message>
    <message>
        <source>The memory one rank may use, e.g. 24GiB; empty: the free memory of the devices, as a start judges it</source>
        <translation>一个进程可用的内存，例如 24GiB；留空：设备的空闲内存（与启动时的判断相同）</translation>
    </message>
    <message>
        <source>Probes:</source>
        <translation>试跑数：</translation>
    </message>
    <message>
        <source>How many variants to run for a few steps (0: by the estimate alone)</source>
        <translation>试跑几步的方案个数（0：只按估算）</translation>
    </message>
    <message>
        <source>Time box (min):</source>
        <translation>时限（分钟）：</translation>
    </message>
    <message>
        <source>No probe starts once this much time has gone</source>
        <translation>超过这个时间后不再开始新的试跑</translation>
    </message>
    <message>
        <source>Variant</source>
        <translation>变体</translation>
    </message>
    <message>
        <source>Estimate per rank</source>
        <translation>每进程估算</translation>
    </message>
    <message>
        <source>Measured peak</source>
        <translation>实测峰值</translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation>词元/秒</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Plan</source>
        <translation>规划</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Apply</source>
        <translation>应用</translation>
    </message>
    <message>
        <source>Write the proposal&apos;s keys (only those) into the config</source>
        <translation>把建议方案的键（仅这些键）写入配置</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>The plan ended without a result: %1</source>
        <translation>规划结束但没有结果：%1</translation>
    </message>
    <message>
        <source>Estimating the variants…</source>
        <translation>正在估算各方案…</translation>
    </message>
    <message>
        <source>Estimating the variants against the memory of a rank…</source>
        <translation>正在按每进程内存估算各方案…</translation>
    </message>
    <message>
        <source>Probing variant %1 of at most %2…</source>
        <translation>正在试跑第 %1 个方案（最多 %2 个）…</translation>
    </message>
    <message>
        <source>The time box is reached; no more probes.</source>
        <translation>已到时限，不再试跑。</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>probed</source>
        <translation>已试跑</translation>
    </message>
    <message>
        <source>not probed</source>
        <translation>未试跑</translation>
    </message>
    <message>
        <source>does not fit</source>
        <translation>放不下</translation>
    </message>
    <message>
        <source>proposal</source>
        <translation>建议</translation>
    </message>
    <message>
        <source>the config now</source>
        <translation>当前配置</translation>
    </message>
    <message>
        <source>Proposal: %1.</source>
        <translation>建议：%1。</translation>
    </message>
    <message>
        <source>Measured %1 tokens/s, peak %2 of the %3 a rank may use.</source>
        <translation>实测 %1 词元/秒，峰值 %2（每进程可用 %3）。</translation>
    </message>
    <message>
        <source>(By the estimate alone.)</source>
        <translation>（仅按估算。）</translation>
    </message>
    <message>
        <source>(not set)</source>
        <translation>（未设置）</translation>
    </message>
    <message>
        <source>The config already is this variant.</source>
        <translation>配置已经是这个方案。</translation>
    </message>
    <message>
        <source>Apply changes: %1</source>
        <translation>应用的改动：%1</translation>
    </message>
    <message>
        <source>Done in %1 s.</source>
        <translation>用时 %1 秒完成。</translation>
    </message>
    <message>
        <source>The time box stopped the probes.</source>
        <translation>时限停止了试跑。</translation>
    </message>
    <message>
        <source>Nothing fits in %1 per rank.</source>
        <translation>每进程 %1 内没有放得下的方案。</translation>
    </message>
    <message>
        <source>The two fastest are close: running both once more…</source>
        <translation>最快的两个方案很接近：各再运行一次…</translation>
    </message>
    <message>
        <source>The smallest estimate is %1 per rank (%2), over the %3 a rank may use.</source>
        <translation>最小的估算为每进程 %1（%2），超过了每进程可用的 %3。</translation>
    </message>
    <message>
        <source>More GPUs: with %1 ranks of this size, ZeRO stage 3 at micro-batch 1 with checkpointing needs %2 per rank.</source>
        <translation>更多 GPU：用 %1 个同样大小的进程，ZeRO 阶段 3、微批次 1 并开启检查点重算时，每进程需要 %2。</translation>
    </message>
    <message>
        <source>Fits with NVMe offload (stage 3, optimizer and parameters on NVMe with an nvme_path): %1 per rank.</source>
        <translation>卸载到 NVMe 后放得下（阶段 3，优化器和参数卸载到 NVMe，需设置 nvme_path）：每进程 %1。</translation>
    </message>
    <message>
        <source>Still over with NVMe offload (stage 3, optimizer and parameters on NVMe with an nvme_path): %1 per rank.</source>
        <translation>卸载到 NVMe 后仍然超出（阶段 3，优化器和参数卸载到 NVMe，需设置 nvme_path）：每进程 %1。</translation>
    </message>
    <message>
        <source>Fits as QLoRA (a 4-bit base with LoRA adapters instead of a full fine-tune; it trains differently): %1 per rank.</source>
        <translation>改用 QLoRA 后放得下（4 位基础模型加 LoRA 适配器，而非全参数微调；训练方式不同）：每进程 %1。</translation>
    </message>
    <message>
        <source>Still over as QLoRA (a 4-bit base with LoRA adapters instead of a full fine-tune; it trains differently): %1 per rank.</source>
        <translation>改用 QLoRA 后仍然超出（4 位基础模型加 LoRA 适配器，而非全参数微调；训练方式不同）：每进程 %1。</translation>
    </message>
    <message>
        <source>Every probe failed.</source>
        <translation>所有试跑都失败了。</translation>
    </message>
    <message>
        <source>over the memory</source>
        <translation>超出内存</translation>
    </message>
</context>
<context>
    <name>fts::ProbeDialog</name>
    <message>
        <source>Measure ZeRO stages</source>
        <translation>测量 ZeRO 阶段</translation>
    </message>
    <message>
        <source>Runs a few steps of this config at each chosen ZeRO stage on the same ranks and data, and measures each rank&apos;s peak memory and the speed next to the estimate. Each variant is a run in the runs list; its checkpoints are not kept.</source>
        <translation>在相同的进程和数据上，用此配置在所选的每个 ZeRO 阶段运行几步，测量每个进程的峰值内存和速度，并与估算并列。每个变体都是运行列表中的一次运行；不保留其检查点。</translation>
    </message>
    <message>
        <source>Stage %1</source>
        <translation>阶段 %1</translation>
    </message>
    <message>
        <source>Also with CPU offload</source>
        <translation>同时测量 CPU 卸载</translation>
    </message>
    <message>
        <source>offload_optimizer cpu at stages 1-3, and offload_param cpu at stage 3</source>
        <translation>阶段 1-3 的 offload_optimizer cpu，以及阶段 3 的 offload_param cpu</translation>
    </message>
    <message>
        <source>Steps:</source>
        <translation>步数：</translation>
    </message>
    <message>
        <source>Optimizer steps per variant; the first is not timed</source>
        <translation>每个变体的优化器步数；第一步不计时</translation>
    </message>
    <message>
        <source>Variant</source>
        <translation>变体</translation>
    </message>
    <message>
        <source>Estimate per rank</source>
        <translation>每进程估算</translation>
    </message>
    <message>
        <source>Measured peak per rank</source>
        <translation>每进程实测峰值</translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation>词元/秒</translation>
    </message>
    <message>
        <source>Steps/s</source>
        <translation>步/秒</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Choose at least one stage.</source>
        <translation>请至少选择一个阶段。</translation>
    </message>
    <message>
        <source>Running %1 (%2 of %3)…</source>
        <translation>正在运行 %1（第 %2 个，共 %3 个）…</translation>
    </message>
    <message>
        <source>Done. Pick the cheapest variant whose measured peak fits your devices.</source>
        <translation>完成。请选择实测峰值能放进设备的最省资源的变体。</translation>
    </message>
    <message>
        <source>Every variant failed; see the reasons in the table.</source>
        <translation>所有变体都失败了；原因见表格。</translation>
    </message>
    <message>
        <source>The probe ended without a result: %1</source>
        <translation>测量结束但没有结果：%1</translation>
    </message>
    <message>
        <source>Starting the probe…</source>
        <translation>正在启动测量…</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <source> + optimizer offload</source>
        <translation> + 优化器卸载</translation>
    </message>
    <message>
        <source> + parameter offload</source>
        <translation> + 参数卸载</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Use this variant</source>
        <translation>使用此变体</translation>
    </message>
    <message>
        <source>Write the selected variant&apos;s ZeRO stage and offload settings into the config</source>
        <translation>将所选变体的 ZeRO 阶段和卸载设置写入配置</translation>
    </message>
</context>
<context>
    <name>fts::QueuePage</name>
    <message>
        <source>waiting for %1 CPU slot(s) (%2 of %3 in use)</source>
        <translation>等待 %1 个 CPU 槽位（已用 %2 / %3）</translation>
    </message>
    <message>
        <source>waiting for %1 GPU(s) (%2 of %3 in use)</source>
        <translation>等待 %1 块 GPU（已用 %2 / %3）</translation>
    </message>
    <message>
        <source>waiting behind entry %1 (%2) for the same devices</source>
        <translation>排在条目 %1（%2）之后，等待相同的设备</translation>
    </message>
    <message>
        <source>interrupted; resumes from its checkpoint</source>
        <translation>已中断；将从检查点继续</translation>
    </message>
    <message>
        <source>cancelled before it started</source>
        <translation>开始前已取消</translation>
    </message>
    <message>
        <source>one GPU, else the CPU</source>
        <translation>一块 GPU，没有则用 CPU</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>CPU, %1 ranks</source>
        <translation>CPU，%1 个进程</translation>
    </message>
    <message>
        <source>%1 GPU(s)</source>
        <translation>%1 块 GPU</translation>
    </message>
    <message>
        <source>GPU %1</source>
        <translation>GPU %1</translation>
    </message>
    <message>
        <source>Runs wait here for their devices (a GPU, a CPU slot or SSH hosts) and start in this order when they are free, also after the studio or the machine restarts. Add a config from the editor (Add to queue); a config with a sweep block adds each of its runs.</source>
        <translation>运行在这里等待设备（GPU、CPU 槽位或 SSH 主机），设备空闲时按此顺序开始，工作室或机器重启后也会继续。在编辑器中用“加入队列”添加配置；带扫参块的配置会加入其每个运行。</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Devices</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Why / result</source>
        <translation>原因 / 结果</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Sweep</source>
        <translation>扫参</translation>
    </message>
    <message>
        <source>Start the queue runner</source>
        <translation>启动队列执行器</translation>
    </message>
    <message>
        <source>Starts `fts queue run` in the background; it ends when the queue is empty</source>
        <translation>在后台启动 `fts queue run`；队列为空时结束</translation>
    </message>
    <message>
        <source>Move up</source>
        <translation>上移</translation>
    </message>
    <message>
        <source>Move down</source>
        <translation>下移</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>A waiting run is cancelled; a running one saves a checkpoint and stops; a finished one leaves the list (its run stays)</source>
        <translation>等待中的运行被取消；运行中的运行保存检查点后停止；已结束的条目从列表移除（其运行保留）</translation>
    </message>
    <message>
        <source>Clear finished</source>
        <translation>清除已结束</translation>
    </message>
    <message>
        <source>Compare this sweep</source>
        <translation>比较这次扫参</translation>
    </message>
    <message>
        <source>Queue runner: not running</source>
        <translation>队列执行器：未运行</translation>
    </message>
    <message>
        <source>The queue could not be read: %1</source>
        <translation>无法读取队列：%1</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>done</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>Queue runner: running (process %1)</source>
        <translation>队列执行器：运行中（进程 %1）</translation>
    </message>
    <message>
        <source>Queue runner: running</source>
        <translation>队列执行器：运行中</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>The queue runner could not be started (%1).</source>
        <translation>无法启动队列执行器（%1）。</translation>
    </message>
    <message>
        <source>needs %1 GPU(s); this machine has %2</source>
        <translation>需要 %1 块 GPU；本机有 %2 块</translation>
    </message>
    <message>
        <source>needs %1 CPU slots; the queue runner has %2</source>
        <translation>需要 %1 个 CPU 槽位；队列执行器有 %2 个</translation>
    </message>
    <message>
        <source>needs GPU %1, which this machine does not have</source>
        <translation>需要 GPU %1，本机没有</translation>
    </message>
    <message>
        <source>stopped at step %1 outside the queue (resume it from its run page)</source>
        <translation>在队列外于第 %1 步停止（可在其运行页面恢复）</translation>
    </message>
    <message>
        <source>cancelled at step %1</source>
        <translation>在第 %1 步取消</translation>
    </message>
    <message>
        <source>not started: %1 reached the sweep&apos;s target (%2 %3, target %4)</source>
        <translation>未启动：%1 已达到扫参的目标（%2 %3，目标 %4）</translation>
    </message>
    <message>
        <source>Queue runner asked to start; its log: %1</source>
        <translation>已请求启动队列运行器；其日志：%1</translation>
    </message>
    <message>
        <source>Back to the config</source>
        <translation>回到配置</translation>
    </message>
    <message>
        <source>The config in the editor, as you left it (queued entries keep copies of their own)</source>
        <translation>编辑器中的配置，保持你离开时的样子（已排队的条目各自保存了副本）</translation>
    </message>
</context>
<context>
    <name>fts::RunFolder</name>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>another run</source>
        <translation>另一个运行</translation>
    </message>
    <message>
        <source>training.output_dir is not set: the run needs a folder for its checkpoints.</source>
        <translation>training.output_dir 未设置：运行需要一个存放检查点的文件夹。</translation>
    </message>
    <message>
        <source>training.output_dir: %1 already holds the checkpoints of %2. A new run there would mix its checkpoints with them; choose another folder, or resume that run.</source>
        <translation>training.output_dir：%1 中已有 %2 的检查点。新运行放在这里会与它们混在一起；请选择其他文件夹，或恢复那个运行。</translation>
    </message>
    <message>
        <source>Cannot create the run&apos;s folder %1</source>
        <translation>无法创建运行的文件夹 %1</translation>
    </message>
    <message>
        <source>Run &quot;%1&quot; cannot be resumed: only a stopped, failed or interrupted run can.</source>
        <translation>运行“%1”无法恢复：只有已停止、失败或被中断的运行可以恢复。</translation>
    </message>
    <message>
        <source>Run &quot;%1&quot; has no checkpoint in %2 to resume from; use &quot;Start from this run&quot; to start it again.</source>
        <translation>运行“%1”在 %2 中没有可恢复的检查点；请用“以此运行为起点”重新开始。</translation>
    </message>
    <message>
        <source>The config file of run &quot;%1&quot; is gone (%2); use &quot;Start from this run&quot; instead.</source>
        <translation>运行“%1”的配置文件已不存在（%2）；请改用“以此运行为起点”。</translation>
    </message>
</context>
<context>
    <name>fts::RunLauncher</name>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>The config is not a JSON object.</source>
        <translation>配置不是 JSON 对象。</translation>
    </message>
    <message>
        <source>Cannot create the folder %1</source>
        <translation>无法创建文件夹 %1</translation>
    </message>
    <message>
        <source>The command-line tool was not found at %1 (set FTS_CLI to its path).</source>
        <translation>在 %1 找不到命令行工具（请将 FTS_CLI 设置为其路径）。</translation>
    </message>
    <message>
        <source>Cannot start %1: %2</source>
        <translation>无法启动 %1：%2</translation>
    </message>
</context>
<context>
    <name>fts::RunView</name>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation>词元/秒</translation>
    </message>
    <message>
        <source>ETA</source>
        <translation>剩余时间</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>Device memory</source>
        <translation>设备内存</translation>
    </message>
    <message>
        <source>MiB</source>
        <translation>MiB</translation>
    </message>
    <message>
        <source>train loss</source>
        <translation>训练损失</translation>
    </message>
    <message>
        <source>eval loss</source>
        <translation>验证损失</translation>
    </message>
    <message>
        <source>Log lines of this run appear here.</source>
        <translation>此运行的日志显示在这里。</translation>
    </message>
    <message>
        <source>%1 allocated</source>
        <translation>%1 已分配</translation>
    </message>
    <message>
        <source>%1 peak</source>
        <translation>%1 峰值</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 小时 %2 分</translation>
    </message>
    <message>
        <source>No run selected</source>
        <translation>未选择运行</translation>
    </message>
    <message>
        <source>stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source> (eval %1)</source>
        <translation>（验证 %1）</translation>
    </message>
    <message>
        <source>took %1</source>
        <translation>用时 %1</translation>
    </message>
    <message>
        <source>Stop &amp;&amp; save</source>
        <translation>停止并保存</translation>
    </message>
    <message>
        <source>The ranks finish the current step, write a checkpoint and stop; the run can be resumed (fts train --resume)</source>
        <translation>各 rank 完成当前步、写入检查点后停止；之后可以恢复（fts train --resume）</translation>
    </message>
    <message>
        <source>Stop now</source>
        <translation>立即停止</translation>
    </message>
    <message>
        <source>Kill the workers without a checkpoint (after confirmation): the steps since the last saved checkpoint are lost</source>
        <translation>（确认后）不写检查点直接终止工作进程：自上次保存检查点以来的训练步将丢失</translation>
    </message>
    <message>
        <source>train loss (smoothed)</source>
        <translation>训练损失（平滑）</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>lr</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>Gradient norm</source>
        <translation>梯度范数</translation>
    </message>
    <message>
        <source>norm</source>
        <translation>范数</translation>
    </message>
    <message>
        <source>Loss scale (fp16)</source>
        <translation>损失缩放（fp16）</translation>
    </message>
    <message>
        <source>scale</source>
        <translation>缩放</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation>token/秒</translation>
    </message>
    <message>
        <source>Grad norm</source>
        <translation>梯度范数</translation>
    </message>
    <message>
        <source>Loss scale</source>
        <translation>损失缩放</translation>
    </message>
    <message>
        <source>Memory history</source>
        <translation>显存历史</translation>
    </message>
    <message>
        <source>EMA smoothing weight of the loss (0 = raw values)</source>
        <translation>损失的 EMA 平滑权重（0 = 原始值）</translation>
    </message>
    <message>
        <source>Log scale</source>
        <translation>对数坐标</translation>
    </message>
    <message>
        <source>Smoothing</source>
        <translation>平滑</translation>
    </message>
    <message>
        <source>rank %1 · %2</source>
        <translation>rank %1 · %2</translation>
    </message>
    <message>
        <source>host RAM</source>
        <translation>主机内存</translation>
    </message>
    <message>
        <source>step %v of %m (%p%)</source>
        <translation>第 %v / %m 步（%p%）</translation>
    </message>
    <message>
        <source>step %1</source>
        <translation>第 %1 步</translation>
    </message>
    <message>
        <source>%3 · rank %1 · %2</source>
        <translation>%3 · rank %1 · %2</translation>
    </message>
    <message>
        <source>%1 allocated (of %2 MiB)</source>
        <translation>%1 已分配（共 %2 MiB）</translation>
    </message>
    <message>
        <source>Eval metrics</source>
        <translation>验证指标</translation>
    </message>
    <message>
        <source>value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>accuracy</source>
        <translation>准确率</translation>
    </message>
    <message>
        <source>F1</source>
        <translation>F1</translation>
    </message>
    <message>
        <source>F1 (micro)</source>
        <translation>F1（micro）</translation>
    </message>
    <message>
        <source>MSE</source>
        <translation>MSE</translation>
    </message>
    <message>
        <source>Pearson r</source>
        <translation>Pearson r</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>恢复</translation>
    </message>
    <message>
        <source>Continue this run from its last checkpoint: same run, its curves continue (fts train CONFIG --resume)</source>
        <translation>从最近的检查点继续此运行：同一个运行，曲线接着画（fts train CONFIG --resume）</translation>
    </message>
    <message>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <source>Reply</source>
        <translation>回复</translation>
    </message>
    <message>
        <source>Samples</source>
        <translation>样例</translation>
    </message>
    <message>
        <source>forward pass</source>
        <translation>前向传播</translation>
    </message>
    <message>
        <source>backward pass</source>
        <translation>反向传播</translation>
    </message>
    <message>
        <source>optimizer step</source>
        <translation>优化器步骤</translation>
    </message>
    <message>
        <source>evaluation</source>
        <translation>评估</translation>
    </message>
    <message>
        <source>checkpoint</source>
        <translation>检查点</translation>
    </message>
    <message>
        <source>export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Out of memory while setting up.</source>
        <translation>准备阶段显存不足。</translation>
    </message>
    <message>
        <source>Out of memory at step %1, in the %2.</source>
        <translation>第 %1 步的%2中显存不足。</translation>
    </message>
    <message>
        <source>Lower the memory it needs with one of the changes below (each with its estimate), then start it again.</source>
        <translation>请用下面的某项修改（各附估算值）降低所需显存，然后重新启动。</translation>
    </message>
    <message>
        <source>took %1 of training, over %2 (stopped and resumed)</source>
        <translation>训练用时 %1，历时 %2（中途停止后续训）</translation>
    </message>
    <message>
        <source>Rewards</source>
        <translation>奖励</translation>
    </message>
    <message>
        <source>chosen reward</source>
        <translation>chosen 奖励</translation>
    </message>
    <message>
        <source>rejected reward</source>
        <translation>rejected 奖励</translation>
    </message>
    <message>
        <source>reward margin</source>
        <translation>奖励间隔</translation>
    </message>
    <message>
        <source>reward accuracy</source>
        <translation>奖励准确率</translation>
    </message>
    <message>
        <source>reward</source>
        <translation>奖励</translation>
    </message>
    <message>
        <source>chosen</source>
        <translation>chosen（选中）</translation>
    </message>
    <message>
        <source>rejected</source>
        <translation>rejected（拒绝）</translation>
    </message>
    <message>
        <source>margin (chosen - rejected)</source>
        <translation>间隔（chosen − rejected）</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>The model of this run&apos;s latest checkpoint as a GGUF file for llama.cpp, Ollama and LM Studio (quantized), or as a Hugging Face folder (fts export)</source>
        <translation>将此运行最新检查点的模型导出为 GGUF 文件（可量化，供 llama.cpp、Ollama、LM Studio 使用），或导出为 Hugging Face 文件夹（fts export）</translation>
    </message>
    <message>
        <source>Load-balancing loss (mixture of experts)</source>
        <translation>负载均衡损失（混合专家）</translation>
    </message>
    <message>
        <source>aux loss</source>
        <translation>辅助损失</translation>
    </message>
    <message>
        <source>Router</source>
        <translation>路由</translation>
    </message>
</context>
<context>
    <name>fts::RunsTableModel</name>
    <message>
        <source>pending</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>completed</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Final loss</source>
        <translation>最终损失</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <source>Dataset</source>
        <translation>数据集</translation>
    </message>
    <message>
        <source>Best eval</source>
        <translation>最佳验证</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>Ranks</source>
        <translation>进程数</translation>
    </message>
    <message>
        <source>Tags</source>
        <translation>标签</translation>
    </message>
</context>
<context>
    <name>fts::SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Run store</source>
        <translation>运行记录库</translation>
    </message>
    <message>
        <source>SQLite files (*.sqlite)</source>
        <translation>SQLite 文件 (*.sqlite)</translation>
    </message>
    <message>
        <source>Add…</source>
        <translation>添加…</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Model folder</source>
        <translation>模型文件夹</translation>
    </message>
    <message>
        <source>System language</source>
        <translation>系统语言</translation>
    </message>
    <message>
        <source>System</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>A new store location is used from the next start (empty: $FTS_STORE or the default).</source>
        <translation>新的记录库位置在下次启动时生效（留空：$FTS_STORE 或默认位置）。</translation>
    </message>
    <message>
        <source>Model folders</source>
        <translation>模型文件夹</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <source>This window uses %1 (given with --store); the setting above is the store the studio opens when started without --store.</source>
        <translation>此窗口使用 %1（由 --store 指定）；上面的设置是不带 --store 启动时打开的运行库。</translation>
    </message>
</context>
<context>
    <name>fts::StorePoller</name>
    <message>
        <source>No run store yet at %1 (it is created by the first run).</source>
        <translation>%1 处还没有运行库（第一次运行时会创建）。</translation>
    </message>
    <message>
        <source>Cannot open the run store %1: %2</source>
        <translation>无法打开运行库 %1：%2</translation>
    </message>
    <message>
        <source>Reading the run store failed: %1</source>
        <translation>读取运行库失败：%1</translation>
    </message>
    <message>
        <source>Run %1 is not in the store.</source>
        <translation>运行 %1 不在运行库中。</translation>
    </message>
    <message>
        <source>Run %1 is not running (status: %2).</source>
        <translation>运行 %1 未在运行（状态：%2）。</translation>
    </message>
    <message>
        <source>Run %1 has no supervisor process id.</source>
        <translation>运行 %1 没有监管进程 id。</translation>
    </message>
    <message>
        <source>Run %1 is supervised on host %2; stop it there.</source>
        <translation>运行 %1 由主机 %2 监管；请在该主机上停止它。</translation>
    </message>
    <message>
        <source>Cannot signal the supervisor (pid %1): %2</source>
        <translation>无法向监管进程（pid %1）发送信号：%2</translation>
    </message>
    <message>
        <source>Stop requested: the run checkpoints, then stops.</source>
        <translation>已请求停止：运行将保存检查点后停止。</translation>
    </message>
</context>
<context>
    <name>fts::StoreWriter</name>
    <message>
        <source>Run %1 renamed to &quot;%2&quot;.</source>
        <translation>运行 %1 已重命名为“%2”。</translation>
    </message>
    <message>
        <source>Cannot rename run %1: %2</source>
        <translation>无法重命名运行 %1：%2</translation>
    </message>
    <message>
        <source>Notes of run %1 saved.</source>
        <translation>运行 %1 的备注已保存。</translation>
    </message>
    <message>
        <source>Cannot save the notes of run %1: %2</source>
        <translation>无法保存运行 %1 的备注：%2</translation>
    </message>
    <message>
        <source>Tags of run %1 saved.</source>
        <translation>运行 %1 的标签已保存。</translation>
    </message>
    <message>
        <source>Cannot save the tags of run %1: %2</source>
        <translation>无法保存运行 %1 的标签：%2</translation>
    </message>
    <message>
        <source>Run %1 deleted.</source>
        <translation>运行 %1 已删除。</translation>
    </message>
    <message>
        <source>Its output folder %1 was kept: other runs write there too.</source>
        <translation>其输出文件夹 %1 已保留：其他运行也写入该文件夹。</translation>
    </message>
    <message>
        <source>Its output folder %1 was not removed (missing or not a folder).</source>
        <translation>其输出文件夹 %1 未删除（不存在或不是文件夹）。</translation>
    </message>
    <message>
        <source>Removing %1 failed: %2</source>
        <translation>删除 %1 失败：%2</translation>
    </message>
    <message>
        <source>Removed its checkpoints and outputs in %1.</source>
        <translation>已删除 %1 中的检查点和输出。</translation>
    </message>
    <message>
        <source>Cannot delete run %1: %2</source>
        <translation>无法删除运行 %1：%2</translation>
    </message>
</context>
<context>
    <name>fts::SweepPlot</name>
    <message>
        <source>These runs are not from one sweep.</source>
        <translation>这些运行不属于同一次扫参。</translation>
    </message>
    <message>
        <source>final loss</source>
        <translation>最终损失</translation>
    </message>
    <message>
        <source> (lowest)</source>
        <translation>（最低）</translation>
    </message>
    <message>
        <source> (highest)</source>
        <translation>（最高）</translation>
    </message>
    <message>
        <source> (values in the order seen)</source>
        <translation>（值按出现顺序排列）</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>%1 runs of the sweep &quot;%2&quot;; one point per run.</source>
        <translation>扫参“%2”的 %1 个运行；每个运行一个点。</translation>
    </message>
    <message>
        <source>%1 against %2</source>
        <translation>%1 随 %2 的变化</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Fine-tune language models: edit a config, start runs, watch them live.</source>
        <translation>微调语言模型：编辑配置、启动运行、实时观察。</translation>
    </message>
    <message>
        <source>The run store to show (default: $FTS_STORE or %1).</source>
        <translation>要显示的运行库（默认：$FTS_STORE 或 %1）。</translation>
    </message>
    <message>
        <source>file</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Open the new-run editor with the quick-start config, ready to start.</source>
        <translation>打开新建运行编辑器并载入快速入门配置，可直接开始。</translation>
    </message>
    <message>
        <source>User interface language (zh_CN, en; default: the system&apos;s).</source>
        <translation>界面语言（zh_CN、en；默认：系统语言）。</translation>
    </message>
    <message>
        <source>language</source>
        <translation>语言</translation>
    </message>
</context>
</TS>
