// The fuzz harnesses' own main when they are not linked with libFuzzer (gcc builds, CI): replays every file of
// the corpus folders given, then, with -runs=N, N deterministic mutations of each (bit flips, byte changes,
// truncation, duplication of a span, insertion of bytes that matter to parsers: brackets, quotes, NUL, 0xFF).
// A crash, a sanitizer report or an uncaught exception fails the ctest run; libFuzzer (the `fuzz` preset) does the
// coverage-guided search. Usage: fuzz_<name> [-runs=N] [-seed=S] FILE_OR_FOLDER...
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

std::string readAll(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void run(const std::string& input) {
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

std::string mutate(std::string s, std::mt19937_64& rng) {
    static const char kInteresting[] = {'[',  ']',  '{',        '}',        '"',        '\\', ',', ':', '\0', '\n',
                                        '\r', '\t', char(0xff), char(0xc3), char(0x80), '0',  '-', 'e', '9',  ' '};
    const int edits = 1 + int(rng() % 4);
    for (int e = 0; e < edits; ++e) {
        const size_t n = s.size();
        switch (rng() % 7) {
            case 0:  // flip a bit
                if (n) s[rng() % n] ^= char(1u << (rng() % 8));
                break;
            case 1:  // a random byte
                if (n) s[rng() % n] = char(rng());
                break;
            case 2:  // an interesting byte
                if (n) s[rng() % n] = kInteresting[rng() % sizeof kInteresting];
                break;
            case 3:  // truncate
                if (n) s.resize(rng() % n);
                break;
            case 4: {  // duplicate a span
                if (!n) break;
                const size_t at = rng() % n, len = 1 + rng() % std::min<size_t>(n - at, 64);
                s.insert(rng() % (n + 1), s.substr(at, len));
                break;
            }
            case 5:  // insert interesting bytes
                s.insert(n ? rng() % (n + 1) : 0,
                         std::string(1 + rng() % 3, kInteresting[rng() % sizeof kInteresting]));
                break;
            case 6: {  // delete a span
                if (!n) break;
                const size_t at = rng() % n;
                s.erase(at, 1 + rng() % std::min<size_t>(n - at, 16));
                break;
            }
        }
    }
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    long runs = 0;
    uint64_t seed = 1;
    std::vector<std::filesystem::path> files;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a.rfind("-runs=", 0) == 0)
            runs = std::stol(a.substr(6));
        else if (a.rfind("-seed=", 0) == 0)
            seed = std::stoull(a.substr(6));
        else if (std::filesystem::is_directory(a))
            for (const auto& e : std::filesystem::recursive_directory_iterator(a)) {
                if (e.is_regular_file()) files.push_back(e.path());
            }
        else
            files.emplace_back(a);
    }
    std::sort(files.begin(), files.end());
    const auto t0 = std::chrono::steady_clock::now();
    std::mt19937_64 rng(seed);
    long executions = 0;
    for (const auto& f : files) {
        const std::string input = readAll(f);
        run(input);
        ++executions;
        for (long r = 0; r < runs; ++r, ++executions) run(mutate(input, rng));
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s: %zu corpus files, %ld executions in %.1f s, no crash\n", argv[0], files.size(), executions, s);
    return files.empty() ? 2 : 0;
}
