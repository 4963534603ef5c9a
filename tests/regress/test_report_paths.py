# SPDX-License-Identifier: GPL-2.0-or-later
"""Where a report goes (docs/robustness.md, "Where a report goes"): a
regular file is replaced atomically, through symbolic links to their target;
devices, FIFOs, Unix sockets and /dev/stdout are written through; the mode
comes from the umask at start-up; a lost final report says why and fails the
run. The same rules hold for memgrow-report's -o, snapshots and vgdb's
`report`. The device cases run in a private mount namespace with its own
/dev, so that the machine's /dev is never touched."""
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mgtest  # noqa: E402
from mgtest import REPORT, VALGRIND, TestCase, memgrow_report, program  # noqa: E402


def memgrow(argv, options, cwd, timeout=120, stdout=subprocess.PIPE):
    p = subprocess.run([VALGRIND, "--tool=memgrow", *mgtest.COMPLETE,
                        *options, *argv], cwd=cwd, stdout=stdout,
                       stderr=subprocess.PIPE, text=True, timeout=timeout)
    return p.returncode, (p.stdout or "") + p.stderr


def is_report(text):
    doc = json.loads(text)
    return doc.get("memgrow") in (1, 2) and "sites" in doc


def json_documents(text):
    """The JSON documents written one after another in text; raises at one
    that another cut."""
    docs, i, decoder = [], 0, json.JSONDecoder()
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return docs
        doc, i = decoder.raw_decode(text, i)
        docs.append(doc)


