# SPDX-License-Identifier: GPL-2.0-or-later
"""--addressability=yes: memcheck's invalid reads and writes, with its words,
in the log and the report; a C extension's bad access with the Python line
that called it; none of it with --addressability=no (docs/addressability.md)."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import (SRC, TestCase, build_extension, program, python_interpreters,  # noqa: E402
                    run, source_line)

HEAP = "tests/regress/addr_heap.c"
FREED = "tests/regress/addr_freed.c"
EXT = "tests/regress/addr_ext.c"
EXT_PY = os.path.join(SRC, "tests/regress/py_addr_ext.py")
YES = ["--addressability=yes", "--leak-check=no"]
FREELIST = ["--freelist-vol=10000", "--freelist-big-blocks=2000"]
ADDRESS_KINDS = {"Addr1", "Addr2", "Addr4", "Addr8", "Addr16", "Addr32", "Addr", "Param", "User"}
REQUESTS = "tests/regress/addr_requests.c"
LOADER = "tests/regress/loader_strings.c"


def line_of(path, marker):
    return f"{os.path.basename(path)}:{source_line(path, marker)}"


def top(frames):
    f = frames[0]
    return f"{os.path.basename(f['file'] or '')}:{f['line']}"


def log_errors(log):
    """The log's address errors: (headline, first frame, description, the
    description's first frame) for each."""
    out = []
    lines = [re.sub(r"^==\d+== ?", "", x) for x in log.splitlines()]
    for i, text in enumerate(lines):
        if not (text.startswith("Invalid ") or text.startswith("Syscall param ")):
            continue
        at = re.search(r"\((\S+:\d+)\)", lines[i + 1])
        desc = next(x.strip() for x in lines[i + 1:] if x.strip().startswith("Address "))
        out.append((text, at.group(1) if at else lines[i + 1], desc))
    return out


def by_line(report, path):
    return {top(e["frames"]): e for e in report["errors"] if e["kind"] in ADDRESS_KINDS
            and e["frames"] and os.path.basename(path) in top(e["frames"])}


