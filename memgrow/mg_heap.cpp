// The malloc family, replaced: every host heap block goes through here into
// the block table and its site's timeline.
#include "mg_heap.hpp"
#include "mg_errors.hpp"
#include "mg_options.hpp"
#include "mg_python.hpp"
#include "mg_stacks.hpp"
#include "mg_timeline.hpp"

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

void* new_block(ThreadId tid, SizeT size, SizeT align, AllocKind kind, bool zero) {
    // A "negative" size is a caller's bug; malloc must fail, not abort.
    if (static_cast<SSizeT>(size) < 0) return nullptr;
    void* p = VG_(cli_malloc)(align, size);
    if (!p) return nullptr;
    if (zero || (size <= kZeroWhenAllocatedMax && zeroing())) VG_(memset)(p, 0, size);
    Site* s = site_of_current_stack(tid, Space::host, 0);
    Block* b = block_new(Table::host, reinterpret_cast<Addr>(p), size, s, kind);
    b->birth = clock_end();
    timeline_alloc(s, size);
    return p;
}

bool kind_matches(AllocKind k, FreeCall c) {
    switch (c) {
    case FreeCall::delete_scalar:
        return k == AllocKind::new_scalar;
    case FreeCall::delete_array:
        return k == AllocKind::new_array;
    default:
        return k == AllocKind::malloc;
    }
}

void release(const FreedBlock& f) {
    if (f.size > kZeroWhenAllocatedMax && zeroing())
        VG_(memset)(reinterpret_cast<void*>(f.addr), 0, f.size);
    VG_(cli_free)(reinterpret_cast<void*>(f.addr));
}

// Where a block was freed, kept for a later double free's message.
ExeContext* free_stack(ThreadId tid) {
    CapturedStack stack =
        capture_stack(tid, StackPurpose::deallocation, static_cast<UInt>(VG_(clo_backtrace_size)));
    if (!*stack.payload) *stack.payload = VG_(make_ExeContext_from_StackTrace)(stack.ips, stack.n);
    return static_cast<ExeContext*>(*stack.payload);
}

// Removes a block from the records; false (and an error) if p is not a live
// block. The memory goes to the quarantine.
bool drop_block(ThreadId tid, void* p, FreeCall call) {
    Addr a = reinterpret_cast<Addr>(p);
    Block* b = block_remove(Table::host, a);
    if (!b) {
        if (const FreedBlock* f = quarantine_find(a))
            report_double_free(tid, a, call, *f);
        else
            report_invalid_free(tid, a, call);
        return false;
    }
    if (!kind_matches(b->kind, call)) report_mismatched_free(tid, a, call, *b);
    timeline_free(b->site, b->size);
    python_block_freed(a, b->size);
    FreedBlock f{a, b->size, b->site, free_stack(tid), b->kind};
    block_dispose(b);
    quarantine_push(f, release);
    return true;
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
void* mg_new_aligned(ThreadId tid, SizeT n, SizeT align) {
    return new_block(tid, n, align, AllocKind::new_scalar, false);
}
void* mg_vec_new(ThreadId tid, SizeT n) {
    return new_block(tid, n, VG_(clo_alignment), AllocKind::new_array, false);
}
void* mg_vec_new_aligned(ThreadId tid, SizeT n, SizeT align) {
    return new_block(tid, n, align, AllocKind::new_array, false);
}
void* mg_memalign(ThreadId tid, SizeT align, SizeT n) {
    return new_block(tid, n, align, AllocKind::malloc, false);
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
// realloc belongs to the code that grows the buffer.
void* mg_realloc(ThreadId tid, void* p, SizeT n) {
    if (!p) return mg_malloc(tid, n);
    Block* old = block_find(Table::host, reinterpret_cast<Addr>(p));
    if (!old) {
        drop_block(tid, p, FreeCall::realloc); // reports the bad pointer
        return nullptr;
    }
    SizeT old_size = old->size;
    void* q = new_block(tid, n, VG_(clo_alignment), AllocKind::malloc, false);
    if (!q) return nullptr; // the old block stays valid, as realloc requires
    VG_(memcpy)(q, p, old_size < n ? old_size : n);
    drop_block(tid, p, FreeCall::realloc);
    return q;
}

SizeT mg_usable_size(ThreadId, void* p) {
    Block* b = block_find(Table::host, reinterpret_cast<Addr>(p));
    return b ? b->size : 0;
}

} // namespace

void heap_init() {
    // No redzones: memgrow checks frees, not accesses.
    VG_(needs_malloc_replacement)
    (mg_malloc, mg_new, mg_new_aligned, mg_vec_new, mg_vec_new_aligned, mg_memalign, mg_calloc,
     mg_free, mg_delete, mg_delete_aligned, mg_vec_delete, mg_vec_delete_aligned, mg_realloc,
     mg_usable_size, 0);
}

} // namespace mg
