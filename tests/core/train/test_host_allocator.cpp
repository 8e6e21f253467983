// The caching host allocator: LibTorch's CPU tensors come from it once installed; a large block freed is handed to
// the next request of the same size (the same address, counted as a hit) with its contents intact as far as the
// caller can tell (it is uninitialised memory, as torch::empty promises); small blocks are not cached; blocks are
// aligned as LibTorch requires; tensors made before installation are freed by their own deleter.
#include "core/train/host_allocator.h"

#include <torch/torch.h>

#include <QtTest>

#include <cstdint>

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

class TestHostAllocator : public QObject {
    Q_OBJECT

private slots:
    void reusesLargeBlocksBySize() {
        torch::Tensor before = torch::ones({1 << 20});  // 4 MiB from LibTorch's default allocator
        installHostCachingAllocator(int64_t(64) << 20);
        installHostCachingAllocator(0);  // a second call changes nothing
        const HostAllocatorStats s0 = hostAllocatorStats();
        void* first = nullptr;
        {
            torch::Tensor a = torch::empty({3 << 18});  // 3 MiB
            first = a.data_ptr();
            QCOMPARE(reinterpret_cast<uintptr_t>(first) % 64, uintptr_t(0));
            a.fill_(2.0f);
        }
        QCOMPARE(hostAllocatorStats().cachedBytes - s0.cachedBytes, int64_t(3) << 20);
        torch::Tensor b = torch::empty({3 << 18});
        QCOMPARE(b.data_ptr(), first);
        const HostAllocatorStats s1 = hostAllocatorStats();
        QCOMPARE(s1.hits - s0.hits, int64_t(1));
        QCOMPARE(s1.misses - s0.misses, int64_t(1));
        QCOMPARE(s1.cachedBytes, s0.cachedBytes);
        // another size misses and leaves the cached one alone
        torch::Tensor c = torch::zeros({5 << 18});
        QCOMPARE(c.sum().item<double>(), 0.0);
        QCOMPARE(hostAllocatorStats().misses - s0.misses, int64_t(2));
        // small tensors bypass the cache
        for (int i = 0; i < 10; ++i) torch::Tensor small = torch::ones({1000});
        QCOMPARE(hostAllocatorStats().hits, s1.hits);
        before.add_(1);  // made by the previous allocator, still usable and freed by its own deleter
        QCOMPARE(before.sum().item<double>(), double(2 << 20));
    }

    void capBoundsTheCache() {
        installHostCachingAllocator(int64_t(64) << 20);  // installed already by the first test: the cap is 64 MiB
        const HostAllocatorStats s0 = hostAllocatorStats();
        {
            std::vector<torch::Tensor> many;
            for (int i = 0; i < 24; ++i) many.push_back(torch::empty({1 << 20}));  // 24 x 4 MiB = 96 MiB
        }
        const HostAllocatorStats s1 = hostAllocatorStats();
        QVERIFY(s1.cachedBytes <= int64_t(64) << 20);
        QVERIFY(s1.releasedBytes > s0.releasedBytes);
    }

    void autogradThroughCachedBlocks() {
        // A few training-like steps: the same sizes again and again, results identical to a fresh computation.
        torch::manual_seed(0);
        torch::Tensor w = torch::randn({512, 1024}, torch::requires_grad());
        torch::Tensor x = torch::randn({600, 512});
        std::vector<double> grads;
        for (int step = 0; step < 3; ++step) {
            w.mutable_grad() = torch::Tensor();
            torch::matmul(x, w).tanh().sum().backward();
            grads.push_back(w.grad().sum().item<double>());
        }
        QCOMPARE(grads[1], grads[0]);
        QCOMPARE(grads[2], grads[0]);
        QVERIFY(hostAllocatorStats().hits > 0);
    }
};

QTEST_APPLESS_MAIN(TestHostAllocator)
#include "test_host_allocator.moc"
