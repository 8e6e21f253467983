// Quoting for the remote shell, checked against a real POSIX shell: every hostile argument (spaces, quotes,
// $(...), ;, newlines, globs) comes back byte for byte and runs nothing. Also the ssh argv's shape, refused
// host names, and the .deepspeed_env files.
#include <QtTest>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/launch/deepspeed_env.h"
#include "core/launch/ssh_command.h"
#include "core/util/child_process.h"
#include "core/util/error.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
namespace fs = std::filesystem;

namespace {
// Runs `sh -c LINE` in `dir` and returns its stdout.
std::string shell(const std::string& line, const fs::path& dir) {
    ChildProcess p = spawnChild({"/bin/sh", "-c", "cd " + shellQuote(dir.string()) + " && " + line},
                                SpawnOptions{environmentWith({}, {}), false, false, -1});
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(p.outFd, buf, sizeof buf)) > 0) out.append(buf, size_t(n));
    ::close(p.outFd);
    ::close(p.errFd);
    ::waitpid(p.pid, nullptr, 0);
    return out;
}
}  // namespace

class TestSshCommand : public QObject {
    Q_OBJECT
private slots:
    void hostileArgumentsSurviveTheShell_data() {
        QTest::addColumn<QString>("arg");
        QTest::newRow("spaces") << "/data/my model/config 1.json";
        QTest::newRow("single quotes") << "it's 'quoted'";
        QTest::newRow("double quotes") << "say \"hi\"";
        QTest::newRow("command substitution") << "$(touch canary)";
        QTest::newRow("backticks") << "`touch canary`";
        QTest::newRow("semicolon") << "a; touch canary";
        QTest::newRow("pipe and redirect") << "a | touch canary > x";
        QTest::newRow("newline") << "first\ntouch canary";
        QTest::newRow("glob") << "*";
        QTest::newRow("variables") << "$HOME ${IFS} $0";
        QTest::newRow("backslashes") << "a\\'b\\\\";
        QTest::newRow("empty") << "";
        QTest::newRow("unicode") << "数据/模型";
    }
    void hostileArgumentsSurviveTheShell() {
        QFETCH(QString, arg);
        QTemporaryDir dir;
        const std::string a = arg.toStdString();
        // printf '%s\0' each argument: the shell must see exactly our three words
        const std::string line = remoteCommandLine({"printf", "%s\\0", a, "second", a});
        const std::string got = shell(line, dir.path().toStdString());
        QCOMPARE(QByteArray::fromStdString(got), QByteArray::fromStdString(a + '\0' + "second" + '\0' + a + '\0'));
        QVERIFY2(!fs::exists(fs::path(dir.path().toStdString()) / "canary"), "the shell ran an injected command");
        QVERIFY(!fs::exists(fs::path(dir.path().toStdString()) / "x"));
    }

    void sshArgvShape() {
        SshOptions o;
        o.port = 2222;
        o.configFile = "/etc/my ssh/config";
        const auto argv = sshArgv("node-1", o, {"/opt/fts/bin/fts", "node", "--config", "/a b/c.json"});
        const std::vector<std::string> expected{"ssh",
                                                "-T",
                                                "-o",
                                                "BatchMode=yes",
                                                "-o",
                                                "ConnectTimeout=5",
                                                "-o",
                                                "ServerAliveInterval=5",
                                                "-o",
                                                "ServerAliveCountMax=2",
                                                "-F",
                                                "/etc/my ssh/config",
                                                "-p",
                                                "2222",
                                                "--",
                                                "node-1",
                                                "'/opt/fts/bin/fts' 'node' '--config' '/a b/c.json'"};
        QCOMPARE(argv, expected);
    }

    void hostileHostsAreRefused_data() {
        QTest::addColumn<QString>("host");
        QTest::newRow("option") << "-oProxyCommand=touch canary";
        QTest::newRow("semicolon") << "h1;touch canary";
        QTest::newRow("space") << "h1 h2";
        QTest::newRow("substitution") << "$(touch canary)";
        QTest::newRow("newline") << "h1\nh2";
        QTest::newRow("empty") << "";
    }
    void hostileHostsAreRefused() {
        QFETCH(QString, host);
        bool refused = false;
        try {
            sshArgv(host.toStdString(), SshOptions{}, {"fts"});
        } catch (const ConfigError& e) {
            refused = QString(e.what()).contains("host \"");
        }
        QVERIFY(refused);
    }

    void deepspeedEnvFiles() {
        const EnvList env =
            parseDeepspeedEnv("NCCL_IB_DISABLE=1\n# comment\n\nPATH=/opt/x:/usr/bin\nexport A_B=x=y \r\n", "f");
        QCOMPARE(env.size(), size_t(3));
        QCOMPARE(env[0].first, std::string("NCCL_IB_DISABLE"));
        QCOMPARE(env[1].second, std::string("/opt/x:/usr/bin"));
        QCOMPARE(env[2].first, std::string("A_B"));
        QCOMPARE(env[2].second, std::string("x=y "));
        for (const auto& [text, expected] : std::vector<std::pair<std::string, std::string>>{
                 {"A=1\nno equals here\n", "f, line 2: expected NAME=VALUE"},
                 {"1A=2\n", "f, line 1: \"1A\" is not a variable name"},
                 {"A-B=2\n", "\"A-B\" is not a variable name"}}) {
            QString msg;
            try {
                parseDeepspeedEnv(text, "f");
            } catch (const ConfigError& e) {
                msg = e.what();
            }
            QVERIFY2(msg.contains(QString::fromStdString(expected)), qPrintable(msg));
        }
    }

    void deepspeedEnvHomeThenWorkingFolder() {
        QTemporaryDir home, cwd;
        std::ofstream(home.path().toStdString() + "/.deepspeed_env") << "A=home\nB=home\n";
        std::ofstream(cwd.path().toStdString() + "/.deepspeed_env") << "B=cwd\n";
        std::vector<fs::path> sources;
        const EnvList env = nodeEnvironment(home.path().toStdString(), cwd.path().toStdString(), &sources);
        QCOMPARE(sources.size(), size_t(2));
        std::map<std::string, std::string> last;
        for (const auto& [k, v] : env) last[k] = v;
        QCOMPARE(last["A"], std::string("home"));
        QCOMPARE(last["B"], std::string("cwd"));
    }
};

QTEST_APPLESS_MAIN(TestSshCommand)
#include "test_ssh_command.moc"
