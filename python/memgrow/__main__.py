# SPDX-License-Identifier: GPL-2.0-or-later
"""`python -m memgrow ...`: the `memgrow` command (memgrow/cli.py)."""
import sys

from .cli import main

sys.exit(main())
