// The LibTorch side of GenerationSession; see generation_session.h.
#include "core/generate/generation_session.h"

#include <algorithm>
#include <cstdio>

#include "core/generate/generation_model.h"
#include "core/generate/generator.h"
#include "core/generate/stop_tokens.h"
#include "core/model/lora.h"
#include "core/generate/text_stream.h"
#include "core/util/error.h"

namespace fts {

namespace {

torch::Device parseDevice(const std::string& spec) {
    if (spec == "cpu") return torch::kCPU;
    const bool cuda = torch::cuda::is_available();
    if (spec == "auto") return cuda ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
    if (spec == "cuda" || spec.starts_with("cuda:")) {
        int index = 0;
        if (spec.size() > 4) {
            const std::string n = spec.substr(5);
            if (n.empty() || !std::all_of(n.begin(), n.end(), ::isdigit) || n.size() > 4)
                throw Error("device \"" + spec + "\": expected cuda:N with N a device index");
            index = std::stoi(n);
        }
        if (!cuda) throw Error("device \"" + spec + "\": LibTorch sees no CUDA device here (use cpu or auto)");
        if (index >= int(torch::cuda::device_count()))
            throw Error("device \"" + spec + "\": only " + std::to_string(torch::cuda::device_count()) +
                        " CUDA device(s) are visible");
        return torch::Device(torch::kCUDA, index);
    }
    throw Error("device \"" + spec + "\": expected auto, cpu, cuda or cuda:N");
}

torch::Dtype parseDtype(const std::string& name) {
    if (name == "float32" || name == "fp32") return torch::kFloat32;
    if (name == "bfloat16" || name == "bf16") return torch::kBFloat16;
    if (name == "float16" || name == "fp16") return torch::kFloat16;
    throw Error("dtype \"" + name + "\": expected float32, bfloat16 or float16");
}

class TorchGenerationSession final : public GenerationSession {
public:
    TorchGenerationSession(GenerationModel g, std::string dtypeName, std::optional<ChatTemplateKind> chat)
        : m_g(std::move(g)), m_dtypeName(std::move(dtypeName)) {
        if (chat)
            setChatTemplate(*chat);
        else if (m_g.chatTemplate)
            setChatTemplate(*m_g.chatTemplate);
        else
            m_stop = replyStopTokenIds(m_g.generation.eosTokenIds, *m_g.tokenizer, std::nullopt);
        m_pad = m_g.generation.padTokenId.value_or(m_stop.empty() ? 0 : m_stop.front());
        if (m_pad < 0 || m_pad >= m_g.model->info().vocabSize) m_pad = 0;
    }

    void setChatTemplate(ChatTemplateKind kind) override {
        m_g.chatTemplate = kind;
        m_stop = replyStopTokenIds(m_g.generation.eosTokenIds, *m_g.tokenizer, kind);
    }

    std::vector<int64_t> encodeText(const std::string& text) const override {
        const auto ids = m_g.tokenizer->encode(text, true);
        return {ids.begin(), ids.end()};
    }

    std::vector<int64_t> encodeChat(const std::vector<ChatMessage>& messages) const override {
        if (!m_g.chatTemplate)
            throw Error(m_g.modelDir.string() +
                        ": no chat template we know (tokenizer_config.json's chat_template or config.json's "
                        "model_type); name one: chatml, qwen2.5, llama3, mistral, alpaca, none");
        const auto ids = m_g.tokenizer->encode(renderGenerationPrompt(*m_g.chatTemplate, messages), false);
        return {ids.begin(), ids.end()};
    }

    std::optional<ChatTemplateKind> chatTemplate() const override { return m_g.chatTemplate; }

    std::vector<std::string> notes(const SamplingRequest& r) const override {
        std::vector<std::string> n;
        const auto& gen = m_g.generation;
        if (gen.doSample.value_or(false) && !r.doSample)
            n.push_back("generation_config.json sets do_sample true: generating greedily here (pass --do_sample)");
        if (!r.doSample && (r.temperature || r.topK || r.topP))
            n.push_back("temperature, top_k and top_p apply only when sampling (--do_sample); greedy ignores them");
        return n;
    }

