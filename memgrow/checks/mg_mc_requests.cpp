// SPDX-License-Identifier: GPL-2.0-or-later
#include "checks/mg_mc_requests.hpp"
#include "checks/mg_abits.hpp"
#include "checks/mg_access.hpp"
#include "checks/mg_errors.hpp"
#include "intercept/mg_requests.hpp"
#include "mg_options.hpp"
#include "python/mg_client_memory.hpp"
#include "scan/mg_undefined.hpp"
#include "memcheck.h"

namespace mg {

namespace {

// VALGRIND_DO_LEAK_CHECK and its variants: mode 0 full, 1 summary;
// deltamode 0 any, 1 increased, 2 changed, 3 new (memcheck's codes and
// warnings; 3, DO_NEW_LEAK_CHECK, from Valgrind 3.21, as that release's
// memcheck: before, it is unknown).
void do_leak_check(UWord mode, UWord deltamode) {
    if (mode > 1) VG_(umsg)("Warning: unknown memcheck leak search mode\n");
    const LeakDelta deltas[] = {LeakDelta::any, LeakDelta::increased, LeakDelta::changed,
                                LeakDelta::fresh};
    const UWord known = vgc::kNewLeakSearch321 ? 3 : 2;
    if (deltamode > known) VG_(umsg)("Warning: unknown memcheck leak search deltamode\n");
    leak_check_now(deltamode > known ? LeakDelta::any : deltas[deltamode], mode != 1,
                   clo.show_leak_kinds);
}

// COUNT_LEAKS / COUNT_LEAK_BLOCKS: the last scan's leaked (definite and
// indirect), dubious, reachable and suppressed, into the client's four
// variables.
void write_counts(const UWord* args, const ULong* counts) {
    const ULong values[4] = {counts[kDefinite] + counts[kIndirect], counts[kPossible],
                             counts[kReachable], counts[kLeakKinds]};
    for (UInt i = 0; i < 4; ++i)
        if (VG_(am_is_valid_for_client)(args[i + 1], sizeof(UWord), VKI_PROT_WRITE))
            *reinterpret_cast<UWord*>(args[i + 1]) = values[i];
}

// VALGRIND_CREATE_BLOCK's blocks: a name for a range, used to describe an
// address in it. The handle is the index, as memcheck's; a discarded slot
// is reused.
struct ClientBlock {
    Addr start;
    SizeT size; // 0 with start 0: a free slot
    const HChar* desc;
    ExeContext* where;
};
ClientBlock* client_blocks;
UWord n_client_blocks, cap_client_blocks;

// The client's description, copied as far as it is readable (a garbage
// pointer gives an empty name, never a crash). Kept for the whole run,
// each distinct name once: errors name it in the report written at exit,
// after the block may have been discarded.
const HChar* copy_desc(Addr s) {
    constexpr SizeT kMax = 256;
    HChar buf[kMax];
    SizeT n = 0;
    for (HChar c; n + 1 < kMax && read_client(s + n, &c) && c; ++n)
        buf[n] = c;
    buf[n] = 0;
    static XArray* names; // of const HChar*
    if (!names) names = VG_(newXA)(VG_(malloc), "mg.mc.cgb.names", VG_(free), sizeof(HChar*));
    for (Word i = 0; i < VG_(sizeXA)(names); ++i) {
        auto* name = *static_cast<const HChar**>(VG_(indexXA)(names, i));
        if (VG_(strcmp)(name, buf) == 0) return name;
    }
    const HChar* copy = VG_(strdup)("mg.mc.cgb.desc", buf);
    VG_(addToXA)(names, &copy);
    return copy;
}

UWord create_block(ThreadId tid, Addr a, SizeT len, Addr desc) {
    UWord i = 0;
    while (i < n_client_blocks && (client_blocks[i].start || client_blocks[i].size))
        ++i;
    if (i == n_client_blocks) {
        if (n_client_blocks == cap_client_blocks) {
            cap_client_blocks = cap_client_blocks ? 2 * cap_client_blocks : 16;
            client_blocks = static_cast<ClientBlock*>(
                VG_(realloc)("mg.mc.cgb", client_blocks, cap_client_blocks * sizeof(ClientBlock)));
        }
        ++n_client_blocks;
    }
    client_blocks[i] = ClientBlock{a, len, copy_desc(desc), VG_(record_ExeContext)(tid, 0)};
    return i;
}

} // namespace

bool client_block_describe(Addr a, AddrInfo* ai) {
    for (UWord i = 0; i < n_client_blocks; ++i) {
        const ClientBlock& b = client_blocks[i];
        if ((b.start || b.size) && a >= b.start && a - b.start < b.size) {
            ai->tag = Addr_Block;
            ai->Addr.Block.block_kind = Block_UserG;
            ai->Addr.Block.block_desc = b.desc;
            ai->Addr.Block.block_szB = b.size;
            ai->Addr.Block.rwoffset = static_cast<PtrdiffT>(a - b.start);
            ai->Addr.Block.allocated_at = b.where;
            VG_(initThreadInfo)(&ai->Addr.Block.alloc_tinfo);
            ai->Addr.Block.freed_at = VG_(null_ExeContext)();
            return true;
        }
    }
    return false;
}

bool mc_client_request(ThreadId tid, UWord* args, UWord* ret) {
    Addr a = args[1];
    SizeT len = args[2];
    switch (args[0]) {
    // Without definedness bits, undefined and defined are both addressable;
    // the leak scan takes no pointer from memory marked undefined or
    // inaccessible, as memcheck's (scan/mg_undefined.hpp).
    case VG_USERREQ__MAKE_MEM_NOACCESS:
    case VG_USERREQ__MAKE_MEM_UNDEFINED:
        request_make(a, len, args[0] == VG_USERREQ__MAKE_MEM_UNDEFINED);
        if (clo.leak_check != LeakCheck::no) undefined_mark(a, len);
        *ret = static_cast<UWord>(-1); // memcheck's answer
        return true;
    case VG_USERREQ__MAKE_MEM_DEFINED:
        request_make(a, len, true);
        undefined_forget(a, len);
        *ret = static_cast<UWord>(-1);
        return true;
    case VG_USERREQ__MAKE_MEM_DEFINED_IF_ADDRESSABLE:
        undefined_forget(a, len);
        *ret = static_cast<UWord>(-1);
        return true;
    case VG_USERREQ__CHECK_MEM_IS_ADDRESSABLE:
    case VG_USERREQ__CHECK_MEM_IS_DEFINED: {
        // 0 when all is addressable, else the first bad address (and an
        // error, memcheck's "client check request" one).
        Addr bad;
        *ret = 0;
        if (abits_first_bad(a, len, &bad)) {
            report_user_check_error(tid, bad);
            *ret = bad;
        }
        return true;
    }
    case VG_USERREQ__CREATE_BLOCK:
        *ret = create_block(tid, a, len, args[3]);
        return true;
    case VG_USERREQ__DISCARD: {
        // memcheck's answer: 0, or 1 for a handle that names no block
        UWord i = args[2];
        if (i >= n_client_blocks || !(client_blocks[i].start || client_blocks[i].size)) {
            *ret = 1;
            return true;
        }
        client_blocks[i] = ClientBlock{0, 0, nullptr, nullptr};
        *ret = 0;
        return true;
    }
    case VG_USERREQ__DO_LEAK_CHECK:
        do_leak_check(args[1], args[2]);
        *ret = 0;
        return true;
    case VG_USERREQ__COUNT_LEAKS:
        write_counts(args, last_leak_counts().bytes);
        *ret = 0;
        return true;
    case VG_USERREQ__COUNT_LEAK_BLOCKS:
        write_counts(args, last_leak_counts().blocks);
        *ret = 0;
        return true;
    default:
        return false;
    }
}

} // namespace mg
