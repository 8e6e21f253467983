// ZeRO stages 1 and 2 on 2 and 4 forked Gloo ranks against a single-process reference: plain AdamW
// (core/optim) on the gradient averaged over the ranks and accumulated over the micro-steps, clipped by
// its global norm (clipGradNorm), all computed by each rank itself on a full copy. Gradients come from real
// backward passes (stage 2 reduces inside them through post-accumulate-grad hooks). Also: bf16 parameters
// with fp32 masters, the model-state accounting against the ZeRO paper's formulas, and shard save/restore.
#include "tests/core/dist/forked_ranks.h"

#include "core/zero/zero_optimizer.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
using fts::testing::check;
using fts::testing::runRanks;

namespace {

std::vector<torch::Tensor> makeParams(torch::Dtype dtype = torch::kFloat32) {
    torch::manual_seed(7);
    std::vector<torch::Tensor> ps{torch::randn({7, 5}), torch::randn({13}), torch::randn({3, 3, 3}), torch::randn({1}),
                                  torch::randn({40})};
    for (auto& p : ps) p = p.to(dtype).set_requires_grad(true);
    return ps;
}

// The loss of rank q's micro-step m at optimizer step s: sum_i <c_i, p_i> + 0.1 <d_i, p_i^2> + <e, p_0 * p_0>
// (p_0 used twice, as tied weights are). c, d, e are pure functions of (s, q, m, i), so any rank can compute
// every rank's loss. exactGrads: d = 0 and c small multiples of 1/2 (gradients and their sums exact in bf16).
torch::Tensor lossOf(const std::vector<torch::Tensor>& ps, int s, int q, int m, bool exactGrads) {
    torch::Tensor loss = torch::zeros({}, ps[0].options());
    for (size_t i = 0; i < ps.size(); ++i) {
        auto gen = at::detail::createCPUGenerator(uint64_t(100000 * s + 1000 * q + 10 * m + int(i)));
        torch::Tensor c = torch::randn(ps[i].sizes(), gen) * (1.0 + q);
        if (exactGrads) {
            c = torch::clamp(torch::round(torch::randn(ps[i].sizes(), gen) * 2.0) / 2.0, -3.0, 3.0) * (1.0 + q);
            loss = loss + (ps[i] * c.to(ps[i].dtype())).sum();
            continue;
        }
        torch::Tensor d = torch::rand(ps[i].sizes(), gen);
        loss = loss + (ps[i] * c).sum() + 0.1 * (ps[i] * ps[i] * d).sum();
        if (i == 0) loss = loss + 0.05 * (ps[0] * ps[0]).sum();
    }
    return loss;
}

double relL2(const torch::Tensor& a, const torch::Tensor& b) {
    auto x = a.detach().to(torch::kFloat64), y = b.detach().to(torch::kFloat64);
    return (x - y).norm().item<double>() / std::max(1e-30, y.norm().item<double>());
}

torch::Tensor flat(const std::vector<torch::Tensor>& ps) {
    std::vector<torch::Tensor> v;
    for (const auto& p : ps) v.push_back(p.detach().reshape({-1}).to(torch::kFloat32));
    return torch::cat(v);
}

struct Run {
    int stage = 1;
    int64_t bucket = 16;
    int accum = 1;
    double clip = 0.0;
    bool contiguous = true;
    bool reduceScatter = true;
};

// One ZeRO step on this rank (accum micro-steps), and the reference step on the full copy.
GradientStats zeroStep(ZeroOptimizer& zero, std::vector<torch::Tensor>& ps, const Run& run, int s, int rank,
                       bool exact) {
    for (int m = 0; m < run.accum; ++m) {
        zero.beginMicroStep(m == run.accum - 1);
        (lossOf(ps, s, rank, m, exact) / double(run.accum)).backward();
        zero.endMicroStep();
    }
    GradientStats st = zero.prepareGradients(run.clip);
    zero.step(0.05);
    zero.zeroGrad();
    return st;
}

double refStep(AdamW& ref, std::vector<torch::Tensor>& ps, const Run& run, int s, int world, bool exact) {
    for (int q = 0; q < world; ++q)
        for (int m = 0; m < run.accum; ++m) (lossOf(ps, s, q, m, exact) / double(run.accum * world)).backward();
    const double norm = clipGradNorm(ps, run.clip);
    ref.step(0.05);
    ref.zeroGrad();
    return norm;
}

OptimizerConfig adamConfig() {
    OptimizerConfig cfg;
    cfg.lr = 0.05;
    cfg.weightDecay = 0.1;
    cfg.beta2 = 0.95;
    return cfg;
}

ZeroOptions zeroOptions(const Run& run) {
    ZeroOptions o;
    o.stage = run.stage;
    o.reduceBucketElems = run.bucket;
    o.allgatherBucketElems = 24;
    o.contiguousGradients = run.contiguous;
    o.reduceScatter = run.reduceScatter;
    return o;
}

}  // namespace

