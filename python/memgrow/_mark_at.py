# SPDX-License-Identifier: GPL-2.0-or-later
"""--mark-at: calls of chosen Python functions become memgrow marks, without
touching the program (docs/python.md, "Steps as marks").

memgrow's preload imports this module as CPython starts running the program
when the option was given; the specs come in MEMGROW_MARK_AT, comma-separated:

- ``MODULE:QUALNAME`` -- every return from that function (``__main__:handle``,
  ``train:Trainer.step``) is a mark. The module is matched by the name in the
  function's globals, so the main script is ``__main__``.
- ``torch`` -- every PyTorch optimizer step is a mark.

The tool is told when the hooks are in place, when each spec makes its first
mark (by its index in the list) and, at exit, whether the program had removed
the hook (``sys.setprofile(None)``): at the end it names the specs that never
made a mark.

How a return is seen: on CPython 3.12 and newer through sys.monitoring -- the
first start of each function is looked at once, the functions named get a
return event of their own and every other one is switched off, so the cost
after that is nil; on 3.11 through a profile function (sys.setprofile and
threading.setprofile), which runs on every call and return of the program.
"""
import atexit
import ctypes
import os
import sys
import threading

from . import _lib, mark

_TORCH = "torch"
# MemgrowMarkAtEvent (memgrow.h)
_INSTALLED, _CALLED, _HOOK_REMOVED = 0, 1, 2


def _event(event, spec=0):
    if _lib is not None:
        _lib.memgrow_mark_at_event(event, spec)


if _lib is not None:
    _lib.memgrow_mark_at_event.argtypes = [ctypes.c_ulong, ctypes.c_ulong]
    _lib.memgrow_mark_at_event.restype = None


class _Spec:
    """One --mark-at spec: its indexes in the list (a spec may be given
    twice), told to the tool with its first mark."""

    def __init__(self):
        self.indexes = []
        self.called = False

    def mark(self, label):
        mark(label)
        if not self.called:
            self.called = True
            for index in self.indexes:
                _event(_CALLED, index)


def _parse(text):
    """{(module, qualname): _Spec}, and the torch spec or None."""
    functions, torch = {}, None
    for index, spec in enumerate(text.split(",")):
        if spec == _TORCH:
            torch = torch or _Spec()
            torch.indexes.append(index)
        elif spec:
            if not spec.isascii():  # Python's own names are NFKC (PEP 3131)
                import unicodedata

                spec = unicodedata.normalize("NFKC", spec)
            module, _, qualname = spec.partition(":")
            functions.setdefault((module, qualname), _Spec()).indexes.append(index)
    return functions, torch


# -- functions by name --------------------------------------------------------


def _watch_with_monitoring(functions):
    monitoring = sys.monitoring
    tool = next((t for t in range(5, -1, -1) if monitoring.get_tool(t) is None), None)
    if tool is None:
        print("memgrow: --mark-at: every sys.monitoring tool id is in use", file=sys.stderr)
        return
    monitoring.use_tool_id(tool, "memgrow")
    events = monitoring.events

    specs = {}  # code object -> its spec

    def on_start(code, offset):
        # The function being started is the caller of this callback.
        module = sys._getframe(1).f_globals.get("__name__")
        spec = functions.get((module, code.co_qualname))
        if spec is not None:
            specs[code] = spec
            monitoring.set_local_events(tool, code, events.PY_RETURN)
        return monitoring.DISABLE  # this code location is never looked at again

    def on_return(code, offset, value):
        specs[code].mark(code.co_qualname)

    monitoring.register_callback(tool, events.PY_START, on_start)
    monitoring.register_callback(tool, events.PY_RETURN, on_return)
    monitoring.set_events(tool, events.PY_START)
    return lambda: monitoring.get_tool(tool) == "memgrow"


def _watch_with_profile(functions):
    known = {}  # code object -> its spec, or False

    def profile(frame, event, arg):
        if event != "return":
            return
        code = frame.f_code
        spec = known.get(code)
        if spec is None:
            spec = known[code] = functions.get(
                (frame.f_globals.get("__name__"), code.co_qualname), False)
        if spec:
            spec.mark(code.co_qualname)

    threading.setprofile(profile)
    sys.setprofile(profile)
    return lambda: sys.getprofile() is profile


# -- PyTorch's optimizer steps ------------------------------------------------


def _mark_optimizer_steps(optim, spec):
    register = getattr(getattr(optim, "optimizer", None), "register_optimizer_step_post_hook", None)
    if register is not None:  # PyTorch 2.0 and newer: a global hook
        register(lambda optimizer, args, kwargs: spec.mark("step"))
        return
    # Older PyTorch (Debian's 1.13): each optimizer class's step is wrapped
    # once, when its first instance is made, as PyTorch's own profiler hook is.
    init = optim.Optimizer.__init__

    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        cls = type(self)
        step = cls.step
        if getattr(step, "_memgrow_mark", False):
            return

        def marked_step(*a, **k):
            result = step(*a, **k)
            spec.mark("step")
            return result

        marked_step._memgrow_mark = True
        marked_step.hooked = getattr(step, "hooked", False)  # PyTorch's profiler flag
        marked_step.__wrapped__ = step
        cls.step = marked_step

    optim.Optimizer.__init__ = __init__


class _TorchOptimWatcher:
    """A meta path finder that never finds anything itself: when torch.optim
    is imported it lets the other finders find it and hooks its steps once
    the module has run."""

    name = "torch.optim"

    def __init__(self, mark_spec):
        self.mark_spec = mark_spec

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        import importlib.util

        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        exec_module = spec.loader.exec_module

        def exec_and_hook(module):
            exec_module(module)
            _mark_optimizer_steps(module, self.mark_spec)

        spec.loader.exec_module = exec_and_hook
        return spec


def _watch_torch(spec):
    optim = sys.modules.get(_TorchOptimWatcher.name)
    if optim is not None:
        _mark_optimizer_steps(optim, spec)
    else:
        sys.meta_path.insert(0, _TorchOptimWatcher(spec))


def _install(text):
    functions, torch = _parse(text)
    in_place = None  # () -> whether the hook on functions is still there
    if functions:
        watch = _watch_with_monitoring if hasattr(sys, "monitoring") else _watch_with_profile
        in_place = watch(functions)
    if torch:
        _watch_torch(torch)
    _event(_INSTALLED)
    if in_place is not None:

        def check_hook():
            if not in_place():
                _event(_HOOK_REMOVED)

        atexit.register(check_hook)


# UTF-8 as the tool checked it, whatever the locale's encoding.
_install(os.environb.get(b"MEMGROW_MARK_AT", b"").decode("utf-8", "replace"))
