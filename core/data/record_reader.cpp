// Record readers. The JSON-array scanner tracks strings, escapes and nesting depth byte by byte to
// cut out one top-level element at a time, then parses only that element. The CSV parser is a
// character state machine over the stream (quotes may span lines).
#include "core/data/record_reader.h"

#include "core/data/unicode_text.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"

#include <algorithm>
#include <cctype>

namespace fts {

using nlohmann::json;

RecordFileFormat recordFileFormat(const std::filesystem::path& file) {
    std::string ext = file.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    if (ext == ".jsonl" || ext == ".ndjson") return RecordFileFormat::Jsonl;
    if (ext == ".json") return RecordFileFormat::JsonArray;
    if (ext == ".csv") return RecordFileFormat::Csv;
    if (ext == ".tsv") return RecordFileFormat::Tsv;
    if (ext == ".txt") return RecordFileFormat::Txt;
    throw FormatError(file.string() + ": unknown data file type '" + ext +
                      "' (expected .jsonl, .ndjson, .json (an array of objects), .csv, .tsv or .txt)");
}

RecordReader::RecordReader(const std::filesystem::path& file)
    : m_file(file), m_format(recordFileFormat(file)), m_in(file, std::ios::binary) {
    if (!m_in) throw IoError(file.string() + ": cannot open data file");
    // Skip a UTF-8 byte-order mark.
    char bom[3] = {};
    m_in.read(bom, 3);
    if (!(m_in.gcount() == 3 && bom[0] == '\xEF' && bom[1] == '\xBB' && bom[2] == '\xBF')) {
        m_in.clear();
        m_in.seekg(0);
    }
    if (m_format == RecordFileFormat::JsonArray) {
        m_line = 1;
        int c;
        while ((c = getChar()) != -1 && std::isspace(c)) {
        }
        if (c != '[')
            throw FormatError(file.string() + ":" + std::to_string(m_line) +
                              ": expected a JSON array of objects ('[' at the start of a .json file)");
    }
    if (m_format == RecordFileFormat::Csv || m_format == RecordFileFormat::Tsv) {
        std::vector<std::string> header;
        int64_t start = 0;
        bool unterminated = false;
        if (!parseCsvRow(header, start, unterminated) || unterminated)
            throw FormatError(file.string() + ": a " + delimitedName() + " file needs a header row naming its columns");
        m_header = std::move(header);
    }
}

const char* RecordReader::delimitedName() const { return m_format == RecordFileFormat::Tsv ? "TSV" : "CSV"; }

BadRow RecordReader::makeBad(int64_t line, const std::string& what) const {
    return {line, m_file.string() + ":" + std::to_string(line) + ": " + what};
}

int RecordReader::getChar() {
    const int c = m_in.get();
    if (c == std::char_traits<char>::eof()) return -1;
    if (c == '\n') ++m_line;
    return c;
}

bool RecordReader::readLine(std::string& line) {
    if (!std::getline(m_in, line, '\n')) return false;
    ++m_line;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
}

RecordReader::Status RecordReader::next(Record& record, BadRow& bad) {
    if (m_done) return Status::End;
    switch (m_format) {
        case RecordFileFormat::Jsonl:
            return nextJsonl(record, bad);
        case RecordFileFormat::JsonArray:
            return nextJsonArray(record, bad);
        case RecordFileFormat::Csv:
        case RecordFileFormat::Tsv:
            return nextCsv(record, bad);
        case RecordFileFormat::Txt:
            return nextTxt(record, bad);
    }
    return Status::End;
}

RecordReader::Status RecordReader::nextJsonl(Record& record, BadRow& bad) {
    while (readLine(m_buffer)) {
        if (std::all_of(m_buffer.begin(), m_buffer.end(), [](unsigned char c) { return std::isspace(c); })) continue;
        record.line = m_line;
        if (unicode::findInvalidUtf8(m_buffer) != unicode::kValid) {
            bad = makeBad(m_line, "invalid UTF-8");
            return Status::Bad;
        }
        try {
            record.value = parseJson(m_buffer);
        } catch (const json::exception& e) {
            bad = makeBad(m_line, std::string("invalid JSON: ") + e.what());
            return Status::Bad;
        }
        if (!record.value.is_object()) {
            bad = makeBad(m_line, "expected a JSON object, found " + std::string(record.value.type_name()));
            return Status::Bad;
        }
        return Status::Ok;
    }
    m_done = true;
    return Status::End;
}

RecordReader::Status RecordReader::nextTxt(Record& record, BadRow& bad) {
    while (readLine(m_buffer)) {
        if (m_buffer.empty()) continue;
        record.line = m_line;
        if (unicode::findInvalidUtf8(m_buffer) != unicode::kValid) {
            bad = makeBad(m_line, "invalid UTF-8");
            return Status::Bad;
        }
        record.value = json{{"text", m_buffer}};
        return Status::Ok;
    }
    m_done = true;
    return Status::End;
}

RecordReader::Status RecordReader::nextJsonArray(Record& record, BadRow& bad) {
    // Skip whitespace and the separating comma; ']' ends the array.
    int c;
    while ((c = getChar()) != -1 && (std::isspace(c) || c == ',')) {
    }
    if (c == ']') {
        m_done = true;
        return Status::End;
    }
    if (c == -1) {
        m_done = true;
        bad = makeBad(m_line, "unterminated JSON array (missing ']')");
        return Status::Bad;
    }
    const int64_t start = m_line;
    m_buffer.assign(1, static_cast<char>(c));
    int depth = (c == '{' || c == '[') ? 1 : 0;
    bool inString = c == '"', escaped = false;
    // Scalars end at ',' or ']' at depth 0; containers when depth returns to 0.
    while (depth > 0 || inString || (c != ',' && c != ']')) {
        if (depth == 0 && !inString && c != '"' && m_buffer.size() > 1) {
            // inside a scalar: stop before the delimiter
        }
        const int n = m_in.peek();
        if (n == std::char_traits<char>::eof()) break;
        if (depth == 0 && !inString && (n == ',' || n == ']')) break;
        c = getChar();
        m_buffer.push_back(static_cast<char>(c));
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            --depth;
            if (depth == 0) break;
        }
    }
    record.line = start;
    if (depth > 0 || inString) {
        m_done = true;
        bad = makeBad(start, "unterminated JSON value in the array");
        return Status::Bad;
    }
    if (unicode::findInvalidUtf8(m_buffer) != unicode::kValid) {
        bad = makeBad(start, "invalid UTF-8");
        return Status::Bad;
    }
    try {
        record.value = parseJson(m_buffer);
    } catch (const json::exception& e) {
        bad = makeBad(start, std::string("invalid JSON: ") + e.what());
        return Status::Bad;
    }
    if (!record.value.is_object()) {
        bad = makeBad(start, "expected a JSON object in the array, found " + std::string(record.value.type_name()));
        return Status::Bad;
    }
    return Status::Ok;
}

