// defaultThreadsPerRank and usableCpus (core/launch/rank_threads.h): several ranks of a host share its CPUs unless
// the user chose OMP_NUM_THREADS; a single rank keeps LibTorch's default.
#include <QtTest>

#include <sched.h>

#include "core/launch/rank_threads.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;

class TestRankThreads : public QObject {
    Q_OBJECT
private slots:
    void sharesTheCpus() {
        const std::vector<std::string> env{"PATH=/usr/bin", "OMP_PROC_BIND=true"};
        QCOMPARE(defaultThreadsPerRank(env, 2, 16), std::optional<int>(8));
        QCOMPARE(defaultThreadsPerRank(env, 3, 16), std::optional<int>(5));  // whole threads, never oversubscribed
        QCOMPARE(defaultThreadsPerRank(env, 4, 2), std::optional<int>(1));   // at least one
        QCOMPARE(defaultThreadsPerRank(env, 1, 16), std::optional<int>());   // one rank: LibTorch's default
        QCOMPARE(defaultThreadsPerRank({}, 0, 16), std::optional<int>());
    }
    void keepsTheUsersChoice() {
        QCOMPARE(defaultThreadsPerRank({"OMP_NUM_THREADS=3"}, 4, 16), std::optional<int>());
        QCOMPARE(defaultThreadsPerRank({"A=1", "OMP_NUM_THREADS="}, 4, 16), std::optional<int>());  // even empty
        // a name that merely starts the same is not the variable
        QCOMPARE(defaultThreadsPerRank({"OMP_NUM_THREADS_X=3"}, 4, 16), std::optional<int>(4));
    }
    void noteSaysWhatAndHowToChange() {
        const std::string one = threadsPerRankNote(1, 2, 2), many = threadsPerRankNote(4, 4, 16);
        QVERIFY2(one.find("each of the 2 ranks on this host computes with 1 CPU thread (2 CPUs shared by 2 ranks)") !=
                     std::string::npos,
                 one.c_str());
        QVERIFY2(many.find("with 4 CPU threads (16 CPUs") != std::string::npos, many.c_str());
        QVERIFY(one.find("set OMP_NUM_THREADS") != std::string::npos);
    }
    void sharingAddsTheVariableOnlyWhenChosenHere() {
        std::vector<std::string> env{"PATH=/usr/bin"};
        const std::optional<std::string> note = shareCpusAmongRanks(env, 2);
        QVERIFY(note.has_value());
        const std::string expected = "OMP_NUM_THREADS=" + std::to_string(std::max(1, usableCpus() / 2));
        QCOMPARE(env.back(), expected);
        std::vector<std::string> set{"OMP_NUM_THREADS=3"};
        QVERIFY(!shareCpusAmongRanks(set, 2).has_value());
        QCOMPARE(set.size(), size_t(1));
    }
    void usableCpusFollowsTheAffinityMask() {
        cpu_set_t all;
        CPU_ZERO(&all);
        QCOMPARE(::sched_getaffinity(0, sizeof all, &all), 0);
        QCOMPARE(usableCpus(), CPU_COUNT(&all));
        // pinned to one CPU (as taskset or a Slurm cpuset would), the count follows
        int first = 0;
        while (!CPU_ISSET(first, &all)) ++first;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(first, &one);
        QCOMPARE(::sched_setaffinity(0, sizeof one, &one), 0);
        const int pinned = usableCpus();
        QCOMPARE(::sched_setaffinity(0, sizeof all, &all), 0);
        QCOMPARE(pinned, 1);
    }
};

QTEST_APPLESS_MAIN(TestRankThreads)
#include "test_rank_threads.moc"