class Heap(TestCase):
    @classmethod
    def setUpClass(cls):
        cls.r = run([program("addr_heap")], options=YES)

    def test_overflow_and_underflow_by_one(self):
        expected = [
            ("READ_AFTER_1", "Addr1", "Invalid read of size 1", "is 0 bytes after a block of size 10 alloc'd"),
            ("WRITE_BEFORE_1", "Addr1", "Invalid write of size 1", "is 1 bytes before a block of size 10 alloc'd"),
            ("READ_AFTER_2", "Addr2", "Invalid read of size 2", "is 0 bytes after a block of size 10 alloc'd"),
            ("WRITE_BEFORE_2", "Addr2", "Invalid write of size 2", "is 2 bytes before a block of size 10 alloc'd"),
            ("READ_AFTER_4", "Addr4", "Invalid read of size 4", "is 0 bytes after a block of size 80 alloc'd"),
            ("WRITE_BEFORE_4", "Addr4", "Invalid write of size 4", "is 4 bytes before a block of size 80 alloc'd"),
            ("READ_AFTER_8", "Addr8", "Invalid read of size 8", "is 0 bytes after a block of size 176 alloc'd"),
            ("WRITE_BEFORE_8", "Addr8", "Invalid write of size 8", "is 8 bytes before a block of size 176 alloc'd"),
            ("PARTIAL_UNALIGNED", "Addr8", "Invalid read of size 8", "is 6 bytes inside a block of size 12 alloc'd"),
        ]
        errors = by_line(self.r.report, HEAP)
        logged = {at: (head, desc) for head, at, desc in log_errors(self.r.log)}
        for marker, kind, head, desc in expected:
            where = line_of(HEAP, marker)
            with self.subTest(marker=marker):
                e = errors.get(where)
                self.assertIsNotNone(e, f"{where} not in {list(errors)}")
                self.assertEqual(e["kind"], kind)
                self.assertEqual(e["message"], head)
                self.assertRegex(e["description"], r"^Address 0x[0-9a-f]+ " + re.escape(desc) + "$")
                self.assertEqual(e["address"], e["description"].split()[1])
                self.assertIsNone(e["free_frames"])
                self.assertEqual(logged[where][0], head)
                self.assertTrue(logged[where][1].endswith(desc), logged[where])
        # Each block's allocation line is its alloc stack's first frame.
        self.assertEqual(top(errors[line_of(HEAP, "READ_AFTER_8")]["alloc_frames"]),
                         f"addr_heap.c:{source_line(HEAP, 'malloc(176)')}")
        self.assertEqual(len(errors), len(expected), sorted(errors))
        self.assertIn(f"ERROR SUMMARY: {len(expected)} errors from {len(expected)} contexts",
                      self.r.log)

    def test_aligned_partial_load_is_ok(self):
        self.assertNotIn(line_of(HEAP, "PARTIAL_ALIGNED"), by_line(self.r.report, HEAP))

    def test_partial_loads_ok_no_reports_it(self):
        r = run([program("addr_heap")], options=[*YES, "--partial-loads-ok=no"])
        e = by_line(r.report, HEAP)[line_of(HEAP, "PARTIAL_ALIGNED")]
        self.assertEqual(e["message"], "Invalid read of size 8")
        self.assertTrue(e["description"].endswith("is 8 bytes inside a block of size 12 alloc'd"))

    def test_on_by_default(self):
        r = run([program("addr_heap")], options=["--leak-check=no"])
        self.assertIn("Invalid read of size 1", r.log)
        self.assertTrue(any(e["kind"] in ADDRESS_KINDS for e in r.report["errors"]), r.log)

    def test_addressability_no_reports_none(self):
        r = run([program("addr_heap")], options=["--addressability=no", "--leak-check=no"])
        self.assertEqual(r.rc, 0, r.log)
        self.assertEqual([e for e in r.report["errors"] if e["kind"] in ADDRESS_KINDS], [])
        self.assertNotIn("Invalid read", r.log)
        self.assertIn("ERROR SUMMARY: 0 errors from 0 contexts", r.log)

    def test_error_exitcode_counts_them(self):
        r = run([program("addr_heap")], options=[*YES, "--error-exitcode=3"])
        self.assertEqual(r.rc, 3, r.log)


