// SPDX-License-Identifier: GPL-2.0-or-later
// What differs between the Valgrind releases memgrow builds against (3.19 to
// 3.27), absorbed here and nowhere else. configure finds each difference by
// compiling against the headers at hand and passes it as an MG_VG_* define
// (MG_VG_VERSION only for what no compile check can tell: message wording).
// The rest of the tool is written against the newest API. Included by
// mg_vg.hpp after the API headers; docs/valgrind-versions.md has the table.
#pragma once

#if MG_VG_VERIFY_ALIGNMENT
#include "memcheck.h"
#endif

namespace mg::vgc {

// --- Aligned allocation (3.22): the core passes the alignment the program
// asked for beside the one it will use. Before, only the latter, which is
// then the program's too.
using AlignedNewFn = void* (*)(ThreadId, SizeT n, SizeT align, SizeT orig_align);
using MemalignFn = void* (*)(ThreadId, SizeT align, SizeT orig_align, SizeT n);
#if MG_VG_ORIG_ALIGN
template <AlignedNewFn F> constexpr AlignedNewFn aligned_new() {
    return F;
}
template <MemalignFn F> constexpr MemalignFn memalign() {
    return F;
}
#else
template <AlignedNewFn F> void* aligned_new_call(ThreadId tid, SizeT n, SizeT align) {
    return F(tid, n, align, align);
}
template <MemalignFn F> void* memalign_call(ThreadId tid, SizeT align, SizeT n) {
    return F(tid, align, align, n);
}
template <AlignedNewFn F> constexpr auto aligned_new() {
    return &aligned_new_call<F>;
}
template <MemalignFn F> constexpr auto memalign() {
    return &memalign_call<F>;
}
#endif

// --- realloc(p, 0) (3.21): the tool gets it and frees p, or not, as the
// core's --realloc-zero-bytes-frees says (yes on glibc). Before, the preload
// freed p itself and the tool never saw a size of 0.
#if MG_VG_REALLOC_ZERO
constexpr bool kReallocZeroReachesTool = true;
inline bool realloc_zero_frees() {
    return VG_(clo_realloc_zero_bytes_frees);
}
#else
constexpr bool kReallocZeroReachesTool = false;
inline bool realloc_zero_frees() {
    return true;
}
#endif

// --- The preload's checks of aligned allocation and sized deallocation
// (3.22): it sends memcheck's VERIFY_ALIGNMENT request, whatever the tool,
// with what the program called and passed. Calls a release does not check
// never arrive.
enum class AlignedCall : UChar {
    memalign,
    posix_memalign,
    aligned_alloc,
    delete_default,
    vec_delete_default,
    delete_sized,
    vec_delete_sized,
    new_aligned,
    vec_new_aligned,
    delete_aligned,
    vec_delete_aligned,
    delete_sized_aligned,
    vec_delete_sized_aligned,
    free_sized,         // 3.23 (C23)
    free_aligned_sized, // 3.23 (C23)
    unknown
};
struct AlignedCheck {
    AlignedCall call;
    SizeT orig_align; // what the program passed
    SizeT size;       // the size allocated, or passed to a sized deallocation
    Addr mem;         // the block deallocated
};

inline bool is_verify_alignment(UWord request) {
#if MG_VG_VERIFY_ALIGNMENT
    return request == _VG_USERREQ__MEMCHECK_VERIFY_ALIGNMENT;
#else
    (void)request;
    return false;
#endif
}

// Reads the request's argument, the preload's struct in client memory;
// false when it is not readable.
inline bool read_verify_alignment(UWord arg, AlignedCheck* out) {
#if MG_VG_VERIFY_ALIGNMENT
    if (!arg || !VG_(am_is_valid_for_client)(arg, sizeof(AlignedAllocInfo), VKI_PROT_READ))
        return false;
    const auto* info = reinterpret_cast<const AlignedAllocInfo*>(arg);
    out->orig_align = info->orig_alignment;
    out->size = info->size;
    out->mem = reinterpret_cast<Addr>(info->mem);
    // The same order as Valgrind's AlignedAllocKind, which only grew at its end.
    static_assert(UInt(AllocKindVecDeleteSizedAligned) ==
                  UInt(AlignedCall::vec_delete_sized_aligned));
#if MG_VG_FREE_SIZED
    static_assert(UInt(AllocKindFreeAlignedSized) == UInt(AlignedCall::free_aligned_sized));
    constexpr UInt kLast = AllocKindFreeAlignedSized;
#else
    constexpr UInt kLast = AllocKindVecDeleteSizedAligned;
#endif
    UInt kind = info->alloc_kind;
    out->call = kind <= kLast ? static_cast<AlignedCall>(kind) : AlignedCall::unknown;
    return true;
#else
    (void)arg;
    (void)out;
    return false;
#endif
}

// --- Memcheck's rules for a size of 0 from 3.26 (no compile check can tell:
// the version says): an aligned allocation of 0 bytes is "Unsafe allocation
// with size of zero is implementation-defined" ("<function> invalid size
// value: 0" before), and free_aligned_sized(p, 0, 0) is no longer one.
constexpr bool kZeroSize326 = MG_VG_VERSION >= 32600;

// --- memcheck's "new" leak search (3.21): VALGRIND_DO_NEW_LEAK_CHECK
// (deltamode 3; before, an unknown deltamode: a warning, then a full list),
// and in a delta search (new, increased, changed) a loss record that had no
// blocks at the previous search is "in new loss record N of M".
constexpr bool kNewLeakSearch321 = MG_VG_VERSION >= 32100;

// --- VG_(am_shadow_alloc): fresh zero pages of the tool's own, committed
// as they are touched; it returns the address up to 3.23, a SysRes since.
inline void* shadow_result(void* p) {
    return p;
}
inline void* shadow_result(SysRes r) {
    return sr_isError(r) ? nullptr : reinterpret_cast<void*>(sr_Res(r));
}
inline void* fresh_pages(SizeT bytes) {
    return shadow_result(VG_(am_shadow_alloc)(bytes));
}

// --- A raw system call (the core's, not in the tool headers). 3.19 takes
// six arguments after the number, 3.2x eight (for other platforms); on amd64
// the extra two are ignored, so the longer declaration serves both.
extern "C" SysRes VG_(do_syscall)(UWord sysno, UWord, UWord, UWord, UWord, UWord, UWord, UWord,
                                  UWord);

// --- The guest frame pointer (the core's, in every release; the tool
// headers have VG_(get_IP) and VG_(get_SP) only). VG_(get_shadow_regs_area)
// copies a register as 4-byte words, which an 8-byte load of the copy waits
// on (a failed store forwarding, tens of cycles at every stack capture).
extern "C" Addr VG_(get_FP)(ThreadId tid);

// An 8-byte guest register by its offset, read back as the two 4-byte words
// VG_(get_shadow_regs_area) writes (the same stall avoided).
inline Addr guest_register(ThreadId tid, PtrdiffT offset) {
    UInt half[2];
    VG_(get_shadow_regs_area)(tid, reinterpret_cast<UChar*>(half), 0, offset, sizeof half);
    return Addr(half[0]) | Addr(half[1]) << 32;
}

// --- Two core options the tool headers leave out (every release has them):
// with them, as with --stats=yes, the core walks the client arena's block
// headers after the tool's fini.
extern "C" Int VG_(clo_sanity_level);
extern "C" Bool VG_(clo_profile_heap);
inline bool core_walks_client_arena_at_exit() {
    return VG_(clo_stats) || VG_(clo_sanity_level) > 1 || VG_(clo_profile_heap);
}

// --- The core's guard on discarding translations (every release has it):
// set only while a client request is handled, though any moment the
// scheduler runs outside generated code is as safe. A forked child's fork
// syscall returns at such a moment (pages/mg_cow.cpp).
extern "C" Bool VG_(ok_to_discard_translations);
inline void discard_all_translations(const HChar* why) {
    Bool was = VG_(ok_to_discard_translations);
    VG_(ok_to_discard_translations) = True;
    VG_(discard_translations_safely)(0, SizeT(1) << 47, why);
    VG_(ok_to_discard_translations) = was;
}

// Gives the pages of [a, a + len) back to the kernel (MADV_DONTNEED): the
// mapping stays, and reads as zeros.
inline void discard_pages(Addr a, SizeT len) {
    constexpr UWord kMadvise = 28, kDontNeed = 4; // amd64 Linux
    VG_(do_syscall)(kMadvise, a, len, kDontNeed, 0, 0, 0, 0, 0);
}

} // namespace mg::vgc
