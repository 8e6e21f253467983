// Fuzz harness: one dataset record (JSON) mapped to messages in every format (text, Alpaca, ShareGPT with tool
// calls, OpenAI messages, auto) and rendered with every chat template. Bad records must be FormatErrors.
#include "core/data/chat_template.h"
#include "core/data/sft_dataset.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto record = fts::fuzz::jsonOf(data, size);
    if (!record) return 0;
    using F = fts::SampleFormat;
    using K = fts::ChatTemplateKind;
    for (F format : {F::Auto, F::Text, F::Alpaca, F::ShareGpt, F::Messages}) {
        std::vector<fts::ChatMessage> messages;
        try {
            messages = fts::recordMessages(*record, format, "text");
        } catch (const fts::Error&) {
            continue;
        }
        for (K kind : {K::ChatML, K::Llama3, K::Mistral, K::Alpaca, K::None, K::Qwen25}) {
            try {
                (void)fts::renderChat(kind, messages);
                (void)fts::renderGenerationPrompt(kind, messages);
            } catch (const fts::Error&) {
            }
        }
    }
    return 0;
}
