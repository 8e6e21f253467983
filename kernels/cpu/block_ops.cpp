// Fused CPU loops of block_ops.h. Built with -O3 (kernels/CMakeLists.txt) so that the inner loops vectorise; the
// sums of squares use several partial accumulators, which vectorisation needs and which keeps float32 error small.
#include "kernels/cpu/block_ops.h"

#include <cmath>

namespace fts::kernels {

namespace {

constexpr int kLanes = 16;  // independent partial sums (two AVX-512 or four AVX2 registers)

float sumOfSquares(const float* __restrict x, int64_t n) {
    float acc[kLanes] = {};
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
        for (int l = 0; l < kLanes; ++l) acc[l] += x[i + l] * x[i + l];
    float s = 0.0f;
    for (; i < n; ++i) s += x[i] * x[i];
    for (int l = 0; l < kLanes; ++l) s += acc[l];
    return s;
}

float dot(const float* __restrict a, const float* __restrict b, int64_t n) {
    float acc[kLanes] = {};
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
        for (int l = 0; l < kLanes; ++l) acc[l] += a[i + l] * b[i + l];
    float s = 0.0f;
    for (; i < n; ++i) s += a[i] * b[i];
    for (int l = 0; l < kLanes; ++l) s += acc[l];
    return s;
}

}  // namespace

void rmsNormForwardRows(const float* x, const float* w, float eps, int64_t rows, int64_t n, float* y, float* rstd) {
    for (int64_t r = 0; r < rows; ++r) {
        const float* __restrict xr = x + r * n;
        float* __restrict yr = y + r * n;
        const float meanSquare = sumOfSquares(xr, n) / float(n);
        const float inv = 1.0f / std::sqrt(meanSquare + eps);
        rstd[r] = inv;
        for (int64_t j = 0; j < n; ++j) yr[j] = w[j] * (xr[j] * inv);
    }
}

void rmsNormBackwardRows(const float* dy, const float* x, const float* w, const float* rstd, int64_t rows, int64_t n,
                         float* dx, float* dwPartial) {
    for (int64_t r = 0; r < rows; ++r) {
        const float* __restrict dyr = dy + r * n;
        const float* __restrict xr = x + r * n;
        float* __restrict dxr = dx + r * n;
        const float inv = rstd[r];
        // mean(g * xhat) = rstd * sum(dy * w * x) / n
        float acc[kLanes] = {};
        int64_t j = 0;
        for (; j + kLanes <= n; j += kLanes)
            for (int l = 0; l < kLanes; ++l) acc[l] += dyr[j + l] * w[j + l] * xr[j + l];
        float s = 0.0f;
        for (; j < n; ++j) s += dyr[j] * w[j] * xr[j];
        for (int l = 0; l < kLanes; ++l) s += acc[l];
        const float coef = inv * inv * s / float(n);  // xhat * mean(g * xhat) = x * rstd^2 * sum / n
        for (int64_t k = 0; k < n; ++k) dxr[k] = inv * (dyr[k] * w[k] - xr[k] * coef);
        if (dwPartial)
            for (int64_t k = 0; k < n; ++k) dwPartial[k] += dyr[k] * (xr[k] * inv);
    }
}

void ropeForwardRow(const float* x, const float* c, const float* s, int64_t d, float* y) {
    const int64_t h = d / 2;
    const float* __restrict x1 = x;
    const float* __restrict x2 = x + h;
    float* __restrict y1 = y;
    float* __restrict y2 = y + h;
    for (int64_t j = 0; j < h; ++j) y1[j] = x1[j] * c[j] + (-x2[j]) * s[j];
    for (int64_t j = 0; j < h; ++j) y2[j] = x2[j] * c[h + j] + x1[j] * s[h + j];
}

void ropeBackwardRow(const float* dy, const float* c, const float* s, int64_t d, float* dx) {
    const int64_t h = d / 2;
    const float* __restrict dy1 = dy;
    const float* __restrict dy2 = dy + h;
    float* __restrict dx1 = dx;
    float* __restrict dx2 = dx + h;
    for (int64_t j = 0; j < h; ++j) dx1[j] = dy1[j] * c[j] + dy2[j] * s[h + j];
    for (int64_t j = 0; j < h; ++j) dx2[j] = dy2[j] * c[h + j] - dy1[j] * s[j];
}

}  // namespace fts::kernels
