// SPDX-License-Identifier: GPL-2.0-or-later
#include "checks/mg_memevents.hpp"
#include "checks/mg_abits.hpp"
#include "checks/mg_errors.hpp"
#include "intercept/mg_heap_guard.hpp"
#include "python/mg_client_memory.hpp"

namespace mg {

namespace {

// The client's segments at start-up (announced after post_clo_init, which
// registers this). What the client maps is addressable as memcheck has it:
// any access right makes it so, PROT_NONE does not.
void on_startup(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong) {
    memevents_mmap(a, len, rr, ww, xx);
}
void on_brk(Addr a, SizeT len, ThreadId) {
    abits_make(a, len, true);
}
void on_die_stack(Addr a, SizeT len) {
    abits_make(a, len, false);
}
void on_new_stack_signal(Addr a, SizeT len, ThreadId) {
    abits_make(a, len, true);
}

// A system call's write past a block (read() of too many bytes) reaches the
// client arena's bookkeeping as a store would: the first 4 KiB past the
// first bad byte are guarded, which bounds the cost of a huge bad buffer.
constexpr SizeT kSyscallGuard = 4096;

void check_range(CorePart part, ThreadId tid, const HChar* what, Addr a, SizeT len, bool write) {
    Addr bad;
    if (!abits_first_bad(a, len, &bad)) return;
    report_param_error(tid, part, what, bad, write);
    if (write) heap_guard_write(bad, a + len - bad < kSyscallGuard ? a + len - bad : kSyscallGuard);
}
void on_pre_read(CorePart part, ThreadId tid, const HChar* what, Addr a, SizeT len) {
    check_range(part, tid, what, a, len, false);
}
void on_pre_write(CorePart part, ThreadId tid, const HChar* what, Addr a, SizeT len) {
    check_range(part, tid, what, a, len, true);
}
// A string argument: its bytes up to the terminating zero.
void on_pre_read_asciiz(CorePart part, ThreadId tid, const HChar* what, Addr a) {
    for (Addr p = a;; ++p) {
        Addr bad;
        if (abits_first_bad(p, 1, &bad)) {
            report_param_error(tid, part, what, bad, false);
            return;
        }
        // Read with a fault catcher: addressable is not always readable
        // (mprotect to PROT_NONE leaves the bits, as memcheck).
        UChar c;
        if (!read_client(p, &c) || c == 0) return;
    }
}

} // namespace

void memevents_init() {
    if (!abits_on) return;
    VG_(track_new_mem_startup)(on_startup);
    VG_(track_new_mem_brk)(on_brk);
    VG_(track_new_mem_stack_signal)(on_new_stack_signal);
    VG_(track_die_mem_stack_signal)(on_die_stack);
    VG_(track_ban_mem_stack)(on_die_stack);
    VG_(track_pre_mem_read)(on_pre_read);
    VG_(track_pre_mem_read_asciiz)(on_pre_read_asciiz);
    VG_(track_pre_mem_write)(on_pre_write);
}

// Below the initial SP of the main thread (the core's start-up event for it
// came before the map existed).
void memevents_initial_stack(Addr sp) {
    const NSegment* seg = VG_(am_find_nsegment)(sp);
    if (seg && seg->start + VG_STACK_REDZONE_SZB < sp)
        abits_make(seg->start, sp - VG_STACK_REDZONE_SZB - seg->start, false);
}

// The core's own stack tracking is decided before the options are read
// (and would cost every run); mg_access.cpp calls this after each write of
// SP instead. The ABI's red zone below SP stays addressable. A new frame
// also takes the old red zone back: what a program left not addressable
// there (a dead frame's array it marked NOACCESS, as memcheck's
// describe-block) is the new frame's memory now.
void memevents_sp_changed(Addr old_sp, Addr new_sp) {
    constexpr Addr kMaxFrame = 2000000; // memcheck's --max-stackframe: more is a stack switch
    if (new_sp < old_sp && old_sp - new_sp <= kMaxFrame)
        abits_make(new_sp - VG_STACK_REDZONE_SZB, old_sp - new_sp + VG_STACK_REDZONE_SZB, true);
    else if (new_sp > old_sp && new_sp - old_sp <= kMaxFrame) {
        abits_make(old_sp - VG_STACK_REDZONE_SZB, new_sp - old_sp, false);
        abits_make(new_sp - VG_STACK_REDZONE_SZB, VG_STACK_REDZONE_SZB, true);
    }
}

void memevents_mmap(Addr a, SizeT len, Bool rr, Bool ww, Bool xx) {
    abits_make(a, len, rr || ww || xx);
}
// mremap: the new range is a mapping; the core ends the old one itself.
void memevents_remap(Addr, Addr to, SizeT len) {
    abits_make(to, len, true);
}
void memevents_munmap(Addr a, SizeT len) {
    abits_make(a, len, false);
}
// mprotect to an access right makes the range addressable (memcheck turns
// its no-access bytes defined; without V bits that is all of them);
// PROT_NONE changes nothing: the kernel raises the fault.
void memevents_mprotect(Addr a, SizeT len, Bool rr, Bool ww, Bool xx) {
    if (rr || ww || xx) abits_make(a, len, true);
}

} // namespace mg
