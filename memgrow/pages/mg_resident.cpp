// SPDX-License-Identifier: GPL-2.0-or-later
#include "pages/mg_resident.hpp"
#include "mg_vg_compat.hpp"
#include "pub_tool_vkiscnums.h"

namespace mg {

namespace {

constexpr UWord kChunkPages = 1 << 16; // mincore's vector, 256 MiB of address space a call
UChar* vec;

// Resident bytes of [lo, hi), a run of client mappings with no hole.
ULong resident_in(Addr lo, Addr hi) {
    if (!vec) vec = static_cast<UChar*>(VG_(malloc)("mg.resident.vec", kChunkPages));
    ULong pages = 0;
    for (Addr a = lo; a < hi;) {
        SizeT len = hi - a < kChunkPages * VKI_PAGE_SIZE ? hi - a : kChunkPages * VKI_PAGE_SIZE;
        SysRes r =
            vgc::VG_(do_syscall)(__NR_mincore, a, len, reinterpret_cast<UWord>(vec), 0, 0, 0, 0, 0);
        if (!sr_isError(r))
            for (SizeT i = 0; i < len / VKI_PAGE_SIZE; ++i)
                pages += vec[i] & 1;
        a += len;
    }
    return pages * VKI_PAGE_SIZE;
}

// f(segment) for each client mapping, in address order.
template <class F> void for_each_client_segment(F f) {
    Int n = 0;
    Addr* starts = VG_(get_segment_starts)(SkFileC | SkAnonC | SkShmC, &n);
    for (Int i = 0; i < n; ++i)
        if (const NSegment* seg = VG_(am_find_nsegment)(starts[i])) f(*seg);
    VG_(free)(starts);
}

FileResidence* files; // by file, at teardown
UInt n_files, cap_files;

void tally_file(const HChar* name, ULong mapped, ULong resident) {
    for (UInt i = 0; i < n_files; ++i)
        if (VG_STREQ(files[i].name, name)) {
            files[i].mapped += mapped, files[i].resident += resident;
            return;
        }
    if (n_files == cap_files) {
        cap_files = cap_files ? 2 * cap_files : 64;
        files = static_cast<FileResidence*>(
            VG_(realloc)("mg.resident.files", files, cap_files * sizeof(FileResidence)));
    }
    files[n_files++] = FileResidence{VG_(strdup)("mg.resident.file", name), mapped, resident};
}

Int by_resident(const void* x, const void* y) {
    ULong a = static_cast<const FileResidence*>(x)->resident;
    ULong b = static_cast<const FileResidence*>(y)->resident;
    return a > b ? -1 : a < b ? 1 : 0;
}

} // namespace

ULong n_samples, sample_us; // -v's statistics

ULong microseconds() {
    vki_timespec ts;
    VG_(clock_gettime)(&ts, VKI_CLOCK_MONOTONIC);
    return static_cast<ULong>(ts.tv_sec) * 1000000 + static_cast<ULong>(ts.tv_nsec) / 1000;
}

ULong resident_bytes_now() {
    ULong t0 = microseconds();
    // Neighbouring mappings make one mincore call.
    ULong total = 0;
    Addr lo = 0, hi = 0;
    for_each_client_segment([&](const NSegment& seg) {
        if (seg.start != hi) {
            if (hi > lo) total += resident_in(lo, hi);
            lo = seg.start;
        }
        hi = seg.end + 1;
    });
    if (hi > lo) total += resident_in(lo, hi);
    n_samples++;
    sample_us += microseconds() - t0;
    return total;
}

void resident_print_stats() {
    VG_(umsg)
    ("memgrow: resident bytes: %'llu samples took %llu.%03llu ms\n", n_samples, sample_us / 1000,
     sample_us % 1000);
}

void resident_files_at_teardown() {
    if (n_files) return;
    for_each_client_segment([](const NSegment& seg) {
        const HChar* name = seg.kind == SkFileC ? VG_(am_get_filename)(&seg) : nullptr;
        if (name) tally_file(name, seg.end + 1 - seg.start, resident_in(seg.start, seg.end + 1));
    });
    if (n_files) VG_(ssort)(files, n_files, sizeof(FileResidence), by_resident);
}

UInt resident_files(const FileResidence** out) {
    *out = files;
    return n_files;
}

} // namespace mg
