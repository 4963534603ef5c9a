"""`python -m memgrow ...`: the `memgrow` command (memgrow/cli.py)."""
import sys

from .cli import main

sys.exit(main())
