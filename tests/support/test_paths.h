// The paths the tests read (the test data, the source and build trees, the reference Python, the fts program), found
// at run time: CTest sets them in every test's environment (tests/CMakeLists.txt), and a test program started by
// hand finds them from the build tree it sits in (that tree's CMakeCache.txt). Nothing of the clone's location is
// compiled into a test, so its object files are the same in every clone and ccache reuses them (docs/benchmarks.md).
// The names are the compile definitions they replace; each is a `const char*` expression, not a literal.
#pragma once

namespace fts::testing {

// The value of `name` (FTS_TEST_DATA_DIR, FTS_SOURCE_DIR, FTS_BINARY_DIR, FTS_TEST_PYTHON or FTS_CLI_PATH): the
// environment's, else the build tree's. Aborts with a message naming it when neither says.
const char* testPath(const char* name);

}  // namespace fts::testing

#define FTS_TEST_DATA_DIR (::fts::testing::testPath("FTS_TEST_DATA_DIR"))
#define FTS_SOURCE_DIR (::fts::testing::testPath("FTS_SOURCE_DIR"))
#define FTS_BINARY_DIR (::fts::testing::testPath("FTS_BINARY_DIR"))
#define FTS_TEST_PYTHON (::fts::testing::testPath("FTS_TEST_PYTHON"))
#define FTS_CLI_PATH (::fts::testing::testPath("FTS_CLI_PATH"))