class Freed(TestCase):
    @classmethod
    def setUpClass(cls):
        cls.r = run([program("addr_freed")], options=[*YES, *FREELIST])

    def test_use_after_free_has_three_stacks(self):
        errors = by_line(self.r.report, FREED)
        e = errors[line_of(FREED, "READ_FREED")]
        self.assertEqual((e["kind"], e["message"]), ("Addr4", "Invalid read of size 4"))
        self.assertTrue(e["description"].endswith("is 8 bytes inside a block of size 177 free'd"))
        self.assertIn(f"addr_freed.c:{source_line(FREED, 'FREE_177')}",
                      [f"{os.path.basename(f['file'] or '')}:{f['line']}" for f in e["free_frames"]])
        self.assertEqual(top(e["alloc_frames"]), line_of(FREED, "ALLOC_177"))
        w = errors[line_of(FREED, "WRITE_FREED")]
        self.assertEqual((w["kind"], w["message"]), ("Addr1", "Invalid write of size 1"))
        self.assertTrue(w["description"].endswith("is 0 bytes inside a block of size 177 free'd"))
        # The log: memcheck's layout, free stack then "Block was alloc'd at".
        text = self.r.log
        i = text.index("is 8 bytes inside a block of size 177 free'd")
        j = text.index("Block was alloc'd at", i)
        self.assertIn(line_of(FREED, "FREE_177"), text[i:j])
        self.assertIn(line_of(FREED, "ALLOC_177"), text[j:j + 300])

    def test_read_modify_write_reports_both(self):
        # `addq $1, (mem)` on freed memory: memcheck's two errors, one line.
        line = line_of(FREED, "RMW_FREED")
        found = sorted(e["message"] for e in self.r.report["errors"]
                       if e["frames"] and top(e["frames"]) == line)
        self.assertEqual(found, ["Invalid read of size 8", "Invalid write of size 8"], self.r.log)
        self.assertIn("is 16 bytes inside a block of size 177 free'd", self.r.log)

    def test_after_realloc(self):
        e = by_line(self.r.report, FREED)[line_of(FREED, "READ_AFTER_REALLOC")]
        self.assertTrue(e["description"].endswith("is 15 bytes inside a block of size 16 free'd"))
        self.assertEqual(e["free_frames"][0]["function"], "realloc")
        self.assertIn(line_of(FREED, "REALLOC_16"),
                      [f"{os.path.basename(f['file'] or '')}:{f['line']}" for f in e["free_frames"]])

    def test_read_syscall_into_freed_buffer(self):
        (e,) = [e for e in self.r.report["errors"] if e["kind"] == "Param"]
        self.assertEqual(e["message"], "Syscall param read(buf) points to unaddressable byte(s)")
        self.assertEqual(e["param"], "read(buf)")
        self.assertTrue(e["description"].endswith("is 0 bytes inside a block of size 10 free'd"))
        self.assertIn(line_of(FREED, "READ_SYSCALL"),
                      [f"{os.path.basename(f['file'] or '')}:{f['line']}" for f in e["frames"]])
        self.assertIn("Syscall param read(buf) points to unaddressable byte(s)", self.r.log)

    def test_quarantine_releases_big_blocks_first(self):
        self.assertIn("\nreused\n", self.r.log)
        errors = by_line(self.r.report, FREED)
        # `big` left the quarantine and its memory is a live block again:
        # nothing to report (memcheck neither); `small` is still held.
        self.assertNotIn(line_of(FREED, "READ_PAST_QUARANTINE"), errors)
        e = errors[line_of(FREED, "READ_SMALL_QUARANTINED")]
        self.assertTrue(e["description"].endswith("is 1 bytes inside a block of size 100 free'd"))
        # `gone` left it and no block took its memory back: the client
        # arena's free memory, in memcheck's words (the slot of a 40-byte
        # block holds 48 bytes).
        e = errors[line_of(FREED, "READ_RELEASED")]
        self.assertEqual(e["message"], "Invalid read of size 1")
        self.assertRegex(e["description"], r"^Address 0x[0-9a-f]+ is 3 bytes inside an unallocated "
                         r'block of size 48 in arena "client"$')

    def test_below_stack_pointer(self):
        e = by_line(self.r.report, FREED)[line_of(FREED, "BELOW_SP")]
        self.assertEqual((e["kind"], e["message"]), ("Addr8", "Invalid read of size 8"))
        self.assertRegex(e["description"],
                         r"^Address 0x[0-9a-f]+ is on thread 1's stack, 1024 bytes below stack pointer$")
        self.assertRegex(self.r.log, r"is on thread 1's stack\n==\d+==  1024 bytes below stack pointer")

    def test_double_free_still_detected(self):
        # The quarantine that catches accesses still tells a double free.
        r = run([program("double_free")], options=YES)
        self.assertEqual([e["kind"] for e in r.report["errors"]], ["DoubleFree"])


class MemcheckRequests(TestCase):
    def test_make_mem_and_check_mem_as_memcheck(self):
        r = run([program("addr_requests")], options=YES)
        self.assertIn("first bad at +48, whole ok", r.log)
        errors = by_line(r.report, REQUESTS)
        e = errors[line_of(REQUESTS, "WRITE_NOACCESS")]
        self.assertEqual((e["kind"], e["message"]), ("Addr1", "Invalid write of size 1"))
        self.assertTrue(e["description"].endswith("is 40 bytes inside a block of size 64 alloc'd"))
        self.assertNotIn(line_of(REQUESTS, "WRITE_UNDEFINED_OK"), errors)
        u = errors[line_of(REQUESTS, "CHECK_HERE")]
        self.assertEqual(u["kind"], "User")
        self.assertEqual(u["message"], "Unaddressable byte(s) found during client check request")
        self.assertTrue(u["description"].endswith("is 48 bytes inside a block of size 64 alloc'd"))
        self.assertIn("Unaddressable byte(s) found during client check request", r.log)
        # CREATE_BLOCK's name and stack describe an address in the range.
        z = errors[line_of(REQUESTS, "WRITE_ZONE")]
        self.assertEqual(z["message"], "Invalid write of size 1")
        self.assertRegex(z["description"],
                         r"^Address 0x[0-9a-f]+ is 130 bytes inside a magic foople zone of size "
                         r"256 client-defined$")
        self.assertEqual(top(z["alloc_frames"]), line_of(REQUESTS, "CREATE_HERE"))
        self.assertIn("block 0 discarded 0 again 1", r.log)
        d = errors[line_of(REQUESTS, "WRITE_DEAD_FRAME")]
        self.assertRegex(d["description"], r"is 0 bytes inside a dead frame zone of size 4,096 "
                                           r"client-defined$")
        self.assertEqual(len(errors), 4, sorted(errors))
        # The frames that reuse the dead frame's memory (printf, exit) are
        # no errors: memcheck's count, as in its describe-block.
        self.assertIn("after the dead frame", r.log)
        self.assertEqual(len([e for e in r.report["errors"] if e["kind"] in ADDRESS_KINDS]), 4,
                         r.log)

    def test_without_addressability_every_check_passes(self):
        r = run([program("addr_requests")], options=["--addressability=no", "--leak-check=no"])
        self.assertIn("first bad at +-1, whole ok", r.log)
        self.assertEqual(r.report["errors"], [])


