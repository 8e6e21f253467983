// The safetensors format (see safetensors.h): strict validation on read, reference-identical header on write.
// Layout: u64 little-endian N | N bytes of JSON header | data buffer covered exactly by the tensors' offsets.
#include "core/weights/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "core/util/atomic_file_writer.h"
#include "core/util/error.h"
#include "core/util/shape_text.h"
#include "core/util/json_parse.h"

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; big-endian hosts are unsupported");

namespace fts {
namespace fs = std::filesystem;

namespace {

constexpr uint64_t kMaxHeaderSize = 100'000'000;  // the reference implementation's limit

struct DtypeInfo {
    SafetensorsDtype dtype;
    std::string_view name;
    size_t size;
};
constexpr std::array<DtypeInfo, 15> kDtypes{{
    {SafetensorsDtype::Bool, "BOOL", 1},
    {SafetensorsDtype::U8, "U8", 1},
    {SafetensorsDtype::I8, "I8", 1},
    {SafetensorsDtype::F8E5M2, "F8_E5M2", 1},
    {SafetensorsDtype::F8E4M3, "F8_E4M3", 1},
    {SafetensorsDtype::I16, "I16", 2},
    {SafetensorsDtype::U16, "U16", 2},
    {SafetensorsDtype::F16, "F16", 2},
    {SafetensorsDtype::BF16, "BF16", 2},
    {SafetensorsDtype::I32, "I32", 4},
    {SafetensorsDtype::U32, "U32", 4},
    {SafetensorsDtype::F32, "F32", 4},
    {SafetensorsDtype::F64, "F64", 8},
    {SafetensorsDtype::I64, "I64", 8},
    {SafetensorsDtype::U64, "U64", 8},
}};

std::string supportedDtypeList() {
    std::string s;
    for (const auto& d : kDtypes) s += (s.empty() ? "" : ", ") + std::string(d.name);
    return s;
}

// numel * elementSize with overflow detection; nullopt on overflow or a negative dim.
std::optional<uint64_t> byteCount(const std::vector<int64_t>& shape, size_t elementSize) {
    uint64_t n = 1;
    for (int64_t d : shape) {
        if (d < 0) return std::nullopt;
        if (d != 0 && n > std::numeric_limits<uint64_t>::max() / uint64_t(d)) return std::nullopt;
        n *= uint64_t(d);
    }
    if (n != 0 && elementSize > std::numeric_limits<uint64_t>::max() / n) return std::nullopt;
    return n * elementSize;
}

std::string nameQuoted(const std::string& name) { return "'" + name + "'"; }

}  // namespace

std::string_view dtypeName(SafetensorsDtype dtype) { return kDtypes[size_t(dtype)].name; }
size_t dtypeSize(SafetensorsDtype dtype) { return kDtypes[size_t(dtype)].size; }
std::optional<SafetensorsDtype> parseDtypeName(std::string_view name) {
    for (const auto& d : kDtypes)
        if (d.name == name) return d.dtype;
    return std::nullopt;
}

int64_t TensorEntry::numel() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

uint64_t TensorView::nbytes() const {
    auto n = byteCount(shape, dtypeSize(dtype));
    if (!n) throw FormatError("safetensors tensor " + nameQuoted(name) + ": invalid shape " + shapeText(shape));
    return *n;
}

// ---------------------------------------------------------------------------------------------------------
// Reader
// ---------------------------------------------------------------------------------------------------------

SafetensorsFile::~SafetensorsFile() {
    if (m_map) ::munmap(m_map, m_mapSize);
}

void SafetensorsFile::releaseRange(uint64_t beginOffset, uint64_t endOffset) const {
    if (!m_map || endOffset <= beginOffset) return;
    static const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
    const auto begin = reinterpret_cast<uintptr_t>(m_dataStart + beginOffset) & ~(page - 1);
    const auto end = reinterpret_cast<uintptr_t>(m_dataStart + endOffset);
    ::madvise(reinterpret_cast<void*>(begin), size_t(end - begin), MADV_DONTNEED);  // advisory: failure changes nothing
}

const TensorEntry* SafetensorsFile::find(std::string_view name) const {
    auto it = m_index.find(std::string(name));
    return it == m_index.end() ? nullptr : &m_tensors[it->second];
}

namespace {

// Parses one tensor's header entry; `where` prefixes every message ("<file>: tensor 'x'").
TensorEntry parseEntry(const std::string& name, const nlohmann::json& info, const std::string& where) {
    using nlohmann::json;
    if (!info.is_object())
        throw FormatError(where + ": expected an object {dtype, shape, data_offsets}, found " + info.dump());
    TensorEntry e;
    e.name = name;
    auto dt = info.find("dtype");
    if (dt == info.end() || !dt->is_string()) throw FormatError(where + ": missing or non-string \"dtype\"");
    auto parsed = parseDtypeName(dt->get_ref<const std::string&>());
    if (!parsed)
        throw FormatError(where + ": unknown dtype \"" + dt->get<std::string>() +
                          "\" (supported: " + supportedDtypeList() + ")");
    e.dtype = *parsed;
    auto sh = info.find("shape");
    if (sh == info.end() || !sh->is_array()) throw FormatError(where + ": missing or non-array \"shape\"");
    for (const json& d : *sh) {
        if (!d.is_number_unsigned() || d.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))
            throw FormatError(where + ": shape " + sh->dump() + " must hold non-negative integers");
        e.shape.push_back(int64_t(d.get<uint64_t>()));
    }
    auto off = info.find("data_offsets");
    if (off == info.end() || !off->is_array() || off->size() != 2 || !(*off)[0].is_number_unsigned() ||
        !(*off)[1].is_number_unsigned())
        throw FormatError(where + ": \"data_offsets\" must be [begin, end] with non-negative integers, found " +
                          (off == info.end() ? std::string("nothing") : off->dump()));
    e.begin = (*off)[0].get<uint64_t>();
    e.end = (*off)[1].get<uint64_t>();
    if (e.begin > e.end)
        throw FormatError(where + ": data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
                          "] has begin > end");
    auto bytes = byteCount(e.shape, dtypeSize(e.dtype));
    if (!bytes) throw FormatError(where + ": shape " + shapeText(e.shape) + " overflows the byte count");
    if (*bytes != e.nbytes())
        throw FormatError(where + ": shape " + shapeText(e.shape) + " x " + std::string(dtypeName(e.dtype)) + " (" +
                          std::to_string(dtypeSize(e.dtype)) + " bytes each) needs " + std::to_string(*bytes) +
                          " bytes but data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
                          "] span " + std::to_string(e.nbytes()));
    return e;
}

}  // namespace

