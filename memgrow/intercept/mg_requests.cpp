// SPDX-License-Identifier: GPL-2.0-or-later
#include "intercept/mg_requests.hpp"
#include "checks/mg_abits.hpp"
#include "checks/mg_mc_requests.hpp"
#include "intercept/mg_client_slabs.hpp"
#include "intercept/mg_custom.hpp"
#include "python/mg_python.hpp"
#include "intercept/mg_device.hpp"
#include "checks/mg_errors.hpp"
#include "intercept/mg_heap.hpp"
#include "intercept/mg_mark_at.hpp"
#include "pages/mg_mapped.hpp"
#include "checks/mg_suppressions.hpp"
#include "output/mg_live.hpp"
#include "mg_options.hpp"
#include "output/mg_report.hpp"
#include "output/mg_report_file.hpp"
#include "records/mg_stack_tree.hpp"
#include "records/mg_timeline.hpp"
#include "scan/mg_leak.hpp"
#include "holders/mg_holders.hpp"
#include "include/memgrow.h"

namespace mg {

bool forked_child = false;

namespace {

// Copies a client string, checking every page it touches is readable: a
// client may pass any pointer.
bool read_client_string(Addr a, HChar* out, SizeT cap) {
    SizeT n = 0;
    for (; n + 1 < cap; ++n, ++a) {
        if ((n == 0 || (a & 4095) == 0) && !VG_(am_is_valid_for_client)(a, 1, VKI_PROT_READ))
            return false;
        out[n] = *reinterpret_cast<const HChar*>(a);
        if (!out[n]) return true;
    }
    out[n] = 0;
    return true;
}

// What the preload and the Python module learn from the tool: the
// PYTHONMALLOC choice, and the directory of memgrow's Python package (beside
// the tool, where VG_(libdir) also finds it in the build tree's .in_place).
UWord client_config(Addr buf, SizeT size) {
    UWord config = MEMGROW_CONFIG_RUNNING;
    if (clo.python_malloc) config |= MEMGROW_CONFIG_PYTHON_MALLOC;
    if (!clo.pytorch_caching) config |= MEMGROW_CONFIG_NO_TORCH_CACHING;
    if (clo.mark_at[0]) config |= MEMGROW_CONFIG_MARK_AT;
    static const HChar kPythonDir[] = "/memgrow-python";
    SizeT len = VG_(strlen)(VG_(libdir)) + sizeof kPythonDir;
    if (buf && len <= size && VG_(am_is_valid_for_client)(buf, len, VKI_PROT_WRITE)) {
        VG_(sprintf)(reinterpret_cast<HChar*>(buf), "%s%s", VG_(libdir), kPythonDir);
        config |= MEMGROW_CONFIG_PYTHON_PATH;
    }
    return config;
}

} // namespace

bool report_now(const HChar* pattern, const ReportHow& how, HChar** written) {
    HChar* path = report_file_name(pattern, forked_child);
    if (how.last) { // no more frees, and no more sites
        free_stacks_release();
        sites_drop_index();
    }
    bool scanned = how.scan && clo.leak_check != LeakCheck::no;
    if (scanned) leak_scan();
    // The last report names holders without the leak report too (a run with
    // --leak-check=no that ended before teardown began).
    bool walked = scanned || (how.last && !holders_from_teardown());
    if (walked && !scanned) leak_scan_for_holders();
    if (how.last) { // scanned: the blocks are done with (the scan's own record stays for holders)
        blocks_release_all();
        mapped_release_all();
        slabs_forget_free_slots();
        abits_release();
    }
    Analysis a;
    analyse(&a);
    if (walked && !holders_from_teardown()) holders_compute(a, false); // before the pages go
    holders_apply(&a);
    // Nothing reads the client's memory or checks an access any more.
    if (how.last) client_memory_discard();
    if (how.last) stack_tree_drop_index(); // after the Python sites' stacks are interned
    bool summary = how.summary, at_exit = how.at_exit;
    if (summary) {
        print_leaks(a, LeakDelta::any);
        print_summary(a);
    }
    if (at_exit) {
        report_class_errors(a);
        for (UInt id = 0; id < a.n_sites; ++id) {
            const HChar* leak = a.leak_suppressed_by(id);
            const HChar* cls = a.class_suppressed_by(id);
            if (leak) count_suppression_use(leak);
            if (cls && cls != leak) count_suppression_use(cls);
        }
        if (VG_(clo_verbosity) > 1) print_used_suppressions();
    }
    if (how.last) forget_loss_records();
    UInt began = VG_(read_millisecond_timer)();
    bool ok = write_json_report(path, a, how.may_wait);
    if (ok && summary && VG_(clo_verbosity) > 0)
        VG_(umsg)("memgrow: JSON report written to %s\n", path);
    // -v: what writing it cost (docs/output-format.md measures it).
    if (ok && VG_(clo_verbosity) > 1) VG_(umsg)
    ("memgrow: the JSON report took %u ms to write\n", VG_(read_millisecond_timer)() - began);
    if (ok && written)
        *written = path;
    else
        VG_(free)(path);
    if (how.last || !holders_from_teardown()) holders_release();
    if (how.last) leak_scan_forget_blocks();
    analysis_release(&a);
    return ok;
}

namespace {
LeakCounts leak_counts;
} // namespace

ULong leak_check_now(LeakDelta which, bool full, UInt kinds, UInt limit, bool by_monitor) {
    leak_scan();
    Analysis a;
    analyse(&a);
    LeakCheck saved = clo.leak_check;
    UInt saved_kinds = clo.show_leak_kinds;
    clo.leak_check = full ? LeakCheck::full : LeakCheck::summary;
    clo.show_leak_kinds = kinds;
    print_leaks(a, which, limit, by_monitor);
    clo.leak_check = saved;
    clo.show_leak_kinds = saved_kinds;
    // COUNT_LEAKS keeps the previous scan's figures after one that found no
    // block, as memcheck's.
    LeakCounts& c = leak_counts;
    if (leak_scan_empty(a.leaks)) {
        analysis_release(&a);
        return 0;
    }
    suppressed_totals(a.leaks, a, c.bytes, c.blocks);
    for (UInt k = 0; k < kLeakKinds; ++k) {
        c.bytes[k] = a.leaks->bytes[k] - c.bytes[k];
        c.blocks[k] = a.leaks->blocks[k] - c.blocks[k];
    }
    analysis_release(&a);
    return c.bytes[kDefinite] + c.bytes[kIndirect];
}

const LeakCounts& last_leak_counts() {
    return leak_counts;
}

namespace {

bool word_is(const HChar* s, const HChar* w) {
    return s && VG_STREQ(s, w);
}

// The interior-pointer heuristics a monitor command names (memcheck's names
// and memgrow's cpython; `all`, `none`), as reach::Heuristic bits.
bool parse_heuristics(HChar** save, UInt* out) {
    const HChar* set = VG_(strtok_r)(nullptr, " ", save);
    if (!set || !VG_(parse_enum_set)("-,stdstring,length64,newarray,multipleinheritance,cpython",
                                     True, set, out)) {
        VG_(gdb_printf)("missing or malformed heuristics set\n");
        return false;
    }
    return true;
}

// memcheck's parse_slice: "<n>", "<from>..<to>" or "<from> .. <to>", with
// its messages.
bool parse_slice(HChar** save, UInt* from, UInt* to) {
    HChar* word = VG_(strtok_r)(nullptr, " ", save);
    if (!word) {
        VG_(gdb_printf)("expecting integer or slice <from>..<to>\n");
        return false;
    }
    HChar* end = nullptr;
    *from = static_cast<UInt>(VG_(strtoull10)(word, &end));
    if (end == word) {
        VG_(gdb_printf)("invalid integer or slice <from>..<to>\n");
        return false;
    }
    const HChar* rest = *save;
    while (rest && *rest == ' ')
        ++rest;
    if (*end == '\0' && (!rest || *rest != '.')) {
        *to = *from; // one number
        return true;
    }
    if (*end == '\0') {
        word = VG_(strtok_r)(nullptr, " .", save); // "n .. m" or "n ..m"
    } else {
        if (end[0] != '.' && end[1] != '.') {
            VG_(gdb_printf)("expecting slice <from>..<to>\n");
            return false;
        }
        if (end[2] == ' ')
            word = VG_(strtok_r)(nullptr, " .", save); // "n.. m"
        else
            word = end + 2; // "n..m"
    }
    *to = word ? static_cast<UInt>(VG_(strtoull10)(word, &end)) : 0;
    if (!word || *end != '\0') {
        VG_(gdb_printf)("missing/wrong 'to' of slice <from>..<to>\n");
        return false;
    }
    if (*from > *to) {
        VG_(gdb_printf)("<from> cannot be bigger than <to> in slice <from>..<to>\n");
        return false;
    }
    return true;
}

// memcheck's "block_list <nr>|<from>..<to> [unlimited|limited <max_blocks>]
// [heuristics <set>]": the blocks of the last leak scan's loss records.
void block_list(HChar** save) {
    UInt from = 0, to = 0;
    if (!parse_slice(save, &from, &to)) return;
    UInt limit = 999999999, heuristics = 0;
    while (const HChar* word = VG_(strtok_r)(nullptr, " ", save)) {
        switch (VG_(keyword_id)("unlimited limited heuristics ", word, kwd_report_all)) {
        case 0:
            limit = 999999999;
            break;
        case 1: {
            const HChar* n = VG_(strtok_r)(nullptr, " ", save);
            if (!n) {
                VG_(gdb_printf)("missing integer value\n");
                return;
            }
            HChar* end = nullptr;
            Long value = VG_(strtoll10)(n, &end);
            if (*end) {
                VG_(gdb_printf)("malformed integer value\n");
                return;
            }
            if (value <= 0) {
                VG_(gdb_printf)("max_blocks must be >= 1, got %d\n", static_cast<Int>(value));
                return;
            }
            limit = static_cast<UInt>(value);
            break;
        }
        case 2:
            if (!parse_heuristics(save, &heuristics)) return;
            break;
        default: // unknown or ambiguous: keyword_id said so
            return;
        }
    }
    // Numbered from 1 for the user.
    if (from == 0 || !print_block_list(from - 1, to - 1, limit, heuristics))
        VG_(gdb_printf)("invalid loss record nr\n");
}

// A monitor command's number: 0x-prefixed hex, binary with a b suffix, or
// decimal (Valgrind's forms; a decimal address too). Says why it is not one.
enum class Number { ok, malformed, too_large };

Number parse_number(const HChar* s, ULong* out) {
    if (!s || !*s) return Number::malformed;
    ULong base = 10;
    SizeT n = VG_(strlen)(s);
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        base = 16, s += 2, n -= 2;
    else if (n > 1 && s[n - 1] == 'b')
        base = 2, --n;
    if (n == 0) return Number::malformed;
    ULong v = 0;
    for (SizeT i = 0; i < n; ++i) {
        const HChar c = s[i];
        const ULong d = c >= '0' && c <= '9'   ? static_cast<ULong>(c - '0')
                        : c >= 'a' && c <= 'f' ? static_cast<ULong>(c - 'a' + 10)
                        : c >= 'A' && c <= 'F' ? static_cast<ULong>(c - 'A' + 10)
                                               : base;
        if (d >= base) return Number::malformed;
        if (v > (~0ULL - d) / base) return Number::too_large;
        v = v * base + d;
    }
    *out = v;
    return Number::ok;
}

// memcheck's "check_memory addressable <addr> [<len>]": its answer and its
// description of the address. A length that runs past the end of the user
// address space (amd64's lower half, where every client mapping lies), or
// past 2^64, is named as the length's fault; memcheck blames the address.
void check_memory(HChar** save) {
    const HChar* what = VG_(strtok_r)(nullptr, " ", save);
    if (!word_is(what, "addressable")) {
        VG_(gdb_printf)
        ("check_memory: memgrow checks addressable only (it has no definedness "
         "bits)\n");
        return;
    }
    const HChar* address_word = VG_(strtok_r)(nullptr, " ", save);
    const HChar* len_word = VG_(strtok_r)(nullptr, " ", save);
    ULong address = 0, len = 1;
    if (parse_number(address_word, &address) != Number::ok) {
        VG_(gdb_printf)("missing or malformed address\n");
        return;
    }
    const Number l = len_word ? parse_number(len_word, &len) : Number::ok;
    if (l == Number::malformed) {
        VG_(gdb_printf)
        ("malformed integer, expecting hex 0x..... or dec ...... or binary .....b\n");
        return;
    }
    if (!clo.addressability) {
        VG_(gdb_printf)("check_memory: needs --addressability=yes\n");
        return;
    }
    const Addr space_end = Addr(1) << 47;
    if (l == Number::too_large || (address < space_end && len > space_end - address)) {
        VG_(gdb_printf)
        ("check_memory: the length %s is too large: from 0x%llx it runs past the end of the "
         "address space (0x%lx)\n",
         len_word, address, space_end);
        return;
    }
    Addr bad;
    void* at = reinterpret_cast<void*>(address);
    if (abits_first_bad(address, len, &bad)) {
        VG_(printf)
        ("Address %p len %llu not addressable:\nbad address %p\n", at, len,
         reinterpret_cast<void*>(bad));
    } else {
        VG_(printf)("Address %p len %llu addressable\n", at, len);
    }
    pp_describe_address(address);
}

// vgdb monitor commands: "monitor leak_check", "monitor who_points_at",
// "monitor check_memory", "monitor report".
bool monitor_command(const HChar* command) {
    HChar buf[512];
    VG_(strncpy)(buf, command, sizeof buf - 1);
    buf[sizeof buf - 1] = 0;
    HChar* save;
    const HChar* word = VG_(strtok_r)(buf, " ", &save);
    if (word_is(word, "help")) {
        VG_(gdb_printf)
        ("memgrow monitor commands:\n"
         "  leak_check [full|summary] [kinds <set>|reachable|possibleleak|definiteleak]\n"
         "             [increased|changed|new|any] [unlimited|limited <max_loss_records>]\n"
         "             [heuristics heur1,heur2,...]\n"
         "        scan for leaks now; list the loss records of the kinds given\n"
         "        (--show-leak-kinds) that increased, changed or are new since the\n"
         "        previous scan, or all of them, at most the largest <max_loss_records>;\n"
         "        interior pointers count as heur1,heur2,... accept them\n"
         "        (--leak-check-heuristics) [full increased unlimited]\n"
         "  block_list <loss_record_nr>|<loss_record_nr_from>..<loss_record_nr_to>\n"
         "             [unlimited|limited <max_blocks>] [heuristics heur1,heur2,...]\n"
         "        the blocks of the last leak scan's loss records, with the blocks\n"
         "        lost through them; with heuristics, only the blocks found via\n"
         "        heur1,heur2,... [unlimited]\n"
         "  who_points_at <addr> [<len>]\n"
         "        the roots, blocks and registers holding a pointer into the range\n"
         "  who_holds <file>:<line>|<site id>\n"
         "        scan now and name what holds the live memory allocated under\n"
         "        that line (a Python or a native frame) or site\n"
         "  check_memory addressable <addr> [<len>]\n"
         "        whether the range is addressable (--addressability=yes), and\n"
         "        what <addr> is\n"
         "  report [<file>] [leaks]\n"
         "        write the JSON report of the run so far to <file> [--json-file]\n"
         "        and print its name; leaks: scan for leaks first\n");
        return true;
    }
    if (word_is(word, "who_points_at")) {
        Addr address = 0;
        SizeT len = 1;
        if (!VG_(strtok_get_address_and_size)(&address, &len, &save)) return true;
        if (address == 0)
            VG_(gdb_printf)("Cannot search who points at 0x0\n");
        else
            leak_who_points_at(address, len);
        return true;
    }
    if (word_is(word, "who_holds")) {
        holders_who_holds(VG_(strtok_r)(nullptr, " ", &save));
        return true;
    }
    if (word_is(word, "check_memory")) {
        check_memory(&save);
        return true;
    }
    if (word_is(word, "block_list")) {
        block_list(&save);
        return true;
    }
    if (word_is(word, "leak_check")) {
        bool full = true;
        LeakDelta which = LeakDelta::increased;
        UInt kinds = clo.show_leak_kinds, limit = 0, heuristics = clo.heuristics;
        // Start-up's and teardown's records as --show-leak-kinds says.
        const UInt teardown = clo.show_leak_kinds & (kTeardownBit | kStartupBit);
        while ((word = VG_(strtok_r)(nullptr, " ", &save))) {
            if (word_is(word, "full"))
                full = true;
            else if (word_is(word, "summary"))
                full = false;
            else if (word_is(word, "kinds")) {
                const HChar* set = VG_(strtok_r)(nullptr, " ", &save);
                if (!set || !VG_(parse_enum_set)("definite,indirect,possible,reachable", True, set,
                                                 &kinds)) {
                    VG_(gdb_printf)("missing or malformed leak kinds set\n");
                    return true;
                }
                kinds |= teardown;
            } else if (word_is(word, "reachable"))
                kinds = leak_kind_bit(kDefinite) | leak_kind_bit(kIndirect) |
                        leak_kind_bit(kPossible) | leak_kind_bit(kReachable) | teardown;
            else if (word_is(word, "possibleleak"))
                kinds = leak_kind_bit(kDefinite) | leak_kind_bit(kIndirect) |
                        leak_kind_bit(kPossible) | teardown;
            else if (word_is(word, "definiteleak"))
                kinds = leak_kind_bit(kDefinite) | teardown;
            else if (word_is(word, "heuristics")) {
                if (!parse_heuristics(&save, &heuristics)) return true;
            } else if (word_is(word, "unlimited"))
                limit = 0;
            else if (word_is(word, "limited")) {
                const HChar* n = VG_(strtok_r)(nullptr, " ", &save);
                HChar* end = nullptr;
                Long value = n ? VG_(strtoll10)(n, &end) : 0;
                if (!n || *end) {
                    VG_(gdb_printf)("missing or malformed integer value\n");
                    return true;
                }
                if (value < 1) {
                    VG_(gdb_printf)("max_loss_records_output must be >= 1, got %lld\n", value);
                    return true;
                }
                limit = static_cast<UInt>(value);
            } else if (word_is(word, "increased"))
                which = LeakDelta::increased;
            else if (word_is(word, "changed"))
                which = LeakDelta::changed;
            else if (word_is(word, "new"))
                which = LeakDelta::fresh;
            else if (word_is(word, "any"))
                which = LeakDelta::any;
            else {
                VG_(gdb_printf)("leak_check: unknown argument '%s' (try: help)\n", word);
                return true;
            }
        }
        // The scan with the heuristics asked for (--leak-check-heuristics's
        // by default, where memcheck's monitor takes none).
        UInt saved = clo.heuristics;
        clo.heuristics = heuristics;
        leak_check_now(which, full, kinds, limit, true);
        clo.heuristics = saved;
        return true;
    }
    if (word_is(word, "report")) {
        const HChar* file = nullptr;
        ReportHow how;
        how.scan = false;
        while ((word = VG_(strtok_r)(nullptr, " ", &save))) {
            if (word_is(word, "leaks"))
                how.scan = true;
            else if (!file)
                file = word;
            else {
                VG_(gdb_printf)("report: unexpected argument '%s' (try: help)\n", word);
                return true;
            }
        }
        HChar* path = nullptr;
        if (report_now(file ? file : clo.json_file, how, &path)) {
            VG_(gdb_printf)("memgrow: report written to %s\n", path);
            VG_(free)(path);
        } else {
            VG_(gdb_printf)("%s\n", report_file_last_failure());
        }
        return true;
    }
    return false;
}

} // namespace

Bool handle_client_request(ThreadId tid, UWord* args, UWord* ret) {
    if (args[0] == VG_USERREQ__GDB_MONITOR_COMMAND) {
        *ret = monitor_command(reinterpret_cast<const HChar*>(args[1])) ? 1 : 0;
        return True;
    }
    // Sent by the preload, whatever the tool, from Valgrind 3.22.
    if (vgc::is_verify_alignment(args[0])) {
        heap_verify_alignment(tid, args[1]);
        *ret = 0;
        return True;
    }
    if (custom_client_request(tid, args, ret)) return True;
    if (VG_IS_TOOL_USERREQ('M', 'C', args[0])) return mc_client_request(tid, args, ret);
    if (!VG_IS_TOOL_USERREQ('M', 'G', args[0])) return False;
    HChar text[512];
    *ret = 0;
    switch (args[0]) {
    case VG_USERREQ__MEMGROW_MARK:
        timeline_mark(args[1] && read_client_string(args[1], text, sizeof text) ? text : nullptr);
        break;
    case VG_USERREQ__MEMGROW_REPORT: {
        const HChar* pattern = clo.json_file;
        if (args[1]) {
            if (!read_client_string(args[1], text, sizeof text)) {
                VG_(umsg)("memgrow: MEMGROW_REPORT: the file name is not readable\n");
                break;
            }
            pattern = text;
        }
        *ret = report_now(pattern, ReportHow{}) ? 1 : 0;
        break;
    }
    case VG_USERREQ__MEMGROW_LEAK_CHECK:
        *ret = leak_check_now(LeakDelta::increased, true, clo.show_leak_kinds);
        break;
    case VG_USERREQ__MEMGROW_TEARDOWN: {
        // The request's words may lie below the stack pointer (exit()'s
        // wrapper has no frame): read before the dead stack is zeroed.
        const UInt reason = static_cast<UInt>(args[1]);
        const Addr caller_sp = args[2];
        // Each wrapper's (Py_FinalizeEx's, then exit()'s) frames are pushed
        // over the program's dead ones.
        leak_forget_dead_stack(tid);
        python_settle_warmup();
        if (!timeline_teardown(reason)) break;
        if (VG_(clo_verbosity) > 1) VG_(umsg)
        ("memgrow: teardown began (reason %u) at clock %llu\n", reason, tl.teardown_at);
        // The scan's arrays would come on top of everything the run holds
        // (the peak of `import torch`): the indexes that find a stack's node
        // and its site go first. The next new stack rebuilds them, sized for
        // the stacks there are.
        stack_tree_drop_index();
        sites_drop_index();
        // The holders need the walk even when the leak report does not (a
        // bounded holder decides a class): it runs, marking nothing.
        leak_scan_teardown(tid, caller_sp, clo.leak_check != LeakCheck::no && clo.teardown_scan);
        // Who holds what, named while the program's objects are whole.
        Analysis a;
        analyse(&a, false);
        holders_compute(a, true);
        analysis_release(&a);
        break;
    }
    case VG_USERREQ__MEMGROW_DEVICE_ALLOC:
        device_alloc(tid, args);
        break;
    case VG_USERREQ__MEMGROW_DEVICE_MAP:
        device_map(args);
        break;
    case VG_USERREQ__MEMGROW_DEVICE_UNMAP:
        device_unmap(args);
        break;
    case VG_USERREQ__MEMGROW_DEVICE_ACCESS:
        *ret = device_access(tid, args);
        break;
    case VG_USERREQ__MEMGROW_DEVICE_VA:
        device_va(tid, args);
        break;
    case VG_USERREQ__MEMGROW_CUDA_TRACKING:
        *ret = device_tracking(tid, args[1]);
        break;
    case VG_USERREQ__MEMGROW_WARMUP_END:
        // CPython's main script: the imports at its top are start-up too.
        if (args[1] == MEMGROW_WARMUP_PYTHON_MAIN && python_defer_warmup_end()) break;
        if (args[1] == MEMGROW_WARMUP_PROGRAM) timeline_warmup_announced();
        timeline_warmup_end();
        break;
    case VG_USERREQ__MEMGROW_DEVICE_FREE:
        *ret = device_free(tid, args);
        break;
    case VG_USERREQ__MEMGROW_CLIENT_CONFIG:
        *ret = client_config(args[1], args[2]);
        break;
    case VG_USERREQ__MEMGROW_LIVE_BYTES:
        *ret = live_bytes_now();
        break;
    case VG_USERREQ__MEMGROW_GROWTH_SINCE: {
        HChar top[sizeof text];
        Long d = growth_since(top, sizeof top, args[3] != 0);
        SizeT len = VG_(strlen)(top) + 1, size = args[2];
        // The client's buffer, checked: a garbage pointer gets nothing.
        if (args[1] && size && VG_(am_is_valid_for_client)(args[1], size, VKI_PROT_WRITE)) {
            if (len > size) len = size, top[size - 1] = 0;
            VG_(memcpy)(reinterpret_cast<void*>(args[1]), top, len);
        }
        *ret = static_cast<UWord>(d);
        break;
    }
    case VG_USERREQ__MEMGROW_MARK_AT_EVENT:
        mark_at_event(args[1], args[2]);
        break;
    case VG_USERREQ__MEMGROW_CLIENT_MARK_AT: {
        SizeT len = VG_(strlen)(clo.mark_at) + 1, size = args[2];
        if (args[1] && len <= size && VG_(am_is_valid_for_client)(args[1], len, VKI_PROT_WRITE)) {
            VG_(memcpy)(reinterpret_cast<void*>(args[1]), clo.mark_at, len);
            *ret = len - 1;
        } else {
            *ret = 0;
        }
        break;
    }
    default:
        return False;
    }
    return True;
}

} // namespace mg
