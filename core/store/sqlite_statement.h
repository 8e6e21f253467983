// Checked SQLite calls for the run store (its own header; nothing outside core/store includes it): a prepared
// Statement, a Transaction, execSql. Every failure throws StoreError naming the store file, the operation, sqlite's
// message and the line of the caller that made the statement.
#pragma once
#include <sqlite3.h>

#include <filesystem>
#include <optional>
#include <source_location>
#include <string>
#include <string_view>

#include "core/util/error.h"

namespace fts::store_sql {
namespace fs = std::filesystem;

// std::source_location where the standard library has it; clang 14 (the `fuzz` preset's compiler) lacks the builtin
// libstdc++ 12 needs for it, so there the same two fields come from __builtin_FILE / __builtin_LINE.
#if defined(__cpp_lib_source_location)
using SourceLocation = std::source_location;
#else
struct SourceLocation {
    const char* file = "";
    unsigned lineNumber = 0;
    static constexpr SourceLocation current(const char* f = __builtin_FILE(), unsigned l = __builtin_LINE()) noexcept {
        return {f, l};
    }
    constexpr const char* file_name() const noexcept { return file; }
    constexpr unsigned line() const noexcept { return lineNumber; }
};
#endif

// `where` is the caller's line (a default argument), so a failure points at the query that failed.
[[noreturn]] inline void throwStore(sqlite3* db, const fs::path& file, std::string_view operation, int rc,
                                    const SourceLocation& where) {
    std::string msg = "run store " + file.string() + ": " + std::string(operation) + " failed: ";
    msg += db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    msg += " (sqlite code " + std::to_string(rc) + ", " + fs::path(where.file_name()).filename().string() + ":" +
           std::to_string(where.line()) + ")";
    throw StoreError(msg);
}

// Every sqlite3 call returning a status goes through this.
inline void checkOk(int rc, sqlite3* db, const fs::path& file, std::string_view operation,
                    const SourceLocation& where = SourceLocation::current()) {
    if (rc != SQLITE_OK) throwStore(db, file, operation, rc, where);
}

// A prepared statement, finalised on scope exit. bind*() are 1-based like SQLite; columns 0-based.
// Failures of prepare, bind or step report the line where the statement was created.
class Statement {
public:
    Statement(sqlite3* db, const fs::path& file, std::string_view sql, std::string operation,
              const SourceLocation& where = SourceLocation::current())
        : m_db(db), m_file(file), m_operation(std::move(operation)), m_where(where) {
        check(sqlite3_prepare_v2(m_db, sql.data(), static_cast<int>(sql.size()), &m_stmt, nullptr), "prepare ");
    }
    ~Statement() { sqlite3_finalize(m_stmt); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    Statement& bind(int index, int64_t v) {
        check(sqlite3_bind_int64(m_stmt, index, v), "bind ");
        return *this;
    }
    Statement& bind(int index, int v) { return bind(index, static_cast<int64_t>(v)); }
    Statement& bind(int index, double v) {
        check(sqlite3_bind_double(m_stmt, index, v), "bind ");
        return *this;
    }
    Statement& bind(int index, std::string_view v) {
        check(sqlite3_bind_text64(m_stmt, index, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8), "bind ");
        return *this;
    }
    Statement& bind(int index, const std::string& v) { return bind(index, std::string_view(v)); }
    Statement& bind(int index, const char* v) { return bind(index, std::string_view(v)); }

    // true: a row is available; false: done.
    bool step() {
        const int rc = sqlite3_step(m_stmt);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        throwStore(m_db, m_file, m_operation, rc, m_where);
    }
    // Like step(), but SQLITE_BUSY (a lock the busy handler could not wait for) returns nullopt.
    std::optional<bool> tryStep() {
        const int rc = sqlite3_step(m_stmt);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        if ((rc & 0xFF) == SQLITE_BUSY) {
            sqlite3_reset(m_stmt);
            return std::nullopt;
        }
        throwStore(m_db, m_file, m_operation, rc, m_where);
    }
    void run() {  // a statement that returns no rows
        while (step()) {
        }
    }
    void reset() {
        // sqlite3_reset repeats the last step's error, which step() has already thrown.
        sqlite3_reset(m_stmt);
        check(sqlite3_clear_bindings(m_stmt), "reset ");
    }

    int64_t int64(int col) const { return sqlite3_column_int64(m_stmt, col); }
    double real(int col) const { return sqlite3_column_double(m_stmt, col); }
    std::string text(int col) const {
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, col));
        return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(m_stmt, col))) : std::string();
    }

private:
    void check(int rc, const char* phase) const {
        if (rc != SQLITE_OK) throwStore(m_db, m_file, phase + m_operation, rc, m_where);
    }

    sqlite3* m_db;
    const fs::path& m_file;
    std::string m_operation;
    SourceLocation m_where;
    sqlite3_stmt* m_stmt = nullptr;
};

inline void execSql(sqlite3* db, const fs::path& file, const char* sql, std::string_view operation,
                    const SourceLocation& where = SourceLocation::current()) {
    checkOk(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), db, file, operation, where);
}

// BEGIN IMMEDIATE (take the write lock up front: no deadlock on lock upgrade); rolls back unless committed.
class Transaction {
public:
    Transaction(sqlite3* db, const fs::path& file, std::string operation,
                const SourceLocation& where = SourceLocation::current())
        : m_db(db), m_file(file), m_operation(std::move(operation)), m_where(where) {
        execSql(m_db, m_file, "BEGIN IMMEDIATE", "begin transaction for " + m_operation, m_where);
    }
    ~Transaction() {
        if (!m_done) sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    void commit() {
        execSql(m_db, m_file, "COMMIT", "commit " + m_operation, m_where);
        m_done = true;
    }

private:
    sqlite3* m_db;
    const fs::path& m_file;
    std::string m_operation;
    SourceLocation m_where;
    bool m_done = false;
};

}  // namespace fts::store_sql
