// SPDX-License-Identifier: GPL-2.0-or-later
// The A-bits: one addressable/not state per byte of the client's address
// space (memcheck's A bits without its V bits), in a two-level map.
//
// A primary table of secondaries, one per 64 KiB chunk of the low 128 GiB
// (where Valgrind places the client), points at a secondary bitmap of 8 KiB
// (one bit per byte, set = not addressable). Chunks all one way share one of
// two distinguished secondaries, so the map costs the 16 MiB table plus 1/8
// of the mixed chunks' size; chunks above 128 GiB go in an auxiliary table.
// Generated code reads the map inline (mg_access.cpp): the bitmap words of
// an access are zero when every byte is addressable.
#pragma once

#include "mg_vg.hpp"

namespace mg {

constexpr UInt kAbitsChunkBits = 16;
constexpr UInt kAbitsPrimaryBits = 21; // 2^(21+16) = 128 GiB
constexpr SizeT kAbitsChunk = SizeT(1) << kAbitsChunkBits;
constexpr SizeT kAbitsSecBytes = kAbitsChunk / 8;
// Bitmap bytes after a secondary, all set: an inline check that reads past
// the chunk's end (an access that straddles two chunks) takes the slow path.
constexpr SizeT kAbitsSlack = 8;

// Whether the map is kept (--addressability=yes); set by abits_init.
extern bool abits_on;

void abits_init();
void abits_make(Addr a, SizeT len, bool addressable);
// Starts fetching the bitmap bits of a (memory about to be reused).
void abits_prefetch(Addr a);
// The first byte of [a, a+len) that is not addressable, or false.
bool abits_first_bad(Addr a, SizeT len, Addr* bad);
// The primary table, for the inline check: each entry is its secondary's
// offset from the not-addressable one (abits_distinguished(false)).
const ULong* abits_primary();
// The shared bitmap of chunks all addressable (true) or all not (false):
// never written (the inline stack update checks it is not one of them).
const UChar* abits_distinguished(bool addressable);
// Secondaries allocated (each kAbitsSecBytes + kAbitsSlack bytes); after
// abits_release, those it freed.
ULong abits_secondaries();
// Frees the map for good (the process's last report: no client code runs
// again), the primary table's pages included; nothing is checked after.
void abits_release();

} // namespace mg
