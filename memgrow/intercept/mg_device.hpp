// SPDX-License-Identifier: GPL-2.0-or-later
// Device-side records (intercept and records stages for CUDA memory): the
// allocations the CUDA wrappers report (device, managed, pinned), the
// virtual-memory allocations, reservations and mappings, and the checks of
// device frees and of the ranges copies and sets touch (docs/cuda.md).
#pragma once

#include "mg_vg.hpp"

namespace mg {

struct Block;

void device_init();
// The client requests, with their arguments as include/memgrow.h says.
void device_alloc(ThreadId tid, const UWord* args);
UWord device_free(ThreadId tid, const UWord* args);
void device_map(const UWord* args);
void device_unmap(const UWord* args);
UWord device_access(ThreadId tid, const UWord* args);
// MEMGROW_DEVICE_VA: cuMemAddressReserve, cuMemAddressFree, cuMemSetAccess.
void device_va(ThreadId tid, const UWord* args);

// Which device-side memory holds address a: what a pointer into a
// segment (PyTorch's tensors) lies in.
// - allocation: a live cudaMalloc-style allocation [start, start + size),
//   its block;
// - reservation: reserved address space [start, start + size)
//   (cuMemAddressReserve: PyTorch's expandable segments), with the mapping
//   at a [map_start, map_start + map_size) and the physical allocation
//   (cuMemCreate) mapped there as block; map_size 0 when a is not mapped,
//   block null when the handle is not tracked. The reservation counts no
//   bytes; its mapped blocks do, at cuMemCreate's site.
// - none: memory memgrow does not know as device memory.
struct DeviceSegment {
    enum Kind : UChar { none, allocation, reservation } kind;
    Addr start;
    SizeT size;
    UInt device;
    Addr map_start;
    SizeT map_size;
    const Block* block;
};
DeviceSegment device_segment_at(Addr a);
// MEMGROW_CUDA_TRACKING: the wrappers active per thread (a MemgrowCudaScope).
UWord device_tracking(ThreadId tid, UWord scope);
// Whether tid is inside a CUDA call the wrappers record (what the driver
// maps there is that call's device, managed or pinned memory).
bool device_in_call(ThreadId tid);

} // namespace mg
