# SPDX-License-Identifier: GPL-2.0-or-later
"""The licence (COPYING, docs/install.md "Licences"): the GPL's version 2 text,
and an SPDX line in every source file (scripts/spdx-headers.sh adds them;
its --check lists the files without one)."""
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mgtest import SRC, TestCase  # noqa: E402


class Licence(TestCase):
    def test_copying_is_gpl2(self):
        with open(os.path.join(SRC, "COPYING")) as f:
            head = f.read(200)
        self.assertIn("GNU GENERAL PUBLIC LICENSE", head)
        self.assertIn("Version 2, June 1991", head)

    def test_every_source_file_has_an_spdx_line(self):
        p = subprocess.run(["sh", os.path.join(SRC, "scripts", "spdx-headers.sh"), "--check"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout)


if __name__ == "__main__":
    unittest.main()
