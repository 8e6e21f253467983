// Ollama Modelfiles and Jinja chat templates for the built-in chat templates (see ollama_modelfile.h). The Go
// templates take the system prompt from .System (Ollama sets it from the SYSTEM line or the conversation's system
// message) and skip system messages in .Messages, so it is printed once, where the trainer printed it. BOS is not
// text here: llama.cpp adds the BOS token itself (tokenizer.ggml.add_bos_token).
#include "core/gguf/ollama_modelfile.h"

namespace fts::gguf {
namespace {

const char* const kQwen25System = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.";
const char* const kAlpacaSystem =
    "Below is an instruction that describes a task. Write a response that appropriately completes the request.";

// A Modelfile string argument: """...""" unless the text holds three quotes, then a JSON-style "..." string.
std::string quoted(const std::string& text) {
    if (text.find("\"\"\"") == std::string::npos && (text.empty() || text.back() != '"'))
        return "\"\"\"" + text + "\"\"\"";
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out + "\"";
}

std::string defaultSystem(ChatTemplateKind kind) {
    return kind == ChatTemplateKind::Qwen25 ? kQwen25System : kind == ChatTemplateKind::Alpaca ? kAlpacaSystem : "";
}

}  // namespace

std::string ollamaTemplate(ChatTemplateKind kind) {
    switch (kind) {
        case ChatTemplateKind::ChatML:
        case ChatTemplateKind::Qwen25:
        case ChatTemplateKind::Qwen3:  // the history Ollama keeps has no reasoning, as Qwen3's template drops it
            return "{{- if .System }}<|im_start|>system\n{{ .System }}<|im_end|>\n{{ end }}"
                   "{{- range .Messages }}{{- if ne .Role \"system\" }}<|im_start|>{{ .Role }}\n"
                   "{{ .Content }}<|im_end|>\n{{ end }}{{- end }}<|im_start|>assistant\n";
        case ChatTemplateKind::Llama3:
            return "{{- if .System }}<|start_header_id|>system<|end_header_id|>\n\n{{ .System }}<|eot_id|>{{ end }}"
                   "{{- range .Messages }}{{- if ne .Role \"system\" }}<|start_header_id|>{{ .Role }}"
                   "<|end_header_id|>\n\n{{ .Content }}<|eot_id|>{{ end }}{{- end }}"
                   "<|start_header_id|>assistant<|end_header_id|>\n\n";
        case ChatTemplateKind::Mistral:
            return "{{- $first := true }}{{- range .Messages }}{{- if eq .Role \"user\" }}[INST] "
                   "{{ if and $first $.System }}{{ $.System }}\n\n{{ end }}{{ .Content }} [/INST]"
                   "{{- $first = false }}{{- else if eq .Role \"assistant\" }}{{ .Content }}</s>{{- end }}{{- end }}";
        case ChatTemplateKind::Gemma:  // the system prompt opens the first user turn
            return "{{- $first := true }}{{- range .Messages }}{{- if eq .Role \"user\" }}<start_of_turn>user\n"
                   "{{ if and $first $.System }}{{ $.System }}\n\n{{ end }}{{ .Content }}<end_of_turn>\n"
                   "{{ $first = false }}{{- else if eq .Role \"assistant\" }}<start_of_turn>model\n{{ .Content }}"
                   "<end_of_turn>\n{{ end }}{{ end }}<start_of_turn>model\n";
        case ChatTemplateKind::Phi3:
            return "{{- if .System }}<|system|>\n{{ .System }}<|end|>\n{{ end }}"
                   "{{- range .Messages }}{{- if ne .Role \"system\" }}<|{{ .Role }}|>\n{{ .Content }}<|end|>\n"
                   "{{ end }}{{- end }}<|assistant|>\n";
        case ChatTemplateKind::Phi4Mini:
            return "{{- if .System }}<|system|>{{ .System }}<|end|>{{ end }}"
                   "{{- range .Messages }}{{- if ne .Role \"system\" }}<|{{ .Role }}|>{{ .Content }}<|end|>"
                   "{{ end }}{{- end }}<|assistant|>";
        case ChatTemplateKind::Alpaca:  // every exchange is a whole Alpaca prompt, the system prompt first
            return "{{- range .Messages }}{{- if eq .Role \"user\" }}{{ if $.System }}{{ $.System }}\n\n{{ end }}"
                   "### Instruction:\n{{ .Content }}\n\n### Response:\n{{ else if eq .Role \"assistant\" }}"
                   "{{ .Content }}{{ end }}{{- end }}";
        case ChatTemplateKind::None:
            break;
    }
    return "{{ .Prompt }}";
}

std::vector<std::string> ollamaStops(ChatTemplateKind kind, const std::string& eosText) {
    std::vector<std::string> stops;
    switch (kind) {
        case ChatTemplateKind::ChatML:
        case ChatTemplateKind::Qwen25:
        case ChatTemplateKind::Qwen3:
            stops = {"<|im_end|>", "<|im_start|>"};
            break;
        case ChatTemplateKind::Llama3:
            stops = {"<|eot_id|>", "<|start_header_id|>", "<|end_header_id|>"};
            break;
        case ChatTemplateKind::Mistral:
            stops = {"[INST]", "[/INST]"};
            break;
        case ChatTemplateKind::Gemma:
            stops = {"<end_of_turn>", "<start_of_turn>"};
            break;
        case ChatTemplateKind::Phi3:
        case ChatTemplateKind::Phi4Mini:
            stops = {"<|end|>", "<|user|>", "<|assistant|>"};
            break;
        case ChatTemplateKind::Alpaca:
            stops = {"### Instruction:"};
            break;
        case ChatTemplateKind::None:
            break;
    }
    if (!eosText.empty() && std::find(stops.begin(), stops.end(), eosText) == stops.end()) stops.push_back(eosText);
    return stops;
}

std::string jinjaChatTemplate(ChatTemplateKind kind, const std::string& eosText) {
    (void)eosText;
    switch (kind) {
        case ChatTemplateKind::Qwen3:  // Qwen3's thinking: the reasoning of turns after the last user message
            return "{%- set ns = namespace(found=false, last=messages|length - 1) %}{%- for message in messages[::-1] "
                   "%}{%- if not ns.found and message['role'] == 'user' %}{%- set ns.found = true %}{%- set ns.last = "
                   "(messages|length - 1) - loop.index0 %}{%- endif %}{%- endfor %}{%- for message in messages %}{%- "
                   "if message['role'] == 'assistant' %}{%- set content = message['content'] %}{%- set reasoning = '' "
                   "%}{%- if '</think>' in content %}{%- set reasoning = content.split('</think>')[0].rstrip('\\n')."
                   "split('<think>')[-1].lstrip('\\n') %}{%- set content = content.split('</think>')[-1].lstrip('"
                   "\\n') %}{%- endif %}{%- if loop.index0 > ns.last and (loop.last or reasoning) %}{{- "
                   "'<|im_start|>assistant\\n<think>\\n' + reasoning.strip('\\n') + '\\n</think>\\n\\n' + "
                   "content.lstrip('\\n') + '<|im_end|>\\n' }}{%- else %}{{- '<|im_start|>assistant\\n' + content + "
                   "'<|im_end|>\\n' }}{%- endif %}{%- else %}{{- '<|im_start|>' + message['role'] + '\\n' + "
                   "message['content'] + '<|im_end|>\\n' }}{%- endif %}{%- endfor %}{%- if add_generation_prompt %}"
                   "{{- '<|im_start|>assistant\\n' }}{%- endif %}";
        case ChatTemplateKind::ChatML:
            return "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + "
                   "'<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' "
                   "}}{% endif %}";
        case ChatTemplateKind::Qwen25:
            return "{% if messages[0]['role'] != 'system' %}{{ '<|im_start|>system\\n" + std::string(kQwen25System) +
                   "<|im_end|>\\n' }}{% endif %}{% for message in messages %}{{ '<|im_start|>' + message['role'] + "
                   "'\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}"
                   "{{ '<|im_start|>assistant\\n' }}{% endif %}";
        case ChatTemplateKind::Llama3:
            return "{{ bos_token }}{% for message in messages %}{{ '<|start_header_id|>' + message['role'] + "
                   "'<|end_header_id|>\\n\\n' + message['content'] | trim + '<|eot_id|>' }}{% endfor %}"
                   "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}"
                   "{% endif %}";
        case ChatTemplateKind::Mistral:
            return "{{ bos_token }}{% set ns = namespace(system='', first=true) %}{% for message in messages %}"
                   "{% if message['role'] == 'system' %}{% set ns.system = message['content'] %}"
                   "{% elif message['role'] == 'user' %}{{ '[INST] ' + ((ns.system + '\\n\\n') if (ns.first and "
                   "ns.system) else '') + message['content'] + ' [/INST]' }}{% set ns.first = false %}"
                   "{% else %}{{ message['content'] + eos_token }}{% endif %}{% endfor %}";
        case ChatTemplateKind::Gemma:
            return "{{ bos_token }}{% set ns = namespace(prefix='') %}{% for message in messages %}"
                   "{% if message['role'] == 'system' %}{% set ns.prefix = message['content'] + '\\n\\n' %}"
                   "{% else %}{{ '<start_of_turn>' + ('model' if message['role'] == 'assistant' else "
                   "message['role']) + '\\n' + ns.prefix + (message['content'] | trim) + '<end_of_turn>\\n' }}"
                   "{% set ns.prefix = '' %}{% endif %}{% endfor %}{% if add_generation_prompt %}"
                   "{{ '<start_of_turn>model\\n' }}{% endif %}";
        case ChatTemplateKind::Phi3:
        case ChatTemplateKind::Phi4Mini: {
            const std::string nl = kind == ChatTemplateKind::Phi3 ? "\\n" : "";
            return "{% for message in messages %}{{ '<|' + message['role'] + '|>" + nl +
                   "' + message['content'] + '<|end|>" + nl +
                   "' }}{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>" + nl +
                   "' }}{% else %}{{ eos_token }}{% endif %}";
        }
        case ChatTemplateKind::Alpaca:
            return "{% set ns = namespace(system='" + std::string(kAlpacaSystem) +
                   "') %}{% for message in messages %}{% if message['role'] == 'system' %}{% set ns.system = "
                   "message['content'] %}{% elif message['role'] == 'user' %}{{ ns.system + '\\n\\n### "
                   "Instruction:\\n' + message['content'] + '\\n\\n### Response:\\n' }}{% elif message['role'] == "
                   "'assistant' %}{{ message['content'] + eos_token }}{% endif %}{% endfor %}";
        case ChatTemplateKind::None:
            break;
    }
    return "{% for message in messages %}{{ message['content'] }}{% if message['role'] == 'assistant' %}"
           "{{ eos_token }}{% endif %}{% endfor %}";
}

std::string ollamaModelfile(const ModelfileInputs& in) {
    std::string out = "# Ollama: ollama create NAME -f Modelfile   (written by Finetune Studio)\n";
    out += "FROM ./" + in.ggufFileName + "\n";
    if (!in.chat) {
        out += "TEMPLATE " + quoted("{{ .Prompt }}") + "\n";
        if (!in.eosText.empty()) out += "PARAMETER stop " + quoted(in.eosText) + "\n";
    } else {
        out += "TEMPLATE " + quoted(ollamaTemplate(*in.chat)) + "\n";
        for (const std::string& stop : ollamaStops(*in.chat, in.eosText))
            out += "PARAMETER stop " + quoted(stop) + "\n";
        const std::string system = defaultSystem(*in.chat);
        if (!system.empty()) out += "SYSTEM " + quoted(system) + "\n";
    }
    if (in.contextLength > 0) out += "PARAMETER num_ctx " + std::to_string(in.contextLength) + "\n";
    return out;
}

}  // namespace fts::gguf