class Suppressions(TestCase):
    def with_supp(self, text, argv, options):
        with tempfile.NamedTemporaryFile("w", suffix=".supp", delete=False) as f:
            f.write(text)
        try:
            return run(argv, options=[*options, f"--suppressions={f.name}"])
        finally:
            os.unlink(f.name)

    def test_gen_suppressions_names_kind_and_param(self):
        r = run([program("addr_freed")], options=[*YES, *FREELIST, "--gen-suppressions=all"])
        for kind in ("memgrow:Addr1", "memgrow:Addr4", "memgrow:Addr8", "memgrow:Param"):
            self.assertIn(kind, r.log)
        self.assertRegex(r.log, r"memgrow:Param\n\s*read\(buf\)\n")

    def test_each_kind_is_suppressed_by_its_own_entry(self):
        supp = ("{\n   addr4\n   memgrow:Addr4\n   fun:main\n}\n"
                "{\n   param\n   memgrow:Param\n   read(buf)\n   ...\n   fun:main\n}\n"
                "{\n   other-param\n   memgrow:Param\n   write(buf)\n   ...\n   fun:main\n}\n")
        r = self.with_supp(supp, [program("addr_freed")], [*YES, *FREELIST])
        kinds = sorted(e["kind"] for e in r.report["errors"])
        self.assertNotIn("Addr4", r.log.split("ERROR SUMMARY")[0].replace("memgrow:Addr4", ""))
        self.assertNotIn("Syscall param", r.log)
        # Addr1 and Addr8 stay: a kind silences only itself.
        self.assertIn("Invalid write of size 1", r.log)
        self.assertIn("Invalid read of size 8", r.log)
        self.assertRegex(r.log, r"ERROR SUMMARY: \d+ errors from \d+ contexts \(suppressed: [1-9]")
        self.assertIn("Addr1", kinds)


