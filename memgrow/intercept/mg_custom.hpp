// SPDX-License-Identifier: GPL-2.0-or-later
// Custom allocators annotated for memcheck (valgrind.h): the blocks of
// VALGRIND_MALLOCLIKE_BLOCK / FREELIKE_BLOCK / RESIZEINPLACE_BLOCK and the
// chunks of mempools are heap blocks with sites, as memcheck records them:
// they grow, leak and are classified like malloc's.
#pragma once

#include "mg_vg.hpp"

namespace mg {

void custom_init();
// True when args[0] is one of those requests (answered in *ret).
bool custom_client_request(ThreadId tid, UWord* args, UWord* ret);

} // namespace mg
