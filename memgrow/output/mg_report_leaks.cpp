// SPDX-License-Identifier: GPL-2.0-or-later
// The leak scan in the log, the way memcheck prints it (loss records grouped
// by stack, smallest first, then the LEAK SUMMARY), with memgrow's growth
// view of each record's site.
#include "output/mg_log_text.hpp"
#include "output/mg_report.hpp"
#include "checks/mg_suppressions.hpp"
#include "records/mg_symbols.hpp"
#include "records/mg_timeline.hpp"

namespace mg {

namespace {

struct Record {
    UInt site;
    UInt kind;
    UInt part;                     // LeakPart: the program's, start-up's or teardown's
    ULong bytes, blocks, indirect; // indirect: lost through a definite record
    ULong old_bytes, old_blocks;   // in the previous scan (bytes: direct and indirect)
    ULong old_indirect;
};

// The program's records first, then start-up's, then teardown's, each
// smallest first.
Int by_size(const void* x, const void* y) {
    const Record* a = static_cast<const Record*>(x);
    const Record* b = static_cast<const Record*>(y);
    if (a->part != b->part) return a->part < b->part ? -1 : 1;
    ULong sa = a->bytes + a->indirect, sb = b->bytes + b->indirect;
    if (sa != sb) return sa < sb ? -1 : 1;
    // memcheck's order at one size: still reachable, possibly, indirectly,
    // then definitely lost; fewer blocks first; the older stack first.
    if (a->kind != b->kind) return a->kind > b->kind ? -1 : 1;
    if (a->blocks != b->blocks) return a->blocks < b->blocks ? -1 : 1;
    return a->site < b->site ? -1 : a->site > b->site ? 1 : 0;
}

const HChar* kind_phrase(UInt k) {
    const HChar* const phrases[kLeakKinds] = {"definitely lost", "indirectly lost", "possibly lost",
                                              "still reachable"};
    return phrases[k];
}

// " (+N)" after a number, in a delta report.
void delta(HChar* out, ULong now, ULong before, bool show) {
    out[0] = 0;
    if (!show) return;
    if (now >= before)
        VG_(sprintf)(out, " (+%'llu)", now - before);
    else
        VG_(sprintf)(out, " (-%'llu)", before - now);
}

// Where teardown began, in the words of the log.
const HChar* teardown_began_at() {
    switch (tl.teardown_reason) {
    case 1:
        return "exit()";
    case 2:
        return "Py_FinalizeEx";
    default:
        return "the process end";
    }
}

// "lost at start-up", "lost by teardown"; capitalized to begin a line.
const HChar* part_name(UInt part, bool capital = false) {
    static const HChar* const names[2][2] = {{"lost at start-up", "Lost at start-up"},
                                             {"lost by teardown", "Lost by teardown"}};
    return names[part == kTeardownPart][capital];
}

// Why a part's blocks are its: "reachable when exit() began".
void part_reason(UInt part, ULong startup_end, HChar* out, SizeT size) {
    if (part == kStartupPart)
        VG_(snprintf)(out, size, "allocated before the warm-up ended, at clock %'llu", startup_end);
    else
        VG_(snprintf)(out, size, "reachable when %s began", teardown_began_at());
}

// The heading of a part's records: "Lost by teardown (reachable when
// exit() began; not errors):".
void print_part_heading(UInt part, ULong startup_end) {
    HChar why[96];
    part_reason(part, startup_end, why, sizeof why);
    bool errors = clo.errors_for & leak_part_bit(part);
    VG_(umsg)("%s (%s%s):\n\n", part_name(part, true), why, errors ? "" : "; not errors");
}

// A part whose records are not listed, in one line: what they hold and
// the --show-leak-kinds that lists them.
void print_part_line(UInt part, ULong startup_end, ULong records, ULong bytes, ULong blocks) {
    // The option's words for the bits asked for, and the part's.
    HChar kinds[80] = "";
    UInt want = clo.show_leak_kinds | leak_part_bit(part), bit = 0;
    for (const HChar* w = kShowLeakKinds; *w; ++bit) {
        const HChar* end = VG_(strchr)(w, ',');
        SizeT len = end ? static_cast<SizeT>(end - w) : VG_(strlen)(w);
        if (want & (1u << bit)) {
            if (kinds[0]) VG_(strcat)(kinds, ",");
            VG_(strncat)(kinds, w, len);
        }
        w += len + (end != nullptr);
    }
    HChar why[96];
    part_reason(part, startup_end, why, sizeof why);
    VG_(umsg)
    ("%s: %'llu bytes in %'llu blocks in %'llu loss records, not listed (%s%s; "
     "--show-leak-kinds=%s lists them)\n\n",
     part_name(part, true), bytes, blocks, records, why,
     clo.errors_for & leak_part_bit(part) ? "" : "; not errors", kinds);
}

// A loss record's line and its allocation stack (memcheck's pp_LossRecord).
void print_record_head(const Record& r, UInt number, UInt of, bool deltas) {
    HChar d_bytes[40], d_blocks[40], d_direct[40], d_indirect[40];
    delta(d_bytes, r.bytes + r.indirect, r.old_bytes, deltas);
    delta(d_blocks, r.blocks, r.old_blocks, deltas);
    delta(d_direct, r.bytes, r.old_bytes - r.old_indirect, deltas);
    delta(d_indirect, r.indirect, r.old_indirect, deltas);
    // memcheck from 3.21: "in new loss record" in a delta search, for a
    // record without blocks at the previous one.
    const HChar* fresh = vgc::kNewLeakSearch321 && deltas && !r.old_blocks ? "new " : "";
    if (r.indirect) VG_(umsg)
    ("%'llu%s (%'llu%s direct, %'llu%s indirect) bytes in %'llu%s blocks are %s in %sloss record "
     "%u of %u\n",
     r.bytes + r.indirect, d_bytes, r.bytes, d_direct, r.indirect, d_indirect, r.blocks, d_blocks,
     kind_phrase(r.kind), fresh, number, of);
    else VG_(umsg)("%'llu%s bytes in %'llu%s blocks are %s in %sloss record %u of %u\n", r.bytes,
                   d_bytes, r.blocks, d_blocks, kind_phrase(r.kind), fresh, number, of);
    SiteView s(r.site);
    bool first = true;
    for_each_frame(s, print_frame, &first);
    if (first) VG_(umsg)("   (no frames)\n");
}

void print_record(const Record& r, UInt number, UInt of, const Analysis& a, bool deltas) {
    print_record_head(r, number, of, deltas);
    SiteView s(r.site);
    if (r.site < a.n_sites) {
        const Growth& g = a.growth[r.site];
        HChar title[256];
        site_title(s, title, sizeof title);
        VG_(umsg)
        (" memgrow: site %u, %s, grew as %s: %'llu bytes in %'u blocks live %s, peak %'llu\n",
         r.site, title[0] ? LogText(title).c_str() : "(no frames)",
         class_name(a.growth_class[r.site]), static_cast<ULong>(s->clock.live), s->live_blocks,
         tl.torn_down ? "at teardown" : "now", s->peak_bytes);
        if (g.marks_used) VG_(umsg)
        (" memgrow: %u of %u repetitions (marks) added to it\n", g.marks_adding, g.marks_used);
    }
    VG_(umsg)("\n");
    if (VG_(clo_gen_suppressions) > 0 && r.kind != kReachable)
        print_generated_suppression(s, SiteClass::leaked);
}

// Calls f with each loss record: one per site, kind and part (the
// program's, start-up's, teardown's) that has blocks, and, as memcheck keeps
// its loss records from one scan to the next, one without blocks for each of
// the program's that had some at the previous scan (it counts in "of N";
// `changed` lists it as "0 (-70) bytes in 0 (-1) blocks"). A suppressed
// site's lost kinds are left out (the summary counts them as suppressed).
template <class F>
void each_record(const LeakScan& scan, const Analysis& a, const LeakScan* prev, F f) {
    for (UInt id = 0; id < scan.n_sites; ++id) {
        if (SiteView(id)->space == Space::mapped) continue; // memcheck has no such record
        const SiteLeak& sl = scan.site(id);
        const SiteLeak* ps = prev && id < prev->n_sites ? &prev->site(id) : nullptr;
        for (UInt k = 0; k < kLeakKinds; ++k) {
            if (k != kReachable && a.leak_suppressed_by(id)) continue;
            for (UInt part = kOwnPart; part < kLeakParts; ++part) {
                PartLeak now = sl.part(part);
                PartLeak before = ps ? ps->part(part) : PartLeak{};
                if (!now.blocks[k] && (sl.blocks[k] || part != kOwnPart || !before.blocks[k]))
                    continue;
                ULong through = k == kDefinite ? now.indirect_through : 0;
                ULong old_through = k == kDefinite ? before.indirect_through : 0;
                f(Record{id, k, part, now.bytes[k], now.blocks[k], through,
                         before.bytes[k] + old_through, before.blocks[k], old_through});
            }
        }
    }
}

// The loss records of a scan, numbered as the log numbers them: smallest
// first. Counted first: one per (site, kind, part) that has blocks, a few per
// site; sized for every possible one, the table was 656 MB after `import
// torch` (1.3 million sites).
Record* make_records(const LeakScan& scan, const Analysis& a, const LeakScan* prev, UInt* count) {
    UInt n = 0;
    each_record(scan, a, prev, [&n](const Record&) { ++n; });
    auto* records = static_cast<Record*>(VG_(malloc)("mg.leaks.records", (n + 1) * sizeof(Record)));
    n = 0;
    each_record(scan, a, prev, [records, &n](const Record& r) { records[n++] = r; });
    VG_(ssort)(records, n, sizeof(Record), by_size);
    *count = n;
    return records;
}

// The records the log listed last, kept for block_list (which prints each
// record as that listing did: with deltas after a delta scan, as memcheck).
struct RecordTable {
    Record* records = nullptr;
    UInt n = 0;
    UInt scan = 0; // LeakScan::number
    bool deltas = false;
};
RecordTable last_table;

void keep_table(Record* records, UInt n, UInt scan, bool deltas) {
    if (last_table.records) VG_(free)(last_table.records);
    last_table = RecordTable{records, n, scan, deltas};
}

} // namespace

void forget_loss_records() {
    keep_table(nullptr, 0, 0, false);
}

void suppressed_totals(const LeakScan* scan, const Analysis& a, ULong* bytes, ULong* blocks,
                       UInt part) {
    for (UInt k = 0; k <= kLeakKinds; ++k)
        bytes[k] = blocks[k] = 0;
    for (UInt i = 0; i < a.leak_suppressed_by.size(); ++i) {
        UInt id = a.leak_suppressed_by.id_at(i);
        if (id >= scan->n_sites || id >= a.n_sites || SiteView(id)->space == Space::mapped)
            continue;
        const SiteLeak& sl = scan->site(id);
        const PartLeak& l = part == kLeakParts ? sl : sl.apart[part - 1];
        for (UInt k = 0; k < kReachable; ++k) {
            bytes[k] += l.bytes[k], blocks[k] += l.blocks[k];
            bytes[kLeakKinds] += l.bytes[k], blocks[kLeakKinds] += l.blocks[k];
        }
    }
}

// The client's own mappings, which memcheck does not count (their sites are
// classed leaked like any: docs/leak-check.md), beside its summary.
void print_mappings(const LeakScan& scan) {
    if (scan.mapped_blocks[kDefinite] || scan.mapped_blocks[kIndirect] ||
        scan.mapped_blocks[kPossible] || scan.mapped_blocks[kReachable])
        VG_(umsg)
    ("mapped memory (memcheck counts none): %'llu bytes in %'llu mappings definitely lost, "
     "%'llu bytes in %'llu indirectly lost, %'llu bytes in %'llu possibly lost, %'llu bytes in "
     "%'llu still reachable\n",
     scan.mapped_bytes[kDefinite], scan.mapped_blocks[kDefinite], scan.mapped_bytes[kIndirect],
     scan.mapped_blocks[kIndirect], scan.mapped_bytes[kPossible], scan.mapped_blocks[kPossible],
     scan.mapped_bytes[kReachable], scan.mapped_blocks[kReachable]);
}

void print_leaks(const Analysis& a, LeakDelta which, UInt limit, bool by_monitor) {
    bool deltas = which != LeakDelta::any;
    const LeakScan* scan = a.leaks;
    if (!scan) return;
    // A scan that found no block says so in memcheck's words, and nothing
    // else; memcheck forgets its loss records then.
    if (leak_scan_empty(scan)) {
        forget_loss_records();
        if (VG_(clo_verbosity) >= 1)
            VG_(umsg)("All heap blocks were freed -- no leaks are possible\n\n");
        if (VG_(clo_verbosity) >= 1) print_mappings(*scan);
        return;
    }
    const LeakScan* prev = leak_scan_previous();
    if (clo.leak_check == LeakCheck::full) {
        UInt n = 0;
        Record* records = make_records(*scan, a, scan->after_empty ? nullptr : prev, &n);
        // Listed by the delta asked for, then by --show-leak-kinds.
        auto changed = [&](const Record& r) {
            bool more = r.bytes + r.indirect > r.old_bytes || r.blocks > r.old_blocks;
            bool same = r.bytes + r.indirect == r.old_bytes && r.blocks == r.old_blocks;
            return !((which == LeakDelta::any && !r.blocks) ||
                     (which == LeakDelta::increased && !more) ||
                     (which == LeakDelta::changed && same) ||
                     (which == LeakDelta::fresh && r.old_blocks));
        };
        // A part's records are listed when asked for, and when they are errors.
        auto part_shown = [](UInt part) {
            return part == kOwnPart ||
                   ((clo.show_leak_kinds | clo.errors_for) & leak_part_bit(part));
        };
        auto shown = [&](const Record& r) {
            return (clo.show_leak_kinds & (1u << r.kind)) && part_shown(r.part) && changed(r);
        };
        // Records are sorted smallest first: a limit skips the first ones.
        UInt skip = 0;
        if (limit) {
            for (UInt i = 0; i < n; ++i)
                skip += shown(records[i]);
            skip = skip > limit ? skip - limit : 0;
        }
        UInt heading = kOwnPart;
        for (UInt i = 0; i < n; ++i) {
            const Record& r = records[i];
            if (!shown(r)) continue;
            if (skip) {
                --skip;
                continue;
            }
            if (r.part != heading) {
                heading = r.part;
                print_part_heading(r.part, scan->startup_end);
            }
            print_record(r, i + 1, n, a, deltas);
        }
        // A part not listed: one line for all its records.
        for (UInt part = kStartupPart; part < kLeakParts && VG_(clo_verbosity) >= 1; ++part) {
            if (part_shown(part)) continue;
            ULong records_in = 0, bytes = 0, blocks = 0;
            for (UInt i = 0; i < n; ++i) {
                const Record& r = records[i];
                if (r.part != part || r.kind == kReachable || !changed(r)) continue;
                bytes += r.bytes, blocks += r.blocks;
                records_in += (clo.show_leak_kinds & (1u << r.kind)) != 0;
            }
            if (records_in) print_part_line(part, scan->startup_end, records_in, bytes, blocks);
        }
        keep_table(records, n, scan->number, deltas);
    }

    // The summary is for people: -q leaves the loss records (errors), as memcheck.
    if (VG_(clo_verbosity) < 1) return;
    // Lost bytes of suppressed sites move to the "suppressed" line.
    ULong sup[kLeakKinds + 1], sup_blocks[kLeakKinds + 1], psup[kLeakKinds + 1],
        psup_blocks[kLeakKinds + 1];
    suppressed_totals(scan, a, sup, sup_blocks);
    for (UInt k = 0; k <= kLeakKinds; ++k)
        psup[k] = psup_blocks[k] = 0;
    if (prev) suppressed_totals(prev, a, psup, psup_blocks);
    HChar d_bytes[40], d_blocks[40];
    VG_(umsg)("LEAK SUMMARY:\n");
    const HChar* const labels[kLeakKinds] = {"definitely lost", "indirectly lost",
                                             "  possibly lost", "still reachable"};
    for (UInt k = 0; k < kLeakKinds; ++k) {
        ULong bytes = scan->bytes[k] - sup[k], blocks = scan->blocks[k] - sup_blocks[k];
        delta(d_bytes, bytes, prev ? prev->bytes[k] - psup[k] : 0, deltas);
        delta(d_blocks, blocks, prev ? prev->blocks[k] - psup_blocks[k] : 0, deltas);
        VG_(umsg)
        ("   %s: %'llu%s bytes in %'llu%s blocks\n", labels[k], bytes, d_bytes, blocks, d_blocks);
        // As memcheck: a heuristic that reached blocks in this scan or the
        // one before, with its changes in a delta scan.
        if (k == kReachable) {
            const LeakScan* before = leak_scan_previous();
            auto listed = [scan, before](UInt h) {
                return scan->heuristic_blocks[h] || (before && before->heuristic_blocks[h]);
            };
            bool any = false;
            for (UInt h = 1; h < reach::kHeuristicCount; ++h)
                any = any || listed(h);
            if (any) VG_(umsg)("                      of which reachable via heuristic:\n");
            for (UInt h = 1; h < reach::kHeuristicCount; ++h) {
                if (!listed(h)) continue;
                delta(d_bytes, scan->heuristic_bytes[h], before ? before->heuristic_bytes[h] : 0,
                      deltas);
                delta(d_blocks, scan->heuristic_blocks[h], before ? before->heuristic_blocks[h] : 0,
                      deltas);
                VG_(umsg)
                ("                        %-19s: %'llu%s bytes in %'llu%s blocks\n",
                 reach::heuristic_name(h), scan->heuristic_bytes[h], d_bytes,
                 scan->heuristic_blocks[h], d_blocks);
            }
        }
    }
    delta(d_bytes, sup[kLeakKinds], psup[kLeakKinds], deltas);
    delta(d_blocks, sup_blocks[kLeakKinds], psup_blocks[kLeakKinds], deltas);
    VG_(umsg)
    ("        suppressed: %'llu%s bytes in %'llu%s blocks\n", sup[kLeakKinds], d_bytes,
     sup_blocks[kLeakKinds], d_blocks);
    print_mappings(*scan);
    // memcheck's hints, in its words (a monitor command is told its own
    // arguments).
    ULong any_blocks = 0;
    for (UInt k = 0; k < kLeakKinds; ++k)
        any_blocks += scan->blocks[k] - sup_blocks[k];
    if (clo.leak_check != LeakCheck::full && any_blocks) VG_(umsg)
    (by_monitor ? "To see details of leaked memory, give 'full' arg to leak_check\n"
                : "Rerun with --leak-check=full to see details of leaked memory\n");
    if (clo.leak_check == LeakCheck::full && scan->blocks[kReachable] - sup_blocks[kReachable] &&
        !(clo.show_leak_kinds & (1u << kReachable))) {
        VG_(umsg)("Reachable blocks (those to which a pointer was found) are not shown.\n");
        VG_(umsg)
        (by_monitor ? "To see them, add 'reachable any' args to leak_check\n"
                    : "To see them, rerun with: --leak-check=full --show-leak-kinds=all\n");
    }
    // memcheck's totals above are the exit's; these say how much of what
    // they call lost was allocated before start-up ended, and how much was
    // reachable when teardown began.
    for (UInt part = kStartupPart; part < kLeakParts; ++part) {
        if (!leak_part_told(*scan, part)) continue;
        // Of the lost above: a suppressed site's are on the "suppressed" line.
        ULong psup[kLeakKinds + 1], psup_blocks[kLeakKinds + 1];
        suppressed_totals(scan, a, psup, psup_blocks, part);
        ULong bytes = 0, blocks = 0;
        for (UInt k = 0; k < kReachable; ++k)
            bytes += scan->part_bytes[part - 1][k], blocks += scan->part_blocks[part - 1][k];
        bytes -= psup[kLeakKinds], blocks -= psup_blocks[kLeakKinds];
        HChar why[96];
        part_reason(part, scan->startup_end, why, sizeof why);
        VG_(umsg)
        ("  %s: %'llu bytes in %'llu blocks (of the lost above; %s)\n", part_name(part), bytes,
         blocks, why);
    }
    VG_(umsg)("\n");
}

namespace {

// A record's key: the site, the kind and the part.
struct RecordKey {
    UInt site;
    UInt kind;
    UInt part;
    UInt record; // its index in the table
};

Int by_key(const void* x, const void* y) {
    const RecordKey* a = static_cast<const RecordKey*>(x);
    const RecordKey* b = static_cast<const RecordKey*>(y);
    if (a->site != b->site) return a->site < b->site ? -1 : 1;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    return Int(a->part) - Int(b->part);
}

constexpr UInt kNoRecord = ~0u;

// The blocks of each record and the blocks found through each block, in
// address order: index lists by counting sort (first[i]..first[i+1] in order).
struct BlockIndex {
    UInt* record; // by block: its record, or kNoRecord (a suppressed site's lost block)
    UInt* rec_first;
    UInt* rec_order;
    UInt* through_first;
    UInt* through_order;
};

void bucket(const UInt* of, UInt n, UInt buckets, UInt** first, UInt** order) {
    *first = static_cast<UInt*>(VG_(calloc)("mg.leaks.bl", buckets + 2, sizeof(UInt)));
    *order = static_cast<UInt*>(VG_(malloc)("mg.leaks.bl", (n + 1) * sizeof(UInt)));
    UInt* f = *first;
    for (UInt i = 0; i < n; ++i)
        if (of[i] < buckets) f[of[i] + 2]++;
    for (UInt b = 0; b < buckets; ++b)
        f[b + 2] += f[b + 1];
    for (UInt i = 0; i < n; ++i)
        if (of[i] < buckets) (*order)[f[of[i] + 1]++] = i;
    // f[b + 1] is now the end of bucket b, the start of b + 1.
}

BlockIndex index_blocks(const ScannedBlock* blocks, UInt nb, const Record* records, UInt n) {
    auto* keys = static_cast<RecordKey*>(VG_(malloc)("mg.leaks.bl", (n + 1) * sizeof(RecordKey)));
    for (UInt r = 0; r < n; ++r)
        keys[r] = RecordKey{records[r].site, records[r].kind, records[r].part, r};
    VG_(ssort)(keys, n, sizeof(RecordKey), by_key);
    BlockIndex x;
    x.record = static_cast<UInt*>(VG_(malloc)("mg.leaks.bl", (nb + 1) * sizeof(UInt)));
    auto* through = static_cast<UInt*>(VG_(malloc)("mg.leaks.bl", (nb + 1) * sizeof(UInt)));
    for (UInt i = 0; i < nb; ++i) {
        const ScannedBlock& b = blocks[i];
        RecordKey want{b.site, b.kind, b.part, 0};
        x.record[i] = kNoRecord;
        for (UInt lo = 0, hi = n; lo < hi;) {
            UInt mid = lo + (hi - lo) / 2;
            Int c = by_key(&want, &keys[mid]);
            if (c == 0) {
                x.record[i] = keys[mid].record;
                break;
            }
            if (c < 0)
                hi = mid;
            else
                lo = mid + 1;
        }
        through[i] = b.kind == kIndirect ? static_cast<UInt>(b.via) : kNoRecord;
    }
    VG_(free)(keys);
    bucket(x.record, nb, n, &x.rec_first, &x.rec_order);
    bucket(through, nb, nb, &x.through_first, &x.through_order);
    VG_(free)(through);
    return x;
}

void release(BlockIndex& x) {
    VG_(free)(x.record);
    VG_(free)(x.rec_first);
    VG_(free)(x.rec_order);
    VG_(free)(x.through_first);
    VG_(free)(x.through_order);
}

// memcheck's print_clique: the blocks found through block `top`, each with
// those found through it indented below, depth first, in address order;
// each counts against *remaining. A stack instead of recursion: a lost list
// of a million nodes is a million levels.
void print_found_through(UInt top, const ScannedBlock* blocks, UInt nb, const BlockIndex& x,
                         UInt* remaining) {
    struct Level {
        UInt block, next;
    };
    auto* stack = static_cast<Level*>(VG_(malloc)("mg.leaks.bl", (nb + 1) * sizeof(Level)));
    UInt depth = 0;
    stack[depth++] = Level{top, x.through_first[top]};
    while (depth && *remaining) {
        Level& l = stack[depth - 1];
        if (l.next == x.through_first[l.block + 1]) {
            --depth;
            continue;
        }
        UInt c = x.through_order[l.next++];
        for (UInt i = 0; i < depth; ++i)
            VG_(umsg)("  ");
        if (x.record[c] == kNoRecord) VG_(umsg)
        ("%p[%lu] indirect, suppressed\n", reinterpret_cast<void*>(blocks[c].addr), blocks[c].size);
        else VG_(umsg)("%p[%lu] indirect loss record %u\n", reinterpret_cast<void*>(blocks[c].addr),
                       blocks[c].size, x.record[c] + 1);
        --*remaining;
        if (depth < nb) stack[depth++] = Level{c, x.through_first[c]};
    }
    VG_(free)(stack);
}

} // namespace

bool print_block_list(UInt from, UInt to, UInt max_blocks, UInt heuristics) {
    const LeakScan* scan = leak_scan_last();
    UInt nb = 0;
    bool obsolete = false;
    const ScannedBlock* blocks = leak_scan_blocks(&nb, &obsolete);
    if (!scan || !blocks) {
        VG_(umsg)("Can't print block list : no valid leak search result\n");
        return false;
    }
    if (obsolete) {
        VG_(umsg)("Can't print obsolete block list : redo a leak search first\n");
        return false;
    }
    // The scan's records as the log numbered them; after a scan that listed
    // none (summary, a report's), numbered now the same way.
    if (last_table.scan != scan->number || !last_table.records) {
        Analysis a;
        analyse(&a);
        UInt n = 0;
        Record* records = make_records(*scan, a, nullptr, &n);
        analysis_release(&a);
        keep_table(records, n, scan->number, false);
    }
    const RecordTable& t = last_table;
    if (from >= t.n) return false;
    if (to >= t.n) to = t.n - 1;
    BlockIndex x = index_blocks(blocks, nb, t.records, t.n);
    UInt remaining = max_blocks;
    for (UInt r = from; r <= to && remaining; ++r) {
        // One record asked for: shown even without a block to list; of a
        // range, only the records that show a block.
        bool shown = from == to;
        if (shown) print_record_head(t.records[r], r + 1, t.n, t.deltas);
        for (UInt k = x.rec_first[r]; k < x.rec_first[r + 1] && remaining; ++k) {
            UInt i = x.rec_order[k];
            const ScannedBlock& b = blocks[i];
            if (heuristics && !(heuristics & (1u << b.heuristic))) continue;
            if (!shown) print_record_head(t.records[r], r + 1, t.n, t.deltas);
            shown = true;
            if (b.heuristic) VG_(umsg)
            ("%p[%lu] (found via heuristic %s)\n", reinterpret_cast<void*>(b.addr), b.size,
             reach::heuristic_name(b.heuristic));
            else VG_(umsg)("%p[%lu]\n", reinterpret_cast<void*>(b.addr), b.size);
            --remaining;
            // The blocks lost through it (memcheck prints them for every
            // kind but reachable).
            if (b.kind != kReachable) print_found_through(i, blocks, nb, x, &remaining);
        }
    }
    release(x);
    return true;
}

} // namespace mg
