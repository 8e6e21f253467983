// The generation loop; see generator.h. Reads top to bottom: batch the prompts, run them through the cache, then
// pick a token, report it, retire finished rows and feed the rest one token further, until none is left.
#include "core/generate/generator.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>

#include "core/model/cached_decoder.h"
#include "core/util/error.h"

namespace fts {

std::string finishReasonName(FinishReason r) {
    switch (r) {
        case FinishReason::Eos:
            return "eos";
        case FinishReason::StopString:
            return "stop_string";
        case FinishReason::MaxNewTokens:
            return "length";
        case FinishReason::Context:
            return "context";
        case FinishReason::Cancelled:
            return "cancelled";
    }
    return "length";
}

namespace {

// Left-padded prompts: ids and mask (B, S); positions count tokens from each row's first (padding gets 1, as
// transformers' generate() sets it).
struct PromptBatch {
    torch::Tensor ids, mask, positions;
};

PromptBatch padLeft(const std::vector<std::vector<int64_t>>& prompts, int64_t padId, const torch::Device& device) {
    size_t longest = 0;
    for (const auto& p : prompts) longest = std::max(longest, p.size());
    const int64_t B = int64_t(prompts.size()), S = int64_t(longest);
    auto ids = torch::full({B, S}, padId, torch::kInt64);
    auto mask = torch::zeros({B, S}, torch::kInt64);
    for (int64_t b = 0; b < B; ++b) {
        const auto& p = prompts[size_t(b)];
        const int64_t start = S - int64_t(p.size());
        ids[b].narrow(0, start, int64_t(p.size())).copy_(torch::tensor(p, torch::kInt64));
        mask[b].narrow(0, start, int64_t(p.size())).fill_(1);
    }
    auto positions = (mask.cumsum(1) - 1).masked_fill(mask.eq(0), 1);
    return {ids.to(device), mask.to(device), positions.to(device)};
}

}  // namespace

std::vector<GeneratedSequence> generate(LanguageModel& model, const std::vector<std::vector<int64_t>>& prompts,
                                        const GenerationOptions& options) {
    const ModelInfo& info = model.info();
    auto* decoder = dynamic_cast<CachedDecoder*>(&model);
    if (!decoder || info.task != ModelTask::CausalLM)
        throw Error(info.architecture + " cannot generate text: only causal language models (GPT-2, Llama, " +
                    "Mistral, Qwen2) can");
    if (prompts.empty()) return {};
    int64_t longest = 0;
    for (size_t i = 0; i < prompts.size(); ++i) {
        const int64_t n = int64_t(prompts[i].size());
        if (n == 0) throw Error("prompt " + std::to_string(i + 1) + " is empty (no tokens)");
        if (info.maxPositions > 0 && n >= info.maxPositions)
            throw Error("prompt " + std::to_string(i + 1) + " has " + std::to_string(n) +
                        " tokens: the model's context is " + std::to_string(info.maxPositions) +
                        " tokens, which leaves no room to generate; shorten the prompt");
        for (int64_t id : prompts[i])
            if (id < 0 || id >= info.vocabSize)
                throw Error("prompt " + std::to_string(i + 1) + ": token id " + std::to_string(id) +
                            " is outside the model's vocabulary (vocab_size " + std::to_string(info.vocabSize) +
                            "); is the tokenizer the model's?");
        longest = std::max(longest, n);
    }
    // The padded batch may not run past the context (GPT-2 has no position beyond it; RoPE models were not trained
    // there): the new tokens stop there, with finish reason "context".
    const int64_t room = info.maxPositions > 0 ? info.maxPositions - longest : options.maxNewTokens;
    const int64_t steps = std::min(options.maxNewTokens, room);

    torch::NoGradGuard noGrad;
    model.setTraining(false);
    const torch::Device device = model.parameters().at(0).tensor.device();
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(options.seed);

    std::vector<GeneratedSequence> out(prompts.size());
    std::vector<bool> done(prompts.size(), false);
    std::vector<int64_t> rowOf(prompts.size());  // batch row -> prompt index
    for (size_t i = 0; i < rowOf.size(); ++i) rowOf[i] = int64_t(i);

    // A pad id the model has no embedding for (a tokenizer's id past vocab_size) would fail the lookup; it is masked.
    const int64_t padId = options.padTokenId >= 0 && options.padTokenId < info.vocabSize ? options.padTokenId : 0;
    PromptBatch batch = padLeft(prompts, padId, device);
    torch::Tensor input = batch.ids, positions = batch.positions, keyMask = batch.mask;
    torch::Tensor sequences = batch.ids;  // what the repetition penalty sees: prompt, padding, new tokens
    KvCache cache;
    for (int64_t step = 0; step < steps && !rowOf.empty(); ++step) {
        torch::Tensor logits;
        const int64_t recomputeAt = decoder->cacheRecomputeLength();
        const bool staleCache = recomputeAt > 0 && cache.length() > 0 && sequences.size(1) >= recomputeAt + 1 &&
                                cache.length() <= recomputeAt;
        if (options.useCache && !staleCache) {
            logits = decoder->forwardCached(input, positions, keyMask, cache);
        } else if (options.useCache) {  // the cache's rotations are stale: the whole sequence again, into a new one
            cache = KvCache();
            const torch::Tensor allPositions = (keyMask.cumsum(1) - 1).masked_fill(keyMask.eq(0), 1);
            logits = decoder->forwardCached(sequences, allPositions, keyMask, cache);
        } else {  // the whole sequence again, through a fresh cache
            KvCache fresh;
            const torch::Tensor allPositions = (keyMask.cumsum(1) - 1).masked_fill(keyMask.eq(0), 1);
            logits = decoder->forwardCached(sequences, allPositions, keyMask, fresh);
        }
        const torch::Tensor processed = processLogits(logits.to(torch::kFloat32), sequences, options.sampling);
        const torch::Tensor next = pickNextTokens(processed, options.sampling.doSample, gen);
        const torch::Tensor nextCpu = next.to(torch::kCPU);
        const int64_t* tokens = nextCpu.data_ptr<int64_t>();

        std::vector<int64_t> keep;
        for (size_t b = 0; b < rowOf.size(); ++b) {
            const size_t p = size_t(rowOf[b]);
            out[p].ids.push_back(tokens[b]);
            const bool eos = std::find(options.eosTokenIds.begin(), options.eosTokenIds.end(), tokens[b]) !=
                             options.eosTokenIds.end();
            const bool stop = options.onToken && options.onToken(p, tokens[b]);
            if (eos || stop) {
                out[p].finish = eos ? FinishReason::Eos : FinishReason::StopString;
                done[p] = true;
            } else {
                keep.push_back(int64_t(b));
            }
        }
        if (options.cancel && options.cancel->load()) {
            for (size_t p = 0; p < out.size(); ++p)
                if (!done[p]) out[p].finish = FinishReason::Cancelled, done[p] = true;
            break;
        }
        // Every row still running moves one token on; the finished ones leave the batch and the cache.
        const torch::Tensor lastPositions = positions.narrow(1, positions.size(1) - 1, 1);
        torch::Tensor nextInput = next.view({-1, 1});
        if (keep.size() != rowOf.size()) {
            const torch::Tensor rows = torch::tensor(keep, torch::kInt64).to(device);
            cache.selectRows(rows);
            sequences = sequences.index_select(0, rows);
            keyMask = keyMask.index_select(0, rows);
            nextInput = nextInput.index_select(0, rows);
            positions = lastPositions.index_select(0, rows) + 1;
            std::vector<int64_t> remaining;
            for (int64_t b : keep) remaining.push_back(rowOf[size_t(b)]);
            rowOf = std::move(remaining);
        } else {
            positions = lastPositions + 1;
        }
        sequences = torch::cat({sequences, nextInput}, 1);
        keyMask = torch::cat({keyMask, torch::ones_like(nextInput)}, 1);
        input = nextInput;
    }
    for (size_t p = 0; p < out.size(); ++p)
        if (!done[p]) out[p].finish = steps < options.maxNewTokens ? FinishReason::Context : FinishReason::MaxNewTokens;
    return out;
}

}  // namespace fts