bool RecordReader::parseCsvRow(std::vector<std::string>& fields, int64_t& startLine, bool& unterminated) {
    fields.clear();
    unterminated = false;
    int c = getChar();
    // Skip blank lines between records.
    while (c == '\n' || c == '\r') c = getChar();
    if (c == -1) return false;
    startLine = m_line + (c == '\n' ? 0 : 1);
    std::string field;
    bool quoted = false, wasQuoted = false;
    const bool tsv = m_format == RecordFileFormat::Tsv;  // tab-separated, no quoting (IANA text/tab-separated-values)
    const char delimiter = tsv ? '\t' : ',';
    while (true) {
        if (quoted) {
            if (c == -1) {
                unterminated = true;
                fields.push_back(field);
                return true;
            }
            if (c == '"') {
                if (m_in.peek() == '"') {
                    getChar();
                    field.push_back('"');
                } else {
                    quoted = false;
                }
            } else {
                field.push_back(static_cast<char>(c));
            }
        } else if (c == '"' && field.empty() && !wasQuoted && !tsv) {
            quoted = wasQuoted = true;
        } else if (c == delimiter) {
            fields.push_back(field);
            field.clear();
            wasQuoted = false;
        } else if (c == '\n' || c == -1) {
            if (!field.empty() && field.back() == '\r' && !wasQuoted) field.pop_back();
            fields.push_back(field);
            return true;
        } else if (c == '\r' && wasQuoted) {
            // the '\r' of a CRLF after a closing quote
        } else {
            field.push_back(static_cast<char>(c));
        }
        c = getChar();
    }
}

RecordReader::Status RecordReader::nextCsv(Record& record, BadRow& bad) {
    std::vector<std::string> fields;
    int64_t start = 0;
    bool unterminated = false;
    // m_line counts '\n' consumed; the header was line 1.
    if (!parseCsvRow(fields, start, unterminated)) {
        m_done = true;
        return Status::End;
    }
    record.line = start;
    if (unterminated) {
        m_done = true;
        bad = makeBad(start, "unterminated quoted CSV field");
        return Status::Bad;
    }
    if (fields.size() != m_header.size()) {
        bad = makeBad(start, "expected " + std::to_string(m_header.size()) + " " + delimitedName() +
                                 " fields (the header's), found " + std::to_string(fields.size()));
        return Status::Bad;
    }
    json obj = json::object();
    for (size_t i = 0; i < fields.size(); ++i) {
        if (unicode::findInvalidUtf8(fields[i]) != unicode::kValid) {
            bad = makeBad(start, "invalid UTF-8 in column '" + m_header[i] + "'");
            return Status::Bad;
        }
        obj[m_header[i]] = fields[i];
    }
    record.value = std::move(obj);
    return Status::Ok;
}

}  // namespace fts