    std::vector<Completion> generate(const std::vector<std::vector<int64_t>>& prompts, const SamplingRequest& r,
                                     const std::function<void(size_t, const std::string&)>& onText,
                                     const std::atomic<bool>* cancel) override {
        const auto& gen = m_g.generation;
        GenerationOptions o;
        o.maxNewTokens = r.maxNewTokens.value_or(gen.maxNewTokens.value_or(256));
        o.sampling.doSample = r.doSample;
        o.sampling.temperature = r.temperature.value_or(gen.temperature.value_or(1.0));
        o.sampling.topK = r.topK.value_or(gen.topK.value_or(50));
        o.sampling.topP = r.topP.value_or(gen.topP.value_or(1.0));
        o.sampling.repetitionPenalty = r.repetitionPenalty.value_or(gen.repetitionPenalty.value_or(1.0));
        if (o.maxNewTokens < 1) throw Error("max_new_tokens must be >= 1, found " + std::to_string(o.maxNewTokens));
        if (!(o.sampling.temperature > 0)) throw Error("temperature must be > 0");
        if (o.sampling.topK < 0) throw Error("top_k must be >= 0 (0: off)");
        if (!(o.sampling.topP > 0 && o.sampling.topP <= 1)) throw Error("top_p must be in (0, 1]");
        if (!(o.sampling.repetitionPenalty > 0)) throw Error("repetition_penalty must be > 0");
        o.seed = r.seed;
        o.eosTokenIds = m_stop;
        o.padTokenId = m_pad;
        o.cancel = cancel;
        std::vector<TextStream> streams;
        for (size_t i = 0; i < prompts.size(); ++i) streams.emplace_back(*m_g.tokenizer, r.stopStrings);
        o.onToken = [&](size_t row, int64_t token) {
            const std::string piece = streams[row].push(token);
            if (!piece.empty() && onText) onText(row, piece);
            return streams[row].stopped();
        };
        const auto out = fts::generate(*m_g.model, prompts, o);
        std::vector<Completion> c(out.size());
        for (size_t i = 0; i < out.size(); ++i) {
            // What was held back for a character the reply never completed: the streamed text is the whole text.
            if (const std::string rest = streams[i].flush(); !rest.empty() && onText) onText(i, rest);
            c[i].ids = out[i].ids;
            c[i].text = streams[i].text();
            c[i].finishReason = finishReasonName(out[i].finish);
        }
        return c;
    }

    GenerationSessionInfo info() const override {
        GenerationSessionInfo i;
        i.architecture = m_g.model->info().architecture;
        i.parameters = m_g.model->info().numParameters;
        i.dtype = hasQuantizedWeights(*m_g.model) ? "4-bit base, " + m_dtypeName + " compute" : m_dtypeName;
        i.device = m_g.model->parameters().at(0).tensor.device().str();
        if (!m_g.adapterDir.empty()) i.adapter = m_g.adapterDir.filename().string();
        return i;
    }

private:
    GenerationModel m_g;
    std::string m_dtypeName;
    std::vector<int64_t> m_stop;  // replyStopTokenIds: the EOS ids and the chat template's end of turn
    int64_t m_pad = 0;
};

}  // namespace

std::string GenerationSession::describe() const {
    const GenerationSessionInfo i = info();
    char params[32];
    const double n = double(i.parameters);
    if (n >= 1e9)
        std::snprintf(params, sizeof params, "%.1fB", n / 1e9);
    else if (n >= 1e6)
        std::snprintf(params, sizeof params, "%.1fM", n / 1e6);
    else
        std::snprintf(params, sizeof params, "%.1fK", n / 1e3);
    return i.architecture + ", " + params + " parameters" + (i.adapter.empty() ? "" : ", LoRA adapter " + i.adapter) +
           ", " + i.dtype + " on " + i.device;
}

std::unique_ptr<GenerationSession> GenerationSession::open(const GenerationSessionOptions& options) {
    GenerationModelOptions mo;
    mo.dtype = parseDtype(options.dtype);
    mo.device = parseDevice(options.device);
    mo.adapter = options.adapter;
    mo.mergeAdapter = options.mergeAdapter;
    mo.tokenizer = options.tokenizer;
    if (options.loadIn4bit) {
        if (options.quantType != "nf4" && options.quantType != "fp4")
            throw ConfigError("--bnb_4bit_quant_type: expected nf4 or fp4, got \"" + options.quantType + "\"");
        Quant4LoadOptions q;
        q.fp4 = options.quantType == "fp4";
        q.doubleQuant = options.doubleQuant;
        q.computeDtype = mo.dtype;
        mo.quantize4bit = q;
    }
    std::optional<ChatTemplateKind> chat;
    if (options.chatTemplate && !options.chatTemplate->empty()) chat = chatTemplateFromName(*options.chatTemplate);
    return std::make_unique<TorchGenerationSession>(openGenerationModel(options.model, mo), options.dtype, chat);
}

}  // namespace fts
