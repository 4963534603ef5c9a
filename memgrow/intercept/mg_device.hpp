// Device-side records (intercept and records stages for CUDA memory): the
// allocations the CUDA wrappers report (device, managed, pinned), the
// virtual-memory allocations and their mappings, and the checks of device
// frees and of the ranges copies and sets touch (docs/cuda.md).
#pragma once

#include "mg_vg.hpp"

namespace mg {

void device_init();
// The client requests, with their arguments as include/memgrow.h says.
void device_alloc(ThreadId tid, const UWord* args);
UWord device_free(ThreadId tid, const UWord* args);
void device_map(const UWord* args);
void device_unmap(const UWord* args);
UWord device_access(ThreadId tid, const UWord* args);
// MEMGROW_CUDA_TRACKING: the wrappers active per thread (a MemgrowCudaScope).
UWord device_tracking(ThreadId tid, UWord scope);
// Whether tid is inside a CUDA call the wrappers record (what the driver
// maps there is that call's device, managed or pinned memory).
bool device_in_call(ThreadId tid);

} // namespace mg
