// Many Qt Test suites in one executable: the test files of one area (tests/core/<folder>, tests/integration,
// tests/ui) link into one program, `<area>_tests SUITE [Qt Test arguments]`, so the build links ~16 test programs
// instead of ~100 that each link the static core and LibTorch. CTest still names and runs every suite on its own.
//
// Every test file includes this header after its other includes (last, so that LibTorch's headers come before
// Qt's `slots` and `signals` macros; fts_add_suite in tests/CMakeLists.txt checks it is there) and is written as
// usual: QTEST_MAIN / QTEST_GUILESS_MAIN / QTEST_APPLESS_MAIN(Class) then register the suite under the file's CTest
// name (FTS_TEST_SUITE_NAME, defined before the file by its unit) instead of defining main(). A file that needs its own main
// writes FTS_SUITE_MAIN(argc, argv) { ... } in its place. Helpers at namespace scope belong in an anonymous
// namespace: the files of an area share one program (the build refuses two files of one area that define a class
// or struct of the same name at file scope), and a few share a compiled unit (tests/CMakeLists.txt puts files that
// declare a name of the same spelling into different units). Helpers from tests/support or tests/integration come
// in by using-declarations (`using fts::testing::q;`), which that grouping sees, not by a using-directive, which
// would reach the files after it in the unit (`using namespace fts;` alone is common to all).
#pragma once

#include <QtTest/qtest.h>

#include <string>
#include <vector>

#include "tests/support/test_paths.h"  // the paths the tests read, found at run time

#ifndef FTS_TEST_SUITE_NAME
#error "FTS_TEST_SUITE_NAME is not defined: add the test file through fts_add_suite (tests/CMakeLists.txt)"
#endif

namespace fts::testing {

using SuiteMain = int (*)(int argc, char** argv);

// Records a suite under its CTest name; called by the static initialiser the macros below define.
bool registerSuite(const char* name, SuiteMain main);

// How a suite starts a copy of itself (a child process that runs this suite's own main with more arguments):
// this program and this suite's name, to be followed by the child's arguments.
std::vector<std::string> selfCommand();

}  // namespace fts::testing

// The suite's main and its registration get names of their own (__COUNTER__): the suites of a program may be
// compiled several to a unit (fts_unity_suites in tests/CMakeLists.txt).
#define FTS_SUITE_MAIN(argcName, argvName) FTS_SUITE_MAIN_NAMED(__COUNTER__, argcName, argvName)
#define FTS_SUITE_MAIN_NAMED(id, argcName, argvName) FTS_SUITE_MAIN_NAMED_(id, argcName, argvName)
#define FTS_SUITE_MAIN_NAMED_(id, argcName, argvName)                        \
    static int ftsSuiteMain##id(int, char**);                                \
    [[maybe_unused]] static const bool ftsSuiteRegistered##id =              \
        fts::testing::registerSuite(FTS_TEST_SUITE_NAME, &ftsSuiteMain##id); \
    static int ftsSuiteMain##id(int argcName, char** argvName)

// Qt's QTEST_MAIN, QTEST_GUILESS_MAIN and QTEST_APPLESS_MAIN all expand through QTEST_MAIN_WRAPPER, which defines
// main(). Redefined here with the same body, as a registered suite: each suite sets up its application and initMain
// exactly as Qt's own main would. Left out: QTEST_SET_MAIN_SOURCE_PATH, which serves only QFINDTESTDATA (the suites
// find their data through FTS_TEST_DATA_DIR) and would put the build folder's path into every suite's code, so that
// no suite compiled in one clone could come from ccache in another.
#ifndef QTEST_MAIN_WRAPPER
#error "this Qt no longer defines QTEST_MAIN_WRAPPER: update tests/support/qtest_suites.h"
#endif
#undef QTEST_MAIN_WRAPPER
#define QTEST_MAIN_WRAPPER(TestObject, ...)                                \
    FTS_SUITE_MAIN(argc, argv) {                                           \
        TESTLIB_SELFCOVERAGE_START(#TestObject)                            \
        QT_PREPEND_NAMESPACE(QTest::Internal::callInitMain)<TestObject>(); \
        __VA_ARGS__                                                        \
        TestObject tc;                                                     \
        return QTest::qExec(&tc, argc, argv);                              \
    }
