// Line loop of `fts tokenize`: parse, encode, write {"ids":[...]} with a hand-rolled integer writer.
#include "core/data/tokenize_stream.h"

#include "core/data/tokenizer.h"
#include "core/util/error.h"
#include "core/util/json_parse.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

namespace fts {

void tokenizeJsonlStream(std::istream& in, std::ostream& out, const Tokenizer& tokenizer, bool addSpecialTokens) {
    std::string line;
    std::string output;
    std::vector<int32_t> ids;
    int64_t lineNumber = 0;
    while (std::getline(in, line, '\n')) {
        ++lineNumber;
        const std::string where = "stdin:" + std::to_string(lineNumber) + ": ";
        nlohmann::json row;
        try {
            row = parseJson(line);
        } catch (const nlohmann::json::exception& e) {
            throw FormatError(where + "invalid JSON: " + e.what());
        }
        if (!row.is_object())
            throw FormatError(where + "expected a JSON object {\"text\": ...}, found " + row.type_name());
        auto it = row.find("text");
        if (it == row.end()) throw FormatError(where + "missing field \"text\"");
        if (!it->is_string()) throw FormatError(where + "field \"text\" must be a string, found " + it->type_name());
        ids.clear();
        try {
            tokenizer.encodeAppend(it->get_ref<const std::string&>(), ids, addSpecialTokens);
        } catch (const Error& e) {
            throw FormatError(where + e.what());
        }
        output.assign("{\"ids\":[");
        char buffer[16];
        for (size_t i = 0; i < ids.size(); ++i) {
            if (i) output.push_back(',');
            const auto r = std::to_chars(buffer, buffer + sizeof(buffer), ids[i]);
            output.append(buffer, r.ptr);
        }
        output.append("]}\n");
        out.write(output.data(), static_cast<std::streamsize>(output.size()));
        out.flush();
        if (!out) throw IoError("stdout: write failed after line " + std::to_string(lineNumber));
    }
    if (in.bad()) throw IoError("stdin: read error after line " + std::to_string(lineNumber));
}

}  // namespace fts
