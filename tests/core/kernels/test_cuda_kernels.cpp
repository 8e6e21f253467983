// The CUDA kernels of fts_kernels against their CPU scalar references (labelled gpu; every test QSKIPs when the
// build has no CUDA kernels or no CUDA device is visible): the fused multi-tensor AdamW for fp32/bf16/fp16
// gradients in both weight-decay modes, over tensor lists that need several launches, and the fused unscale +
// overflow check; then core/optim's wiring (AdamW and unscaleGradients on CUDA tensors equal their CPU paths).
#include <torch/torch.h>

#include <cmath>

#include "core/optim/adamw.h"
#include "core/optim/fused_adamw.h"
#include "core/optim/grad_unscale.h"
#include "kernels/cpu/adamw_reference.h"
#include "kernels/cpu/unscale_reference.h"
#include "kernels/cuda/adamw.cuh"
#include "kernels/cuda/cuda_device.cuh"
#include "kernels/cuda/unscale.cuh"

// Qt after LibTorch and the kernels (Qt's `slots` macro).
#include <QtTest>

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

namespace k = fts::kernels;

namespace {

#define SKIP_WITHOUT_CUDA()                                                                                  \
    do {                                                                                                     \
        if (!k::cudaKernelsBuilt()) QSKIP("fts_kernels was built without CUDA (no nvcc at configure time)"); \
        if (!torch::cuda::is_available() || k::cudaDeviceCount() == 0) QSKIP("no CUDA device visible");      \
    } while (0)

k::DType kernelType(torch::ScalarType t) {
    return t == torch::kFloat32 ? k::DType::Float32 : t == torch::kBFloat16 ? k::DType::BFloat16 : k::DType::Float16;
}

double maxRelDiff(const torch::Tensor& a, const torch::Tensor& b) {
    auto x = a.cpu().to(torch::kFloat64), y = b.cpu().to(torch::kFloat64);
    return (x - y).abs().max().item<double>() / (1.0 + y.abs().max().item<double>());
}

// Tensor sizes: awkward, several chunks of 64Ki, and (with `many`) more tensors than one launch holds.
std::vector<int64_t> sizesFor(int kind) {
    if (kind == 0) return {1, 7, 4099, 65536 * 3 + 5, 31};
    std::vector<int64_t> s;
    for (int i = 0; i < 45; ++i) s.push_back(1 + (i * 7919) % 90001);  // 45 tensors > 32 per launch
    if (kind == 2) s.push_back(65536LL * 330 + 3);                     // one tensor longer than a launch's 320 blocks
    return s;
}

}  // namespace

class TestCudaKernels : public QObject {
    Q_OBJECT
private slots:
    void adamwCudaMatchesReference_data() {
        QTest::addColumn<int>("gradDtype");
        QTest::addColumn<bool>("decoupled");
        QTest::addColumn<int>("sizes");
        QTest::newRow("fp32 grads, adamw, awkward sizes") << int(torch::kFloat32) << true << 0;
        QTest::newRow("fp32 grads, adam l2, awkward sizes") << int(torch::kFloat32) << false << 0;
        QTest::newRow("bf16 grads, adamw, 45 tensors") << int(torch::kBFloat16) << true << 1;
        QTest::newRow("fp16 grads, adam l2, 45 tensors") << int(torch::kFloat16) << false << 1;
        QTest::newRow("fp32 grads, adamw, 45 tensors + one > 320 chunks") << int(torch::kFloat32) << true << 2;
    }
    void adamwCudaMatchesReference() {
        SKIP_WITHOUT_CUDA();
        QFETCH(int, gradDtype);
        QFETCH(bool, decoupled);
        QFETCH(int, sizes);
        const auto gt = torch::ScalarType(gradDtype);
        torch::manual_seed(21);
        const auto dev = torch::Device(torch::kCUDA, 0);
        std::vector<torch::Tensor> pCpu, mCpu, vCpu, pGpu, mGpu, vGpu;
        for (int64_t n : sizesFor(sizes)) {
            pCpu.push_back(torch::randn({n}));
            mCpu.push_back(torch::zeros({n}));
            vCpu.push_back(torch::zeros({n}));
            pGpu.push_back(pCpu.back().to(dev));
            mGpu.push_back(mCpu.back().to(dev));
            vGpu.push_back(vCpu.back().to(dev));
        }
        for (int step = 1; step <= 3; ++step) {
            k::AdamWHyper h;
            h.lr = 1e-2;
            h.beta2 = 0.95;
            h.weightDecay = 0.05;
            h.decoupled = decoupled;
            h.step = step;
            std::vector<torch::Tensor> gCpu, gGpu;
            std::vector<k::AdamWTensor> list;
            for (size_t i = 0; i < pCpu.size(); ++i) {
                gCpu.push_back(torch::randn({pCpu[i].numel()}).to(gt));
                gGpu.push_back(gCpu.back().to(dev));
                k::adamwReference({pCpu[i].data_ptr<float>(), gCpu[i].data_ptr(), mCpu[i].data_ptr<float>(),
                                   vCpu[i].data_ptr<float>(), pCpu[i].numel()},
                                  kernelType(gt), h);
                list.push_back({pGpu[i].data_ptr<float>(), gGpu[i].data_ptr(), mGpu[i].data_ptr<float>(),
                                vGpu[i].data_ptr<float>(), pGpu[i].numel()});
            }
            k::adamwCuda(list.data(), list.size(), kernelType(gt), h, nullptr);
            QVERIFY(cudaDeviceSynchronizeOk());
        }
        double worst = 0.0;
        for (size_t i = 0; i < pCpu.size(); ++i)
            worst = std::max(
                {worst, maxRelDiff(pGpu[i], pCpu[i]), maxRelDiff(mGpu[i], mCpu[i]), maxRelDiff(vGpu[i], vCpu[i])});
        qInfo("worst relative difference CUDA vs scalar reference: %.3g", worst);
        // The same float32 operations; nvcc contracts a*b+c into fma (one rounding fewer): a few ulps.
        QVERIFY2(worst < 1e-6, qPrintable(QString::number(worst)));
    }