std::shared_ptr<SafetensorsFile> SafetensorsFile::open(const fs::path& path) {
    const std::string file = path.string();
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw IoError(file + ": cannot open safetensors file: " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        int err = errno;
        ::close(fd);
        throw IoError(file + ": cannot stat: " + std::strerror(err));
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        throw IoError(file + ": not a regular file");
    }
    const uint64_t fileSize = uint64_t(st.st_size);
    if (fileSize < 8) {
        ::close(fd);
        throw FormatError(file + ": not a safetensors file: " + std::to_string(fileSize) +
                          " bytes, shorter than the 8-byte header length");
    }
    void* map = ::mmap(nullptr, size_t(fileSize), PROT_READ, MAP_PRIVATE, fd, 0);
    int mapErr = errno;
    ::close(fd);
    if (map == MAP_FAILED) throw IoError(file + ": mmap failed: " + std::strerror(mapErr));

    std::shared_ptr<SafetensorsFile> self(new SafetensorsFile());
    self->m_path = path;
    self->m_map = map;
    self->m_mapSize = size_t(fileSize);
    const auto* base = static_cast<const unsigned char*>(map);

    uint64_t n = 0;
    std::memcpy(&n, base, 8);  // little-endian host (static_assert above)
    if (n > kMaxHeaderSize)
        throw FormatError(file + ": header length " + std::to_string(n) + " exceeds the 100 MB limit (corrupt file?)");
    if (n > fileSize - 8)
        throw FormatError(file + ": header length " + std::to_string(n) + " runs past the end of the file (" +
                          std::to_string(fileSize) + " bytes): truncated or not a safetensors file");
    self->m_headerSize = n;
    std::string_view headerText(reinterpret_cast<const char*>(base + 8), size_t(n));
    if (headerText.empty() || headerText.front() != '{')
        throw FormatError(file + ": header is not a JSON object (it must start with '{')");

    // Parse, recording duplicate top-level keys (nlohmann would silently keep the last one).
    std::set<std::string> seen;
    std::vector<std::string> duplicates;
    nlohmann::json header;
    try {
        checkJsonLimits(headerText);
        header = nlohmann::json::parse(headerText.begin(), headerText.end(),
                                       [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
                                           if (event == nlohmann::json::parse_event_t::key && depth == 1) {
                                               const auto& key = parsed.get_ref<const std::string&>();
                                               if (!seen.insert(key).second) duplicates.push_back(key);
                                           }
                                           return true;
                                       });
    } catch (const nlohmann::json::exception& e) {
        throw FormatError(file + ": header is not valid JSON: " + e.what());
    }
    if (!header.is_object()) throw FormatError(file + ": header is not a JSON object");
    if (!duplicates.empty())
        throw FormatError(file + ": duplicate tensor name " + nameQuoted(duplicates.front()) + " in the header");

    const uint64_t bufferSize = fileSize - 8 - n;
    for (auto it = header.begin(); it != header.end(); ++it) {
        if (it.key() == "__metadata__") {
            if (!it->is_object()) throw FormatError(file + ": \"__metadata__\" must be an object of strings");
            for (auto m = it->begin(); m != it->end(); ++m) {
                if (!m->is_string())
                    throw FormatError(file + ": \"__metadata__\" value for key " + nameQuoted(m.key()) +
                                      " must be a string, found " + m->dump());
                self->m_metadata[m.key()] = m->get<std::string>();
            }
            continue;
        }
        const std::string where = file + ": tensor " + nameQuoted(it.key());
        TensorEntry e = parseEntry(it.key(), *it, where);
        if (e.end > bufferSize)
            throw FormatError(where + ": data_offsets end " + std::to_string(e.end) + " is beyond the data buffer (" +
                              std::to_string(bufferSize) + " bytes after the header): truncated file or bad offsets");
        self->m_tensors.push_back(std::move(e));
    }

    // Coverage: sorted by offset, tensors must tile [0, bufferSize) exactly (no overlap, no gap, no tail).
    auto& ts = self->m_tensors;
    std::stable_sort(ts.begin(), ts.end(), [](const TensorEntry& a, const TensorEntry& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    uint64_t expected = 0;
    const TensorEntry* prev = nullptr;
    for (const auto& e : ts) {
        if (e.begin < expected)
            throw FormatError(file + ": tensor " + nameQuoted(e.name) + " (bytes " + std::to_string(e.begin) + ".." +
                              std::to_string(e.end) + ") overlaps tensor " + nameQuoted(prev->name) + " (bytes " +
                              std::to_string(prev->begin) + ".." + std::to_string(prev->end) + ")");
        if (e.begin > expected)
            throw FormatError(file + ": bytes " + std::to_string(expected) + ".." + std::to_string(e.begin) +
                              " of the data buffer, before tensor " + nameQuoted(e.name) +
                              ", belong to no tensor (offsets must be contiguous)");
        expected = e.end;
        prev = &e;
    }
    if (expected != bufferSize)
        throw FormatError(
            file + ": " + std::to_string(bufferSize - expected) +
            " trailing bytes after the last tensor belong to no tensor (offsets must cover the whole buffer)");

    for (size_t i = 0; i < ts.size(); ++i) self->m_index.emplace(ts[i].name, i);
    self->m_dataStart = base + 8 + n;
    return self;
}

// ---------------------------------------------------------------------------------------------------------
// Writer
// ---------------------------------------------------------------------------------------------------------

namespace {

std::string jsonString(const std::string& s, const std::string& what) {
    try {
        return nlohmann::json(s).dump();
    } catch (const nlohmann::json::exception&) {
        throw FormatError("safetensors " + what + " " + nameQuoted(s) + " is not valid UTF-8");
    }
}

std::vector<const TensorView*> writeOrder(const std::vector<TensorView>& tensors) {
    std::vector<const TensorView*> order;
    order.reserve(tensors.size());
    for (const auto& t : tensors) order.push_back(&t);
    // Reference order: descending dtype (alignment order of the enum), then name.
    std::sort(order.begin(), order.end(), [](const TensorView* a, const TensorView* b) {
        if (a->dtype != b->dtype) return int(a->dtype) > int(b->dtype);
        return a->name < b->name;
    });
    return order;
}

}  // namespace

std::string safetensorsHeader(const std::vector<TensorView>& tensors,
                              const std::map<std::string, std::string>& metadata) {
    std::set<std::string> names;
    for (const auto& t : tensors) {
        if (t.name.empty()) throw FormatError("safetensors: a tensor has an empty name");
        if (t.name == "__metadata__")
            throw FormatError("safetensors: \"__metadata__\" is reserved and cannot name a tensor");
        if (!names.insert(t.name).second) throw FormatError("safetensors: duplicate tensor name " + nameQuoted(t.name));
    }
    std::string h = "{";
    bool first = true;
    if (!metadata.empty()) {
        h += "\"__metadata__\":{";
        bool firstKey = true;
        for (const auto& [k, v] : metadata) {
            h += (firstKey ? "" : ",") + jsonString(k, "metadata key") + ":" + jsonString(v, "metadata value");
            firstKey = false;
        }
        h += "}";
        first = false;
    }
    uint64_t offset = 0;
    for (const TensorView* t : writeOrder(tensors)) {
        const uint64_t size = t->nbytes();
        h += (first ? "" : ",") + jsonString(t->name, "tensor name") + ":{\"dtype\":\"" +
             std::string(dtypeName(t->dtype)) + "\",\"shape\":[";
        for (size_t i = 0; i < t->shape.size(); ++i) h += (i ? "," : "") + std::to_string(t->shape[i]);
        h += "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + size) + "]}";
        offset += size;
        first = false;
    }
    h += "}";
    h.append((8 - h.size() % 8) % 8, ' ');  // data starts 8-byte aligned
    return h;
}

uint64_t writeSafetensors(const fs::path& path, const std::vector<TensorView>& tensors,
                          const std::map<std::string, std::string>& metadata) {
    const std::string header = safetensorsHeader(tensors, metadata);
    AtomicFileWriter out(path);
    const uint64_t n = header.size();
    out.write(&n, 8);
    out.write(header);
    for (const TensorView* t : writeOrder(tensors)) {
        const uint64_t want = t->nbytes();
        if (t->data || want == 0) {
            if (want) out.write(t->data, size_t(want));
            continue;
        }
        if (!t->fill)
            throw FormatError(path.string() + ": tensor " + nameQuoted(t->name) +
                              " has neither data nor a fill function");
        uint64_t got = 0;
        t->fill([&](const void* p, size_t size) {
            got += size;
            if (got > want)
                throw FormatError(path.string() + ": tensor " + nameQuoted(t->name) + " produced more than its " +
                                  std::to_string(want) + " bytes");
            out.write(p, size);
        });
        if (got != want)
            throw FormatError(path.string() + ": tensor " + nameQuoted(t->name) + " produced " + std::to_string(got) +
                              " bytes, expected " + std::to_string(want));
    }
    return out.commit();
}

}  // namespace fts