class StrippedLoader(TestCase):
    """A program whose interpreter is a copy of this machine's ld.so with no
    symbols and no link to its debug file: the loader's own word-at-a-time
    string code reads past its heap strings, and no redirection can replace
    it. No error comes from it; the program's own strlen overflow is still
    caught (docs/addressability.md)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="memgrow-ldso-")
        ldso = os.path.join(cls.tmp.name, "ld-linux-x86-64.so.2")
        subprocess.run(["cp", os.path.realpath("/lib64/ld-linux-x86-64.so.2"), ldso], check=True)
        subprocess.run(["strip", "--strip-all", "-R", ".gnu_debuglink", "-R",
                        ".note.gnu.build-id", ldso], check=True)
        cls.prog = os.path.join(cls.tmp.name, "loader_strings")
        subprocess.run(["cc", "-g", "-O0", "-o", cls.prog, os.path.join(SRC, LOADER),
                        f"-Wl,--dynamic-linker={ldso}"], check=True)
        # No defaults: glibc.supp must not be what hides them.
        cls.r = run([cls.prog, "overflow"], options=[*YES, "--default-suppressions=no"])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_runs_through_the_stripped_copy(self):
        self.assertEqual(self.r.rc, 0, self.r.log[-3000:])
        self.assertIn("opened ", self.r.log)
        self.assertIn("loader_strings", self.r.report["command"][0])

    def test_no_error_from_the_loader(self):
        loader = [e for e in self.r.report["errors"] if e["frames"]
                  and "ld-linux" in (e["frames"][0]["object"] or "")]
        self.assertEqual(loader, [])

    def test_sids_stripped_loader_reading_before_a_string(self):
        # sid's CPython 3.14 starts through its own stripped ld.so (glibc
        # 2.4x), whose string code starts at the string's address rounded
        # down to 64 bytes: `import concurrent.futures` dlopen()s an
        # extension and it reads 16 bytes before a heap block.
        python = python_interpreters()["3.14"]
        r = run([*python.argv, "-c", "import concurrent.futures"],
                options=[*YES, "--default-suppressions=no"])
        self.assertEqual(r.rc, 0, r.log[-3000:])
        self.assertEqual([e for e in r.report["errors"] if e["kind"] in ADDRESS_KINDS], [],
                         r.log[-3000:])

    def test_the_programs_own_strlen_overflow_is_caught(self):
        # Its first frame is the preload's strlen, its caller the program's line.
        own = [e for e in self.r.report["errors"]
               if any(f"{os.path.basename(f['file'] or '')}:{f['line']}" == line_of(LOADER, "OWN_STRLEN")
                      for f in e["frames"][:2])]
        self.assertEqual(len(own), 1, self.r.log[-3000:])
        self.assertEqual(own[0]["message"], "Invalid read of size 1")
        self.assertTrue(own[0]["description"].endswith("is 0 bytes after a block of size 13 alloc'd"))
        self.assertEqual(len(self.r.report["errors"]), 1, self.r.log[-3000:])


class PythonExtension(TestCase):
    """A C extension's off-by-one read and use after free, called from
    Python through ctypes: the access stack has the Python lines."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="memgrow-ext-")
        cls.so = os.path.join(cls.tmp.name, "libaddr_ext.so")
        subprocess.run(["cc", "-g", "-O0", "-shared", "-fPIC", "-o", cls.so,
                        os.path.join(SRC, EXT)], check=True)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_bad_access_shows_the_python_caller(self):
        # pyenv's shared 3.11, Debian's static 3.11, sid's static 3.14 (its
        # own glibc and a stripped ld.so, whose string reads are no error).
        interpreters = python_interpreters()
        for name in ("running", "debian", "3.14"):
            with self.subTest(interpreter=name):
                r = run([*interpreters[name].argv, EXT_PY, self.so], options=YES)
                errors = {top(e["frames"]): e for e in r.report["errors"] if e["frames"]}
                e = errors[line_of(EXT, "EXT_OFF_BY_ONE")]
                self.assertEqual(e["message"], "Invalid read of size 1")
                self.assertTrue(e["description"].endswith("is 0 bytes after a block of size 24 alloc'd"))
                py = [(f["function"], f["line"]) for f in e["frames"] if f["python"]]
                self.assertEqual(py[:2], [("total", source_line("tests/regress/py_addr_ext.py",
                                                                "PY_CALL_OFF_BY_ONE")),
                                          ("<module>", source_line("tests/regress/py_addr_ext.py",
                                                                   "total(24)"))])
                # The block's allocation stack has them too.
                self.assertIn("total", [f["function"] for f in e["alloc_frames"] if f["python"]])
                u = errors[line_of(EXT, "EXT_AFTER_FREE")]
                self.assertTrue(u["description"].endswith("is 12 bytes inside a block of size 40 free'd"))
                self.assertIn(("stale", source_line("tests/regress/py_addr_ext.py", "PY_CALL_AFTER_FREE")),
                              [(f["function"], f["line"]) for f in u["frames"] if f["python"]])
                self.assertRegex(r.log, r"by py: total \(\S*py_addr_ext.py:%d\)"
                                 % source_line("tests/regress/py_addr_ext.py", "PY_CALL_OFF_BY_ONE"))

    def test_python_startup_is_clean(self):
        # pyenv's shared 3.11, Debian's static 3.11, sid's static 3.14 (its
        # own glibc and a stripped ld.so, whose string reads are no error).
        interpreters = python_interpreters()
        for name in ("running", "debian", "3.14"):
            with self.subTest(interpreter=name):
                r = run([*interpreters[name].argv, "-c", "pass"], options=YES)
                self.assertEqual([e for e in r.report["errors"] if e["kind"] in ADDRESS_KINDS], [])
                self.assertIn("ERROR SUMMARY: 0 errors", r.log)


