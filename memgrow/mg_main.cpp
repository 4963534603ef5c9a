// SPDX-License-Identifier: GPL-2.0-or-later
// memgrow: registration with Valgrind's core, start-up and shutdown.
#include "records/mg_blocks.hpp"
#include "intercept/mg_custom.hpp"
#include "intercept/mg_device.hpp"
#include "checks/mg_abits.hpp"
#include "checks/mg_access.hpp"
#include "checks/mg_errors.hpp"
#include "checks/mg_memevents.hpp"
#include "intercept/mg_exec.hpp"
#include "intercept/mg_heap.hpp"
#include "intercept/mg_host_insns.hpp"
#include "intercept/mg_reserve.hpp"
#include "intercept/mg_sdt.hpp"
#include "pages/mg_cow.hpp"
#include "pages/mg_mapped.hpp"
#include "pages/mg_resident.hpp"
#include "scan/mg_leak.hpp"
#include "output/mg_live.hpp"
#include "mg_options.hpp"
#include "classify/mg_projection.hpp"
#include "python/mg_python.hpp"
#include "python/mg_revival.hpp"
#include "python/mg_client_memory.hpp"
#include "intercept/mg_requests.hpp"
#include "records/mg_stacks.hpp"
#include "checks/mg_suppressions.hpp"
#include "records/mg_timeline.hpp"

