// GGUF v3 serialisation (see gguf_writer.h). All integers little-endian; strings are a u64 length and the bytes
// (no terminator); an array is its element type (u32), its count (u64), then the elements.
#include "core/gguf/gguf_writer.h"

#include <cstring>
#include <set>

#include "core/util/atomic_file_writer.h"
#include "core/util/error.h"

namespace fts::gguf {
namespace {

// Builds the header in memory (metadata and tensor infos: small next to the data).
class Bytes {
public:
    template <typename T>
    void put(T v) {
        char raw[sizeof(T)];
        std::memcpy(raw, &v, sizeof(T));
        m_out.append(raw, sizeof(T));
    }
    void str(const std::string& s) {
        put<uint64_t>(s.size());
        m_out += s;
    }
    void pad(uint64_t alignment) {
        while (m_out.size() % alignment != 0) m_out.push_back('\0');
    }
    std::string& out() { return m_out; }

private:
    std::string m_out;
};

void putValue(Bytes& b, const MetadataValue& v) {
    b.put<uint32_t>(static_cast<uint32_t>(v.type));
    switch (v.type) {
        case ValueType::U32:
            b.put<uint32_t>(static_cast<uint32_t>(v.u));
            return;
        case ValueType::I32:
            b.put<int32_t>(static_cast<int32_t>(v.i));
            return;
        case ValueType::F32:
            b.put<float>(static_cast<float>(v.f));
            return;
        case ValueType::Bool:
            b.put<uint8_t>(v.b ? 1 : 0);
            return;
        case ValueType::String:
            b.str(v.s);
            return;
        case ValueType::Array:
            b.put<uint32_t>(static_cast<uint32_t>(v.elementType));
            if (v.elementType == ValueType::String) {
                b.put<uint64_t>(v.strings.size());
                for (const std::string& s : v.strings) b.str(s);
            } else if (v.elementType == ValueType::I32) {
                b.put<uint64_t>(v.ints.size());
                for (int32_t x : v.ints) b.put<int32_t>(x);
            } else if (v.elementType == ValueType::F32) {
                b.put<uint64_t>(v.floats.size());
                for (float x : v.floats) b.put<float>(x);
            } else if (v.elementType == ValueType::Bool) {  // one byte each, as gguf-py writes numpy bools
                b.put<uint64_t>(v.ints.size());
                for (int32_t x : v.ints) b.put<uint8_t>(x ? 1 : 0);
            } else {
                throw FormatError("GGUF metadata: arrays of this element type are not written");
            }
            return;
        default:
            throw FormatError("GGUF metadata: this value type is not written");
    }
}

}  // namespace

MetadataValue MetadataValue::u32(uint32_t v) {
    MetadataValue m;
    m.type = ValueType::U32;
    m.u = v;
    return m;
}
MetadataValue MetadataValue::i32(int32_t v) {
    MetadataValue m;
    m.type = ValueType::I32;
    m.i = v;
    return m;
}
MetadataValue MetadataValue::f32(float v) {
    MetadataValue m;
    m.type = ValueType::F32;
    m.f = v;
    return m;
}
MetadataValue MetadataValue::boolean(bool v) {
    MetadataValue m;
    m.type = ValueType::Bool;
    m.b = v;
    return m;
}
MetadataValue MetadataValue::string(std::string v) {
    MetadataValue m;
    m.type = ValueType::String;
    m.s = std::move(v);
    return m;
}
MetadataValue MetadataValue::stringArray(std::vector<std::string> v) {
    MetadataValue m;
    m.type = ValueType::Array;
    m.elementType = ValueType::String;
    m.strings = std::move(v);
    return m;
}
MetadataValue MetadataValue::i32Array(std::vector<int32_t> v) {
    MetadataValue m;
    m.type = ValueType::Array;
    m.elementType = ValueType::I32;
    m.ints = std::move(v);
    return m;
}
MetadataValue MetadataValue::boolArray(std::vector<bool> v) {
    MetadataValue m;
    m.type = ValueType::Array;
    m.elementType = ValueType::Bool;
    for (bool x : v) m.ints.push_back(x ? 1 : 0);
    return m;
}
MetadataValue MetadataValue::f32Array(std::vector<float> v) {
    MetadataValue m;
    m.type = ValueType::Array;
    m.elementType = ValueType::F32;
    m.floats = std::move(v);
    return m;
}

uint64_t TensorInfo::bytes() const {
    int64_t rows = 1;
    for (size_t d = 1; d < ne.size(); ++d) rows *= ne[d];
    return static_cast<uint64_t>(rows) * rowBytes(type, ne.empty() ? 1 : ne[0]);
}

void writeGguf(const std::filesystem::path& path, const std::vector<MetadataEntry>& metadata,
               const std::vector<TensorInfo>& tensors,
               const std::function<void(uint64_t done, uint64_t total)>& progress) {
    std::set<std::string> keys, names;
    for (const MetadataEntry& e : metadata)
        if (!keys.insert(e.key).second) throw FormatError(path.string() + ": metadata key " + e.key + " given twice");
    Bytes header;
    header.out() = "GGUF";
    header.put<uint32_t>(3);
    header.put<uint64_t>(tensors.size());
    header.put<uint64_t>(metadata.size());
    for (const MetadataEntry& e : metadata) {
        header.str(e.key);
        putValue(header, e.value);
    }
    uint64_t offset = 0, total = 0;
    for (const TensorInfo& t : tensors) {
        if (!names.insert(t.name).second) throw FormatError(path.string() + ": tensor " + t.name + " given twice");
        const GgmlTypeTraits traits = typeTraits(t.type);
        if (t.ne.empty() || t.ne.size() > 4 || t.ne[0] % traits.blockElements != 0)
            throw FormatError(path.string() + ": tensor " + t.name + " cannot be stored as " +
                              std::string(typeName(t.type)) + " (rows of " +
                              std::to_string(t.ne.empty() ? 0 : t.ne[0]) + " values)");
        header.str(t.name);
        header.put<uint32_t>(static_cast<uint32_t>(t.ne.size()));
        for (int64_t n : t.ne) header.put<uint64_t>(static_cast<uint64_t>(n));
        header.put<uint32_t>(static_cast<uint32_t>(t.type));
        header.put<uint64_t>(offset);
        offset += (t.bytes() + kAlignment - 1) / kAlignment * kAlignment;
        total += t.bytes();
    }
    header.pad(kAlignment);

    AtomicFileWriter out(path);
    out.write(header.out());
    uint64_t done = 0;
    static const char zeros[kAlignment] = {};
    for (const TensorInfo& t : tensors) {
        uint64_t written = 0;
        t.produce([&](const void* bytes, size_t size) {
            written += size;
            if (written > t.bytes())
                throw FormatError(path.string() + ": tensor " + t.name + " produced more than its " +
                                  std::to_string(t.bytes()) + " bytes");
            out.write(bytes, size);
        });
        if (written != t.bytes())
            throw FormatError(path.string() + ": tensor " + t.name + " produced " + std::to_string(written) +
                              " bytes, expected " + std::to_string(t.bytes()));
        const uint64_t padding = (kAlignment - written % kAlignment) % kAlignment;
        out.write(zeros, padding);
        done += written;
        if (progress) progress(done, total);
    }
    out.commit();
}

}  // namespace fts::gguf