class TestZeroOptimizer : public QObject {
    Q_OBJECT
private slots:
    void layout() {
        FlatLayout l = makeFlatLayout(35 + 13 + 27 + 1, 4);
        QCOMPARE(l.chunk, int64_t(19));
        QCOMPARE(l.padded(), int64_t(76));
        QCOMPARE(l.offsetOf(3), int64_t(57));
        QCOMPARE(makeFlatLayout(77, 4).chunk, int64_t(20));
        QCOMPARE(makeFlatLayout(5, 1).chunk, int64_t(5));
    }

    void equalsAdamWOnAveragedGradient_data() {
        QTest::addColumn<int>("world");
        QTest::addColumn<int>("stage");
        QTest::addColumn<int>("bucket");
        QTest::addColumn<int>("accum");
        QTest::addColumn<double>("clip");
        QTest::addColumn<bool>("contiguous");
        QTest::addColumn<bool>("reduceScatter");
        QTest::newRow("stage 1, 2 ranks, accum 3, clip") << 2 << 1 << 16 << 3 << 1.0 << true << true;
        QTest::newRow("stage 1, 4 ranks, accum 2, clip, one bucket") << 4 << 1 << 100000 << 2 << 1.0 << true << true;
        QTest::newRow("stage 1, 2 ranks, all-reduce buckets") << 2 << 1 << 20 << 2 << 1.0 << true << false;
        QTest::newRow("stage 2, 2 ranks, accum 3, clip") << 2 << 2 << 8 << 3 << 1.0 << true << true;
        QTest::newRow("stage 2, 4 ranks, accum 2, clip") << 4 << 2 << 30 << 2 << 1.0 << true << true;
        QTest::newRow("stage 2, 4 ranks, no clip, non-contiguous") << 4 << 2 << 12 << 1 << 0.0 << false << true;
        QTest::newRow("stage 2, 2 ranks, one bucket") << 2 << 2 << 100000 << 2 << 1.0 << true << true;
        QTest::newRow("stage 2, 4 ranks, all-reduce buckets") << 4 << 2 << 25 << 2 << 1.0 << true << false;
    }
    void equalsAdamWOnAveragedGradient() {
        QFETCH(int, world);
        QFETCH(int, stage);
        QFETCH(int, bucket);
        QFETCH(int, accum);
        QFETCH(double, clip);
        QFETCH(bool, contiguous);
        QFETCH(bool, reduceScatter);
        const Run run{stage, bucket, accum, clip, contiguous, reduceScatter};
        auto codes = runRanks(world, [&](Communicator& c) {
            auto params = makeParams();
            auto refParams = makeParams();
            ZeroOptimizer zero(params, adamConfig(), c, zeroOptions(run));
            AdamW ref(refParams, adamConfig());
            bool clipped = false;
            for (int s = 1; s <= 5; ++s) {
                const GradientStats st = zeroStep(zero, params, run, s, c.rank(), false);
                const double refNorm = refStep(ref, refParams, run, s, world, false);
                clipped |= clip > 0 && refNorm > clip;
                check(std::abs(st.norm - refNorm) <= 1e-5 * refNorm, "step " + std::to_string(s) + ": norm " +
                                                                         std::to_string(st.norm) + " vs " +
                                                                         std::to_string(refNorm));
                check(!st.overflow, "no overflow");
                const double d = relL2(flat(params), flat(refParams));
                check(d <= 1e-6, "step " + std::to_string(s) + ": parameters relative L2 " + std::to_string(d));
                if (stage == 2)
                    for (const auto& p : params) check(!p.grad().defined(), "stage 2 frees the full gradients");
            }
            if (clip > 0) check(clipped, "clipping triggered (else the test would not test it)");
            check(zero.stepCount() == 5, "5 optimizer steps");
            if (stage == 2 && bucket < 100)  // buckets filled up inside backward were reduced there
                check(zero.reductionsDuringBackward() > 0, "stage 2 reduces while backward runs");
            if (stage == 1) check(zero.reductionsDuringBackward() == 0, "stage 1 reduces after the boundary backward");
        });
        for (int r = 0; r < world; ++r) QCOMPARE(codes[size_t(r)], 0);
    }

