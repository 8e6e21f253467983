// Tests of the presets' per-tensor types (llama-quantize's rules, read from src/llama-quant.cpp): q4_k_m on a
// 32-layer Llama gives attn_v and ffn_down q6_K on exactly the layers use_more_bits picks and the output q6_K;
// tied embeddings put token_embd where output would be; GPT-2's fused attn_qkv counts as attn_v; rows that are not
// whole super-blocks fall back (q4_K -> q5_0, q5_K -> q5_1, q6_K -> q8_0, then f16); norms, biases and position
// embeddings stay float32; names parse. The same choices against llama.cpp itself: integration_test_export_gguf.
#include <QtTest>

#include <set>

#include "core/gguf/quant_preset.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts::gguf;

namespace {

std::vector<TensorShape> llamaTensors(int layers, int64_t hidden, int64_t ffn, bool tied) {
    std::vector<TensorShape> t = {{"token_embd.weight", {hidden, 32000}}, {"output_norm.weight", {hidden}}};
    if (!tied) t.push_back({"output.weight", {hidden, 32000}});
    for (int l = 0; l < layers; ++l) {
        const std::string b = "blk." + std::to_string(l) + ".";
        for (const char* n : {"attn_q", "attn_k", "attn_v", "attn_output"})
            t.push_back({b + n + ".weight", {hidden, hidden}});
        t.push_back({b + "attn_norm.weight", {hidden}});
        t.push_back({b + "ffn_norm.weight", {hidden}});
        t.push_back({b + "ffn_gate.weight", {hidden, ffn}});
        t.push_back({b + "ffn_up.weight", {hidden, ffn}});
        t.push_back({b + "ffn_down.weight", {ffn, hidden}});
    }
    return t;
}

GgmlType typeOf(const std::vector<TensorShape>& t, const std::vector<GgmlType>& types, const std::string& name) {
    for (size_t i = 0; i < t.size(); ++i)
        if (t[i].name == name) return types[i];
    throw std::runtime_error("no tensor " + name);
}

}  // namespace

class TestQuantPreset : public QObject {
    Q_OBJECT
private slots:
    void q4kmMixtureOnA32LayerLlama() {
        const auto t = llamaTensors(32, 4096, 11008, false);
        const auto types = tensorTypes(QuantPreset::Q4_K_M, t, 32);
        // use_more_bits(i, 32): i < 4, i >= 28, or (i - 4) % 3 == 2
        std::set<int> more;
        for (int i = 0; i < 32; ++i)
            if (i < 4 || i >= 28 || (i - 4) % 3 == 2) more.insert(i);
        for (int l = 0; l < 32; ++l) {
            const std::string b = "blk." + std::to_string(l) + ".";
            const GgmlType expect = more.count(l) ? GgmlType::Q6_K : GgmlType::Q4_K;
            QCOMPARE(typeOf(t, types, b + "attn_v.weight"), expect);
            QCOMPARE(typeOf(t, types, b + "ffn_down.weight"), expect);
            QCOMPARE(typeOf(t, types, b + "attn_q.weight"), GgmlType::Q4_K);
            QCOMPARE(typeOf(t, types, b + "ffn_up.weight"), GgmlType::Q4_K);
            QCOMPARE(typeOf(t, types, b + "attn_norm.weight"), GgmlType::F32);
        }
        QCOMPARE(typeOf(t, types, "output.weight"), GgmlType::Q6_K);
        QCOMPARE(typeOf(t, types, "token_embd.weight"), GgmlType::Q4_K);
        QCOMPARE(typeOf(t, types, "output_norm.weight"), GgmlType::F32);
        // q5_k_m: the same layers at q6_K over q5_K; q6_k, q8_0, q4_0: one type, the output at q6_K but for q8_0
        const auto q5 = tensorTypes(QuantPreset::Q5_K_M, t, 32);
        QCOMPARE(typeOf(t, q5, "blk.0.attn_v.weight"), GgmlType::Q6_K);
        QCOMPARE(typeOf(t, q5, "blk.4.attn_v.weight"), GgmlType::Q5_K);
        QCOMPARE(typeOf(t, tensorTypes(QuantPreset::Q4_0, t, 32), "output.weight"), GgmlType::Q6_K);
        QCOMPARE(typeOf(t, tensorTypes(QuantPreset::Q8_0, t, 32), "output.weight"), GgmlType::Q8_0);
        QCOMPARE(typeOf(t, tensorTypes(QuantPreset::F16, t, 32), "output.weight"), GgmlType::F16);
        QCOMPARE(typeOf(t, tensorTypes(QuantPreset::BF16, t, 32), "blk.3.ffn_down.weight"), GgmlType::BF16);
        QCOMPARE(typeOf(t, tensorTypes(QuantPreset::F16, t, 32), "blk.3.ffn_norm.weight"), GgmlType::F32);
    }

