# SPDX-License-Identifier: GPL-2.0-or-later
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
import contextlib
import gc
import io
import logging
import os
import re
import tracemalloc
import warnings

import pytest

import memgrow
from memgrow.pytest_entry import add_marker, pytest_addoption  # noqa: F401 (a hook)

try:  # pytest's log capture; private, so only where it is what we know
    from _pytest.logging import LogCaptureHandler
except ImportError:  # pragma: no cover
    LogCaptureHandler = None

_UNITS = {"": 1, "B": 1}
for _power, _letter in enumerate("KMGTP", 1):
    _UNITS[_letter + "B"] = _UNITS[_letter + "IB"] = 1 << (10 * _power)


def parse_size(text):
    """'1 MB', '512KiB', '2 TB', 4096 -> bytes (units are powers of 1024, as
    pytest-memray's); anything else, a negative size included, is a ValueError."""
    if isinstance(text, int) and not isinstance(text, bool) and text >= 0:
        return text
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", str(text))
    if not m or m.group(2).upper() not in _UNITS:
        raise ValueError(f"memgrow_limit: not a size: {text!r} (a number of bytes or a size "
                         "with a unit: 4096, '512 KB', '1 MB', '2 GB', '1 TB')")
    return int(float(m.group(1)) * _UNITS[m.group(2).upper()])


def marker_limit(marker):
    """The bytes of a memgrow_limit marker: one size, positional or size=."""
    args = list(marker.args) + ([marker.kwargs["size"]] if "size" in marker.kwargs else [])
    unknown = set(marker.kwargs) - {"size"}
    if len(args) != 1 or unknown:
        raise ValueError("memgrow_limit: takes one size, e.g. @pytest.mark.memgrow_limit('1 MB')"
                         f" (got {len(args)} sizes" +
                         (f" and {', '.join(sorted(unknown))}" if unknown else "") + ")")
    return parse_size(args[0])


class _MemgrowMeter:
    """Exact live bytes and the top growing site, from memgrow itself."""

    name = "memgrow's exact live heap"

    def live(self):
        return memgrow.live_bytes()

    def __init__(self):
        self._top = ""

    def after_run(self, first):
        # Asked after every run from this one line, so that the request's own
        # buffers are at one site, as live at the checkpoint as at the answer:
        # never named as the growth.
        self._top = ""  # the last answer is not live during this one
        self._top = memgrow.growth_since(checkpoint=first)[1]

    def top_since_checkpoint(self):
        return self._top


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

    def after_run(self, first):
        if first:
            self._base = self._snapshot()

    def top_since_checkpoint(self):
        if self._base is None:
            return ""
        # The largest growth that the test's own code made: memory that only
        # libraries allocated for the plugin (re's cache of tracemalloc's
        # filters, pytest's records) is not the test's.
        for stat in self._snapshot().compare_to(self._base, "traceback"):
            if stat.size_diff <= 0:
                break
            user = [f for f in stat.traceback if not _library_file(f.filename)]  # oldest first
            if user:
                f = user[-1]
                return f"{os.path.basename(f.filename)}:{f.lineno} +{stat.size_diff:,} bytes"
        return ""


_MEMGROW_PACKAGE = os.path.dirname(os.path.abspath(memgrow.__file__)) + os.sep


def _library_file(path):
    return (path.startswith("<") or "/lib/python" in path or "-packages/" in path
            or path.startswith(_MEMGROW_PACKAGE) or os.path.basename(path) == "pytest.py")


def _repeats(config):
    """--memgrow-repeat's N (1 when not given)."""
    return config.getoption("memgrow_repeat") or 1


def pytest_configure(config):
    add_marker(config)
    config._memgrow_meter = _MemgrowMeter() if memgrow.running() else _TracemallocMeter()


def pytest_report_header(config):
    meter = config._memgrow_meter
    return [f"memgrow: kept memory measured by {meter.name}, "
            f"{_repeats(config)} run(s) per test"]


def pytest_collection_modifyitems(config, items):
    for item in items:
        if hasattr(item, "runtest"):
            item.runtest = _measured(item, item.runtest)


def _doctest_globals(item):
    """A doctest's globals as they are before its first run, or None."""
    dtest = getattr(item, "dtest", None)
    globs = getattr(dtest, "globs", None)
    return dict(globs) if isinstance(globs, dict) else None


@contextlib.contextmanager
def _own_records(isolate):
    """pytest keeps every log record and warning of a test's call phase, so a
    repetition that logs or warns would keep memory that the test does not:
    a repetition after the first logs and warns into records of its own,
    dropped when it ends (the first repetition's are the ones pytest shows;
    caplog sees the running repetition's)."""
    if not isolate:
        yield
        return
    swapped = []
    for handler in logging.getLogger().handlers:
        if LogCaptureHandler is not None and isinstance(handler, LogCaptureHandler):
            swapped.append((handler, handler.records, handler.stream))
            handler.records, handler.stream = [], io.StringIO()
    try:
        with warnings.catch_warnings(record=True):
            yield
    finally:
        for handler, records, stream in swapped:
            handler.records, handler.stream = records, stream


def _measured(item, runtest):
    def run():
        meter = item.config._memgrow_meter
        repeat = _repeats(item.config)
        marker = item.get_closest_marker("memgrow_limit")
        try:
            limit, bad = (marker_limit(marker) if marker else None), None
        except ValueError as e:
            limit, bad = None, str(e)
        if bad:  # outside the handler: one line, no chained traceback
            pytest.fail(bad, pytrace=False)
        globs = _doctest_globals(item)
        kept = []
        for i in range(repeat):
            if i and globs is not None:
                item.dtest.globs.update(globs)  # doctest clears them after each run
            gc.collect()
            before = meter.live()
            memgrow.mark(item.nodeid)
            with _own_records(i > 0):
                runtest()
            gc.collect()
            kept.append(meter.live() - before)
            meter.after_run(first=i == 0)  # the first run is warm-up: caches, imports
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