    // bf16 parameters, fp32 masters: each rank's master chunk follows fp32 AdamW exactly (gradients exact in
    // bf16), and the parameters are the masters rounded to bf16.
    void bf16WithFp32Masters_data() {
        QTest::addColumn<int>("world");
        QTest::addColumn<int>("stage");
        QTest::newRow("stage 1, 2 ranks") << 2 << 1;
        QTest::newRow("stage 2, 4 ranks") << 4 << 2;
    }
    void bf16WithFp32Masters() {
        QFETCH(int, world);
        QFETCH(int, stage);
        const Run run{stage, 20, 2, 0.0, true};
        auto codes = runRanks(world, [&](Communicator& c) {
            auto params = makeParams(torch::kBFloat16);
            auto refParams = makeParams(torch::kBFloat16);
            for (auto& p : refParams) p = p.detach().to(torch::kFloat32).set_requires_grad(true);  // fp32 reference
            ZeroOptimizer zero(params, adamConfig(), c, zeroOptions(run));
            AdamW ref(refParams, adamConfig());
            for (int s = 1; s <= 4; ++s) {
                zeroStep(zero, params, run, s, c.rank(), true);
                refStep(ref, refParams, run, s, world, true);
                const auto& l = zero.layout();
                torch::Tensor refFlat = torch::cat({flat(refParams), torch::zeros({l.padded() - l.numel})});
                torch::Tensor mine = refFlat.narrow(0, l.offsetOf(c.rank()), l.chunk);
                const double d = relL2(zero.shardTensors()[0].second, mine);
                check(d <= 1e-6, "step " + std::to_string(s) + ": fp32 master relative L2 " + std::to_string(d));
                for (size_t i = 0; i < params.size(); ++i) {
                    check(params[i].scalar_type() == torch::kBFloat16, "parameters stay bf16");
                    check(relL2(params[i], refParams[i].to(torch::kBFloat16)) <= 1e-2,
                          "bf16 parameters follow the masters");
                }
            }
        });
        for (int r = 0; r < world; ++r) QCOMPARE(codes[size_t(r)], 0);
    }

