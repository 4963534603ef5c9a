"""`make install` puts the tool and its preload where the launcher looks,
and the client-request header where compilers look."""
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
        # configure found the launcher's own tool directory (the default
        # install target, unless --with-valgrind-tooldir says otherwise).
        launcher = subprocess.run(["valgrind", "-d", "--tool=none", "--help"],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        system = os.environ["MG_SYSTEM_TOOLDIR"]
        self.assertIn(f"launching {system}/none-amd64-linux", launcher.stdout)


if __name__ == "__main__":
    unittest.main()
