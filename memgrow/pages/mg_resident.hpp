// SPDX-License-Identifier: GPL-2.0-or-later
// The client's resident bytes: the pages of its mappings (heap, mapped,
// stacks, files) that are in memory, by mincore (docs/pages.md). Sampled
// when the run clock leaves a bucket and when teardown begins.
#pragma once

#include "mg_vg.hpp"

namespace mg {

// A file the client maps (libraries, data): its bytes mapped and resident.
struct FileResidence {
    HChar* name;
    ULong mapped, resident;
};

// The client's resident bytes now.
ULong resident_bytes_now();
void resident_print_stats(); // -v: the samples taken and their time
// At teardown: the client's file mappings by file, most resident first.
void resident_files_at_teardown();
UInt resident_files(const FileResidence** out);

} // namespace mg
