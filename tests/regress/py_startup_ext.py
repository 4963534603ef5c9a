# SPDX-License-Identifier: GPL-2.0-or-later
"""A service whose imported extension loses blocks at its import, then one
block per request (argv[1]: the directory of the built startup_ext module;
argv[2]: requests). No marks: the imports at the top are start-up, the
sys.path change among them too."""
import sys

sys.path.insert(0, sys.argv[1])  # STARTUP_PATH
import startup_ext  # noqa: E402  STARTUP_IMPORT

for i in range(int(sys.argv[2])):
    startup_ext.handle()  # REQUEST_LINE
