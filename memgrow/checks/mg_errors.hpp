// SPDX-License-Identifier: GPL-2.0-or-later
// Errors memgrow reports through Valgrind's error manager (counted in the
// error summary, suppressible, --error-exitcode) and lists in the report.
#pragma once

#include "classify/mg_analysis.hpp"
#include "records/mg_blocks.hpp"

namespace mg {

// Names are the suppression kinds (memgrow:InvalidFree) and the report's
// errors[].kind; never renamed, only extended.
// Leaked, Growing and Plateau are site classes counted as errors
// (--errors-for) at exit: never printed as errors (the leak and growth
// sections show them), suppressed by memgrow's own matcher.
enum ErrorKind : UInt {
    kInvalidFree = 0,
    kDoubleFree,
    kMismatchedFree,
    kLeaked,
    kGrowing,
    kPlateau,
    // Misuse of the CUDA memory API (docs/cuda.md).
    kDeviceInvalidFree,
    kDeviceDoubleFree,
    kDeviceMismatchedFree,
    kDeviceOverrun,
    kDeviceUseAfterFree,
    // Memcheck's checks of the malloc family that came with newer Valgrind
    // releases (docs/valgrind-versions.md): realloc(p, 0) (3.21), aligned
    // allocation and sized or aligned deallocation (3.22).
    kReallocZero,
    kBadAlign,
    kUnsafeZeroSize,
    kSizeMismatch,
    kAlignMismatch,
    // --addressability=yes (docs/addressability.md): memcheck's invalid
    // reads and writes by access size, and system-call memory arguments.
    kAddr1,
    kAddr2,
    kAddr4,
    kAddr8,
    kAddr16,
    kAddr32,
    kAddrOther, // a dirty helper's access of another size (FXSAVE's 512)
    kParam,
    kUser, // memcheck.h's CHECK_MEM_IS_ADDRESSABLE found a bad byte
    // A mempool request naming no pool (valgrind.h; memcheck's kind).
    kInvalidMemPool,
    // A CUDA copy or set into reserved address space (cuMemAddressReserve)
    // that is not mapped, or mapped without the access (docs/cuda.md).
    kDeviceUnmapped,
    // The final JSON report could not be written (--lost-report-exitcode):
    // counted, never printed (the log said why), not suppressible.
    kReportNotWritten,
    kErrorKinds
};
const HChar* error_kind_name(UInt kind);

// The deallocating call, for messages and mismatch checks.
// custom: VALGRIND_FREELIKE_BLOCK and the mempool requests.
enum class FreeCall : UChar { free, realloc, delete_scalar, delete_array, custom };

struct ErrorExtra {
    FreeCall call;
    AllocKind alloc_kind;
    SizeT size;
    ExeContext* alloc_at; // null when the block is unknown
    ExeContext* freed_at; // double free: the first free
    // Device errors: the MemgrowDeviceApi of the call, what a copy does
    // (MemgrowAccess), how many bytes, and the block's start and space.
    // DeviceOverrun and DeviceUseAfterFree of a reservation say so in
    // `what` ("reservation"); DeviceUnmapped has its reason there and the
    // first byte it found in `passed`.
    UChar api = 0;
    UChar access = 0;
    Space space = Space::host;
    SizeT access_size = 0;
    Addr block_addr = 0;
    // BadAlign, UnsafeZeroSize, SizeMismatch, AlignMismatch: the value the
    // call passed (alignment, or size), and memcheck's words for the check or
    // the functions.
    SizeT passed = 0;
    const HChar* what = nullptr;
    SizeT block_align = 0;        // AlignMismatch: what the block was allocated with
    bool default_aligned = false; // AlignMismatch: a delete without alignment
    // Address errors: a write (else a read), and the address as memcheck
    // describes it (a heap block's, else the core's description).
    bool write = false;
    AddrInfo ai = {};
    // ... the stack with its Python frames (null when no interpreter runs:
    // the ExeContext is the stack), and the block's site (its allocation
    // stack with Python frames).
    const StackWord* words = nullptr;
    UInt n_words = 0;
    // An id, not a Site*: the block's site may be compacted before the
    // report (records/mg_site_store.hpp).
    UInt block_site = kNoSite;
    UInt record = ~0u; // address errors: the ErrorRecord they count in
};

void errors_init();
void report_invalid_free(ThreadId tid, Addr addr, FreeCall call);
void report_double_free(ThreadId tid, Addr addr, FreeCall call, const FreedBlock& f);
void report_mismatched_free(ThreadId tid, Addr addr, FreeCall call, const Block& b);
void report_realloc_size_zero(ThreadId tid, Addr addr);
// align: the alignment passed; size: non-zero when the size is what is wrong.
void report_bad_align(ThreadId tid, SizeT align, SizeT size, const HChar* why);
void report_unsafe_zero_size(ThreadId tid, const HChar* function);
void report_size_mismatch(ThreadId tid, const Block& b, SizeT size, const HChar* functions);
void report_align_mismatch(ThreadId tid, const Block& b, SizeT align, bool default_aligned,
                           const HChar* functions);

void report_device_invalid_free(ThreadId tid, Addr addr, UInt api);
void report_device_double_free(ThreadId tid, Addr addr, UInt api, const DeviceFreed& f);
void report_device_mismatched_free(ThreadId tid, Addr addr, UInt api, const Block& b);
// The device-side span a copy or set is checked against: an allocation
// ("block") or a virtual-memory reservation ("reservation").
struct DeviceSpan {
    Addr start;
    SizeT size;
    Space space;
    ExeContext* alloc_at; // allocated or reserved at (null: unknown)
    ExeContext* freed_at; // freed, released or unmapped at (null: not freed)
    const HChar* what;
};
void report_device_overrun(ThreadId tid, Addr addr, SizeT n, UInt access, UInt api,
                           const DeviceSpan& span);
void report_device_use_after_free(ThreadId tid, Addr addr, SizeT n, UInt access, UInt api,
                                  const DeviceSpan& span);
// bad: the first byte of the range not mapped (mapped: mapped, but without
// the access), inside the reservation `span` (freed_at: where the byte's
// last mapping went).
void report_device_unmapped(ThreadId tid, Addr addr, SizeT n, UInt access, UInt api,
                            const DeviceSpan& span, Addr bad, bool mapped);

// Counts the sites whose class --errors-for names (and no suppression
// silences) as errors, for --error-exitcode.
void report_class_errors(const Analysis& a);
// The final report was lost: one counted error, and the run's exit code
// (--lost-report-exitcode) unless --error-exitcode gave one.
void report_lost_report();

// The stack of a site as an ExeContext (native frames), for error messages.
ExeContext* site_exe_context(const Site* s);
// A free stack (records/mg_stack_tree.hpp) as an ExeContext (null for none).
ExeContext* free_stack_exe_context(UInt stack);

// Distinct errors seen (kind and stack), for the JSON report.
struct ErrorRecord {
    UInt kind;
    Addr addr;
    ULong count;
    ExeContext* where;
    ErrorExtra extra;
    // Address errors: printed (not suppressed). A suppression silences
    // them in the report too: the shipped ones hide libraries' noise.
    bool shown = false;
};
// Whether the report lists the record (every kind but a suppressed
// address error).
bool error_record_listed(const ErrorRecord& r);
// An access of n bytes at a that is not addressable (kind AddrN).
void report_access_error(ThreadId tid, Addr a, SizeT n, bool write);
// A system call's memory argument `what` (read(buf)) with a byte that is
// not addressable at bad.
void report_param_error(ThreadId tid, CorePart part, const HChar* what, Addr bad, bool write);
// A mempool request's pool handle that names no pool.
void report_illegal_mempool(ThreadId tid, Addr pool);
// A CHECK_MEM_IS_ADDRESSABLE request found bad, not addressable (kind User).
void report_user_check_error(ThreadId tid, Addr bad);
// An error's first line, memcheck's words ("Invalid read of size 8"), and
// an address error's description ("Address 0x… is 0 bytes after a block of
// size 80 alloc'd").
void error_headline(UInt kind, Addr a, const ErrorExtra& e, HChar* buf, SizeT n);
void describe_text(Addr a, const AddrInfo& ai, HChar* buf, SizeT n);
bool is_address_kind(UInt kind);
// Prints memcheck's description of an address (monitor check_memory).
void pp_describe_address(Addr a);

UInt error_record_count();
const ErrorRecord& error_record_at(UInt i);

} // namespace mg
