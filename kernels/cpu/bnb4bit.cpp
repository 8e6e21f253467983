// bitsandbytes' 4-bit format (see bnb4bit.h). Every operation is one float32 operation, in the order bitsandbytes
// does it (compiled without contraction: the one fused multiply-add is explicit, as in bitsandbytes' x86 build).
#include "kernels/cpu/bnb4bit.h"

#include "kernels/kernel_types.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

namespace fts::kernels {

namespace {

constexpr std::array<float, 16> kNf4 = {-1.0f,
                                        -0.6961928009986877f,
                                        -0.5250730514526367f,
                                        -0.39491748809814453f,
                                        -0.28444138169288635f,
                                        -0.18477343022823334f,
                                        -0.09105003625154495f,
                                        0.0f,
                                        0.07958029955625534f,
                                        0.16093020141124725f,
                                        0.24611230194568634f,
                                        0.33791524171829224f,
                                        0.44070982933044434f,
                                        0.5626170039176941f,
                                        0.7229568362236023f,
                                        1.0f};

// FP4 (e2m1, bias 2, code 0b001 the subnormal 0.0625; bit 3 the sign) over 12. Code 8 ("-0") decodes to 0.
std::array<float, 16> makeFp4() {
    const float raw[16] = {0, 0.0625f, 8, 12, 4, 6, 2, 3, 0, -0.0625f, -8, -12, -4, -6, -2, -3};
    std::array<float, 16> c{};
    for (int i = 0; i < 16; ++i) c[size_t(i)] = raw[i] / 12.0f;
    return c;
}

// The codes in ascending order of value (a stable sort of the codebook): bucket b of the sorted midpoints is code
// kSortedToCode[b]. NF4 is sorted already.
constexpr std::array<uint8_t, 16> kFp4SortedToCode = {11, 10, 13, 12, 15, 14, 9, 0, 8, 1, 6, 7, 4, 5, 2, 3};

struct Codebook {
    std::array<float, 16> value;
    std::array<uint8_t, 16> sortedToCode;
    std::array<float, 15> bounds;  // midpoints of the sorted values
};

Codebook makeCodebook(Quant4Type type) {
    Codebook c;
    c.value = type == Quant4Type::Nf4 ? kNf4 : makeFp4();
    for (int i = 0; i < 16; ++i)
        c.sortedToCode[size_t(i)] = type == Quant4Type::Nf4 ? uint8_t(i) : kFp4SortedToCode[size_t(i)];
    for (int k = 0; k < 15; ++k) {
        const float lo = c.value[c.sortedToCode[size_t(k)]], hi = c.value[c.sortedToCode[size_t(k + 1)]];
        c.bounds[size_t(k)] = (lo + hi) / 2.0f;
    }
    return c;
}

const Codebook& codebook(Quant4Type type) {
    static const Codebook nf4 = makeCodebook(Quant4Type::Nf4), fp4 = makeCodebook(Quant4Type::Fp4);
    return type == Quant4Type::Nf4 ? nf4 : fp4;
}

// torch.bucketize(s, bounds, right=False): the number of bounds strictly below s.
inline uint8_t codeOf(const Codebook& c, float s) {
    int b = 0;
    while (b < 15 && c.bounds[size_t(b)] < s) ++b;
    return c.sortedToCode[size_t(b)];
}

inline float clampUnit(float v) { return std::min(1.0f, std::max(-1.0f, v)); }

std::array<float, 256> makeDynamicMap() {
    std::array<float, 256> out{};
    size_t n = 0;
    for (int i = 0; i < 7; ++i) {
        const int k = (1 << i) + 1;
        const float step = (1.0f - 0.1f) / float(k - 1);  // torch.linspace(0.1, 1.0, k) in float32
        float b[65];
        for (int j = 0; j < k; ++j)
            b[j] = j < k / 2 ? std::fmaf(step, float(j), 0.1f) : std::fmaf(-step, float(k - 1 - j), 1.0f);
        const float scale = float(std::pow(10.0, double(i - 6)));
        for (int j = 0; j + 1 < k; ++j) {
            const float mean = (b[j] + b[j + 1]) / 2.0f;
            out[n++] = scale * mean;
            out[n++] = -scale * mean;
        }
    }
    out[n++] = 0.0f;
    out[n++] = 1.0f;
    std::sort(out.begin(), out.end());
    return out;
}

// bitsandbytes' CPU lookup from a normalised value's 16-bit position to its code: the first code whose midpoint
// with the next is not below the position's value.
struct QuantizeLut {
    std::array<uint8_t, 65536> code;
};

QuantizeLut makeLut(const float* code) {
    float mid[255];
    for (int k = 0; k < 255; ++k) mid[k] = 0.5f * (code[k] + code[k + 1]);
    QuantizeLut lut;
    int k = 0;
    for (int i = 0; i < 65536; ++i) {
        const float v = (float(i) + float(i)) / 65535.0f - 1.0f;
        while (k < 255 && mid[k] < v) ++k;
        lut.code[size_t(i)] = uint8_t(k);
    }
    return lut;
}

}  // namespace

const float* quant4Codebook(Quant4Type type) { return codebook(type).value.data(); }

void quantize4bit(const float* x, int64_t n, int64_t blocksize, Quant4Type type, uint8_t* packed, float* absmax) {
    const Codebook& c = codebook(type);
    const int64_t blocks = quant4Blocks(n, blocksize);
    auto put = [&](int64_t i, uint8_t code) {
        uint8_t& byte = packed[i / 2];
        byte = i % 2 == 0 ? uint8_t(code << 4) : uint8_t(byte | code);
    };
    for (int64_t b = 0; b < blocks; ++b) {
        const int64_t lo = b * blocksize, len = std::min(blocksize, n - lo);
        float am = 0.0f;
        for (int64_t i = 0; i < len; ++i) am = std::max(am, std::fabs(x[lo + i]));
        if (len == blocksize) {  // a full block: times the reciprocal; the absmax stored as it is
            const float inv = 1.0f / std::max(am, 1e-38f);
            for (int64_t i = 0; i < len; ++i) put(lo + i, codeOf(c, clampUnit(x[lo + i] * inv)));
            absmax[b] = am;
        } else {  // the trailing partial block: divided by its absmax, clamped and stored clamped
            am = std::max(am, 1e-38f);
            for (int64_t i = 0; i < len; ++i) put(lo + i, codeOf(c, clampUnit(x[lo + i] / am)));
            absmax[b] = am;
        }
    }
    if (n % 2 == 1) put(n, codeOf(c, 0.0f));  // the padding value 0.0 fills the last byte's low nibble
}

void dequantize4bitReference(const uint8_t* packed, const float* absmax, int64_t n, int64_t blocksize, Quant4Type type,
                             float* out) {
    bnb4bit_detail::dequantizeScalarFrom(packed, absmax, 0, n, blocksize, quant4Codebook(type), out);
}

void dequantize4bit(const uint8_t* packed, const float* absmax, int64_t n, int64_t blocksize, Quant4Type type,
                    float* out, CpuIsa isa) {
    if (!cpuIsaSupported(isa))
        throw KernelError(std::string("dequantize4bit: this CPU does not support the ") + cpuIsaName(isa) + " variant");
    const float* lut = quant4Codebook(type);
    switch (isa) {
        case CpuIsa::Avx512:
            return bnb4bit_detail::dequantizeAvx512(packed, absmax, n, blocksize, lut, out);
        case CpuIsa::Avx2:
            return bnb4bit_detail::dequantizeAvx2(packed, absmax, n, blocksize, lut, out);
        case CpuIsa::Scalar:
            break;
    }
    bnb4bit_detail::dequantizeScalarFrom(packed, absmax, 0, n, blocksize, lut, out);
}

void dequantize4bit(const uint8_t* packed, const float* absmax, int64_t n, int64_t blocksize, Quant4Type type,
                    float* out) {
    dequantize4bit(packed, absmax, n, blocksize, type, out, bestCpuIsa());
}

const float* dynamicMap8bit() {
    static const std::array<float, 256> map = makeDynamicMap();
    return map.data();
}

void quantizeBlockwise8bit(const float* x, int64_t n, const float* code, uint8_t* q, float* absmax) {
    // The dynamic map's lookup is made once; another codebook's for this call.
    static const QuantizeLut dynamicLut = makeLut(dynamicMap8bit());
    QuantizeLut local;
    const QuantizeLut* lut = &dynamicLut;
    if (!std::equal(code, code + 256, dynamicMap8bit())) {
        local = makeLut(code);
        lut = &local;
    }
    const int64_t blocks = quant4Blocks(n, kNestedBlocksize);
    for (int64_t b = 0; b < blocks; ++b) {
        const int64_t lo = b * kNestedBlocksize, len = std::min(kNestedBlocksize, n - lo);
        float am = 0.0f;
        for (int64_t i = 0; i < len; ++i) am = std::max(am, std::fabs(x[lo + i]));
        absmax[b] = am;
        if (am == 0.0f) {
            std::fill(q + lo, q + lo + len, uint8_t(0));
            continue;
        }
        const float inv = 1.0f / am;
        for (int64_t i = 0; i < len; ++i) {
            const float s = clampUnit(x[lo + i] * inv);
            const float t = (s + 1.0f) * 0.5f;
            const auto j = uint16_t(int(std::trunc(std::fmaf(t, 65535.0f, 0.5f))));
            q[lo + i] = lut->code[j];
        }
    }
}

void dequantizeBlockwise8bit(const uint8_t* q, const float* absmax, int64_t n, const float* code, float offset,
                             float* out) {
    for (int64_t i = 0; i < n; ++i) {
        const float scaled = code[q[i]] * absmax[i / kNestedBlocksize];
        out[i] = scaled + offset;
    }
}

}  // namespace fts::kernels
