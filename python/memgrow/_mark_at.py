"""--mark-at: calls of chosen Python functions become memgrow marks, without
touching the program (docs/python.md, "Steps as marks").

memgrow's preload imports this module as CPython starts running the program
when the option was given; the specs come in MEMGROW_MARK_AT, comma-separated:

- ``MODULE:QUALNAME`` -- every return from that function (``__main__:handle``,
  ``train:Trainer.step``) is a mark. The module is matched by the name in the
  function's globals, so the main script is ``__main__``.
- ``torch`` -- every PyTorch optimizer step is a mark.

How a return is seen: on CPython 3.12 and newer through sys.monitoring -- the
first start of each function is looked at once, the functions named get a
return event of their own and every other one is switched off, so the cost
after that is nil; on 3.11 through a profile function (sys.setprofile and
threading.setprofile), which runs on every call and return of the program.
"""
import os
import sys
import threading

from . import mark

_TORCH = "torch"


def _parse(text):
    functions, torch = set(), False
    for spec in filter(None, text.split(",")):
        if spec == _TORCH:
            torch = True
        else:
            module, _, qualname = spec.partition(":")
            functions.add((module, qualname))
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

    def on_start(code, offset):
        # The function being started is the caller of this callback.
        module = sys._getframe(1).f_globals.get("__name__")
        if (module, code.co_qualname) in functions:
            monitoring.set_local_events(tool, code, events.PY_RETURN)
        return monitoring.DISABLE  # this code location is never looked at again

    def on_return(code, offset, value):
        mark(code.co_qualname)

    monitoring.register_callback(tool, events.PY_START, on_start)
    monitoring.register_callback(tool, events.PY_RETURN, on_return)
    monitoring.set_events(tool, events.PY_START)


def _watch_with_profile(functions):
    known = {}  # code object -> whether it is one of the functions

    def profile(frame, event, arg):
        if event != "return":
            return
        code = frame.f_code
        hit = known.get(code)
        if hit is None:
            hit = known[code] = (frame.f_globals.get("__name__"), code.co_qualname) in functions
        if hit:
            mark(code.co_qualname)

    threading.setprofile(profile)
    sys.setprofile(profile)


# -- PyTorch's optimizer steps ------------------------------------------------


def _mark_optimizer_steps(optim):
    register = getattr(getattr(optim, "optimizer", None), "register_optimizer_step_post_hook", None)
    if register is not None:  # PyTorch 2.0 and newer: a global hook
        register(lambda optimizer, args, kwargs: mark("step"))
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
            mark("step")
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
            _mark_optimizer_steps(module)

        spec.loader.exec_module = exec_and_hook
        return spec


def _watch_torch():
    optim = sys.modules.get(_TorchOptimWatcher.name)
    if optim is not None:
        _mark_optimizer_steps(optim)
    else:
        sys.meta_path.insert(0, _TorchOptimWatcher())


def _install(text):
    functions, torch = _parse(text)
    if functions:
        if hasattr(sys, "monitoring"):
            _watch_with_monitoring(functions)
        else:
            _watch_with_profile(functions)
    if torch:
        _watch_torch()


_install(os.environ.get("MEMGROW_MARK_AT", ""))
