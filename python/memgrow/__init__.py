# SPDX-License-Identifier: GPL-2.0-or-later
"""memgrow's client requests from Python.

Under ``valgrind --tool=memgrow`` this package is on the interpreter's path
by itself; natively (or under another tool) every function is a no-op, so
calls can stay in the program::

    import memgrow

    for request in requests:
        handle(request)
        memgrow.mark("request")   # the report gains the growth per request

The requests go through a small C library beside this file; if it cannot be
loaded the functions are no-ops too.
"""
import ctypes
import os

__all__ = ["running", "mark", "leak_check", "report", "live_bytes", "growth_since"]


def _load():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libmemgrow-client.so")
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        return None
    lib.memgrow_running.argtypes = []
    lib.memgrow_running.restype = ctypes.c_int
    lib.memgrow_mark.argtypes = [ctypes.c_char_p]
    lib.memgrow_mark.restype = None
    lib.memgrow_leak_check.argtypes = []
    lib.memgrow_leak_check.restype = ctypes.c_ulong
    lib.memgrow_report.argtypes = [ctypes.c_char_p]
    lib.memgrow_report.restype = ctypes.c_int
    lib.memgrow_live_bytes.argtypes = []
    lib.memgrow_live_bytes.restype = ctypes.c_ulong
    lib.memgrow_growth_since.argtypes = [ctypes.c_char_p, ctypes.c_ulong, ctypes.c_int]
    lib.memgrow_growth_since.restype = ctypes.c_long
    return lib


_lib = _load()


def _encode(text):
    return None if text is None else os.fsencode(text)


def running():
    """True when the program runs under memgrow."""
    return bool(_lib is not None and _lib.memgrow_running())


def mark(label=None):
    """Marks an epoch boundary (one request served, one training step): the
    report gains the growth per mark and the refleak rule (every repetition
    after the warm-up adds memory)."""
    if _lib is not None:
        _lib.memgrow_mark(_encode(label))


def leak_check():
    """Scans for leaks now and prints the loss records that are new or grew
    since the previous scan; returns the definitely and indirectly lost bytes
    (0 when not running under memgrow)."""
    return _lib.memgrow_leak_check() if _lib is not None else 0


def report(path=None):
    """Writes the JSON report now, to `path` (%p and %q{VAR} expanded) or to
    the --json-file name; True when written."""
    return bool(_lib is not None and _lib.memgrow_report(_encode(path)))


def live_bytes():
    """The heap's live bytes now, exactly (every block the program holds); 0
    when not running under memgrow."""
    return _lib.memgrow_live_bytes() if _lib is not None else 0


def growth_since(checkpoint=False):
    """(bytes, site): the live bytes added since the last checkpoint, and the
    site that added the most ("function (file:line) +N bytes", empty when
    none grew); checkpoint=True starts a new checkpoint after answering.
    (0, "") when not running under memgrow."""
    if _lib is None:
        return 0, ""
    buf = ctypes.create_string_buffer(512)
    delta = _lib.memgrow_growth_since(buf, len(buf), 1 if checkpoint else 0)
    return delta, buf.value.decode("utf-8", "replace")
