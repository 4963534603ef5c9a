// SPDX-License-Identifier: GPL-2.0-or-later
// Valgrind runs in the program's process, so an RLIMIT_AS the program sets
// limits Valgrind's memory too, and a program that sets 64 MiB is already
// over it under Valgrind: the core's next mapping fails and it ends the run
// ("newSuperblock's request for 4194304 bytes failed"), report unwritten.
// Memcheck's program gets NULL from its first malloc, and memcheck dies out
// of memory at exit. memgrow keeps the limit for the program instead, as the
// core does for RLIMIT_DATA and RLIMIT_STACK: the kernel is asked for the
// limit it already has (the program's struct is changed for the call and put
// back), getrlimit reads the program's value back, and a heap allocation
// that would take the program past it returns NULL. What counts is what the
// program has: its mappings when it set the limit (the heap arena's apart)
// and its live heap blocks; its mappings made later do not (the kernel's
// limit on them is Valgrind's).
#include "intercept/mg_limits.hpp"
#include "pub_tool_vkiscnums.h"

namespace mg {

bool limits_set;
ULong limits_heap_bytes;

namespace {

constexpr Int kRlimitAs = 9; // RLIMIT_AS on Linux (the vki headers lack it)
constexpr ULong kInfinity = ~0ULL;

bool virtualized;   // the program set RLIMIT_AS: it reads back its own values
vki_rlimit program; // that limit
ULong base_bytes;   // its mappings when it set it
ULong refused;      // allocations that got NULL

// A call that sets the limit, in flight: the program's struct and values.
Addr setting;
vki_rlimit asked, real;
bool had_limit;
vki_rlimit previous;

bool own(UWord pid) {
    return pid == 0 || pid == static_cast<UWord>(VG_(getpid)());
}

bool writable(Addr a) {
    return a && VG_(am_is_valid_for_client)(a, sizeof(vki_rlimit), VKI_PROT_READ | VKI_PROT_WRITE);
}

// The program's mappings, but for the client arena's superblocks (its heap
// blocks are counted one by one).
ULong mapped_bytes() {
    Int n = 0;
    Addr* starts = VG_(get_segment_starts)(SkAnonC | SkFileC | SkShmC, &n);
    ULong total = 0;
    for (Int i = 0; i < n; ++i) {
        const NSegment* seg = VG_(am_find_nsegment)(starts[i]);
        if (seg && !seg->isCH) total += seg->end - seg->start + 1;
    }
    VG_(free)(starts);
    return total;
}

// The struct a call sets the limit from (0: none).
Addr new_limit(UInt sysno, const UWord* args) {
    if (sysno == __NR_setrlimit && args[0] == kRlimitAs) return args[1];
    if (sysno == __NR_prlimit64 && own(args[0]) && args[1] == kRlimitAs) return args[2];
    return 0;
}

// The struct a call reads the limit into (0: none).
Addr old_limit(UInt sysno, const UWord* args) {
    if (sysno == __NR_getrlimit && args[0] == kRlimitAs) return args[1];
    if (sysno == __NR_prlimit64 && own(args[0]) && args[1] == kRlimitAs) return args[3];
    return 0;
}

} // namespace

void limits_pre_syscall(UInt sysno, UWord* args) {
    Addr a = new_limit(sysno, args);
    if (!writable(a) || VG_(getrlimit)(kRlimitAs, &real) != 0) return;
    auto* r = reinterpret_cast<vki_rlimit*>(a);
    // What the kernel would refuse, it still refuses (raising the hard
    // limit is refused to a process without the capability).
    if (r->rlim_cur > r->rlim_max || r->rlim_max > real.rlim_max) return;
    setting = a;
    asked = *r;
    had_limit = virtualized;
    previous = program;
    *r = real;
}

void limits_post_syscall(UInt sysno, UWord* args, SysRes res) {
    Addr old = old_limit(sysno, args);
    bool ok = !sr_isError(res);
    if (setting) {
        *reinterpret_cast<vki_rlimit*>(setting) = asked;
        setting = 0;
        if (ok) {
            virtualized = true;
            limits_set = asked.rlim_cur != kInfinity;
            program = asked;
            base_bytes = mapped_bytes();
        }
        // The limit before this call, as the program had it.
        if (ok && writable(old)) *reinterpret_cast<vki_rlimit*>(old) = had_limit ? previous : real;
        return;
    }
    if (ok && virtualized && writable(old)) *reinterpret_cast<vki_rlimit*>(old) = program;
}

bool limits_refuse(ThreadId tid, const HChar* call, SizeT size) {
    if (base_bytes + limits_heap_bytes + size <= program.rlim_cur) return false;
    if (refused++) return true;
    VG_(umsg)
    ("memgrow: %s(%lu) returned NULL: the program's address-space limit (RLIMIT_AS, %'llu "
     "bytes) is reached\n",
     call, size, static_cast<ULong>(program.rlim_cur));
    VG_(get_and_pp_StackTrace)(tid, static_cast<UInt>(VG_(clo_backtrace_size)));
    return true;
}

} // namespace mg
