// Streaming record readers for instruction / chat datasets: JSONL (one object per line), JSON arrays
// (top-level [ {...}, ... ] scanned element by element, never parsed whole), CSV (RFC 4180: quoted
// fields with "" escapes and embedded newlines; the header row names the fields), TSV (tab-separated
// with a header row, no quoting: a '"' is text, as GLUE's .tsv files need) and TXT (one
// {"text": line} per non-empty line). Invariant: memory is bounded by one record, never the file;
// every record carries the 1-based line it starts on, and a bad row is a BadRow with that line
// (the caller decides whether to go on), never a crash.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fts {

enum class RecordFileFormat { Jsonl, JsonArray, Csv, Tsv, Txt };

// By extension, case-insensitive: .jsonl/.ndjson, .json, .csv, .tsv, .txt; else FormatError naming the file.
RecordFileFormat recordFileFormat(const std::filesystem::path& file);

struct Record {
    nlohmann::json value;  // a JSON object (CSV: every field a string; TXT: {"text": line})
    int64_t line = 0;      // 1-based line the record starts on
};

struct BadRow {
    int64_t line = 0;
    std::string message;  // "<file>:<line>: <what is wrong>"
};

class RecordReader {
public:
    // Throws IoError when the file cannot be opened, FormatError for an unknown extension or, for a
    // .json file, when it does not start with '['.
    explicit RecordReader(const std::filesystem::path& file);

    enum class Status { Ok, Bad, End };
    // Reads the next record; Bad fills `bad` (invalid JSON, not an object, invalid UTF-8, wrong CSV
    // field count) and the reader stays usable for the records after it. A structural error that
    // leaves nothing to resync on (an unterminated JSON array or CSV quote) is one Bad and then End.
    Status next(Record& record, BadRow& bad);

    const std::filesystem::path& file() const { return m_file; }
    RecordFileFormat format() const { return m_format; }
    int64_t line() const { return m_line; }

private:
    Status nextJsonl(Record& record, BadRow& bad);
    Status nextJsonArray(Record& record, BadRow& bad);
    Status nextCsv(Record& record, BadRow& bad);
    Status nextTxt(Record& record, BadRow& bad);
    bool readLine(std::string& line);  // without '\n' and a trailing '\r'; false at EOF
    int getChar();                     // next byte or -1, counting lines
    BadRow makeBad(int64_t line, const std::string& what) const;
    const char* delimitedName() const;  // "CSV" or "TSV"
    bool parseCsvRow(std::vector<std::string>& fields, int64_t& startLine, bool& unterminated);

    std::filesystem::path m_file;
    RecordFileFormat m_format;
    std::ifstream m_in;
    int64_t m_line = 0;  // lines consumed so far (JSONL/TXT/CSV); current line (JSON array)
    bool m_done = false;
    std::vector<std::string> m_header;  // CSV, TSV
    std::string m_buffer;
};

}  // namespace fts
