// Cache file layout (little-endian, native int sizes): a 128-byte header block {magic "FTSSFT02", key (32
// hex chars), train sequences, train tokens, eval sequences, eval tokens, stats JSON bytes}, then
// per split: offsets (int64, sequences + 1), input ids, labels, position ids (int32, tokens each), zero bytes up
// to a multiple of 8; then the stats JSON. Every int64 array is so 8-byte aligned in the mapping (version 01 had
// no padding: with an odd number of train tokens the eval offsets were misaligned, which UBSan reported; its
// files fail the magic check and are rebuilt).
#include "core/data/token_cache.h"

#include "core/data/sft_layout.h"
#include "core/data/tokenizer.h"
#include "core/util/atomic_file_writer.h"
#include "core/util/error.h"
#include "core/util/owner_only.h"
#include "core/util/json_parse.h"

#include <xxhash.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>

namespace fts {
namespace {

constexpr char kMagic[8] = {'F', 'T', 'S', 'S', 'F', 'T', '0', '2'};

struct Header {
    char magic[8];
    char key[32];
    int64_t trainSequences, trainTokens, evalSequences, evalTokens, statsBytes;
};

void hashFile(XXH3_state_t* state, const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw IoError(file.string() + ": cannot open to hash for the token cache");
    std::vector<char> buf(1 << 20);
    while (in) {
        in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
        if (in.gcount() > 0) XXH3_128bits_update(state, buf.data(), static_cast<size_t>(in.gcount()));
    }
}

void hashString(XXH3_state_t* state, const std::string& s) {
    const uint64_t n = s.size();
    XXH3_128bits_update(state, &n, sizeof(n));
    XXH3_128bits_update(state, s.data(), s.size());
}

// Zero bytes after a split's three int32 arrays, so the next split's int64 offsets start 8-byte aligned.
size_t splitPadding(int64_t tokens) { return (static_cast<size_t>(tokens) * 12) % 8; }

size_t splitBytes(int64_t sequences, int64_t tokens) {
    return static_cast<size_t>(sequences + 1) * 8 + static_cast<size_t>(tokens) * 12 + splitPadding(tokens);
}

}  // namespace

std::string sftCacheKey(const SftOptions& o, const Tokenizer& tokenizer) {
    XXH3_state_t* state = XXH3_createState();
    if (!state) throw Error("token cache: out of memory");
    XXH3_128bits_reset(state);
    hashString(state, "fts-sft-cache-v2");
    hashFile(state, o.trainPath);
    hashString(state, o.evalPath.empty() ? std::string("-") : std::string("eval"));
    if (!o.evalPath.empty()) hashFile(state, o.evalPath);
    hashFile(state, tokenizer.path());
    const auto tc = tokenizer.path().parent_path() / "tokenizer_config.json";
    std::error_code ec;
    if (std::filesystem::is_regular_file(tc, ec)) hashFile(state, tc);
    std::string templ = o.chatTemplate;
    if (templ == "auto") {
        const auto k = o.modelDir.empty() ? std::nullopt : detectChatTemplate(o.modelDir);
        templ = chatTemplateName(k.value_or(ChatTemplateKind::ChatML));
    }
    hashString(state, nlohmann::json{{"format", static_cast<int>(o.format)},
                                     {"text_field", o.textField},
                                     {"fields", o.fields.describe()},
                                     {"template", templ},
                                     {"max_length", o.maxLength},
                                     {"packing", o.packing},
                                     {"train_on_prompt", o.trainOnPrompt},
                                     {"eval_fraction", o.evalFraction},
                                     {"seed", o.seed},
                                     {"shuffle", o.shuffle},
                                     {"bad_rows", static_cast<int>(o.badRows)},
                                     {"shown", o.maxBadRowsShown}}
                          .dump());
    const XXH128_hash_t h = XXH3_128bits_digest(state);
    XXH3_freeState(state);
    char hex[33];
    std::snprintf(hex, sizeof(hex), "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                  static_cast<unsigned long long>(h.low64));
    return hex;
}

CachedSftData::~CachedSftData() {
    if (m_map) ::munmap(m_map, m_size);
}

std::unique_ptr<CachedSftData> CachedSftData::open(const std::filesystem::path& file, const std::string& key) {
    const int fd = ::open(file.c_str(), O_RDONLY);
    if (fd < 0) return nullptr;
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_size < 128) {
        ::close(fd);
        return nullptr;
    }
    const auto size = static_cast<size_t>(st.st_size);
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (map == MAP_FAILED) return nullptr;
    std::unique_ptr<CachedSftData> c(new CachedSftData());
    c->m_map = map;
    c->m_size = size;
    c->m_file = file;
    Header h{};
    std::memcpy(&h, map, sizeof(h));
    if (std::memcmp(h.magic, kMagic, 8) != 0 || key.size() != 32 || std::memcmp(h.key, key.data(), 32) != 0 ||
        h.trainSequences < 0 || h.trainTokens < 0 || h.evalSequences < 0 || h.evalTokens < 0 || h.statsBytes < 0)
        return nullptr;
    const size_t want = 128 + splitBytes(h.trainSequences, h.trainTokens) + splitBytes(h.evalSequences, h.evalTokens) +
                        static_cast<size_t>(h.statsBytes);
    if (want != size) return nullptr;
    const char* p = static_cast<const char*>(map) + 128;
    auto view = [&p](int64_t sequences, int64_t tokens) {
        SftSequencesView v;
        v.numSequences = sequences;
        v.offsets = reinterpret_cast<const int64_t*>(p);
        p += (sequences + 1) * 8;
        v.inputIds = reinterpret_cast<const int32_t*>(p);
        p += tokens * 4;
        v.labels = reinterpret_cast<const int32_t*>(p);
        p += tokens * 4;
        v.positionIds = reinterpret_cast<const int32_t*>(p);
        p += tokens * 4 + int64_t(splitPadding(tokens));
        return v;
    };
    c->m_train = view(h.trainSequences, h.trainTokens);
    c->m_eval = view(h.evalSequences, h.evalTokens);
    try {
        c->m_stats = sftStatsFromJson(parseJson(std::string(p, static_cast<size_t>(h.statsBytes))));
    } catch (const nlohmann::json::exception&) {
        return nullptr;
    }
    return c;
}

namespace {

// Streams one split into the cache file: offsets, input ids, labels, position ids, as they come.
class FileSequenceWriter final : public SequenceWriter {
public:
    using Bytes = std::function<void(const void*, size_t)>;
    FileSequenceWriter(Bytes out, int64_t& sequences, int64_t& tokens)
        : m_out(std::move(out)), m_sequences(sequences), m_tokens(tokens) {}
    void offsets(const std::vector<int64_t>& o) override {
        m_sequences = static_cast<int64_t>(o.size()) - 1;
        m_tokens = o.back();
        m_out(o.data(), o.size() * sizeof(int64_t));
    }
    void inputIds(const int32_t* p, size_t n) override { put(p, n); }
    void labels(const int32_t* p, size_t n) override { put(p, n); }
    void positionIds(const int32_t* p, size_t n) override { put(p, n); }

private:
    void put(const int32_t* p, size_t n) { m_out(p, n * 4); }
    Bytes m_out;
    int64_t& m_sequences;
    int64_t& m_tokens;
};

// Builds the cache file for `key` without holding the token arrays: samples spill to an unlinked file next to
// the cache, the eval split is written after the train split (the layout's order), the header last.
void buildSftCacheFile(const SftOptions& options, const Tokenizer& tokenizer, const std::filesystem::path& file,
                       const std::string& key) {
    createOwnerOnlyDirectory(file.parent_path());  // tokenized training data: the owner's only
    Header h{};
    std::memcpy(h.magic, kMagic, 8);
    std::memcpy(h.key, key.data(), 32);
    SftStats stats;
    AtomicFileWriter out(file);
    char header[128] = {};
    out.write(header, sizeof(header));  // rewritten at the end, when the counts are known
    FileSampleStore trainStore(file.parent_path()), evalStore(file.parent_path());
    FileSequenceWriter train([&](const void* p, size_t n) { out.write(p, n); }, h.trainSequences, h.trainTokens);
    // The eval split follows the whole train split in the file: its arrays wait in a scratch file, removed on
    // every path out of here.
    struct ScratchFile {
        std::filesystem::path path;
        ~ScratchFile() {
            std::error_code ec;
            std::filesystem::remove(path, ec);
        }
    } evalScratch{file.string() + ".eval.tmp." + std::to_string(::getpid())};
    std::ofstream evalOut(evalScratch.path, std::ios::binary | std::ios::trunc);
    if (!evalOut) throw IoError(evalScratch.path.string() + ": cannot write the token cache");
    FileSequenceWriter eval(
        [&](const void* p, size_t n) { evalOut.write(static_cast<const char*>(p), std::streamsize(n)); },
        h.evalSequences, h.evalTokens);
    buildSftSequences(options, tokenizer, trainStore, evalStore, train, eval, stats);
    const char zeros[8] = {};
    out.write(zeros, splitPadding(h.trainTokens));  // the train split is complete: align the eval split
    evalOut.close();
    if (evalOut.fail())
        throw IoError(evalScratch.path.string() + ": writing the eval split of the token cache failed (" +
                      freeSpaceText(file.parent_path()) +
                      "); free space there, or set data.cache_dir to a folder on another disk");
    {
        std::ifstream in(evalScratch.path, std::ios::binary);
        std::vector<char> buf(1 << 20);
        while (in.read(buf.data(), std::streamsize(buf.size())) || in.gcount() > 0)
            out.write(buf.data(), size_t(in.gcount()));
    }
    out.write(zeros, splitPadding(h.evalTokens));
    const std::string statsText = sftStatsToJson(stats).dump();
    h.statsBytes = static_cast<int64_t>(statsText.size());
    out.write(statsText);
    std::memcpy(header, &h, sizeof(h));
    out.writeAt(0, header, sizeof(header));
    out.commit();
}

}  // namespace

std::unique_ptr<CachedSftData> loadOrBuildSftData(const SftOptions& options, const Tokenizer& tokenizer,
                                                  const std::filesystem::path& cacheDir) {
    const std::string key = sftCacheKey(options, tokenizer);
    const std::filesystem::path file = cacheDir / ("sft-" + key + ".bin");
    if (auto c = CachedSftData::open(file, key)) return c;
    buildSftCacheFile(options, tokenizer, file, key);
    auto c = CachedSftData::open(file, key);
    if (!c) throw IoError(file.string() + ": the token cache just written cannot be read back");
    c->m_fromCache = false;
    return c;
}

}  // namespace fts