class PythonExtensionModule(TestCase):
    """The same bugs in a real extension module, built against the headers
    of each interpreter: pyenv's 3.11, Debian's 3.11 and sid's 3.13 to 3.15."""

    def check(self, python):
        ext, driver = "tests/regress/py_addr_extmod.c", "tests/regress/py_addr_extmod.py"
        with tempfile.TemporaryDirectory(prefix="memgrow-extmod-") as tmp:
            build_extension(python, "py_addr_extmod.c", "addr_extmod", tmp)
            r = run([python, os.path.join(SRC, driver), tmp], options=YES)
        self.assertEqual(r.rc, 0, r.log[-3000:])
        errors = {top(e["frames"]): e for e in r.report["errors"] if e["frames"]}
        e = errors[line_of(ext, "EXTMOD_OFF_BY_ONE")]
        self.assertEqual((e["kind"], e["message"]), ("Addr1", "Invalid read of size 1"))
        self.assertTrue(e["description"].endswith("is 0 bytes after a block of size 24 alloc'd"))
        py = [(f["function"], f["line"]) for f in e["frames"] if f["python"]]
        self.assertEqual(py[:2], [("total", source_line(driver, "PY_EXTMOD_OFF_BY_ONE")),
                                  ("<module>", source_line(driver, "PY_EXTMOD_MAIN"))])
        self.assertIn("total", [f["function"] for f in e["alloc_frames"] if f["python"]])
        u = errors[line_of(ext, "EXTMOD_AFTER_FREE")]
        self.assertEqual(u["message"], "Invalid read of size 4")
        self.assertTrue(u["description"].endswith("is 12 bytes inside a block of size 40 free'd"))
        self.assertIn(("stale", source_line(driver, "PY_EXTMOD_AFTER_FREE")),
                      [(f["function"], f["line"]) for f in u["frames"] if f["python"]])
        self.assertRegex(r.log, r"by py: total \(\S*py_addr_extmod.py:%d\)"
                         % source_line(driver, "PY_EXTMOD_OFF_BY_ONE"))

    def test_on_the_running_python(self):
        self.check(sys.executable)

    def test_on_debian_python(self):
        self.check("/usr/bin/python3")

    def test_on_newer_pythons(self):
        # Debian sid's, built against their headers (libpythonX.Y-dev,
        # unpacked by scripts/fetch-python.sh); a missing one fails.
        interpreters = python_interpreters()
        for name in ("3.13", "3.14", "3.15"):
            with self.subTest(interpreter=name):
                self.check(interpreters[name].argv[0])


class GrowthUnchanged(TestCase):
    def test_classes_and_leaks_are_the_same(self):
        for prog in ("grow_list", "leak_tree", "ring_plateau"):
            with self.subTest(program=prog):
                no = run([program(prog)], options=["--addressability=no"]).report
                yes = run([program(prog)], options=["--addressability=yes"]).report
                self.assertEqual([e for e in yes["errors"] if e["kind"] in ADDRESS_KINDS], [])

                def classes(rep):
                    return sorted((s["class"], s["peak_bytes"], s["live_bytes"], s["at_exit_bytes"])
                                  for s in rep["sites"])
                self.assertTrue(no["sites"])
                self.assertEqual(classes(yes), classes(no))
                # What the scan found, not how much it read (redzones and the
                # quarantine change the heap's layout).
                def found(rep):
                    return {k: v for k, v in rep["leak_check"].items() if k != "scanned_bytes"}
                self.assertEqual(found(yes), found(no))


if __name__ == "__main__":
    unittest.main()