    void unscaleCudaMatchesReference_data() {
        QTest::addColumn<double>("scale");
        QTest::addColumn<bool>("poison");
        QTest::newRow("2^16, clean") << 65536.0 << false;
        QTest::newRow("2^8, one inf in the bf16 list") << 256.0 << true;
        QTest::newRow("3, clean") << 3.0 << false;
    }
    void unscaleCudaMatchesReference() {
        SKIP_WITHOUT_CUDA();
        QFETCH(double, scale);
        QFETCH(bool, poison);
        torch::manual_seed(8);
        const auto dev = torch::Device(torch::kCUDA, 0);
        std::vector<torch::Tensor> cpu, gpu;
        std::vector<k::GradTensor> list;
        int i = 0;
        for (auto t : {torch::kFloat32, torch::kBFloat16, torch::kFloat16})
            for (int64_t n : sizesFor(1)) {
                torch::Tensor x = (torch::randn({n}) * std::min(scale, 6e4)).clamp(-6e4, 6e4).to(t);
                if (poison && t == torch::kBFloat16 && ++i == 17) x[n - 1] = INFINITY;
                cpu.push_back(x);
                gpu.push_back(x.to(dev));
                list.push_back({gpu.back().data_ptr(), n, kernelType(t)});
            }
        const float inv = float(1.0 / scale);
        bool refFound = false;
        for (auto& x : cpu)
            refFound = k::unscaleReference({x.data_ptr(), x.numel(), kernelType(x.scalar_type())}, inv) || refFound;
        torch::Tensor found = torch::zeros({1}, torch::TensorOptions().device(dev));
        k::unscaleCuda(list.data(), list.size(), inv, found.data_ptr<float>(), nullptr);
        QCOMPARE(found.item<float>() != 0.0f, refFound);
        QCOMPARE(refFound, poison);
        for (size_t j = 0; j < cpu.size(); ++j) {  // one multiply and one rounding: equal values (NaN bits aside)
            torch::Tensor a = gpu[j].cpu().to(torch::kFloat64), b = cpu[j].to(torch::kFloat64);
            QVERIFY(torch::equal(torch::isnan(a), torch::isnan(b)));
            QVERIFY(torch::equal(a.nan_to_num(0.0, INFINITY, -INFINITY), b.nan_to_num(0.0, INFINITY, -INFINITY)));
        }
    }

    // core/optim on CUDA tensors takes the fused kernels and computes what its CPU (LibTorch) path computes.
    void coreOptimCudaPathEqualsCpuPath_data() {
        QTest::addColumn<bool>("decoupled");
        QTest::newRow("adamw") << true;
        QTest::newRow("adam l2") << false;
    }
    void coreOptimCudaPathEqualsCpuPath() {
        SKIP_WITHOUT_CUDA();
        QFETCH(bool, decoupled);
        QVERIFY(fts::fusedCudaKernelsUsable());
        torch::manual_seed(4);
        const auto dev = torch::Device(torch::kCUDA, 0);
        fts::OptimizerConfig cfg;
        cfg.lr = 3e-3;
        cfg.weightDecay = 0.01;
        cfg.adamWMode = decoupled;
        std::vector<torch::Tensor> cpu, gpu;
        for (int64_t n : {5, 70001, 129}) {
            cpu.push_back(torch::randn({n}).requires_grad_(true));
            gpu.push_back(cpu.back().detach().to(dev).requires_grad_(true));
        }
        fts::AdamW a(cpu, cfg), b(gpu, cfg);
        for (int step = 0; step < 4; ++step) {
            for (size_t i = 0; i < cpu.size(); ++i) {
                torch::Tensor g = torch::randn_like(cpu[i]) * 4096.0;  // fp16-style scaled gradients
                cpu[i].mutable_grad() = g.clone();
                gpu[i].mutable_grad() = g.to(dev);
            }
            std::vector<torch::Tensor> gc, gg;
            for (size_t i = 0; i < cpu.size(); ++i) {
                gc.push_back(cpu[i].grad());
                gg.push_back(gpu[i].grad());
            }
            QCOMPARE(fts::unscaleGradients(gg, 4096.0), fts::unscaleGradients(gc, 4096.0));
            a.step(cfg.lr);
            b.step(cfg.lr);
        }
        for (size_t i = 0; i < cpu.size(); ++i) QVERIFY(maxRelDiff(gpu[i].detach(), cpu[i].detach()) < 1e-6);
        std::vector<torch::Tensor> bad{torch::tensor({1.0f, NAN}).to(dev)};
        QVERIFY(fts::unscaleGradients(bad, 2.0));
    }

private:
    static bool cudaDeviceSynchronizeOk() {
        torch::cuda::synchronize();
        return true;
    }
};

QTEST_APPLESS_MAIN(TestCudaKernels)
#include "test_cuda_kernels.moc"
