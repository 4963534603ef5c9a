// SPDX-License-Identifier: GPL-2.0-or-later
// A device allocator that announces its blocks through SDT probes
// (PyTorch's caching allocator, intercept/mg_sdt.hpp): each block it hands
// out (a tensor) is a device block at the stack of that moment, and the
// segments it takes from CUDA are its reserve, no line's growth
// (docs/cuda.md, "The reserve").
#pragma once

#include "mg_vg.hpp"
#include "core/timeline.hpp"

namespace mg {

class JsonWriter;
struct Analysis;

// Block::api of a block announced by an allocator's probe (no CUDA call).
constexpr UChar kApiAllocatorProbe = 0x80;

// The probes' handlers: pytorch:malloc (ptr, device, size, stream) and
// pytorch:free (ptr).
void tensor_probe_malloc(ThreadId tid, const ULong* args);
void tensor_probe_free(ThreadId tid, const ULong* args);

// A device allocation reported by the CUDA wrappers: true when the code of
// such an allocator made it; it is then a segment of its reserve, not a block.
bool reserve_take(ThreadId tid, Addr a, SizeT size, UInt device);
// A free reported by the wrappers, or an unmapping: true when a was a
// reserve segment (gone).
bool reserve_release(Addr a);
// Virtual memory (expandable segments): a physical allocation made by such
// an allocator's code is its reserve's; each mapping of it is a segment.
bool reserve_take_handle(ThreadId tid, UWord handle, UInt device);
bool reserve_map(Addr va, SizeT size, UWord handle);
// cuMemRelease of a handle: true when it was the reserve's.
bool reserve_forget_handle(UWord handle);

// The report's `device_memory` and the log's lines on the reserve.
void reserve_write_json(JsonWriter& w, const Analysis& a);
void reserve_print(const Analysis& a);
void reserve_print_stats();

} // namespace mg
