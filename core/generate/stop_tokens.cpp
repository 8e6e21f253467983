// The token ids that end a reply (see stop_tokens.h).
#include "core/generate/stop_tokens.h"

#include <algorithm>

#include "core/data/tokenizer.h"

namespace fts {

std::vector<int64_t> replyStopTokenIds(const std::vector<int64_t>& modelEosIds, const Tokenizer& tokenizer,
                                       std::optional<ChatTemplateKind> chat) {
    std::vector<int64_t> ids = modelEosIds;
    if (ids.empty())
        if (auto eos = tokenizer.eosTokenId()) ids.push_back(*eos);
    if (chat)
        if (const char* end = endOfTurnToken(*chat))
            if (auto id = tokenizer.tokenToId(end))
                if (std::find(ids.begin(), ids.end(), int64_t(*id)) == ids.end()) ids.push_back(*id);
    return ids;
}

}  // namespace fts
