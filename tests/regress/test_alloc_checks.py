# SPDX-License-Identifier: GPL-2.0-or-later
"""memgrow checks the malloc family as memcheck of the same Valgrind does
(docs/valgrind-versions.md): realloc(p, 0) from 3.21 (--realloc-zero-bytes-frees,
--show-realloc-size-zero), the alignment and size of aligned allocations and
of sized and aligned deallocations from 3.22 (the wording of 3.26 for a size
of 0). tests/regress/alloc_checks.cpp runs under memcheck and under memgrow
through the same launcher; each must print the same errors, and the errors
each release is known to check must be among them."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mgtest  # noqa: E402
from mgtest import TestCase, program, run, source_line  # noqa: E402

SRC = "tests/regress/alloc_checks.cpp"
VERSION = mgtest.valgrind_version()

# The headlines of the errors these checks print (memcheck's words), and the
# stack line under each that names the program's own line.
HEADLINE = re.compile(
    r"^==\d+== (realloc\(\) with size 0|Invalid alignment value: .*|Invalid size value: .*"
    r"|Unsafe allocation with size of zero is implementation-defined|\w+\(\) invalid size value: .*"
    r"|Mismatched new.*(?:size|alignment) .*)$")


def errors(log):
    """[(headline, the alloc_checks.cpp line it was called from)] in log order."""
    out, current = [], None
    for text in log.splitlines():
        m = HEADLINE.match(text)
        if m:
            current = [m.group(1), None]
            out.append(current)
            continue
        m = re.search(r"\(alloc_checks\.cpp:(\d+)\)", text)
        if current and current[1] is None and m and "Address" not in text:
            current[1] = int(m.group(1))
        if re.match(r"^==\d+== $", text):
            current = None
    return [tuple(e) for e in out]


def memcheck(options=()):
    p = subprocess.run([mgtest.VALGRIND, "--tool=memcheck", *options, program("alloc_checks")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       errors="replace", timeout=120)
    return p.stdout


def line(marker):
    return source_line(SRC, marker)


class AllocChecks(TestCase):
    def compare(self, options=()):
        """Runs both tools; returns memgrow's run after asserting the errors agree."""
        mc_log = memcheck(options)
        mg = run([program("alloc_checks")], options)
        self.assertEqual(mg.rc, 0, mg.log)
        self.assertEqual(errors(mg.log), errors(mc_log),
                         f"memgrow:\n{mg.log}\nmemcheck:\n{mc_log}")
        # The program's own output too: what realloc(p, 0) returned.
        said = re.findall(r"^realloc\(p, 0\): .*$", mc_log, re.M)
        self.assertEqual(re.findall(r"^realloc\(p, 0\): .*$", mg.log, re.M), said)
        return mg

    def test_errors_as_this_memcheck(self):
        mg = self.compare()
        got = errors(mg.log)
        kinds = [e["kind"] for e in mg.report["errors"]]
        zero = ("realloc() with size 0", line("REALLOC_ZERO"))
        if VERSION >= (3, 21):
            self.assertIn(zero, got)
            self.assertIn("ReallocZero", kinds)
            self.assertIn("realloc(p, 0): null", mg.log)  # glibc's: p is freed
        else:
            self.assertNotIn(zero, got)
        aligned = [("Invalid alignment value: 3 (should be power of 2)", line("MEMALIGN_BAD")),
                   ("Mismatched new/delete size value: 32", line("DELETE_SIZED_WRONG")),
                   ("Mismatched new/delete alignment alloc value: 64 dealloc value: "
                    "default-aligned", line("DELETE_DEFAULT_ON_ALIGNED")),
                   ("Mismatched new[]/delete[] alignment alloc value: 64 dealloc value: 32",
                    line("DELETE_ALIGN_WRONG"))]
        zero_size = ("Unsafe allocation with size of zero is implementation-defined"
                     if VERSION >= (3, 26) else "memalign() invalid size value: 0",
                     line("ALIGNED_ALLOC_ZERO"))
        for e in aligned + [zero_size]:
            (self.assertIn if VERSION >= (3, 22) else self.assertNotIn)(e, got)
        if VERSION >= (3, 22):
            for kind in ("BadAlign", "UnsafeZeroSize", "SizeMismatch", "AlignMismatch"):
                self.assertIn(kind, kinds)
        # Everything was freed: no leak, and no error of another kind.
        self.assertFalse(set(kinds) - {"ReallocZero", "BadAlign", "UnsafeZeroSize",
                                       "SizeMismatch", "AlignMismatch"}, kinds)
        self.assertIn(f"ERROR SUMMARY: {len(got)} errors from {len(got)} contexts", mg.log)

    def test_realloc_zero_options(self):
        if VERSION < (3, 21):
            # As memcheck of this release, memgrow knows neither option.
            for option in ("--realloc-zero-bytes-frees=no", "--show-realloc-size-zero=no"):
                for tool in ("memcheck", "memgrow"):
                    p = subprocess.run([mgtest.VALGRIND, f"--tool={tool}", option, "/bin/true"],
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       text=True, timeout=60)
                    self.assertNotEqual(p.returncode, 0, p.stdout)
                    self.assertIn(option.split("=")[0], p.stdout)
            return
        # p is kept (a block of 1 byte, as memcheck makes it), still an error.
        mg = self.compare(["--realloc-zero-bytes-frees=no"])
        self.assertIn("realloc(p, 0): a block", mg.log)
        self.assertIn(("realloc() with size 0", line("REALLOC_ZERO")), errors(mg.log))
        mg = self.compare(["--show-realloc-size-zero=no"])
        self.assertNotIn("ReallocZero", [e["kind"] for e in mg.report["errors"]])

    def test_suppressed_by_memgrow_names(self):
        shown = len(errors(run([program("alloc_checks")]).log))
        with tempfile.TemporaryDirectory(prefix="memgrow-test-supp-") as tmp:
            supp = os.path.join(tmp, "alloc_checks.supp")
            with open(supp, "w") as f:
                for kind in ("ReallocZero", "BadAlign", "UnsafeZeroSize", "SizeMismatch",
                             "AlignMismatch"):
                    f.write(f"{{\n   {kind}\n   memgrow:{kind}\n   ...\n   fun:main\n}}\n")
            mg = run([program("alloc_checks")], [f"--suppressions={supp}"])
        self.assertEqual(errors(mg.log), [], mg.log)
        self.assertIn(f"ERROR SUMMARY: 0 errors from 0 contexts (suppressed: {shown} from {shown})",
                      mg.log)


if __name__ == "__main__":
    unittest.main()
