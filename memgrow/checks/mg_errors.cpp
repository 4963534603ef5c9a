// SPDX-License-Identifier: GPL-2.0-or-later
#include "checks/mg_errors.hpp"
#include "intercept/mg_client_slabs.hpp"
#include "intercept/mg_heap_guard.hpp"
#include "checks/mg_mc_requests.hpp"
#include "mg_options.hpp"
#include "include/memgrow.h"
#include "output/mg_report.hpp"
#include "python/mg_pysites.hpp"
#include "records/mg_stack_tree.hpp"

namespace mg {

namespace {

const HChar* const kKindNames[kErrorKinds] = {"InvalidFree",
                                              "DoubleFree",
                                              "MismatchedFree",
                                              "Leaked",
                                              "Growing",
                                              "Plateau",
                                              "DeviceInvalidFree",
                                              "DeviceDoubleFree",
                                              "DeviceMismatchedFree",
                                              "DeviceOverrun",
                                              "DeviceUseAfterFree",
                                              "ReallocZero",
                                              "BadAlign",
                                              "UnsafeZeroSize",
                                              "SizeMismatch",
                                              "AlignMismatch",
                                              "Addr1",
                                              "Addr2",
                                              "Addr4",
                                              "Addr8",
                                              "Addr16",
                                              "Addr32",
                                              "Addr",
                                              "Param",
                                              "User",
                                              "InvalidMemPool",
                                              "DeviceUnmapped",
                                              "ReportNotWritten"};

bool is_class_kind(UInt k) {
    return k >= kLeaked && k <= kPlateau;
}

// The family of the calling API, as the messages name it.
const HChar* api_name(UInt api) {
    switch (api) {
    case MEMGROW_API_DRIVER:
        return "cuMemFree/cuMemAlloc (driver API)";
    case MEMGROW_API_RUNTIME:
        return "cudaFree/cudaMalloc (runtime API)";
    case MEMGROW_API_HOST:
        return "cudaFreeHost/cuMemFreeHost (pinned host memory)";
    case MEMGROW_API_ASYNC:
        return "cudaFreeAsync/cuMemFreeAsync (stream-ordered)";
    case MEMGROW_API_VMM:
        return "cuMemRelease (virtual memory)";
    default:
        return "an unspecified API";
    }
}

const HChar* access_name(UInt access) {
    return access == MEMGROW_ACCESS_READ ? "read" : "write";
}

// What a device access error's span is: an allocation, or a reservation.
const HChar* span_name(const ErrorExtra* e) {
    return e->what ? e->what : "block";
}

const HChar* call_name(FreeCall c) {
    switch (c) {
    case FreeCall::realloc:
        return "realloc()";
    case FreeCall::delete_scalar:
        return "delete";
    case FreeCall::delete_array:
        return "delete[]";
    case FreeCall::custom:
        return "VALGRIND_FREELIKE_BLOCK";
    default:
        return "free()";
    }
}

// The report keeps each distinct (kind, stack) once with a count; bounded so
// a program that errs in a loop cannot grow the tool.
constexpr UInt kMaxRecords = 1000;
ErrorRecord* records;
UInt n_records;

void remember(ThreadId tid, UInt kind, Addr addr, const ErrorExtra& extra) {
    ExeContext* where = VG_(record_ExeContext)(tid, 0);
    for (UInt i = 0; i < n_records; ++i) {
        if (records[i].kind == kind && records[i].where == where) {
            records[i].count++;
            return;
        }
    }
    if (n_records == kMaxRecords) return;
    records[n_records++] = ErrorRecord{kind, addr, 1, where, extra};
}

void record(ThreadId tid, UInt kind, Addr addr, ErrorExtra extra) {
    remember(tid, kind, addr, extra);
    VG_(maybe_record_error)(tid, kind, addr, nullptr, &extra);
}

void pp_stack(const HChar* title, ExeContext* ec) {
    if (!ec) return;
    VG_(umsg)(" %s\n", title);
    VG_(pp_ExeContext)(ec);
}

// The host block an error is about, as memcheck describes it.
void pp_block(Addr a, const ErrorExtra* e) {
    VG_(umsg)(" Address %#lx is 0 bytes inside a block of size %lu alloc'd\n", a, e->size);
    if (e->alloc_at) VG_(pp_ExeContext)(e->alloc_at);
}

// An address error's stack: with its Python frames when it has them.
void pp_hybrid(ExeContext* where, const ErrorExtra* e) {
    if (!e->n_words) {
        VG_(pp_ExeContext)(where);
        return;
    }
    bool first = true;
    for_each_frame(e->words, e->n_words, VG_(current_DiEpoch)(), print_frame, &first);
}

// Memcheck's description of the address (m_addrinfo.c's words); a heap
// block's allocation stack is its site's, with Python frames.
void pp_address(Addr a, const ErrorExtra* e) {
    if (e->ai.tag != Addr_Block || e->block_site == kNoSite) {
        VG_(pp_addrinfo_mc)(a, &e->ai, False);
        return;
    }
    HChar text[256];
    describe_text(a, e->ai, text, sizeof text);
    VG_(umsg)(" %s\n", text);
    if (e->ai.Addr.Block.block_kind == Block_Freed) {
        VG_(pp_ExeContext)(e->ai.Addr.Block.freed_at);
        VG_(umsg)(" Block was alloc'd at\n");
    }
    bool first = true;
    for_each_frame(SiteView(e->block_site), print_frame, &first);
}

// --- callbacks of Valgrind's error manager ---

Bool eq_error(VgRes res, const Error* a, const Error* b) {
    auto* ea = static_cast<ErrorExtra*>(VG_(get_error_extra)(a));
    auto* eb = static_cast<ErrorExtra*>(VG_(get_error_extra)(b));
    // Memcheck's rule: the same kind, size and direction at the same stack
    // is one error, whatever the address.
    if (is_address_kind(VG_(get_error_kind)(a)))
        return ea->write == eb->write && ea->access_size == eb->access_size &&
               (ea->what == eb->what || (ea->what && eb->what && VG_STREQ(ea->what, eb->what)));
    return ea->call == eb->call && VG_(get_error_address)(a) == VG_(get_error_address)(b) &&
           (ea->alloc_at == eb->alloc_at ||
            (ea->alloc_at && eb->alloc_at && VG_(eq_ExeContext)(res, ea->alloc_at, eb->alloc_at)));
}

void before_pp_error(const Error*) {}

void pp_error(const Error* err) {
    auto* e = static_cast<ErrorExtra*>(VG_(get_error_extra)(err));
    Addr a = VG_(get_error_address)(err);
    if (e->record < n_records) records[e->record].shown = true;
    UInt kind = VG_(get_error_kind)(err);
    HChar head[256];
    error_headline(kind, a, *e, head, sizeof head);
    VG_(umsg)("%s\n", head);
    switch (kind) {
    case kInvalidFree:
        pp_hybrid(VG_(get_error_where)(err), e);
        pp_address(a, e);
        break;
    case kDoubleFree:
        VG_(pp_ExeContext)(VG_(get_error_where)(err));
        VG_(umsg)(" Address %#lx is the start of a block of size %lu", a, e->size);
        pp_stack("free'd", e->freed_at);
        if (!e->freed_at) VG_(umsg)("\n");
        pp_stack("Block was alloc'd at", e->alloc_at);
        break;
    case kMismatchedFree:
        VG_(pp_ExeContext)(VG_(get_error_where)(err));
        VG_(umsg)(" Address %#lx is the start of a block of size %lu", a, e->size);
        pp_stack("alloc'd", e->alloc_at);
        break;
    case kDeviceInvalidFree:
        VG_(pp_ExeContext)(VG_(get_error_where)(err));
        VG_(umsg)(" Address %#lx is not the start of a live device-side block\n", a);
        break;
    case kDeviceDoubleFree:
        VG_(pp_ExeContext)(VG_(get_error_where)(err));
        VG_(umsg)
        (" Address %#lx is the start of a %s block of size %lu", a, space_name(e->space), e->size);
        pp_stack("free'd", e->freed_at);
        pp_stack("Block was alloc'd at", e->alloc_at);
        break;
    case kDeviceMismatchedFree:
        VG_(pp_ExeContext)(VG_(get_error_where)(err));
        VG_(umsg)
        (" Address %#lx is the start of a %s block of size %lu", a, space_name(e->space), e->size);
        pp_stack("alloc'd", e->alloc_at);
        break;
    case kDeviceOverrun:
        VG_(pp_ExeContext)(VG_(get_error_where)(err));
        VG_(umsg)
        (" runs %lu bytes past the end of a %s %s of size %lu at %#lx",
         a + e->access_size - (e->block_addr + e->size), space_name(e->space), span_name(e),
         e->size, e->block_addr);
        pp_stack(e->what ? "reserved" : "alloc'd", e->alloc_at);
        if (!e->alloc_at) VG_(umsg)("\n");
        break;
    case kDeviceUnmapped:
        VG_(pp_ExeContext)(VG_(get_error_where)(err));
        VG_(umsg)
        (" Address %#lx is %lu bytes inside a %s reservation of size %lu at %#lx, %s\n", e->passed,
         e->passed - e->block_addr, space_name(e->space), e->size, e->block_addr, e->what);
        pp_stack("Its last mapping there was unmapped", e->freed_at);
        pp_stack("Reserved at", e->alloc_at);
        break;
    case kReallocZero:
    case kSizeMismatch:
    case kAlignMismatch:
        VG_(pp_ExeContext)(VG_(get_error_where)(err));
        pp_block(a, e);
        break;
    case kBadAlign:
    case kUnsafeZeroSize:
        VG_(pp_ExeContext)(VG_(get_error_where)(err));
        break;
    case kAddr1:
    case kAddr2:
    case kAddr4:
    case kAddr8:
    case kAddr16:
    case kAddr32:
    case kAddrOther:
    case kParam:
    case kInvalidMemPool:
    case kUser:
        pp_hybrid(VG_(get_error_where)(err), e);
        pp_address(a, e);
        break;
    case kDeviceUseAfterFree:
        VG_(pp_ExeContext)(VG_(get_error_where)(err));
        VG_(umsg)
        (" Address %#lx is %lu bytes inside a %s %s of size %lu", a, a - e->block_addr,
         space_name(e->space), span_name(e), e->size);
        pp_stack("free'd", e->freed_at);
        pp_stack(e->what ? "Reserved at" : "Block was alloc'd at", e->alloc_at);
        break;
    }
}

UInt update_extra(const Error*) {
    return sizeof(ErrorExtra);
}

Bool recognised_suppression(const HChar* name, Supp* su) {
    for (UInt k = 0; k < kReportNotWritten; ++k) {
        if (VG_STREQ(name, kKindNames[k])) {
            VG_(set_supp_kind)(su, static_cast<SuppKind>(k));
            return True;
        }
    }
    return False;
}

// memgrow:Param has memcheck's second line: the argument ("read(buf)").
Bool read_extra_suppression_info(Int fd, HChar** buf, SizeT* n, Int* lineno, Supp* su) {
    if (VG_(get_supp_kind)(su) != static_cast<SuppKind>(kParam)) return True;
    if (VG_(get_line)(fd, buf, n, lineno)) return False;
    VG_(set_supp_string)(su, VG_(strdup)("mg.supp.param", *buf));
    return True;
}

// Class suppressions are matched by memgrow (mg_suppressions.cpp), on
// stacks with Python frames the core does not see.
Bool error_matches_suppression(const Error* err, const Supp* su) {
    UInt kind = static_cast<UInt>(VG_(get_error_kind)(err));
    if (is_class_kind(kind) || static_cast<UInt>(VG_(get_supp_kind)(su)) != kind) return False;
    if (kind != kParam) return True;
    auto* e = static_cast<ErrorExtra*>(VG_(get_error_extra)(err));
    return e->what && VG_STREQ(e->what, VG_(get_supp_string)(su));
}

const HChar* get_error_name(const Error* err) {
    return error_kind_name(VG_(get_error_kind)(err));
}

SizeT get_extra_suppression_info(const Error* err, HChar* buf, Int n) {
    if (n <= 0) return 0;
    buf[0] = 0;
    if (VG_(get_error_kind)(err) != static_cast<ErrorKind>(kParam)) return 0;
    auto* e = static_cast<ErrorExtra*>(VG_(get_error_extra)(err));
    VG_(snprintf)(buf, n, "%s", e->what ? e->what : "");
    return VG_(strlen)(buf);
}

SizeT print_extra_suppression_use(const Supp*, HChar* buf, Int n) {
    if (n > 0) buf[0] = 0;
    return 0;
}

void update_extra_suppression_use(const Error*, const Supp*) {}

} // namespace

const HChar* error_kind_name(UInt kind) {
    return kind < kErrorKinds ? kKindNames[kind] : nullptr;
}

void errors_init() {
    VG_(needs_tool_errors)
    (eq_error, before_pp_error, pp_error, True /*show ThreadIDs*/, update_extra,
     recognised_suppression, read_extra_suppression_info, error_matches_suppression, get_error_name,
     get_extra_suppression_info, print_extra_suppression_use, update_extra_suppression_use);
    records =
        static_cast<ErrorRecord*>(VG_(malloc)("mg.errors", kMaxRecords * sizeof(ErrorRecord)));
}

ExeContext* free_stack_exe_context(UInt stack) {
    Addr ips[kMaxFreeStackFrames];
    UInt n = free_stack_read(stack, ips, kMaxFreeStackFrames);
    return n ? VG_(make_ExeContext_from_StackTrace)(ips, n) : nullptr;
}

ExeContext* site_exe_context(const Site* s) {
    // Only native words make an ExeContext; Python tokens are skipped. The
    // core takes at most --num-callers of them.
    StackWord words[kMaxSiteFrames];
    Addr ips[kMaxSiteFrames];
    UInt n = 0, max = static_cast<UInt>(VG_(clo_backtrace_size));
    UInt n_words = site_frames(s, words);
    for (UInt i = 0; i < n_words && n < max; ++i)
        if (!(words[i] & kPythonFrameTag)) ips[n++] = words[i];
    return n ? VG_(make_ExeContext_from_StackTrace)(ips, n) : nullptr;
}

void report_class_errors(const Analysis& a) {
    for (UInt id = 0; id < a.n_sites; ++id) {
        // A site with Python frames counts once, as its Python site is
        // classed: the finding the log, the JSON and memgrow-report show.
        UInt ps = a.py ? a.py->of_site[id] : kNoPySite;
        if (ps != kNoPySite && a.py->sites[ps]->first != id) continue;
        SiteClass c = ps != kNoPySite ? a.py->sites[ps]->cls : a.growth[id].cls;
        if (!(clo.errors_for & (1u << static_cast<UInt>(c)))) continue;
        if (ps != kNoPySite ? a.py->sites[ps]->suppressed : a.class_suppressed_by(id) != nullptr)
            continue;
        UInt kind = c == SiteClass::leaked    ? kLeaked
                    : c == SiteClass::growing ? kGrowing
                    : c == SiteClass::plateau ? kPlateau
                                              : kErrorKinds;
        if (kind == kErrorKinds) continue;
        ExeContext* where = site_exe_context(SiteView(id));
        ErrorExtra extra{FreeCall::free, AllocKind::malloc, 0, nullptr, nullptr};
        VG_(unique_error)
        (VG_(get_running_tid)(), kind, 0, nullptr, &extra, where ? where : VG_(null_ExeContext)(),
         False /*print*/, False /*allow_db_attach*/, True /*count*/);
    }
}

void report_lost_report() {
    if (!clo.lost_report_exitcode) return;
    // The core exits with --error-exitcode when errors were counted: one
    // counted error, and that code unless the user gave one.
    if (VG_(clo_error_exitcode) == 0) VG_(clo_error_exitcode) = clo.lost_report_exitcode;
    ErrorExtra extra{FreeCall::free, AllocKind::malloc, 0, nullptr, nullptr};
    VG_(unique_error)
    (VG_(get_running_tid)(), kReportNotWritten, 0, nullptr, &extra, VG_(null_ExeContext)(),
     False /*print*/, False /*allow_db_attach*/, True /*count*/);
}

void report_double_free(ThreadId tid, Addr addr, FreeCall call, const FreedBlock& f) {
    record(tid, kDoubleFree, addr,
           ErrorExtra{call, f.kind, f.size, site_exe_context(f.site),
                      free_stack_exe_context(f.freed_at)});
}

void report_mismatched_free(ThreadId tid, Addr addr, FreeCall call, const Block& b) {
    record(tid, kMismatchedFree, addr,
           ErrorExtra{call, b.kind, b.size, site_exe_context(b.site), nullptr});
}

// The name of the function called: memcheck names the replacement at the top
// of the stack (realloc, reallocarray).
void report_realloc_size_zero(ThreadId tid, Addr addr) {
    ErrorExtra e{FreeCall::realloc, AllocKind::malloc, 0, nullptr, nullptr};
    if (const Block* b = block_find(Table::host, addr)) {
        e.size = b->size;
        e.alloc_at = site_exe_context(b->site);
    }
    const HChar* name = nullptr;
    Addr ip = VG_(get_IP)(tid);
    e.what = VG_(get_fnname)(VG_(current_DiEpoch)(), ip, &name) ? name : "realloc";
    record(tid, kReallocZero, addr, e);
}

void report_bad_align(ThreadId tid, SizeT align, SizeT size, const HChar* why) {
    ErrorExtra e{FreeCall::free, AllocKind::malloc, size, nullptr, nullptr};
    e.passed = align;
    e.what = why;
    record(tid, kBadAlign, 0, e);
}

void report_unsafe_zero_size(ThreadId tid, const HChar* function) {
    ErrorExtra e{FreeCall::free, AllocKind::malloc, 0, nullptr, nullptr};
    e.what = function;
    record(tid, kUnsafeZeroSize, 0, e);
}

void report_size_mismatch(ThreadId tid, const Block& b, SizeT size, const HChar* functions) {
    ErrorExtra e{FreeCall::free, b.kind, b.size, site_exe_context(b.site), nullptr};
    e.passed = size;
    e.what = functions;
    record(tid, kSizeMismatch, b.addr, e);
}

void report_align_mismatch(ThreadId tid, const Block& b, SizeT align, bool default_aligned,
                           const HChar* functions) {
    ErrorExtra e{FreeCall::free, b.kind, b.size, site_exe_context(b.site), nullptr};
    e.passed = align;
    e.what = functions;
    e.default_aligned = default_aligned;
    e.block_align = block_align(b);
    record(tid, kAlignMismatch, b.addr, e);
}

void report_device_invalid_free(ThreadId tid, Addr addr, UInt api) {
    ErrorExtra e{FreeCall::free, AllocKind::device, 0, nullptr, nullptr};
    e.api = static_cast<UChar>(api);
    record(tid, kDeviceInvalidFree, addr, e);
}

void report_device_double_free(ThreadId tid, Addr addr, UInt api, const DeviceFreed& f) {
    ErrorExtra e{FreeCall::free, AllocKind::device, f.size, site_exe_context(f.site), f.freed_at};
    e.api = static_cast<UChar>(api);
    e.space = f.site->space;
    record(tid, kDeviceDoubleFree, addr, e);
}

void report_device_mismatched_free(ThreadId tid, Addr addr, UInt api, const Block& b) {
    ErrorExtra e{FreeCall::free, AllocKind::device, b.size, site_exe_context(b.site), nullptr};
    e.api = static_cast<UChar>(api);
    e.space = b.site->space;
    record(tid, kDeviceMismatchedFree, addr, e);
}

namespace {

ErrorExtra device_access_extra(SizeT n, UInt access, UInt api, const DeviceSpan& span) {
    ErrorExtra e{FreeCall::free, AllocKind::device, span.size, span.alloc_at, span.freed_at};
    e.api = static_cast<UChar>(api);
    e.access = static_cast<UChar>(access);
    e.space = span.space;
    e.access_size = n;
    e.block_addr = span.start;
    e.what = span.what;
    return e;
}

} // namespace

void report_device_overrun(ThreadId tid, Addr addr, SizeT n, UInt access, UInt api,
                           const DeviceSpan& span) {
    ErrorExtra e = device_access_extra(n, access, api, span);
    e.freed_at = nullptr;
    record(tid, kDeviceOverrun, addr, e);
}

void report_device_use_after_free(ThreadId tid, Addr addr, SizeT n, UInt access, UInt api,
                                  const DeviceSpan& span) {
    record(tid, kDeviceUseAfterFree, addr, device_access_extra(n, access, api, span));
}

void report_device_unmapped(ThreadId tid, Addr addr, SizeT n, UInt access, UInt api,
                            const DeviceSpan& span, Addr bad, bool mapped) {
    ErrorExtra e = device_access_extra(n, access, api, span);
    e.what = mapped ? "mapped without access (cuMemSetAccess)" : "reserved but not mapped";
    e.passed = bad;
    record(tid, kDeviceUnmapped, addr, e);
}

bool is_address_kind(UInt kind) {
    return kind >= kAddr1 && kind <= kUser;
}

// An address error's description: found and kept once per distinct error
// (a search of the live blocks costs their number).
void describe_address(Addr a, AddrInfo* ai);

namespace {

// Memcheck's redzone for descriptions: --redzone-size if given, else 16.
SizeT describe_redzone() {
    return VG_(clo_redzone_size) >= 0 ? static_cast<SizeT>(VG_(clo_redzone_size)) : 16;
}

UInt described_site = kNoSite; // the block describe_address found, if any

void block_info(AddrInfo* ai, BlockKind kind, Addr a, Addr start, SizeT size, const Site* site,
                ExeContext* freed_at) {
    described_site = site ? site->id : kNoSite;
    ai->tag = Addr_Block;
    ai->Addr.Block.block_kind = kind;
    ai->Addr.Block.block_desc = "block";
    ai->Addr.Block.block_szB = size;
    ai->Addr.Block.rwoffset = static_cast<PtrdiffT>(a - start);
    ExeContext* alloc = site ? site_exe_context(site) : nullptr;
    ai->Addr.Block.allocated_at = alloc ? alloc : VG_(null_ExeContext)();
    VG_(initThreadInfo)(&ai->Addr.Block.alloc_tinfo);
    ai->Addr.Block.freed_at = freed_at ? freed_at : VG_(null_ExeContext)();
}

UInt access_kind(SizeT n) {
    switch (n) {
    case 1:
        return kAddr1;
    case 2:
        return kAddr2;
    case 4:
        return kAddr4;
    case 8:
        return kAddr8;
    case 16:
        return kAddr16;
    case 32:
        return kAddr32;
    default:
        return kAddrOther;
    }
}

// Keeps and reports an address error, described once per distinct record.
void record_address(ThreadId tid, UInt kind, Addr addr, ErrorExtra& extra) {
    ExeContext* where = VG_(record_ExeContext)(tid, 0);
    ErrorRecord* r = nullptr;
    for (UInt i = 0; i < n_records; ++i)
        if (records[i].kind == kind && records[i].where == where &&
            records[i].extra.write == extra.write &&
            records[i].extra.access_size == extra.access_size) {
            r = &records[i];
            extra.record = i;
        }
    if (r) {
        r->count++;
        extra.ai = r->extra.ai;
        // The description of the first address, with the address it
        // describes: the error manager shows one occurrence.
        addr = r->addr;
        extra.words = r->extra.words;
        extra.n_words = r->extra.n_words;
        extra.block_site = r->extra.block_site;
    } else {
        StackWord w[256];
        UInt n = current_hybrid_stack(tid, w, 256);
        if (n) {
            auto* copy =
                static_cast<StackWord*>(VG_(malloc)("mg.errors.stack", n * sizeof(StackWord)));
            VG_(memcpy)(copy, w, n * sizeof(StackWord));
            extra.words = copy;
            extra.n_words = n;
        }
        described_site = kNoSite;
        describe_address(addr, &extra.ai);
        extra.block_site = described_site;
        if (extra.ai.tag == Addr_Block) {
            extra.size = extra.ai.Addr.Block.block_szB;
            extra.alloc_at = extra.ai.Addr.Block.allocated_at;
            extra.freed_at = extra.ai.Addr.Block.block_kind == Block_Freed
                                 ? extra.ai.Addr.Block.freed_at
                                 : nullptr;
        }
        if (n_records < kMaxRecords) {
            extra.record = n_records;
            records[n_records++] = ErrorRecord{kind, addr, 1, where, extra};
        }
    }
    VG_(maybe_record_error)(tid, static_cast<ErrorKind>(kind), addr, nullptr, &extra);
}

} // namespace

// Memcheck's order: a block the client named (CREATE_BLOCK), a mempool
// chunk, a live block (with its redzones; a
// "recently re-allocated" one when a freed block holds a too), a block in
// the quarantine, else what the core knows (stacks, globals, mappings).
void describe_address(Addr a, AddrInfo* ai) {
    heap_guard_restore(); // the core walks the client arena
    SizeT rz = describe_redzone();
    if (client_block_describe(a, ai)) return;
    if (const Block* b = block_bracketing(Table::pool, a, rz)) {
        block_info(ai, Block_MempoolChunk, a, b->addr, b->size, b->site, nullptr);
        return;
    }
    const FreedBlock* f = quarantine_find_bracketing(a, rz);
    if (const Block* b = block_bracketing(Table::host, a, rz)) {
        block_info(ai, Block_Mallocd, a, b->addr, b->size, b->site, nullptr);
        if (f) ai->Addr.Block.block_desc = "recently re-allocated block";
        return;
    }
    if (f) {
        block_info(ai, Block_Freed, a, f->addr, f->size, f->site,
                   free_stack_exe_context(f->freed_at));
        return;
    }
    if (slab_describe(a, ai)) return;
    VG_(describe_addr)(VG_(current_DiEpoch)(), a, ai);
}

void pp_describe_address(Addr a) {
    ErrorExtra e{FreeCall::free, AllocKind::malloc, 0, nullptr, nullptr};
    described_site = kNoSite;
    describe_address(a, &e.ai);
    e.block_site = described_site;
    pp_address(a, &e);
}

void report_access_error(ThreadId tid, Addr a, SizeT n, bool write) {
    ErrorExtra e{FreeCall::free, AllocKind::malloc, 0, nullptr, nullptr};
    e.write = write;
    e.access_size = n;
    record_address(tid, access_kind(n), a, e);
}

void report_param_error(ThreadId tid, CorePart, const HChar* what, Addr bad, bool write) {
    ErrorExtra e{FreeCall::free, AllocKind::malloc, 0, nullptr, nullptr};
    e.write = write;
    e.what = what;
    record_address(tid, kParam, bad, e);
}

void report_invalid_free(ThreadId tid, Addr addr, FreeCall call) {
    ErrorExtra e{call, AllocKind::malloc, 0, nullptr, nullptr};
    // Memcheck's description of the address: inside a live block, on a
    // stack, a global, or nothing it knows.
    record_address(tid, kInvalidFree, addr, e);
}

void report_illegal_mempool(ThreadId tid, Addr pool) {
    ErrorExtra e{FreeCall::custom, AllocKind::pool, 0, nullptr, nullptr};
    record_address(tid, kInvalidMemPool, pool, e);
}

void report_user_check_error(ThreadId tid, Addr bad) {
    ErrorExtra e{FreeCall::free, AllocKind::malloc, 0, nullptr, nullptr};
    record_address(tid, kUser, bad, e);
}

void error_headline(UInt kind, Addr a, const ErrorExtra& e, HChar* buf, SizeT n) {
    switch (kind) {
    case kInvalidFree: // memcheck's words for every call
        VG_(snprintf)(buf, n, "Invalid free() / delete / delete[] / realloc()");
        break;
    case kDoubleFree:
        VG_(snprintf)(buf, n, "Double free: %s of a block already freed", call_name(e.call));
        break;
    case kMismatchedFree:
        VG_(snprintf)
        (buf, n, "Mismatched free() / delete / delete []: %s of a block from %s", call_name(e.call),
         alloc_kind_name(e.alloc_kind));
        break;
    case kDeviceInvalidFree:
        VG_(snprintf)(buf, n, "Invalid device free: %s", api_name(e.api));
        break;
    case kDeviceDoubleFree:
        VG_(snprintf)(buf, n, "Double device free: %s of a block already freed", api_name(e.api));
        break;
    case kDeviceMismatchedFree:
        VG_(snprintf)
        (buf, n, "Mismatched device free: %s of %s memory", api_name(e.api), space_name(e.space));
        break;
    case kDeviceOverrun:
        VG_(snprintf)
        (buf, n, "Device range overrun: %s of %lu bytes at %#lx", access_name(e.access),
         e.access_size, a);
        break;
    case kDeviceUseAfterFree:
        VG_(snprintf)
        (buf, n, "Device use after free: %s of %lu bytes at %#lx", access_name(e.access),
         e.access_size, a);
        break;
    case kDeviceUnmapped:
        VG_(snprintf)
        (buf, n, "Device memory %s: %s of %lu bytes at %#lx", e.what, access_name(e.access),
         e.access_size, a);
        break;
    case kReallocZero:
        VG_(snprintf)(buf, n, "%s() with size 0", e.what);
        break;
    case kBadAlign:
        if (e.size) VG_(snprintf)
        (buf, n, "Invalid size value: %lu alignment value: %lu%s", e.size, e.passed, e.what);
        else VG_(snprintf)(buf, n, "Invalid alignment value: %lu%s", e.passed, e.what);
        break;
    case kUnsafeZeroSize:
        if (vgc::kZeroSize326)
            VG_(snprintf)(buf, n, "Unsafe allocation with size of zero is implementation-defined");
        else
            VG_(snprintf)(buf, n, "%s invalid size value: 0", e.what);
        break;
    case kSizeMismatch:
        VG_(snprintf)(buf, n, "Mismatched %s size value: %lu", e.what, e.passed);
        break;
    case kAlignMismatch:
        if (e.default_aligned) VG_(snprintf)
        (buf, n, "Mismatched %s alignment alloc value: %lu dealloc value: default-aligned", e.what,
         e.block_align);
        else VG_(snprintf)(buf, n, "Mismatched %s alignment alloc value: %lu dealloc value: %lu",
                           e.what, e.block_align, e.passed);
        break;
    case kParam:
        VG_(snprintf)(buf, n, "Syscall param %s points to unaddressable byte(s)", e.what);
        break;
    case kInvalidMemPool:
        VG_(snprintf)(buf, n, "Illegal memory pool address");
        break;
    case kUser:
        VG_(snprintf)(buf, n, "Unaddressable byte(s) found during client check request");
        break;
    case kReportNotWritten:
        VG_(snprintf)(buf, n, "The JSON report could not be written");
        break;
    default:
        if (is_address_kind(kind)) VG_(snprintf)
        (buf, n, "Invalid %s of size %lu", e.write ? "write" : "read", e.access_size);
        else VG_(snprintf)(buf, n, "%s", error_kind_name(kind));
        break;
    }
}

// The first line of the description VG_(pp_addrinfo_mc) prints.
void describe_text(Addr a, const AddrInfo& ai, HChar* buf, SizeT n) {
    switch (ai.tag) {
    case Addr_Block: {
        PtrdiffT off = ai.Addr.Block.rwoffset;
        SizeT size = ai.Addr.Block.block_szB;
        const HChar* rel;
        PtrdiffT delta;
        if (off < 0) {
            delta = -off;
            rel = "before";
        } else if (static_cast<SizeT>(off) >= size) {
            delta = off - static_cast<PtrdiffT>(size);
            rel = "after";
        } else {
            delta = off;
            rel = "inside";
        }
        BlockKind k = ai.Addr.Block.block_kind;
        bool arena = k == Block_ClientArenaMallocd || k == Block_ClientArenaFree ||
                     k == Block_ValgrindArenaMallocd || k == Block_ValgrindArenaFree;
        if (arena) { // block_desc is the arena's name
            bool free = k == Block_ClientArenaFree || k == Block_ValgrindArenaFree;
            VG_(snprintf)
            (buf, n, "Address %#lx is %'ld bytes %s a%s block of size %'lu in arena \"%s\"", a,
             delta, rel, free ? "n unallocated" : "", size, ai.Addr.Block.block_desc);
            break;
        }
        VG_(snprintf)
        (buf, n, "Address %#lx is %'ld bytes %s a %s of size %'lu %s", a, delta, rel,
         ai.Addr.Block.block_desc, size,
         k == Block_Freed     ? "free'd"
         : k == Block_Mallocd ? "alloc'd"
                              : "client-defined");
        break;
    }
    case Addr_Stack:
        if (ai.Addr.Stack.stackPos == StackPos_below_stack_ptr) VG_(snprintf)
        (buf, n, "Address %#lx is on thread %u's stack, %ld bytes below stack pointer", a,
         ai.Addr.Stack.tinfo.tid, -ai.Addr.Stack.spoffset);
        else VG_(snprintf)(buf, n, "Address %#lx is on thread %u's stack", a,
                           ai.Addr.Stack.tinfo.tid);
        break;
    case Addr_DataSym:
        VG_(snprintf)
        (buf, n, "Address %#lx is %ld bytes inside data symbol \"%s\"", a, ai.Addr.DataSym.offset,
         ai.Addr.DataSym.name);
        break;
    case Addr_Unknown:
    case Addr_Undescribed:
        VG_(snprintf)(buf, n, "Address %#lx is not stack'd, malloc'd or (recently) free'd", a);
        break;
    default:
        VG_(snprintf)(buf, n, "Address %#lx is in a mapped segment", a);
        break;
    }
}

bool error_record_listed(const ErrorRecord& r) {
    return !is_address_kind(r.kind) || r.shown;
}

UInt error_record_count() {
    return n_records;
}
const ErrorRecord& error_record_at(UInt i) {
    return records[i];
}

} // namespace mg
