// What the fuzz harnesses share: the fuzzed bytes as a file (for readers that take a path), and the test data.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include "core/util/json_parse.h"
#include "tests/support/test_paths.h"  // FTS_TEST_DATA_DIR, at run time

namespace fts::fuzz {

inline std::string_view bytes(const uint8_t* data, size_t size) { return {reinterpret_cast<const char*>(data), size}; }

// A folder of this process's own under the temporary folder (created once), for files the harness writes.
// Removed when the process exits normally.
inline const std::filesystem::path& scratchDir() {
    static const struct Scratch {
        std::filesystem::path dir;
        Scratch() : dir(std::filesystem::temp_directory_path() / ("fts-fuzz-" + std::to_string(::getpid()))) {
            std::filesystem::create_directories(dir);
        }
        ~Scratch() {
            std::error_code ec;
            std::filesystem::remove_all(dir, ec);
        }
    } scratch;
    return scratch.dir;
}

// Writes `content` to scratchDir()/name (replacing it) and returns the path.
inline std::filesystem::path writeScratch(const std::string& name, std::string_view content) {
    const auto p = scratchDir() / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary | std::ios::trunc).write(content.data(), std::streamsize(content.size()));
    return p;
}

inline const std::filesystem::path kTestData = FTS_TEST_DATA_DIR;

// The input as JSON (bounded, as every reader parses it), or nothing when it is not JSON.
inline std::optional<nlohmann::json> jsonOf(const uint8_t* data, size_t size) {
    try {
        return fts::parseJson(bytes(data, size));
    } catch (const nlohmann::json::parse_error&) {
        return std::nullopt;
    }
}

}  // namespace fts::fuzz
