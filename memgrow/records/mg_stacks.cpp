// SPDX-License-Identifier: GPL-2.0-or-later
#include "records/mg_stacks.hpp"

namespace mg {

namespace {

constexpr UInt kMaxFrames = 264;   // --depth's bound plus the preload frames
constexpr UInt kCachedFrames = 64; // deeper stacks (--depth > 60) are not cached
// Per thread and purpose: kSets x kWays stacks. Several stacks share a key
// (one allocation function called at the same depth from different
// callers), so a set holds several and the verification picks. An
// interpreter allocates from many (IP, SP) pairs: with 16 sets a third of
// the Python workload's unwinding was misses (1.46 million, against 0.43
// with 256), 12% of its time. A thread's cache is 3.3 MB of fresh pages,
// committed only as its sets are used.
constexpr UInt kSets = 256;
constexpr UInt kWays = 4;
constexpr UInt kPurposes = 3;

struct Entry {
    Addr ip0, sp0, fp0; // the unwinder's start registers: the key
    UInt n;             // 0: empty
    ULong serial;       // unique to this fill of the entry
    void* payload;
    Addr ips[kCachedFrames];
    Addr sps[kCachedFrames]; // for i >= 1, sps[i] - 8 holds the return address ips[i] + 1
};

struct Set {
    Entry ways[kWays];
    UInt next; // round-robin replacement
};

struct ThreadCache {
    Set sets[kPurposes][kSets];
};

ThreadCache** caches; // by ThreadId, created on first use
Addr scratch_ips[kMaxFrames], scratch_sps[kMaxFrames];
ULong hits, misses;
ULong last_serial;

UInt set_of(Addr ip, Addr sp) {
    return static_cast<UInt>(((ip >> 2) ^ (sp >> 4)) % kSets);
}

// The unwinder reports a caller frame as its return address - 1 (inside the
// call instruction). Every return address must still be in its slot, and every
// slot between the
// current SP and the top of the thread's stack (so the reads are safe).
bool still_valid(const Entry& e, Addr sp, Addr stack_max) {
    for (UInt i = 1; i < e.n; ++i) {
        Addr slot = e.sps[i] - sizeof(Addr);
        if (slot < sp || slot + sizeof(Addr) > stack_max) return false;
        if (*reinterpret_cast<const Addr*>(slot) != e.ips[i] + 1) return false;
    }
    return true;
}

} // namespace

CapturedStack capture_stack(ThreadId tid, StackPurpose purpose, UInt max_frames) {
    if (max_frames > kMaxFrames) max_frames = kMaxFrames;
    if (!caches) {
        caches = static_cast<ThreadCache**>(
            VG_(calloc)("mg.stacks.threads", VG_N_THREADS, sizeof(ThreadCache*)));
    }
    if (!caches[tid]) {
        void* fresh = vgc::fresh_pages(sizeof(ThreadCache));
        caches[tid] = static_cast<ThreadCache*>(
            fresh ? fresh : VG_(calloc)("mg.stacks.cache", 1, sizeof(ThreadCache)));
    }
    Addr ip = VG_(get_IP)(tid), sp = VG_(get_SP)(tid);
    // A revival is caught at a store in the middle of optimised code, where
    // RBP is as often an ordinary register (an object's address) as a frame
    // pointer: keyed by it, no two revivals would share an entry. Where RBP
    // is the frame pointer it is fixed by IP and SP; where it is not, the
    // unwinder does not read it; the slots are checked either way.
    Addr fp = purpose == StackPurpose::revival ? 0 : vgc::VG_(get_FP)(tid);
    Addr stack_max = VG_(thread_get_stack_max)(tid);
    SizeT stack_size = VG_(thread_get_stack_size)(tid);
    static void* no_payload; // for stacks that are not cached
    no_payload = nullptr;
    // On a stack Valgrind does not know (a coroutine's, a signal
    // alternate stack) the slots cannot be checked safely: no cache.
    if (sp > stack_max || stack_max - sp >= stack_size) {
        ++misses;
        UInt n = VG_(get_StackTrace)(tid, scratch_ips, max_frames, scratch_sps, nullptr, 0);
        return CapturedStack{scratch_ips, scratch_sps, n, &no_payload, 0};
    }
    Set& set = caches[tid]->sets[static_cast<UInt>(purpose)][set_of(ip, sp)];
    for (Entry& e : set.ways) {
        if (e.n && e.ip0 == ip && e.sp0 == sp && e.fp0 == fp && e.n <= max_frames &&
            still_valid(e, sp, stack_max)) {
            ++hits;
            return CapturedStack{e.ips, e.sps, e.n, &e.payload, e.serial};
        }
    }
    ++misses;
    UInt n = VG_(get_StackTrace)(tid, scratch_ips, max_frames, scratch_sps, nullptr, 0);
    // Keep the frames whose return address sits in its slot: past the
    // outermost real frame (_start, a thread's clone) the unwinder guesses,
    // and those guesses are neither frames nor verifiable.
    UInt good = 1;
    while (good < n) {
        Addr slot = scratch_sps[good] - sizeof(Addr);
        if (slot < sp || slot + sizeof(Addr) > stack_max ||
            *reinterpret_cast<const Addr*>(slot) != scratch_ips[good] + 1)
            break;
        ++good;
    }
    n = good;
    if (n > kCachedFrames) return CapturedStack{scratch_ips, scratch_sps, n, &no_payload, 0};
    Entry& e = set.ways[set.next];
    set.next = (set.next + 1) % kWays;
    e.payload = nullptr;
    e.ip0 = ip, e.sp0 = sp, e.fp0 = fp, e.n = n;
    e.serial = ++last_serial;
    for (UInt i = 0; i < n; ++i)
        e.ips[i] = scratch_ips[i], e.sps[i] = scratch_sps[i];
    return CapturedStack{e.ips, e.sps, e.n, &e.payload, e.serial};
}

void stack_cache_clear(StackPurpose purpose) {
    if (!caches) return;
    for (UInt t = 0; t < VG_N_THREADS; ++t)
        if (caches[t])
            for (Set& set : caches[t]->sets[static_cast<UInt>(purpose)])
                for (Entry& e : set.ways)
                    if (e.n) e.n = 0; // an unused page stays uncommitted
}

StackCacheStats stack_cache_stats() {
    return StackCacheStats{hits, misses};
}

} // namespace mg
