// processAlive: a running process is alive; an exited child is not, before (zombie) and after it is reaped.
#include <QtTest>

#include <sys/wait.h>
#include <unistd.h>

#include "core/util/process.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

class TestProcess : public QObject {
    Q_OBJECT
private slots:
    void selfIsAlive() { QVERIFY(fts::processAlive(::getpid())); }
    void invalidPidsAreNotAlive() {
        QVERIFY(!fts::processAlive(0));
        QVERIFY(!fts::processAlive(-5));
        QVERIFY(!fts::processAlive(int64_t(1) << 40));
    }
    void exitedChildIsNotAliveEvenAsZombie() {
        int go[2];
        QVERIFY(::pipe(go) == 0);
        const pid_t pid = ::fork();
        if (pid == 0) {  // child: wait for the parent's word, then exit
            char c;
            [[maybe_unused]] auto n = ::read(go[0], &c, 1);
            ::_exit(0);
        }
        QVERIFY(pid > 0);
        QVERIFY(fts::processAlive(pid));
        [[maybe_unused]] auto n = ::write(go[1], "x", 1);
        // Exited but not reaped yet: a zombie. waitid(WNOWAIT) waits for the exit without reaping.
        siginfo_t info{};
        QVERIFY(::waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == 0);
        QVERIFY(!fts::processAlive(pid));
        int status = 0;
        QCOMPARE(::waitpid(pid, &status, 0), pid);
        QVERIFY(!fts::processAlive(pid));
        ::close(go[0]);
        ::close(go[1]);
    }
};

QTEST_APPLESS_MAIN(TestProcess)
#include "test_process.moc"