namespace mg {

namespace {

// The translation sectors: unset until the options are read (a
// --num-transtab-sectors given replaces it), then memgrow's default.
constexpr UInt kSectorsUnset = 0;
constexpr UInt kCheckedSectors = 3;
UInt core_sectors;

void post_clo_init() {
    check_options();
    if (clo.addressability) abits_init();
    // The translation cache's sectors are sized for this average before
    // they are made (after post_clo_init). Too small an average fills a
    // sector's code long before its table: `import torch` with the checks
    // averaged 785 bytes a translation against the 172 assumed, and took 30
    // sectors whose tables were four fifths empty (about 140 MB of RSS, and
    // near the 32 sectors after which translations are thrown away). The core
    // takes at most 792.
    VG_(details_avg_translation_sizeB)(clo.addressability ? 768 : 240);
    // With the checks a sector is 33 MB of code and 6 MB of table, and a
    // big program fills many: `import torch` made 159 MB of translations
    // in 7 sectors (Valgrind keeps 32), most of them run once at import.
    // memgrow keeps 3, recycling the oldest as memcheck would after 32:
    // 100 MB less at the peak, 12% more translations, 1 to 3% more time on
    // it and none on the benchmarks, whose hot code is a fraction of one
    // sector (docs/design.md). --num-transtab-sectors still wins.
    if (VG_(clo_num_transtab_sectors) == kSectorsUnset)
        VG_(clo_num_transtab_sectors) = clo.addressability ? kCheckedSectors : core_sectors;
    // Without the checks nothing reads the guest's IP or frame pointer in
    // the middle of a superblock but the revival helper, which declares what
    // it reads; stacks are otherwise taken at client requests and system
    // calls, where the whole guest state is current. So, as massif does,
    // only SP is kept current at memory accesses (fewer guest-state writes
    // in every translation). A --px-default or --px-file-backed given stays.
    if (!clo.addressability &&
        VG_(clo_vex_control).iropt_register_updates_default == VexRegUpdUnwindregsAtMemAccess) {
        VG_(clo_vex_control).iropt_register_updates_default = VexRegUpdSpAtMemAccess;
        if (VG_(clo_px_file_backed) == VexRegUpd_INVALID)
            VG_(clo_px_file_backed) = VexRegUpdSpAtMemAccess;
    }
    heap_post_options();
    memevents_init();
    host_insns_init();
    exec_init();
    live_init();
    projection_init();
    suppressions_init();
    timeline_init();
}

// Refused instructions, a forked child's page checks, the access checks and CPython's free-list
// revivals get their own passes, in that order: the access checks must see only the client's loads
// and stores, not the tool memory the later passes read. The clock instruments only with
// --time-unit=i: each superblock adds its instruction count when it starts (superblocks left early
// by a side exit still count whole; the clock stays deterministic).
IRSB* instrument(VgCallbackClosure*, IRSB* in, const VexGuestLayout* layout,
                 const VexGuestExtents* vge, const VexArchInfo* host, IRType, IRType) {
    in = host_insns_instrument(in, host);
    // A forked child's page checks come before the passes that add stores
    // of their own; the access checks leave out the page map's loads.
    IRTemp client_tmps = in->tyenv->types_used;
    if (cow_on) in = cow_instrument(in, layout);
    if (abits_on) in = access_instrument(in, layout, client_tmps);
    in = revival_instrument(in, layout, vge);
    in = sdt_instrument(in, layout);
    if (clo.time_unit != TimeUnit::instructions) return in;
    ULong n_instrs = 0;
    for (Int i = 0; i < in->stmts_used; ++i)
        if (in->stmts[i]->tag == Ist_IMark) ++n_instrs;
    IRSB* out = deepCopyIRSBExceptStmts(in);
    Int i = 0;
    for (; i < in->stmts_used && in->stmts[i]->tag != Ist_IMark; ++i)
        addStmtToIRSB(out, in->stmts[i]);
    IRExpr* addr = IRExpr_Const(IRConst_U64(reinterpret_cast<ULong>(instruction_counter())));
    IRTemp before = newIRTemp(out->tyenv, Ity_I64);
    IRTemp after = newIRTemp(out->tyenv, Ity_I64);
    addStmtToIRSB(out, IRStmt_WrTmp(before, IRExpr_Load(Iend_LE, Ity_I64, addr)));
    addStmtToIRSB(out, IRStmt_WrTmp(after, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(before),
                                                        IRExpr_Const(IRConst_U64(n_instrs)))));
    addStmtToIRSB(out, IRStmt_Store(Iend_LE, addr, IRExpr_RdTmp(after)));
    for (; i < in->stmts_used; ++i)
        addStmtToIRSB(out, in->stmts[i]);
    return out;
}

void fini(Int /*exitcode*/) {
    if (launcher_subshell()) return;
    // A process that dies of a signal or calls _exit never reaches exit():
    // its teardown is now.
    host_insns_report_fatal();
    python_settle_warmup();
    timeline_teardown(0);
    ReportHow how;
    how.summary = how.at_exit = how.last = true;
    if (!report_now(clo.json_file, how)) report_lost_report();
    if (VG_(clo_verbosity) > 1) {
        StackCacheStats st = stack_cache_stats();
        VG_(umsg)
        ("memgrow: stack cache: %'llu hits, %'llu misses; %'llu hybrid stacks merged before; "
         "%'u sites\n",
         st.hits, st.misses, hybrid_memo_hits(), site_count());
        SiteStoreStats ss = site_store_stats();
        VG_(umsg)
        ("memgrow: site records: %'llu ended, %'llu compacted, %'llu revived, %'u compact at "
         "exit\n",
         ss.candidates, ss.compacted, ss.revived, ss.compact_now);
        python_print_stats();
        if (clo.addressability) { // the map is released by now; its size stays
            VG_(umsg)
            ("memgrow: A-bits: %'llu secondaries (%'llu KiB)\n", abits_secondaries(),
             abits_secondaries() * (kAbitsSecBytes + kAbitsSlack) / 1024);
            access_print_stats();
        }
        revival_print_stats();
        sdt_print_stats();
        reserve_print_stats();
        live_print_stats();
        heap_print_stats();
        resident_print_stats();
    }
}

// New code may be an interpreter to read frames from; mappings that go
// away or lose permissions end what the client-memory checks cached.
void on_mmap(Addr a, SizeT len, Bool rr, Bool ww, Bool executable, ULong) {
    memevents_mmap(a, len, rr, ww, executable);
    cow_unmapped(a, len);
    sdt_mapped(a, len, ww);
    if (executable) {
        python_code_mapped();
        revival_code_mapped();
    }
}
void on_munmap(Addr a, SizeT len) {
    memevents_munmap(a, len);
    cow_unmapped(a, len);
    sdt_unmapped(a, len);
    client_memory_changed();
}
void on_remap(Addr from, Addr to, SizeT len) {
    memevents_remap(from, to, len);
    cow_remapped(from, to, len);
}
void on_mprotect(Addr a, SizeT len, Bool rr, Bool ww, Bool xx) {
    memevents_mprotect(a, len, rr, ww, xx);
    client_memory_changed();
}

void on_deliver_signal(ThreadId, Int sig, Bool) {
    host_insns_signal_delivered(sig);
}

void at_fork_child(ThreadId tid) {
    forked_child = true;
    exec_at_fork();
    if (clo.fork_pages) cow_at_fork(tid);
}

// A system call's write into client memory (read(), a struct filled in).
void on_post_mem_write(CorePart, ThreadId tid, Addr a, SizeT len) {
    if (cow_on && len) cow_write_slow(tid, a, len);
}

void pre_clo_init() {
    // Inlined calls as frames of their own (memcheck's default; the core
    // gives it only to the tools it knows). --read-inline-info=no still wins.
    VG_(clo_read_inline_info) = True;
    core_sectors = VG_(clo_num_transtab_sectors);
    VG_(clo_num_transtab_sectors) = kSectorsUnset;
    VG_(details_name)("memgrow");
    VG_(details_version)(PACKAGE_VERSION);
    VG_(details_description)("a heap growth profiler");
    VG_(details_copyright_author)("Copyright (C) the memgrow developers.");
    VG_(details_bug_reports_to)("https://github.com/memgrow/memgrow/issues");
    VG_(basic_tool_funcs)(post_clo_init, instrument, fini);
    VG_(needs_command_line_options)(process_option, print_usage, print_debug_usage);
    VG_(needs_client_requests)(handle_client_request);
    VG_(track_new_mem_mmap)(on_mmap);
    VG_(track_die_mem_munmap)(on_munmap);
    VG_(track_copy_mem_remap)(on_remap);
    VG_(track_change_mem_mprotect)(on_mprotect);
    VG_(track_die_mem_brk)(on_munmap);
    VG_(track_pre_deliver_signal)(on_deliver_signal);
    VG_(track_post_mem_write)(on_post_mem_write);
    heap_init();
    exec_pre_init();
    live_pre_init();
    errors_init();
    blocks_init();
    device_init();
    mapped_init();
    custom_init();
    leak_init();
    // Let glibc and libstdc++ free their own allocations at exit, as under
    // memcheck, so the leak scan's counts compare with memcheck's.
    VG_(needs_libc_freeres)();
    VG_(needs_cxx_freeres)();
    VG_(atfork)(nullptr, nullptr, at_fork_child);
}

} // namespace

} // namespace mg

VG_DETERMINE_INTERFACE_VERSION(mg::pre_clo_init)
