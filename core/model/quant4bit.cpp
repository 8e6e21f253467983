// Quant4Weight (see quant4bit.h): LibTorch tensors around the bnb4bit kernels.
#include "core/model/quant4bit.h"

#include <ATen/Parallel.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/model/language_model.h"
#include "core/util/error.h"
#include "core/util/json_fields.h"
#include "core/util/json_parse.h"

namespace fts {

int64_t Quant4Weight::numel() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

Quant4Weight quantize4bit(const torch::Tensor& weight, Quant4Type type, int64_t blocksize, bool doubleQuant) {
    const auto dt = weight.scalar_type();
    if (dt != torch::kFloat32 && dt != torch::kBFloat16 && dt != torch::kFloat16)
        throw Error("4-bit quantization: the weight must be float32, bfloat16 or float16, found " +
                    std::string(c10::toString(dt)));
    if (blocksize < 32 || blocksize > 4096 || (blocksize & (blocksize - 1)) != 0)
        throw Error("4-bit quantization: blocksize " + std::to_string(blocksize) +
                    ": expected a power of two from 32 to 4096");
    Quant4Weight q;
    q.type = type;
    q.blocksize = blocksize;
    q.shape = weight.sizes().vec();
    q.dtype = dt;
    // Row-major, as float32 (exact from bfloat16 and float16).
    const torch::Tensor flat = weight.detach().to(torch::kCPU, torch::kFloat32).contiguous().reshape({-1});
    const int64_t n = flat.numel(), blocks = kernels::quant4Blocks(n, blocksize);
    q.packed = torch::zeros({(n + 1) / 2, 1}, torch::kUInt8);
    torch::Tensor absmax = torch::empty({blocks}, torch::kFloat32);
    // In parallel over whole blocks: only the tensor's last block may be partial (and its last byte half used),
    // and it ends the last range as it ends the tensor, so every range quantizes as the whole call would.
    const float* values = flat.data_ptr<float>();
    uint8_t* codes = q.packed.data_ptr<uint8_t>();
    float* scales = absmax.data_ptr<float>();
    at::parallel_for(0, blocks, std::max<int64_t>(1, 16384 / blocksize), [&](int64_t b0, int64_t b1) {
        const int64_t from = b0 * blocksize, to = std::min(n, b1 * blocksize);
        kernels::quantize4bit(values + from, to - from, blocksize, type, codes + from / 2, scales + b0);
    });
    if (!doubleQuant) {
        q.absmax = absmax;
        return q;
    }
    q.offset = absmax.mean().item<float>();
    const torch::Tensor centred = absmax - q.offset;
    q.nestedCode = torch::from_blob(const_cast<float*>(kernels::dynamicMap8bit()), {256}, torch::kFloat32).clone();
    q.absmax = torch::empty({blocks}, torch::kUInt8);
    q.nestedAbsmax = torch::empty({kernels::quant4Blocks(blocks, kernels::kNestedBlocksize)}, torch::kFloat32);
    kernels::quantizeBlockwise8bit(centred.data_ptr<float>(), blocks, q.nestedCode.data_ptr<float>(),
                                   q.absmax.data_ptr<uint8_t>(), q.nestedAbsmax.data_ptr<float>());
    return q;
}

torch::Tensor quant4Absmax(const Quant4Weight& q) {
    if (!q.nested()) return q.absmax.to(torch::kCPU, torch::kFloat32).contiguous();
    const torch::Tensor codes = q.absmax.to(torch::kCPU, torch::kUInt8).contiguous();
    const torch::Tensor nested = q.nestedAbsmax.to(torch::kCPU, torch::kFloat32).contiguous();
    const torch::Tensor code = q.nestedCode.to(torch::kCPU, torch::kFloat32).contiguous();
    const int64_t blocks = codes.numel();
    if (code.numel() != 256 || nested.numel() < kernels::quant4Blocks(blocks, kernels::kNestedBlocksize))
        throw Error("4-bit weight: the nested quantization state does not fit its " + std::to_string(blocks) +
                    " blocks");
    torch::Tensor out = torch::empty({blocks}, torch::kFloat32);
    kernels::dequantizeBlockwise8bit(codes.data_ptr<uint8_t>(), nested.data_ptr<float>(), blocks,
                                     code.data_ptr<float>(), q.offset, out.data_ptr<float>());
    return out;
}

torch::Tensor dequantize4bit(const Quant4Weight& q, torch::Dtype dtype) {
    const int64_t n = q.numel();
    const torch::Tensor packed = q.packed.to(torch::kCPU).contiguous().view(torch::kUInt8).reshape({-1});
    const torch::Tensor absmax = quant4Absmax(q);
    if (packed.numel() < (n + 1) / 2 || absmax.numel() < kernels::quant4Blocks(n, q.blocksize))
        throw Error("4-bit weight: " + std::to_string(packed.numel()) + " bytes and " + std::to_string(absmax.numel()) +
                    " scales do not hold a weight of " + std::to_string(n) + " values in blocks of " +
                    std::to_string(q.blocksize));
    torch::Tensor out = torch::empty({n}, torch::kFloat32);
    // In parallel over whole blocks (a block starts at an even index: its codes start at a byte).
    const uint8_t* codes = packed.data_ptr<uint8_t>();
    const float* scales = absmax.data_ptr<float>();
    float* values = out.data_ptr<float>();
    const int64_t blocks = kernels::quant4Blocks(n, q.blocksize);
    at::parallel_for(0, blocks, std::max<int64_t>(1, 16384 / q.blocksize), [&](int64_t b0, int64_t b1) {
        const int64_t from = b0 * q.blocksize, to = std::min(n, b1 * q.blocksize);
        kernels::dequantize4bit(codes + from / 2, scales + b0, to - from, q.blocksize, q.type, values + from);
    });
    return out.to(dtype).reshape(q.shape);
}

torch::Tensor dequantize4bitOnDevice(const Quant4Weight& q, torch::Dtype dtype) {
    const torch::Device device = q.packed.device();
    if (device.is_cpu()) return dequantize4bit(q, dtype).to(device);
    static const bool useKernel = [] {
        const char* v = std::getenv("FTS_CUDA_DEQUANT");
        return quant4CudaKernelBuilt() && !(v && std::strcmp(v, "0") == 0);
    }();
    if (device.is_cuda() && useKernel) return dequantize4bitCuda(q, dtype);
    return dequantize4bitOps(q, dtype);
}

torch::Tensor dequantize4bitOps(const Quant4Weight& q, torch::Dtype dtype) {
    const torch::Device device = q.packed.device();
    const auto f32 = torch::TensorOptions().dtype(torch::kFloat32).device(device);
    const int64_t n = q.numel();
    torch::Tensor absmax;
    if (q.nested()) {
        const torch::Tensor codes = q.absmax.to(device, torch::kLong).reshape({-1});
        const torch::Tensor scale = q.nestedAbsmax.to(device, torch::kFloat32)
                                        .repeat_interleave(kernels::kNestedBlocksize)
                                        .narrow(0, 0, codes.numel());
        absmax = q.nestedCode.to(device, torch::kFloat32).index({codes}).mul(scale).add(q.offset);
    } else {
        absmax = q.absmax.to(device, torch::kFloat32).reshape({-1});
    }
    const torch::Tensor bytes = q.packed.contiguous().view(torch::kUInt8).reshape({-1});
    const torch::Tensor codes = torch::stack({bytes.bitwise_right_shift(4), bytes.bitwise_and(15)}, 1)
                                    .reshape({-1})
                                    .narrow(0, 0, n)
                                    .to(torch::kLong);
    const torch::Tensor book =
        torch::from_blob(const_cast<float*>(kernels::quant4Codebook(q.type)), {16}, torch::kFloat32).to(f32);
    const torch::Tensor scale = absmax.repeat_interleave(q.blocksize).narrow(0, 0, n);
    return book.index({codes}).mul(scale).to(dtype).reshape(q.shape);
}

namespace {

const char* typeName(Quant4Type t) { return t == Quant4Type::Nf4 ? "nf4" : "fp4"; }

// A float32 as Python's repr of it as a double: the shortest digits that read back as the same double, in fixed
// notation when the decimal exponent is in [-4, 16), else as d.ddde-XX.
std::string pythonFloat(float f) {
    const double d = f;
    if (d == 0.0) return std::signbit(d) ? "-0.0" : "0.0";
    char buf[64];
    int precision = 1;
    for (; precision <= 17; ++precision) {
        std::snprintf(buf, sizeof buf, "%.*e", precision - 1, d);
        if (std::strtod(buf, nullptr) == d) break;
    }
    const std::string e = buf;  // [-]d.ddde[+-]XX
    const bool negative = e[0] == '-';
    const size_t ePos = e.find('e');
    std::string digits;
    for (size_t i = negative ? 1 : 0; i < ePos; ++i)
        if (e[i] != '.') digits += e[i];
    const int exponent = std::stoi(e.substr(ePos + 1));
    std::string out = negative ? "-" : "";
    if (exponent >= -4 && exponent < 16) {
        if (exponent < 0) {
            out += "0." + std::string(size_t(-exponent - 1), '0') + digits;
        } else if (size_t(exponent) + 1 >= digits.size()) {
            out += digits + std::string(size_t(exponent) + 1 - digits.size(), '0') + ".0";
        } else {
            out += digits.substr(0, size_t(exponent) + 1) + "." + digits.substr(size_t(exponent) + 1);
        }
        return out;
    }
    out += digits.substr(0, 1) + (digits.size() > 1 ? "." + digits.substr(1) : std::string());
    char ex[8];
    std::snprintf(ex, sizeof ex, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return out + ex;
}

}  // namespace

std::vector<std::pair<std::string, torch::Tensor>> quant4Tensors(const std::string& key, const Quant4Weight& q) {
    std::vector<std::pair<std::string, torch::Tensor>> out;
    out.emplace_back(key, q.packed);
    out.emplace_back(key + ".absmax", q.absmax);
    out.emplace_back(
        key + ".quant_map",
        torch::from_blob(const_cast<float*>(kernels::quant4Codebook(q.type)), {16}, torch::kFloat32).clone());
    if (q.nested()) {
        out.emplace_back(key + ".nested_absmax", q.nestedAbsmax);
        out.emplace_back(key + ".nested_quant_map", q.nestedCode);
    }
    // json.dumps with its default separators, in QuantState.as_dict's order.
    std::string shape;
    for (int64_t d : q.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    std::string json = std::string("{\"quant_type\": \"") + typeName(q.type) +
                       "\", \"blocksize\": " + std::to_string(q.blocksize) + ", \"dtype\": \"" +
                       torchDtypeConfigName(q.dtype) + "\", \"shape\": [" + shape + "]";
    if (q.nested())
        json +=
            ", \"nested_blocksize\": 256, \"nested_dtype\": \"float32\", \"nested_offset\": " + pythonFloat(q.offset);
    json += "}";
    torch::Tensor bytes = torch::empty({int64_t(json.size())}, torch::kUInt8);
    std::memcpy(bytes.data_ptr<uint8_t>(), json.data(), json.size());
    out.emplace_back(key + ".quant_state.bitsandbytes__" + typeName(q.type), bytes);
    return out;
}

std::optional<Quant4Weight> readQuant4Weight(const std::string& key,
                                             const std::function<torch::Tensor(const std::string&)>& find,
                                             const std::string& file) {
    Quant4Weight q;
    std::string stateKey;
    torch::Tensor state;
    for (Quant4Type t : {Quant4Type::Nf4, Quant4Type::Fp4}) {
        const std::string k = key + ".quant_state.bitsandbytes__" + typeName(t);
        if (torch::Tensor s = find(k); s.defined()) {
            stateKey = k;
            state = s;
            q.type = t;
        }
    }
    if (!state.defined()) return std::nullopt;
    auto fail = [&](const std::string& what) -> FormatError {
        return FormatError(file + ": 4-bit weight '" + key + "': " + what);
    };
    if (state.scalar_type() != torch::kUInt8) throw fail("'" + stateKey + "' must be uint8 (JSON bytes)");
    const torch::Tensor bytes = state.to(torch::kCPU).contiguous();
    nlohmann::json j;
    try {
        j = parseJson(std::string(reinterpret_cast<const char*>(bytes.data_ptr<uint8_t>()), size_t(bytes.numel())));
    } catch (const nlohmann::json::exception& e) {
        throw fail("'" + stateKey + "' is not JSON: " + e.what());
    }
    const std::string where = file + ": '" + stateKey + "'";
    q.blocksize = requiredField<int64_t>(j, "blocksize", where);
    const std::string dtype = requiredField<std::string>(j, "dtype", where);
    q.dtype = dtype == "bfloat16"  ? torch::kBFloat16
              : dtype == "float16" ? torch::kFloat16
              : dtype == "float32" ? torch::kFloat32
                                   : throw fail("dtype \"" + dtype + "\": expected float32, bfloat16 or float16");
    if (!j.contains("shape") || !j["shape"].is_array() || j["shape"].empty()) throw fail("\"shape\" must be a list");
    for (const auto& d : j["shape"]) {
        if (!jsonHolds<int64_t>(d) || d.get<int64_t>() < 1 || d.get<int64_t>() > (int64_t(1) << 40))
            throw fail("\"shape\" must list positive sizes, found " + jsonForMessage(j["shape"]));
        q.shape.push_back(d.get<int64_t>());
    }
    if (q.blocksize < 32 || q.blocksize > 4096 || (q.blocksize & (q.blocksize - 1)) != 0)
        throw fail("blocksize " + std::to_string(q.blocksize) + ": expected a power of two from 32 to 4096");
    const int64_t n = q.numel(), blocks = kernels::quant4Blocks(n, q.blocksize);
    q.packed = find(key);
    q.absmax = find(key + ".absmax");
    if (!q.packed.defined() || !q.absmax.defined()) throw fail("'" + key + "' or '" + key + ".absmax' is missing");
    // Other quant_storage dtypes are the same bytes (bitsandbytes reinterprets them).
    q.packed = q.packed.to(torch::kCPU).contiguous().view(torch::kUInt8).reshape({-1, 1});
    if (q.packed.size(0) != (n + 1) / 2)
        throw fail(std::to_string(q.packed.size(0)) + " bytes of codes; the shape " + jsonForMessage(j["shape"]) +
                   " needs " + std::to_string((n + 1) / 2));
    const bool nested = j.contains("nested_offset");
    if (q.absmax.numel() != blocks || q.absmax.scalar_type() != (nested ? torch::kUInt8 : torch::kFloat32))
        throw fail("'" + key + ".absmax' must be " + (nested ? "uint8" : "float32") + " with " +
                   std::to_string(blocks) + " values");
    if (nested) {
        if (requiredField<int64_t>(j, "nested_blocksize", where) != kernels::kNestedBlocksize)
            throw fail("nested_blocksize must be 256");
        q.offset = float(requiredField<double>(j, "nested_offset", where));
        q.nestedAbsmax = find(key + ".nested_absmax");
        q.nestedCode = find(key + ".nested_quant_map");
        if (!q.nestedAbsmax.defined() || !q.nestedCode.defined())
            throw fail("'" + key + ".nested_absmax' or '" + key + ".nested_quant_map' is missing");
        q.nestedAbsmax = q.nestedAbsmax.to(torch::kCPU, torch::kFloat32).contiguous();
        q.nestedCode = q.nestedCode.to(torch::kCPU, torch::kFloat32).contiguous();
        if (q.nestedCode.numel() != 256 ||
            q.nestedAbsmax.numel() != kernels::quant4Blocks(blocks, kernels::kNestedBlocksize))
            throw fail("the nested quantization state does not fit its " + std::to_string(blocks) + " blocks");
    }
    return q;
}

}  // namespace fts
