// The malloc-family replacement (intercept stage for the host heap).
#pragma once

#include "mg_vg.hpp"

namespace mg {
// Registers the replacement functions with the core (pre_clo_init).
void heap_init();
// Gives the client arena its redzones when accesses are checked (post_clo_init).
void heap_post_options();
// Memcheck's checks of an aligned allocation or a sized or aligned
// deallocation, which the preload asks for from Valgrind 3.22 (the
// VERIFY_ALIGNMENT request; arg: its client-memory argument).
void heap_verify_alignment(ThreadId tid, UWord arg);
} // namespace mg
