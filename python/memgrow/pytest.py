"""memgrow's pytest plugin: which test keeps memory.

    valgrind --tool=memgrow python3 -m pytest -p memgrow.pytest --memgrow-repeat=4 tests/
    python3 -m pytest -p memgrow.pytest --memgrow-repeat=4 tests/    # natively

Every run of a test is a mark labelled with its node id, so memgrow's report
gives the growth per test run. With ``--memgrow-repeat=N`` each test runs N
times, and a test that keeps memory in every repetition after the first
fails (the rule of CPython's ``regrtest -R``), naming the site that grew
most. ``@pytest.mark.memgrow_limit("1 MB")`` fails a test that keeps more
than that per run.

Under memgrow the bytes are memgrow's exact live heap (every block the
process holds, C extensions' included); natively the plugin falls back to
tracemalloc, which sees Python's allocations only, and says so in pytest's
header.
"""
import gc
import os
import re
import tracemalloc

import pytest

import memgrow

_UNITS = {"": 1, "B": 1, "KB": 1 << 10, "KIB": 1 << 10, "MB": 1 << 20, "MIB": 1 << 20,
          "GB": 1 << 30, "GIB": 1 << 30}


def parse_size(text):
    """'1 MB', '512KiB', 4096 -> bytes (units are powers of 1024, as pytest-memray's)."""
    if isinstance(text, int):
        return text
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", str(text))
    if not m or m.group(2).upper() not in _UNITS:
        raise ValueError(f"memgrow_limit: not a size: {text!r} (examples: 4096, '512 KB', '1 MB')")
    return int(float(m.group(1)) * _UNITS[m.group(2).upper()])


class _MemgrowMeter:
    """Exact live bytes and the top growing site, from memgrow itself."""

    name = "memgrow's exact live heap"

    def live(self):
        return memgrow.live_bytes()

    def checkpoint(self):
        memgrow.growth_since(checkpoint=True)

    def top_since_checkpoint(self):
        return memgrow.growth_since()[1]


class _TracemallocMeter:
    """Natively: tracemalloc, Python's own allocations only."""

    name = "tracemalloc (not under memgrow: Python allocations only)"
    _own = (tracemalloc.__file__, __file__)

    def __init__(self):
        if not tracemalloc.is_tracing():
            tracemalloc.start(25)
        self._base = None

    def live(self):
        return tracemalloc.get_traced_memory()[0]

    def _snapshot(self):
        return tracemalloc.take_snapshot().filter_traces(
            [tracemalloc.Filter(False, f) for f in self._own])

    def checkpoint(self):
        self._base = self._snapshot()

    def top_since_checkpoint(self):
        if self._base is None:
            return ""
        for stat in self._snapshot().compare_to(self._base, "traceback"):
            if stat.size_diff <= 0:
                break
            frames = list(stat.traceback)  # oldest first
            user = [f for f in frames if not _library_file(f.filename)] or frames
            f = user[-1]
            return f"{os.path.basename(f.filename)}:{f.lineno} +{stat.size_diff} bytes"
        return ""


def _library_file(path):
    return (path.startswith("<") or "/lib/python" in path or "-packages/" in path
            or os.path.basename(path) == "pytest.py")


def pytest_addoption(parser):
    group = parser.getgroup("memgrow", "memory kept by each test (memgrow)")
    group.addoption("--memgrow-repeat", type=int, default=1, metavar="N",
                    help="run each test N times; fail a test that keeps memory in every "
                         "repetition after the first (CPython's regrtest -R rule)")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "memgrow_limit(size): fail when one run of the test keeps more than size "
                   "('1 MB', '512 KB', 4096; units of 1024)")
    config._memgrow_meter = _MemgrowMeter() if memgrow.running() else _TracemallocMeter()


def pytest_report_header(config):
    meter = config._memgrow_meter
    return [f"memgrow: kept memory measured by {meter.name}, "
            f"{config.getoption('memgrow_repeat')} run(s) per test"]


def pytest_collection_modifyitems(config, items):
    for item in items:
        if hasattr(item, "runtest"):
            item.runtest = _measured(item, item.runtest)


def _measured(item, runtest):
    def run():
        meter = item.config._memgrow_meter
        repeat = max(1, item.config.getoption("memgrow_repeat"))
        marker = item.get_closest_marker("memgrow_limit")
        limit = parse_size(marker.args[0]) if marker else None
        kept = []
        for i in range(repeat):
            gc.collect()
            before = meter.live()
            memgrow.mark(item.nodeid)
            runtest()
            gc.collect()
            kept.append(meter.live() - before)
            if i == 0:
                meter.checkpoint()  # the first run is warm-up: caches, imports
        after_first = kept[1:] or kept
        if repeat > 1 and all(k >= 1 for k in kept[1:]):
            top = meter.top_since_checkpoint()
            pytest.fail(f"memgrow: {item.nodeid} kept memory in every repetition after the "
                        f"first: {', '.join(f'{k:+,}' for k in kept[1:])} bytes"
                        + (f"; most at {top}" if top else ""), pytrace=False)
        per_run = sorted(after_first)[len(after_first) // 2]
        if limit is not None and per_run > limit:
            top = meter.top_since_checkpoint() if repeat > 1 else ""
            pytest.fail(f"memgrow: {item.nodeid} kept {per_run:,} bytes per run, over its "
                        f"memgrow_limit of {limit:,}" + (f"; most at {top}" if top else ""),
                        pytrace=False)
    return run
