// Sequence decoder and the factory for the "decoder" key.
#include "core/data/decoder.h"

#include "core/data/byte_level.h"
#include "core/data/text_decoders.h"

namespace fts::tok {

void SequenceDecoder::decodeChain(std::vector<std::string>& tokens) const {
    for (const auto& step : m_steps) step->decodeChain(tokens);
}

std::unique_ptr<Decoder> makeDecoder(const nlohmann::json& spec, const JsonContext& ctx) {
    if (spec.is_null()) return nullptr;
    const std::string type = ctx.type(spec);
    if (type == "ByteLevel") {
        ByteLevelOptions::fromJson(spec, ctx);  // validates field types; decoding ignores them
        return std::make_unique<ByteLevelDecoder>();
    }
    if (auto d = makeTextDecoder(type, spec, ctx)) return d;
    if (type == "Sequence") {
        const auto& list = ctx.require(spec, "decoders");
        if (!list.is_array()) ctx.child("decoders").fail("expected an array of decoders");
        std::vector<std::unique_ptr<Decoder>> steps;
        for (size_t i = 0; i < list.size(); ++i) {
            auto step = makeDecoder(list[i], ctx.child("decoders").index(i));
            if (step) steps.push_back(std::move(step));
        }
        return std::make_unique<SequenceDecoder>(std::move(steps));
    }
    ctx.unsupported("decoder", type, "ByteLevel, Replace, ByteFallback, Fuse, Strip, WordPiece, Metaspace, Sequence");
}

}  // namespace fts::tok