    // The engine's accounting of its own tensors equals the ZeRO paper's per-rank model-state bytes for
    // mixed precision (bf16 parameters and gradients, fp32 master + Adam moments) within 2% plus the bucket.
    void modelStateMatchesPaper_data() {
        QTest::addColumn<int>("world");
        QTest::addColumn<int>("stage");
        QTest::newRow("stage 1, 2 ranks") << 2 << 1;
        QTest::newRow("stage 1, 4 ranks") << 4 << 1;
        QTest::newRow("stage 2, 2 ranks") << 2 << 2;
        QTest::newRow("stage 2, 4 ranks") << 4 << 2;
    }
    void modelStateMatchesPaper() {
        QFETCH(int, world);
        QFETCH(int, stage);
        auto codes = runRanks(world, [&](Communicator& c) {
            std::vector<torch::Tensor> ps{torch::zeros({300, 257}, torch::kBFloat16).set_requires_grad(true),
                                          torch::zeros({1001}, torch::kBFloat16).set_requires_grad(true)};
            const double psi = 300 * 257 + 1001;
            ZeroOptions o;
            o.stage = stage;
            o.reduceBucketElems = 5000;
            ZeroOptimizer zero(ps, adamConfig(), c, o);
            const ModelStateBytes m = zero.modelState();
            const double expect = zeroPaperBytes(stage, psi, world);
            const double got = double(m.total() - m.buckets);
            check(std::abs(got - expect) <= 0.02 * expect,
                  "model state " + std::to_string(got) + " bytes vs the paper's " + std::to_string(expect));
            check(m.buckets <= 2 * o.reduceBucketElems, "bucket bytes");
            check(m.parameters.at("bfloat16") == int64_t(2 * psi), "parameters: 2 bytes each, replicated");
            const double grads = double(m.gradients.at("bfloat16"));
            const double expectGrads = stage == 1 ? 2 * psi : 2 * psi / world;
            check(std::abs(grads - expectGrads) <= 0.02 * expectGrads, "gradients " + std::to_string(grads));
            const double opt = double(m.optimizer.at("float32"));
            check(std::abs(opt - 12 * psi / world) <= 0.02 * 12 * psi / world,
                  "optimizer state " + std::to_string(opt));
        });
        for (int r = 0; r < world; ++r) QCOMPARE(codes[size_t(r)], 0);
    }

    // A shard saved after 3 steps and loaded into a fresh optimizer (on other parameters) continues exactly as
    // the uninterrupted run; a shard of the wrong size is refused naming the file.
    void shardRoundTrip() {
        const Run run{2, 16, 2, 1.0, true};
        auto codes = runRanks(2, [&](Communicator& c) {
            auto a = makeParams();
            ZeroOptimizer za(a, adamConfig(), c, zeroOptions(run));
            for (int s = 1; s <= 3; ++s) zeroStep(za, a, run, s, c.rank(), false);
            std::vector<std::pair<std::string, torch::Tensor>> shard;
            for (auto& [n, t] : za.shardTensors()) shard.emplace_back(n, t.clone());
            auto b = makeParams();
            {
                torch::NoGradGuard ng;
                for (auto& p : b) p.mul_(3.0);  // the restore must bring the masters' values back
            }
            ZeroOptimizer zb(b, adamConfig(), c, zeroOptions(run));
            zb.loadShard(shard, za.stepCount(), "zero_rank.safetensors");
            check(relL2(flat(b), flat(a)) == 0.0, "parameters re-replicated from the masters");
            for (int s = 4; s <= 5; ++s) {
                zeroStep(za, a, run, s, c.rank(), false);
                zeroStep(zb, b, run, s, c.rank(), false);
            }
            check(relL2(flat(b), flat(a)) == 0.0, "resumed run continues exactly");
            try {
                std::vector<std::pair<std::string, torch::Tensor>> bad{{"master", torch::zeros({3})}};
                zb.loadShard(bad, 1, "bad.safetensors");
                check(false, "a wrong-size shard is refused");
            } catch (const FormatError& e) {
                check(
                    std::string(e.what()).find("bad.safetensors: tensor 'master' has 3 elements") != std::string::npos,
                    std::string("message: ") + e.what());
            }
        });
        for (int r = 0; r < 2; ++r) QCOMPARE(codes[size_t(r)], 0);
    }
};

QTEST_APPLESS_MAIN(TestZeroOptimizer)
#include "test_zero_optimizer.moc"
