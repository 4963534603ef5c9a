# SPDX-License-Identifier: GPL-2.0-or-later
"""PYTHONMALLOC=malloc is set for the client unless the user set it or
--python-malloc=no: each Python object is then a block of its own. And
--pytorch-caching=no sets PYTORCH_NO_CUDA_MEMORY_CACHING=1 the same way."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import SRC, TestCase, python_executables, representative_interpreters, run  # noqa: E402

SCRIPT = os.path.join(SRC, "tests", "regress", "py_allocator.py")
# The interpreters themselves, not launcher scripts in front of them.
INTERPRETERS = python_executables(representative_interpreters())
# Block counts do not depend on the stack depth; shallow stacks keep the
# reports small.
OPTIONS = ["--depth=4"]


def allocator_run(exe, options=(), pythonmalloc=None):
    """The allocator the client used, what its environment said, and the
    blocks it allocated."""
    r = run([exe, SCRIPT], options=[*OPTIONS, *options], env={"PYTHONMALLOC": pythonmalloc})
    assert r.rc == 0, r.log
    said = dict(line.split(" ", 1) for line in r.log.splitlines()
                if line.startswith(("allocator ", "environment ")))
    blocks = sum(s["allocated_blocks"] for s in r.report["sites"])
    return said["allocator"], said["environment"], blocks


class PythonMalloc(TestCase):
    def test_malloc_by_default_pymalloc_with_no(self):
        for name, exe in INTERPRETERS.items():
            with self.subTest(interpreter=name):
                allocator, environment, blocks = allocator_run(exe)
                self.assertEqual(allocator, "malloc")
                self.assertEqual(environment, "malloc")  # what children inherit
                kept, kept_env, pymalloc_blocks = allocator_run(exe, ["--python-malloc=no"])
                self.assertEqual(kept, "pymalloc")
                self.assertEqual(kept_env, "None")
                # The 20,000 strings alone are 20,000 blocks; pymalloc's
                # arenas hold them in a few.
                self.assertGreater(blocks, 20000 + pymalloc_blocks)
                self.assertGreater(blocks, 5 * pymalloc_blocks)

    def test_the_users_setting_is_kept(self):
        for name, exe in INTERPRETERS.items():
            with self.subTest(interpreter=name):
                allocator, environment, _ = allocator_run(exe, pythonmalloc="pymalloc_debug")
                self.assertEqual(allocator, "pymalloc_debug")
                self.assertEqual(environment, "pymalloc_debug")


class PyTorchCaching(TestCase):
    def caching_setting(self, options=(), env=None):
        r = run([sys.executable, "-c",
                 "import os; print('caching', os.environ.get('PYTORCH_NO_CUDA_MEMORY_CACHING'))"],
                options=[*OPTIONS, *options], env=env or {})
        self.assertEqual(r.rc, 0, r.log)
        return [line for line in r.log.splitlines() if line.startswith("caching ")][0]

    def test_caching_off_only_when_asked_and_a_users_value_kept(self):
        env = {"PYTORCH_NO_CUDA_MEMORY_CACHING": None}
        self.assertEqual(self.caching_setting(env=env), "caching None")
        self.assertEqual(self.caching_setting(["--pytorch-caching=no"], env), "caching 1")
        self.assertEqual(self.caching_setting(["--pytorch-caching=no"],
                                              {"PYTORCH_NO_CUDA_MEMORY_CACHING": "0"}),
                         "caching 0")


if __name__ == "__main__":
    unittest.main()
