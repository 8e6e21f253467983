// CLI11 registration of the generation options; see generation_options.h.
#include "app/cli/generation_options.h"

namespace fts::cli {

namespace {
// CLI11 binds optionals through a plain value and a callback.
template <class T>
void addOptional(CLI::App& cmd, const std::string& name, std::optional<T>& target, const std::string& help) {
    cmd.add_option_function<T>(
        name, [&target](const T& v) { target = v; }, help);
}
}  // namespace

void addGenerationOptions(CLI::App& cmd, const std::shared_ptr<GenerationCliOptions>& o) {
    auto& s = o->session;
    auto& r = o->sampling;
    cmd.add_option("--model", s.model,
                   "Model folder: an export, a checkpoint, a Hugging Face download, or a PEFT "
                   "LoRA adapter folder (its base is read from adapter_config.json)")
        ->required();
    cmd.add_option("--adapter", s.adapter, "A PEFT LoRA adapter folder to apply to --model");
    cmd.add_flag("--merge_adapter", s.mergeAdapter, "Merge the adapter into the weights before generating");
    cmd.add_option("--tokenizer", s.tokenizer, "tokenizer.json (default: the model folder's, else its base's)");
    cmd.add_flag("--load_in_4bit", s.loadIn4bit,
                 "Quantize the base's linear layers to bitsandbytes' 4-bit format as they load (QLoRA's base, for an "
                 "adapter trained over one; products in --dtype)");
    cmd.add_option("--bnb_4bit_quant_type", s.quantType, "With --load_in_4bit: nf4 or fp4")->capture_default_str();
    cmd.add_flag("--bnb_4bit_use_double_quant", s.doubleQuant, "With --load_in_4bit: double quantization");
    cmd.add_option("--dtype", s.dtype, "float32, bfloat16 or float16")->capture_default_str();
    cmd.add_option("--device", s.device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd.add_option_function<std::string>(
        "--chat_template", [o](const std::string& v) { o->session.chatTemplate = v; },
        "Chat template when the model's is not recognised: chatml, qwen3, qwen2.5, llama3, mistral, gemma, phi3, phi4-mini, alpaca, none");
    addOptional(cmd, "--max_new_tokens", r.maxNewTokens,
                "New tokens at most (default: generation_config.json's, else 256)");
    cmd.add_flag("--do_sample", r.doSample, "Sample instead of greedy decoding");
    addOptional(cmd, "--temperature", r.temperature,
                "Sampling temperature (default: generation_config.json's, else 1.0)");
    addOptional(cmd, "--top_k", r.topK, "Keep the k most likely tokens when sampling; 0: off (default 50)");
    addOptional(cmd, "--top_p", r.topP,
                "Nucleus sampling: keep the most likely tokens up to this probability (default 1.0)");
    addOptional(cmd, "--repetition_penalty", r.repetitionPenalty,
                "Penalty for tokens already in the sequence (1.0: off)");
    cmd.add_option("--seed", r.seed, "Sampling seed")->capture_default_str();
    cmd.add_option("--stop", r.stopStrings, "Stop a reply when it contains this text (repeatable)");
    cmd.add_option("--system", o->system, "System message for chat prompts");
}

}  // namespace fts::cli
