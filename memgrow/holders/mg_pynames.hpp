// SPDX-License-Identifier: GPL-2.0-or-later
// Holders named in Python's terms (docs/holders.md): a module global
// (`service.TOKEN_STATS`), a class or instance attribute (`service.Logger.
// records`, `service.LOG._recent`), a dict entry by key (`CACHE['tok12']`),
// an element of a list, tuple or deque (`[*]`), a closure (`.__closure__`),
// read from the objects on the way from the root to the holder.
#pragma once

#include "mg_vg.hpp"

namespace mg {

// A block on the way: its address and size.
struct WayBlock {
    Addr addr;
    SizeT size;
};

// Names the way down to its last block from the first Python object that
// names itself (a module, class or function) or, failing one, from `path`
// (the root's native name), appending to it; a root that is a variable (a
// frame's local) names the first object itself. False when no block on the
// way is a Python object (path unchanged).
bool py_way_name(const WayBlock* way, UInt n, HChar* path, SizeT cap, bool root_is_variable);

// The object in the block when it is a Python object: its type's name, and
// for containers their length and bound (-1: none).
bool py_describe(const WayBlock& b, HChar* type, SizeT cap, Long* length, Long* bound);

// Whether the block is a module's namespace (a dict with `__name__` and
// `__builtins__`).
bool py_module_namespace(const WayBlock& b);

// The holder to show for a held object: the bounded owner that keeps it
// (an lru_cache wrapper's cache dict is the wrapper's, a queue.Queue's deque
// the queue's), as an index into way (the block itself: n - 1).
UInt py_presented(const WayBlock* way, UInt n);

} // namespace mg
