# SPDX-License-Identifier: GPL-2.0-or-later
"""`make install` puts the tool, its preload and its Python package where
the launcher looks, and the client-request header where compilers look."""
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import BUILD, TestCase  # noqa: E402


class Install(TestCase):
    def test_install_into_destdir(self):
        # Set by `make check` from configure's answers.
        tooldir = os.environ["MG_TOOLDIR"]
        includedir = os.environ["MG_INCLUDEDIR"]
        with tempfile.TemporaryDirectory() as dest:
            subprocess.run(["make", "-s", "-C", BUILD, "install", f"DESTDIR={dest}"], check=True,
                           stdout=subprocess.DEVNULL)
            for name in ("memgrow-amd64-linux", "vgpreload_memgrow-amd64-linux.so"):
                path = dest + os.path.join(tooldir, name)
                self.assertTrue(os.access(path, os.X_OK), path)
            self.assertTrue(os.path.isfile(dest + os.path.join(includedir, "memgrow.h")))
            # The Python package beside the tool, where the preload puts it on
            # PYTHONPATH; natively it loads and does nothing.
            package = dest + os.path.join(tooldir, "memgrow-python")
            self.assertTrue(os.path.isfile(os.path.join(package, "memgrow", "__init__.py")))
            show = "import memgrow; print(memgrow.running(), memgrow.__file__)"
            p = subprocess.run([sys.executable, "-c", show], env=dict(os.environ, PYTHONPATH=package),
                               stdout=subprocess.PIPE, text=True, check=True)
            self.assertEqual(p.stdout, f"False {package}/memgrow/__init__.py\n")
            self.assertTrue(os.access(os.path.join(package, "memgrow", "libmemgrow-client.so"),
                                      os.X_OK))
            # The system's Python finds it through memgrow.pth, natively:
            # the pytest plugin loads and says it measures with tracemalloc.
            sitedir = os.environ["MG_PYTHON_SITEDIR"]
            self.assertTrue(sitedir, "configure found no site directory for the system's Python")
            with open(dest + os.path.join(sitedir, "memgrow.pth")) as f:
                self.assertEqual(f.read(), os.path.join(tooldir, "memgrow-python") + "\n")
            p = subprocess.run(["/usr/bin/python3", "-c", "import memgrow.pytest as p; "
                                "print(p.parse_size('1 MB'))"],
                               env=dict(os.environ, PYTHONPATH=package), stdout=subprocess.PIPE,
                               text=True, check=True)
            self.assertEqual(p.stdout, "1048576\n")
        # configure found the launcher's own tool directory (the default
        # install target, unless --with-valgrind-tooldir says otherwise).
        launcher = subprocess.run(["valgrind", "-d", "--tool=none", "--help"],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        system = os.environ["MG_SYSTEM_TOOLDIR"]
        self.assertIn(f"launching {system}/none-amd64-linux", launcher.stdout)


if __name__ == "__main__":
    unittest.main()
