# SPDX-License-Identifier: GPL-2.0-or-later
"""What pytest loads by itself where the memgrow wheel is installed (its
pytest11 entry point, named memgrow): memgrow's options and its
memgrow_limit marker, and nothing more unless a run asks for memgrow. The
plugin itself (memgrow.pytest) joins a run given --memgrow-repeat, or one
under memgrow (`memgrow run -m pytest`); `-p memgrow.pytest` loads it in any
run, `-p no:memgrow` keeps this out. Other runs import this small module and
nothing else of memgrow's."""
import os


def pytest_addoption(parser):
    group = parser.getgroup("memgrow", "memory kept by each test (memgrow)")
    # Both this module and memgrow.pytest register it: once is enough.
    if any("--memgrow-repeat" in option.names() for option in group.options):
        return
    group.addoption("--memgrow-repeat", type=int, default=None, metavar="N",
                    help="run each test N times; fail a test that keeps memory in every "
                         "repetition after the first (CPython's regrtest -R rule)")


MARKER = ("memgrow_limit(size): fail when one run of the test keeps more than size "
          "('1 MB', '512 KB', 4096; units of 1024)")


def add_marker(config):
    """memgrow_limit, known to every run (a test file keeps its marks when
    memgrow does not run, and --strict-markers accepts them)."""
    if MARKER not in config.getini("markers"):
        config.addinivalue_line("markers", MARKER)


def _under_memgrow():
    if "VALGRIND_LAUNCHER" not in os.environ:  # set by Valgrind for its client
        return False
    import memgrow
    return memgrow.running()


def pytest_configure(config):
    add_marker(config)
    if config.pluginmanager.has_plugin("memgrow.pytest"):
        return
    if config.getoption("memgrow_repeat") is not None or _under_memgrow():
        config.pluginmanager.import_plugin("memgrow.pytest")
