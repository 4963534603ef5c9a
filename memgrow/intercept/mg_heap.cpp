// SPDX-License-Identifier: GPL-2.0-or-later
// The malloc family, replaced: every host heap block goes through here into
// the block table and its site's timeline.
#include "intercept/mg_heap.hpp"
#include "checks/mg_abits.hpp"
#include "checks/mg_errors.hpp"
#include "intercept/mg_client_slabs.hpp"
#include "intercept/mg_heap_guard.hpp"
#include "intercept/mg_limits.hpp"
#include "pages/mg_cow.hpp"
#include "mg_options.hpp"
#include "python/mg_python.hpp"
#include "python/mg_revival.hpp"
#include "records/mg_stack_tree.hpp"
#include "records/mg_stacks.hpp"
#include "scan/mg_leak.hpp"
#include "records/mg_timeline.hpp"

namespace mg {

namespace {

// The leak scan reads every word of a block, where memcheck reads only the
// words the program wrote: a stale pointer left in reused memory would keep
// a lost block "reachable". So memory reaches the program zeroed: small
// blocks when allocated (the program is about to touch them anyway), large
// ones when freed (fresh large blocks come zeroed from mmap, and zeroing at
// allocation would commit pages a program may never touch). With
// --leak-check=no nothing is zeroed (it costs about a tenth of the time on a
// malloc-heavy program).
constexpr SizeT kZeroWhenAllocatedMax = 64 * 1024;

bool zeroing() {
    return clo.leak_check != LeakCheck::no;
}

// log2(a) + 1 for a power of two, else that of the alignment the core uses
// (a program's non-power-of-two alignment is an error of its own).
UChar align_code(SizeT orig_align, SizeT align) {
    SizeT a = orig_align && !(orig_align & (orig_align - 1)) ? orig_align : align;
    UChar code = 1;
    for (; a > 1; a >>= 1)
        ++code;
    return code;
}

// A custom allocator's block is the program's memory: memgrow neither
// zeroes nor releases it.
void release(const FreedBlock& f) {
    site_may_be_done(f.site); // no quarantined block names it any more
    if (custom_kind(f.kind)) return;
    if (f.slab) return slab_free(f.addr, f.size);
    if (f.size > kZeroWhenAllocatedMax && zeroing()) {
        cow_tool_write(f.addr, f.size);
        VG_(memset)(reinterpret_cast<void*>(f.addr), 0, f.size);
    }
    cow_tool_write(f.addr - 1, 1); // the arena writes the chunk's header
    VG_(cli_free)(reinterpret_cast<void*>(f.addr));
}

// The next block to leave the quarantine was freed 20 MB of frees ago: its
// memory and its A-bits are out of the cache by now. Fetched an allocation
// ahead, releasing it costs no misses (they were a quarter of a malloc-heavy
// run): a slab block and its bits are handed out again at its class's next
// allocation; the arena reads an arena block's header and its neighbour's to
// merge them, and often hands the memory out at once.
void prefetch_next_release() {
    const FreedBlock* f = quarantine_oldest();
    if (!f || custom_kind(f->kind)) return;
    const char* a = reinterpret_cast<const char*>(f->addr);
    abits_prefetch(f->addr);
    if (f->slab) {
        __builtin_prefetch(a, 1);
    } else {
        __builtin_prefetch(a - 64);
        __builtin_prefetch(a + f->size);
    }
}

// orig_align: what the program asked for (memalign, aligned new), else 0.
void* new_block(ThreadId tid, SizeT size, SizeT align, AllocKind kind, bool zero,
                SizeT orig_align = 0) {
    // A "negative" size is a caller's bug; malloc must fail, not abort.
    if (static_cast<SSizeT>(size) < 0) return nullptr;
    if (!limits_allow(tid, alloc_kind_name(kind), size)) return nullptr;
    heap_guard_restore(); // before the arena reads its bookkeeping
    quarantine_trim(release);
    prefetch_next_release();
    bool slab = slab_fits(size, align);
    void* p = slab ? slab_alloc(size) : VG_(cli_malloc)(align, size);
    if (!p) return nullptr;
    limits_heap_changed(static_cast<Long>(size));
    // In a forked child the arena's header and a zeroing copy their pages.
    if (!slab) cow_tool_write(reinterpret_cast<Addr>(p) - 1, 1);
    if (zero || (size <= kZeroWhenAllocatedMax && zeroing())) {
        cow_tool_write(reinterpret_cast<Addr>(p), size);
        VG_(memset)(p, 0, size);
    }
    // The payload only: the arena's redzones around it stay not addressable.
    abits_make(reinterpret_cast<Addr>(p), size, true);
    Block* b = heap_record_block(tid, Table::host, reinterpret_cast<Addr>(p), size, kind);
    if (orig_align) b->align_log2p1 = align_code(orig_align, align);
    b->slab = slab;
    revival_block_allocated(tid, reinterpret_cast<Addr>(p), size);
    return p;
}

bool kind_matches(AllocKind k, FreeCall c) {
    switch (c) {
    case FreeCall::delete_scalar:
        return k == AllocKind::new_scalar;
    case FreeCall::delete_array:
        return k == AllocKind::new_array;
    case FreeCall::custom:
        return custom_kind(k);
    default:
        return k == AllocKind::malloc;
    }
}

// The free stacks' tree keeps only what the quarantine holds, once it is
// three times that (and a million nodes, 12 MB): a compaction costs a
// stack read and intern per quarantined block.
constexpr UInt kFreeStacksFloor = 1u << 20;
UInt free_stacks_limit = kFreeStacksFloor;
UInt free_stack_compactions, free_stacks_kept; // -v

void keep_free_stack(FreedBlock& f) {
    f.freed_at = free_stack_keep(f.freed_at);
}

void compact_free_stacks() {
    free_stacks_compact_begin();
    quarantine_for_each(keep_free_stack);
    free_stacks_compact_end();
    stack_cache_clear(StackPurpose::deallocation); // their payloads are old nodes
    UInt kept = free_stacks_size();
    free_stacks_limit = kept < kFreeStacksFloor / 3 ? kFreeStacksFloor : kept * 3;
    ++free_stack_compactions;
    free_stacks_kept = kept;
}

// Where a block was freed, kept for a later double free's message. The
// cached stack's payload is its node + 1 (null: not interned yet).
UInt free_stack(ThreadId tid) {
    if (free_stacks_size() > free_stacks_limit) compact_free_stacks();
    CapturedStack stack =
        capture_stack(tid, StackPurpose::deallocation, static_cast<UInt>(VG_(clo_backtrace_size)));
    if (!*stack.payload)
        *stack.payload = reinterpret_cast<void*>(UWord(free_stack_intern(stack.ips, stack.n)) + 1);
    return static_cast<UInt>(reinterpret_cast<UWord>(*stack.payload) - 1);
}

} // namespace

Block* heap_record_block(ThreadId tid, Table t, Addr a, SizeT size, AllocKind kind) {
    Site* s = site_of_current_stack(tid, Space::host, 0);
    Block* b = block_new(t, a, size, s, kind);
    b->birth = clock_end();
    if (t == Table::host) revival_block_started(a);
    if (tl.torn_down) block_born_in_teardown(b);
    timeline_alloc(s, size);
    return b;
}

namespace {

// A block just taken out of its table: freed, its memory quarantined.
void retire(ThreadId tid, Table t, Block* b, FreeCall call, SizeT rz) {
    Addr a = b->addr;
    if (t == Table::host && !custom_kind(b->kind)) limits_heap_changed(-static_cast<Long>(b->size));
    if (!kind_matches(b->kind, call)) report_mismatched_free(tid, a, call, *b);
    timeline_free(b->site, b->size);
    python_block_freed(a, b->size);
    revival_block_freed(a);
    FreedBlock f{a, b->size, b->site, free_stack(tid), b->kind, b->slab};
    abits_make(a - rz, b->size + 2 * rz, false); // a use after free, while quarantined
    block_dispose(b);
    quarantine_push(f);
}

} // namespace

bool heap_drop_block(ThreadId tid, Table t, Addr a, FreeCall call, SizeT rz) {
    Block* b = block_remove(t, a);
    if (!b) {
        // Memcheck tells a custom free of a freed block by its description.
        const FreedBlock* f = call == FreeCall::custom ? nullptr : quarantine_find(a);
        if (f)
            report_double_free(tid, a, call, *f);
        else
            report_invalid_free(tid, a, call);
        return false;
    }
    retire(tid, t, b, call, rz);
    return true;
}

void heap_free_block(ThreadId tid, Table t, Block* b, FreeCall call, SizeT rz) {
    block_unlink(t, b);
    retire(tid, t, b, call, rz);
}

namespace {

bool drop_block(ThreadId tid, void* p, FreeCall call) {
    return heap_drop_block(tid, Table::host, reinterpret_cast<Addr>(p), call, 0);
}

void free_block(ThreadId tid, void* p, FreeCall call) {
    if (p) drop_block(tid, p, call);
}

void* mg_malloc(ThreadId tid, SizeT n) {
    return new_block(tid, n, VG_(clo_alignment), AllocKind::malloc, false);
}
void* mg_new(ThreadId tid, SizeT n) {
    return new_block(tid, n, VG_(clo_alignment), AllocKind::new_scalar, false);
}
void* mg_new_aligned(ThreadId tid, SizeT n, SizeT align, SizeT orig_align) {
    return new_block(tid, n, align, AllocKind::new_scalar, false, orig_align);
}
void* mg_vec_new(ThreadId tid, SizeT n) {
    return new_block(tid, n, VG_(clo_alignment), AllocKind::new_array, false);
}
void* mg_vec_new_aligned(ThreadId tid, SizeT n, SizeT align, SizeT orig_align) {
    return new_block(tid, n, align, AllocKind::new_array, false, orig_align);
}
void* mg_memalign(ThreadId tid, SizeT align, SizeT orig_align, SizeT n) {
    return new_block(tid, n, align, AllocKind::malloc, false, orig_align);
}
void* mg_calloc(ThreadId tid, SizeT count, SizeT size) {
    SizeT n = count * size;
    if (size && n / size != count) return nullptr; // overflow: calloc must fail
    return new_block(tid, n, VG_(clo_alignment), AllocKind::malloc, true);
}
void mg_free(ThreadId tid, void* p) {
    free_block(tid, p, FreeCall::free);
}
void mg_delete(ThreadId tid, void* p) {
    free_block(tid, p, FreeCall::delete_scalar);
}
void mg_delete_aligned(ThreadId tid, void* p, SizeT) {
    free_block(tid, p, FreeCall::delete_scalar);
}
void mg_vec_delete(ThreadId tid, void* p) {
    free_block(tid, p, FreeCall::delete_array);
}
void mg_vec_delete_aligned(ThreadId tid, void* p, SizeT) {
    free_block(tid, p, FreeCall::delete_array);
}

// A moved block is a new allocation at realloc's caller: growth through
// realloc belongs to the code that grows the buffer. realloc(p, 0) reaches
// here from Valgrind 3.21 (mg_vg_compat.hpp): as memcheck, an error
// (--show-realloc-size-zero), then p is freed as the core's
// --realloc-zero-bytes-frees says, or becomes a block of 1 byte.
void* mg_realloc(ThreadId tid, void* p, SizeT n) {
    if (!p) return mg_malloc(tid, n);
    if (n == 0) {
        if (clo.show_realloc_size_zero) report_realloc_size_zero(tid, reinterpret_cast<Addr>(p));
        if (vgc::realloc_zero_frees()) {
            drop_block(tid, p, FreeCall::realloc);
            return nullptr;
        }
        n = 1;
    }
    Block* old = block_find(Table::host, reinterpret_cast<Addr>(p));
    if (!old) {
        drop_block(tid, p, FreeCall::realloc); // reports the bad pointer
        return nullptr;
    }
    SizeT old_size = old->size;
    void* q = new_block(tid, n, VG_(clo_alignment), AllocKind::malloc, false);
    if (!q) return nullptr; // the old block stays valid, as realloc requires
    cow_tool_write(reinterpret_cast<Addr>(q), old_size < n ? old_size : n);
    VG_(memcpy)(q, p, old_size < n ? old_size : n);
    drop_block(tid, p, FreeCall::realloc);
    return q;
}

SizeT mg_usable_size(ThreadId, void* p) {
    Block* b = block_find(Table::host, reinterpret_cast<Addr>(p));
    return b ? b->size : 0;
}

bool power_of_2(SizeT a) {
    return a && !(a & (a - 1));
}

// Memcheck's checks of one deallocation against the block: the size a sized
// delete or free_sized passed, the alignment an aligned one passed.
void check_size(ThreadId tid, const Block* b, SizeT size, const HChar* names) {
    if (b && b->size != size) report_size_mismatch(tid, *b, size, names);
}
void check_align(ThreadId tid, const Block* b, SizeT align, const HChar* names) {
    if (b && align != block_align(*b)) report_align_mismatch(tid, *b, align, false, names);
}
void check_default_align(ThreadId tid, const Block* b, const HChar* names) {
    if (b && b->align_log2p1) report_align_mismatch(tid, *b, 0, true, names);
}
void check_new_alignment(ThreadId tid, SizeT align) {
    if (!power_of_2(align))
        report_bad_align(tid, align, 0, " (should be non-zero and a power of 2)");
}
// aligned_alloc's rules (C11), also free_aligned_sized's.
void check_aligned_alloc(ThreadId tid, SizeT align, SizeT size) {
    if (align & (align - 1)) report_bad_align(tid, align, 0, " (should be a power of 2)");
    if (align && size % align)
        report_bad_align(tid, align, size, " (size should be a multiple of alignment)");
}

} // namespace

void heap_verify_alignment(ThreadId tid, UWord arg) {
    vgc::AlignedCheck c;
    if (!vgc::read_verify_alignment(arg, &c)) return;
    const Block* b = c.mem ? block_find(Table::host, c.mem) : nullptr;
    using vgc::AlignedCall;
    switch (c.call) {
    case AlignedCall::memalign:
        if (!power_of_2(c.orig_align))
            report_bad_align(tid, c.orig_align, 0, " (should be power of 2)");
        if (c.size == 0) report_unsafe_zero_size(tid, "memalign()");
        break;
    case AlignedCall::posix_memalign:
        if (c.orig_align < sizeof(SizeT) || !power_of_2(c.orig_align))
            report_bad_align(tid, c.orig_align, 0,
                             " (should be non-zero, a power of 2 and a multiple of sizeof(void*))");
        if (c.size == 0) report_unsafe_zero_size(tid, "posix_memalign()");
        break;
    case AlignedCall::aligned_alloc:
        check_aligned_alloc(tid, c.orig_align, c.size);
        if (c.size == 0) report_unsafe_zero_size(tid, "aligned_alloc()");
        break;
    case AlignedCall::free_aligned_sized:
        check_aligned_alloc(tid, c.orig_align, c.size);
        if (c.size == 0 && !vgc::kZeroSize326) report_unsafe_zero_size(tid, "free_aligned_sized()");
        check_align(tid, b, c.orig_align, "aligned_alloc/free_aligned_sized");
        check_size(tid, b, c.size, "aligned_alloc/free_aligned_sized");
        break;
    case AlignedCall::free_sized:
        check_size(tid, b, c.size, "aligned_alloc/free_sized");
        break;
    case AlignedCall::delete_sized:
        check_size(tid, b, c.size, "new/delete");
        break;
    case AlignedCall::vec_delete_sized:
        check_size(tid, b, c.size, "new[][/delete[]"); // sic, memcheck's words
        break;
    case AlignedCall::new_aligned:
    case AlignedCall::vec_new_aligned:
        check_new_alignment(tid, c.orig_align);
        break;
    case AlignedCall::delete_default:
        check_default_align(tid, b, "new/delete");
        break;
    case AlignedCall::vec_delete_default:
        check_default_align(tid, b, "new[]/delete[]");
        break;
    case AlignedCall::delete_aligned:
        check_new_alignment(tid, c.orig_align);
        check_align(tid, b, c.orig_align, "new/delete");
        break;
    case AlignedCall::vec_delete_aligned:
        check_new_alignment(tid, c.orig_align);
        check_align(tid, b, c.orig_align, "new[]/delete[]");
        break;
    case AlignedCall::delete_sized_aligned:
        check_size(tid, b, c.size, "new/delete");
        check_align(tid, b, c.orig_align, "new/delete");
        check_new_alignment(tid, c.orig_align);
        break;
    case AlignedCall::vec_delete_sized_aligned:
        check_size(tid, b, c.size, "new[]/delete[]");
        check_align(tid, b, c.orig_align, "new[]/delete[]");
        check_new_alignment(tid, c.orig_align);
        break;
    case AlignedCall::unknown:
        break;
    }
}

namespace {
void register_replacement(SizeT redzone) {
    VG_(needs_malloc_replacement)
    (mg_malloc, mg_new, vgc::aligned_new<mg_new_aligned>(), mg_vec_new,
     vgc::aligned_new<mg_vec_new_aligned>(), vgc::memalign<mg_memalign>(), mg_calloc, mg_free,
     mg_delete, mg_delete_aligned, mg_vec_delete, mg_vec_delete_aligned, mg_realloc, mg_usable_size,
     redzone);
}
} // namespace

void heap_init() {
    register_replacement(0);
}

// Redzones only where accesses are checked (memcheck's 16 bytes; the core's
// --redzone-size wins): the client arena is made at the first allocation,
// after the options.
void heap_post_options() {
    if (clo.addressability) register_replacement(16);
}

void heap_print_stats() {
    VG_(umsg)
    ("memgrow: free stacks: %'u compactions, the last kept %'u nodes\n", free_stack_compactions,
     free_stacks_kept);
}

} // namespace mg