    void tiedEmbeddingsTakeTheOutputsType() {
        const auto t = llamaTensors(2, 2048, 5632, true);
        QCOMPARE(typeOf(t, tensorTypes(QuantPreset::Q4_K_M, t, 2), "token_embd.weight"), GgmlType::Q6_K);
        QCOMPARE(typeOf(t, tensorTypes(QuantPreset::Q8_0, t, 2), "token_embd.weight"), GgmlType::Q8_0);
    }

    void rowsThatAreNotSuperBlocksFallBack() {
        // Qwen2.5-0.5B is 896 wide: q4_K -> q5_0, q6_K -> q8_0 (output: q8_0); its ffn_down rows (4864 = 19 x 256)
        // are whole super-blocks and keep q4_K / q6_K
        const auto t = llamaTensors(24, 896, 4864, false);
        const auto q4 = tensorTypes(QuantPreset::Q4_K_M, t, 24);
        QCOMPARE(typeOf(t, q4, "blk.5.attn_q.weight"), GgmlType::Q5_0);
        QCOMPARE(typeOf(t, q4, "blk.0.attn_v.weight"), GgmlType::Q8_0);
        QCOMPARE(typeOf(t, q4, "blk.0.ffn_down.weight"), GgmlType::Q6_K);
        QCOMPARE(typeOf(t, q4, "blk.4.ffn_down.weight"), GgmlType::Q4_K);
        QCOMPARE(typeOf(t, q4, "output.weight"), GgmlType::Q8_0);
        QCOMPARE(typeOf(t, tensorTypes(QuantPreset::Q5_K_M, t, 24), "blk.5.attn_q.weight"), GgmlType::Q5_1);
        // rows of 40 values: not even 32-blocks: float16
        const std::vector<TensorShape> odd = {{"blk.0.attn_q.weight", {40, 40}}};
        QCOMPARE(tensorTypes(QuantPreset::Q4_0, odd, 1)[0], GgmlType::F16);
        QCOMPARE(tensorTypes(QuantPreset::Q4_K_M, odd, 1)[0], GgmlType::F16);
    }

    void gpt2FusedQkvCountsAsAttnV() {
        std::vector<TensorShape> t = {{"token_embd.weight", {768, 50257}}, {"position_embd.weight", {768, 1024}}};
        for (int l = 0; l < 12; ++l) {
            const std::string b = "blk." + std::to_string(l) + ".";
            t.push_back({b + "attn_qkv.weight", {768, 2304}});
            t.push_back({b + "attn_qkv.bias", {2304}});
            t.push_back({b + "ffn_down.weight", {3072, 768}});
        }
        const auto types = tensorTypes(QuantPreset::Q4_K_M, t, 12);
        QCOMPARE(typeOf(t, types, "blk.0.attn_qkv.weight"), GgmlType::Q6_K);  // use_more_bits(0, 12)
        QCOMPARE(typeOf(t, types, "blk.2.attn_qkv.weight"), GgmlType::Q4_K);
        QCOMPARE(typeOf(t, types, "blk.3.attn_qkv.weight"), GgmlType::Q6_K);  // (3 - 1) % 3 == 2
        QCOMPARE(typeOf(t, types, "blk.0.attn_qkv.bias"), GgmlType::F32);
        QCOMPARE(typeOf(t, types, "position_embd.weight"), GgmlType::F32);
        QCOMPARE(typeOf(t, types, "token_embd.weight"), GgmlType::Q6_K);  // no output.weight: tied
    }

    void namesParse() {
        QCOMPARE(parseQuantPreset("Q4_K_M"), std::optional<QuantPreset>(QuantPreset::Q4_K_M));
        QCOMPARE(parseQuantPreset("bf16"), std::optional<QuantPreset>(QuantPreset::BF16));
        QVERIFY(!parseQuantPreset("q3_k_s"));
        QCOMPARE(fileType(QuantPreset::Q4_K_M), 15u);
        QCOMPARE(fileType(QuantPreset::BF16), 32u);
        QCOMPARE(presetNames(), std::string("f32, f16, bf16, q8_0, q4_0, q4_k_m, q5_k_m, q6_k"));
    }
};

QTEST_MAIN(TestQuantPreset)
#include "test_quant_preset.moc"