def in_namespace(script, cwd):
    """Runs a shell script as root in a private mount namespace; returns its
    output. /dev there is a tmpfs of its own (null, full, stdout)."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        raise unittest.SkipTest("needs root and unshare(1) for a private mount namespace")
    setup = ("set -u; mount --make-rprivate / && mount -t tmpfs tmpfs /dev && "
             "mknod -m 666 /dev/null c 1 3 && mknod -m 666 /dev/full c 1 7 && "
             "ln -s /proc/self/fd/1 /dev/stdout && ln -s /proc/self/fd/2 /dev/stderr\n")
    p = subprocess.run(["unshare", "--mount", "sh", "-c", setup + script], cwd=cwd,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300,
                       env=dict(os.environ, VG=VALGRIND, PROG=program("grow_list"), REPORT=REPORT))
    return p.stdout


class ReportPaths(TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="memgrow-test-paths-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    def test_devices_are_written_through_not_replaced(self):
        out = in_namespace(
            'for dev in /dev/null /dev/full; do\n'
            '  "$VG" --tool=memgrow -q --json-file=$dev "$PROG" 10; echo "$dev rc=$?"\n'
            '  [ -c $dev ] && echo "$dev is a device"\n'
            'done\n'
            '"$VG" --tool=memgrow -q --json-file=/dev/stdout "$PROG" 10 > stdout.json\n'
            'echo "stdout rc=$?"; [ -L /dev/stdout ] && echo "/dev/stdout is a link"\n'
            'ls /dev | tr "\\n" " "; echo\n', self.tmp)
        self.assertIn("/dev/null rc=0", out)
        self.assertIn("/dev/null is a device", out)
        self.assertIn("/dev/full is a device", out)
        self.assertIn("/dev/stdout is a link", out)
        self.assertEqual(out.splitlines()[-1].split(), ["full", "null", "stderr", "stdout"])
        # /dev/full refuses every byte: said, with the reason, and a failed run.
        self.assertIn("writing the report '/dev/full' failed: No space left on device", out)
        self.assertIn("/dev/full rc=1", out)
        with open(self.path("stdout.json")) as f:
            self.assertTrue(is_report(f.read()))

    def test_stdout_keeps_what_the_program_wrote_first(self):
        with open(self.path("out.txt"), "w") as f:
            rc, log = memgrow(["/bin/sh", "-c", "echo hello from the program"],
                              ["--json-file=/dev/stdout"], self.tmp, stdout=f)
        self.assertEqual(rc, 0, log)
        with open(self.path("out.txt")) as f:
            first, rest = f.read().split("\n", 1)
        self.assertEqual(first, "hello from the program")
        self.assertTrue(is_report(rest))

    def test_a_full_disk_and_a_read_only_directory_fail_the_run(self):
        out = in_namespace(
            'mkdir small ro && mount -t tmpfs -o size=4k tmpfs small && mount -t tmpfs tmpfs ro\n'
            '"$VG" --tool=memgrow -q --json-file=small/r.json "$PROG" 10; echo "small rc=$?"\n'
            'ls small | wc -l\n'
            'mkfifo go\n'
            '"$VG" --tool=memgrow -q --json-file=ro/r.json /bin/sh -c '
            '"echo > started; read x < go" & pid=$!\n'
            'while [ ! -e started ]; do sleep 0.1; done\n'
            'mount -o remount,ro ro; echo > go; wait $pid; echo "ro rc=$?"\n', self.tmp)
        small = os.path.join(self.tmp, "small", "r.json")
        self.assertIn(f"writing the report '{small}' failed: No space left on device", out)
        self.assertIn("small rc=1", out)
        self.assertEqual(out.split("small rc=1\n")[1].split("\n")[0], "0")  # no temporary left
        ro = os.path.join(self.tmp, "ro", "r.json")
        self.assertIn(f"cannot write the report '{ro}': Read-only file system", out)
        self.assertIn("ro rc=1", out)

    def test_exit_code_of_a_lost_report(self):
        d = self.path("gone")
        os.mkdir(d)
        opts = [f"--json-file={d}/r.json"]
        script = f"rmdir {d}"  # the directory goes while the program runs
        for extra, want in (([], 1), (["--lost-report-exitcode=7"], 7),
                            (["--lost-report-exitcode=0"], 0),
                            (["--error-exitcode=42"], 42)):
            with self.subTest(options=extra):
                os.makedirs(d, exist_ok=True)
                rc, log = memgrow(["/bin/sh", "-c", script], opts + extra, self.tmp)
                self.assertEqual(rc, want, log)
                self.assertIn(f"cannot write the report '{d}/r.json': No such file or directory",
                              log)

    def test_forked_reports_to_one_written_through_path_arrive_whole(self):
        # 13 processes end together and write /dev/stdout, which they share:
        # into a file and into a pipe, each report arrives whole (a lock).
        argv = [VALGRIND, "--tool=memgrow", *mgtest.COMPLETE, "--leak-check=no",
                "--json-file=/dev/stdout", program("fork_same"), "12"]
        with open(self.path("out.txt"), "w") as f:
            p = subprocess.run(argv, cwd=self.tmp, stdout=f, stderr=subprocess.PIPE, text=True,
                               timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.path("out.txt")) as f:
            into_file = f.read()
        p = subprocess.run(argv, cwd=self.tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        for where, text in (("a file", into_file), ("a pipe", p.stdout)):
            with self.subTest(into=where):
                docs = json_documents(text)
                self.assertEqual(len(docs), 13)
                self.assertTrue(all(is_report(json.dumps(d)) for d in docs))
                parent = [d["pid"] for d in docs if "fork" not in d]
                self.assertEqual(len(parent), 1)
                self.assertEqual(sorted(d["ppid"] for d in docs if "fork" in d), [parent[0]] * 12)

    def test_fifo_does_not_block_the_start_and_gets_the_report(self):
        fifo = self.path("f")
        os.mkfifo(fifo)
        p = subprocess.Popen([VALGRIND, "--tool=memgrow", f"--json-file={fifo}", "/bin/sh", "-c",
                              "echo the program ran"], cwd=self.tmp, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        try:
            # The program runs and ends before anyone reads the FIFO.
            self.assertEqual(p.stdout.readline(), "the program ran\n")
            with open(fifo) as f:
                text = f.read()
            self.assertEqual(p.wait(timeout=120), 0)
        finally:
            if p.poll() is None:
                p.kill()
            p.communicate()
        self.assertTrue(is_report(text))
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))

    def wait_for_line(self, p, text, timeout=120):
        """Reads p's log (stderr) until a line holds text; returns the lines
        read. p is killed when none comes in time."""
        lines = []
        watchdog = threading.Timer(timeout, p.kill)
        watchdog.start()
        try:
            for line in p.stderr:
                lines.append(line)
                if text in line:
                    return lines
        finally:
            watchdog.cancel()
        self.fail(f"no line with {text!r}:\n{''.join(lines)}")

    def test_a_stop_signal_ends_the_wait_for_a_fifo_reader(self):
        fifo = self.path("f")
        os.mkfifo(fifo)
        for sig, name in ((signal.SIGTERM, "SIGTERM"), (signal.SIGINT, "SIGINT"),
                          (signal.SIGHUP, "SIGHUP")):
            with self.subTest(signal=name):
                p = subprocess.Popen([VALGRIND, "--tool=memgrow", f"--json-file={fifo}",
                                      program("grow_list"), "10"], cwd=self.tmp,
                                     stderr=subprocess.PIPE, text=True)
                try:
                    self.wait_for_line(p, f"waiting for a reader of the FIFO '{fifo}'")
                    p.send_signal(sig)
                    rc = p.wait(timeout=60)  # the wait gives way: no reader ever comes
                    log = p.stderr.read()
                finally:
                    if p.poll() is None:
                        p.kill()
                    p.communicate()
                self.assertEqual(rc, 1, log)  # a lost report
                self.assertIn(f"the report was not read: {name} came while waiting for a reader "
                              f"of the FIFO '{fifo}'", log)

    def read_once_waiting(self, p, line, fifo):
        """Reads the FIFO's report once P's log says LINE: (exit code, log, report)."""
        try:
            log = self.wait_for_line(p, line)
            with open(fifo) as f:
                report = json.load(f)
            rc = p.wait(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
            p.communicate()
        return rc, "".join(log), report

    def test_snapshots_skip_a_fifo_without_reader_and_the_program_runs_on(self):
        fifo = self.path("f")
        os.mkfifo(fifo)
        p = subprocess.Popen([VALGRIND, "--tool=memgrow", *mgtest.COMPLETE, "--report-every=100ms",
                              f"--json-file={fifo}", program("grow_list"), "20000"],
                             cwd=self.tmp, stderr=subprocess.PIPE, text=True)
        # Read only once the program has ended and the final report waits.
        rc, log, report = self.read_once_waiting(p, f"waiting for a reader of the FIFO '{fifo}'",
                                                 fifo)
        self.assertEqual(rc, 0, log)
        self.assertIn(f"the FIFO '{fifo}' has no reader: snapshots are skipped", log)
        self.assertEqual(report["teardown"], "exit")
        self.assertEqual(report["buckets"][-1]["live_bytes"], 20000 * 104)  # every record

    def test_a_fifo_read_from_the_start_gets_every_processs_report(self):
        # One reader, there before the run: the 13 processes end at their
        # own times, and the reader gets each report whole before its end.
        fifo = self.path("f")
        os.mkfifo(fifo)
        with open(self.path("read.txt"), "w") as out:
            reader = subprocess.Popen(["cat", fifo], stdout=out)
        try:
            # The reader is there once it waits in open() for a writer
            # (openat, on a loaded machine later than the run's start).
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                with open(f"/proc/{reader.pid}/syscall") as f:
                    if f.read().split(" ", 1)[0] in ("257", "2"):
                        break
                time.sleep(0.01)
            p = subprocess.run([VALGRIND, "--tool=memgrow", "--leak-check=no",
                                f"--json-file={fifo}", program("fork_same"), "12"], cwd=self.tmp,
                               stderr=subprocess.PIPE, text=True, timeout=300)
            reader.wait(timeout=60)
        finally:
            if reader.poll() is None:
                reader.kill()
        with open(self.path("read.txt")) as f:
            text = f.read()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("waiting for a reader", p.stderr)
        docs = json_documents(text)
        self.assertEqual(len(docs), 13)
        self.assertEqual(len({d["pid"] for d in docs}), 13)

    def test_a_forked_child_waits_a_bounded_time_for_a_fifo_reader(self):
        fifo = self.path("f")
        os.mkfifo(fifo)
        p = subprocess.Popen([VALGRIND, "--tool=memgrow", "--leak-check=no", f"--json-file={fifo}",
                              program("fork_same"), "2"], cwd=self.tmp, stderr=subprocess.PIPE,
                             text=True)
        # The children give up; the parent, which waits for them, then waits
        # for its own reader.
        rc, log, report = self.read_once_waiting(
            p, f"=={p.pid}== memgrow: waiting for a reader of the FIFO", fifo)
        self.assertEqual(rc, 0, log)
        self.assertEqual(log.count(f"the report was not read: no reader of the FIFO '{fifo}' came "
                                   "within 10 s (a forked child waits no longer)"), 2, log)
        self.assertEqual(report["pid"], p.pid)

    def test_unix_socket_gets_the_report(self):
        path = self.path("s")
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path)
        server.listen(1)
        got = []

        def accept():
            conn, _ = server.accept()
            with conn:
                got.append(b"".join(iter(lambda: conn.recv(65536), b"")))

        t = threading.Thread(target=accept, daemon=True)
        t.start()
        rc, log = memgrow([program("grow_list"), "10"], [f"--json-file={path}"], self.tmp)
        t.join(timeout=60)
        server.close()
        self.assertEqual(rc, 0, log)
        self.assertTrue(is_report(got[0].decode()))
        self.assertTrue(stat.S_ISSOCK(os.lstat(path).st_mode))

    def test_symlink_target_replaced_link_kept(self):
        os.mkdir(self.path("runs"))
        with open(self.path("runs", "today.json"), "w") as f:
            f.write("old")
        os.symlink("runs/today.json", self.path("report.json"))
        os.symlink("runs/new.json", self.path("dangling.json"))  # its target is made
        for link in ("report.json", "dangling.json"):
            rc, log = memgrow([program("grow_list"), "10"], [f"--json-file={link}"], self.tmp)
            self.assertEqual(rc, 0, log)
            self.assertTrue(os.path.islink(self.path(link)))
        for target in ("today.json", "new.json"):
            with open(self.path("runs", target)) as f:
                self.assertTrue(is_report(f.read()))
        self.assertEqual(sorted(os.listdir(self.path("runs"))), ["new.json", "today.json"])

    def test_mode_from_the_umask_at_start(self):
        old = os.umask(0o027)
        try:
            rc, log = memgrow(["/bin/sh", "-c", "umask 777"], ["--json-file=r.json"], self.tmp)
        finally:
            os.umask(old)
        self.assertEqual(rc, 0, log)
        self.assertEqual(stat.S_IMODE(os.stat(self.path("r.json")).st_mode), 0o640)

    def test_a_directory_or_a_loop_is_refused_at_start_with_the_reason(self):
        os.symlink("loop2", self.path("loop1"))
        os.symlink("loop1", self.path("loop2"))
        for path, reason in ((self.tmp, "Is a directory"),
                             ("loop1", "Too many levels of symbolic links")):
            rc, log = memgrow([program("grow_list"), "10"], [f"--json-file={path}"], self.tmp)
            self.assertEqual(rc, 1, log)
            self.assertIn(f"({reason})", log)
            self.assertNotIn("HEAP GROWTH SUMMARY", log)

    def test_vgdb_report_says_why_with_the_path_given(self):
        svc = mgtest.Service(self.tmp, [program("leak_service"), self.path("go"),
                                        self.path("stop")])
        os.mkdir(self.path("dir"))
        os.symlink("dir/snap.json", self.path("snap.json"))
        try:
            svc.expect("ready 1")
            # vgdb's answer says why, naming the path given.
            said = svc.vgdb("report", self.path("dir"))
            self.assertIn(f"cannot write the report '{self.path('dir')}': Is a directory", said)
            said = svc.vgdb("report", "/proc/version")
            self.assertIn("the report '/proc/version': ", said)
            self.assertNotIn(".tmp", said)
            self.assertIn("report written to", svc.vgdb("report", self.path("snap.json")))
            svc.touch(svc.go)
            svc.expect("ready 2")
            self.assertEqual(svc.finish(), 0, svc.log())
        finally:
            svc.close()
        self.assertTrue(os.path.islink(self.path("snap.json")))
        with open(self.path("dir", "snap.json")) as f:
            self.assertTrue(is_report(f.read()))

    def test_memgrow_report_outputs_follow_the_same_rules(self):
        rc, log = memgrow([program("grow_list"), "10"], ["--json-file=r.json"], self.tmp)
        self.assertEqual(rc, 0, log)
        r = self.path("r.json")
        os.mkdir(self.path("out"))
        os.symlink("out/page.html", self.path("page.html"))
        p = memgrow_report("html", r, "-o", self.path("page.html"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(os.path.islink(self.path("page.html")))
        with open(self.path("out", "page.html")) as f:
            self.assertIn("<html", f.read())
        # A directory: exit 2 with the reason and the path given.
        p = memgrow_report("sarif", r, "-o", self.path("out"))
        self.assertEqual(p.returncode, 2)
        self.assertIn(f"cannot write {self.path('out')}: Is a directory", p.stderr)
        # A FIFO's reader gets the whole output; the FIFO stays.
        fifo = self.path("f")
        os.mkfifo(fifo)
        reader = subprocess.Popen(["cat", fifo], stdout=subprocess.PIPE, text=True)
        p = memgrow_report("expand", r, "-o", fifo)
        text = reader.communicate(timeout=60)[0]
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(is_report(text))
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))
        out = in_namespace(
            f'"$REPORT" html {r} -o /dev/null; echo "null rc=$?"; [ -c /dev/null ] && echo device\n'
            f'"$REPORT" merge {r} {r} -o /dev/full; echo "full rc=$?"\n'
            f'"$REPORT" junit {r} -o /dev/full; echo "junit rc=$?"\n', self.tmp)
        self.assertIn("null rc=0\ndevice", out)
        self.assertIn("cannot write /dev/full: No space left on device", out)
        self.assertIn("junit rc=2", out)


if __name__ == "__main__":
    unittest.main()
