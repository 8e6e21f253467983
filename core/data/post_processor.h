// Post-processors of tokenizer.json ("post_processor" key): add the special tokens of a single
// sequence, or of a pair with its token type ids (BERT's segments), when encode() is asked to.
// Implemented: ByteLevel (adds nothing; its offset trimming does not change ids), TemplateProcessing
// (its "single" and "pair" templates), BertProcessing ([CLS] A [SEP] / [CLS] A [SEP] B [SEP], types 0 then 1),
// RobertaProcessing (<s> A </s> / <s> A </s></s> B </s>, all type 0), Sequence; any other type is a
// FormatError naming the type. Without a post-processor a pair is A then B, types 0 then 1 (HF's default).
#pragma once
#include "core/data/tokenizer_json.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace fts::tok {

class PostProcessor {
public:
    virtual ~PostProcessor() = default;
    virtual void process(std::vector<int32_t>& ids, bool addSpecialTokens) const = 0;
    // The pair (a, b) as one sequence with special tokens: ids and their token type ids. Default: a then b,
    // types 0 then 1, nothing added (HF's encoding of a pair without a post-processor).
    virtual void processPair(const std::vector<int32_t>& a, const std::vector<int32_t>& b, std::vector<int32_t>& ids,
                             std::vector<int8_t>& typeIds) const;
    // Special tokens process (pair = false) or processPair (true) adds: HF's added_tokens(is_pair).
    virtual size_t addedTokens(bool pair) const {
        (void)pair;
        return 0;
    }
    // False for post-processors that leave ids alone (ByteLevel): a Sequence hands pairs to the one that does not.
    virtual bool addsTokens() const { return true; }
};

class ByteLevelPostProcessor final : public PostProcessor {
public:
    void process(std::vector<int32_t>&, bool) const override {}
    bool addsTokens() const override { return false; }
};

// The "single" and "pair" templates: special-token pieces and the sequences ($A, $B), each with a type id.
class TemplatePostProcessor final : public PostProcessor {
public:
    struct Item {
        int sequence = 0;          // 0: special tokens (ids), 1: sequence A, 2: sequence B
        std::vector<int32_t> ids;  // special token ids when sequence == 0
        int8_t typeId = 0;
    };
    // pair empty: the tokenizer has no pair template (processPair is then an error, as in HF).
    TemplatePostProcessor(std::vector<Item> single, std::vector<Item> pair)
        : m_single(std::move(single)), m_pair(std::move(pair)) {}
    void process(std::vector<int32_t>& ids, bool addSpecialTokens) const override;
    void processPair(const std::vector<int32_t>& a, const std::vector<int32_t>& b, std::vector<int32_t>& ids,
                     std::vector<int8_t>& typeIds) const override;
    size_t addedTokens(bool pair) const override;

private:
    std::vector<Item> m_single, m_pair;
};

class SequencePostProcessor final : public PostProcessor {
public:
    explicit SequencePostProcessor(std::vector<std::unique_ptr<PostProcessor>> steps) : m_steps(std::move(steps)) {}
    void process(std::vector<int32_t>& ids, bool addSpecialTokens) const override;
    void processPair(const std::vector<int32_t>& a, const std::vector<int32_t>& b, std::vector<int32_t>& ids,
                     std::vector<int8_t>& typeIds) const override;
    size_t addedTokens(bool pair) const override;
    bool addsTokens() const override;

private:
    const PostProcessor* pairStep() const;  // the one step that adds tokens (nullptr: none; error: several)
    std::vector<std::unique_ptr<PostProcessor>> m_steps;
};

// null -> nullptr (nothing is added).
std::unique_ptr<PostProcessor> makePostProcessor(const nlohmann::json& spec, const JsonContext& ctx);

}  // namespace fts::tok
