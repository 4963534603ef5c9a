// The leak scan in the log, the way memcheck prints it (loss records grouped
// by stack, smallest first, then the LEAK SUMMARY), with memgrow's growth
// view of each record's site.
#include "output/mg_report.hpp"
#include "checks/mg_suppressions.hpp"
#include "records/mg_symbols.hpp"
#include "records/mg_timeline.hpp"

namespace mg {

namespace {

struct Record {
    UInt site;
    UInt kind;
    bool teardown;                 // the part teardown lost (reachable when it began)
    ULong bytes, blocks, indirect; // indirect: lost through a definite record
    ULong old_bytes, old_blocks;   // in the previous scan (bytes: direct and indirect)
    ULong old_indirect;
};

// The program's records first, then teardown's, each smallest first.
Int by_size(const void* x, const void* y) {
    const Record* a = static_cast<const Record*>(x);
    const Record* b = static_cast<const Record*>(y);
    if (a->teardown != b->teardown) return a->teardown ? 1 : -1;
    ULong sa = a->bytes + a->indirect, sb = b->bytes + b->indirect;
    if (sa != sb) return sa < sb ? -1 : 1;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
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

void print_record(const Record& r, UInt number, UInt of, const Analysis& a, bool deltas) {
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
    const Site* s = site_at(r.site);
    bool first = true;
    for_each_frame(s, print_frame, &first);
    if (first) VG_(umsg)("   (no frames)\n");
    if (r.site < a.n_sites) {
        const Growth& g = a.growth[r.site];
        HChar title[256];
        site_title(s, title, sizeof title);
        VG_(umsg)
        (" memgrow: site %u, %s, grew as %s: %'llu bytes in %'llu blocks live %s, peak %'llu\n",
         r.site, title[0] ? title : "(no frames)", class_name(a.growth_class[r.site]),
         static_cast<ULong>(s->clock.live), s->live_blocks, tl.torn_down ? "at teardown" : "now",
         s->peak_bytes);
        if (g.marks_used) VG_(umsg)
        (" memgrow: %u of %u repetitions (marks) added to it\n", g.marks_adding, g.marks_used);
    }
    VG_(umsg)("\n");
    if (VG_(clo_gen_suppressions) > 0 && r.kind != kReachable)
        print_generated_suppression(s, SiteClass::leaked);
}

// Calls f with each loss record: one per site, kind and part (the
// program's, teardown's) that has blocks. A suppressed site's lost kinds are
// left out (the summary counts them as suppressed).
template <class F>
void each_record(const LeakScan& scan, const Analysis& a, const LeakScan* prev, F f) {
    for (UInt id = 0; id < scan.n_sites; ++id) {
        const SiteLeak& sl = scan.sites[id];
        for (UInt k = 0; k < kLeakKinds; ++k) {
            if (!sl.blocks[k]) continue;
            if (a.leak_suppressed_by && a.leak_suppressed_by[id] && k != kReachable) continue;
            for (int part = 0; part < 2; ++part) {
                bool td = part == 1;
                ULong bytes = td ? sl.teardown_bytes[k] : sl.bytes[k] - sl.teardown_bytes[k];
                ULong blocks = td ? sl.teardown_blocks[k] : sl.blocks[k] - sl.teardown_blocks[k];
                ULong through = k != kDefinite ? 0
                                : td           ? sl.teardown_indirect_through
                                               : sl.indirect_through - sl.teardown_indirect_through;
                if (!blocks) continue;
                Record r{id, k, td, bytes, blocks, through, 0, 0, 0};
                if (prev && id < prev->n_sites) {
                    const SiteLeak& ps = prev->sites[id];
                    ULong pb = td ? ps.teardown_bytes[k] : ps.bytes[k] - ps.teardown_bytes[k];
                    ULong pt = k != kDefinite ? 0
                               : td           ? ps.teardown_indirect_through
                                              : ps.indirect_through - ps.teardown_indirect_through;
                    r.old_bytes = pb + pt;
                    r.old_indirect = pt;
                    r.old_blocks =
                        td ? ps.teardown_blocks[k] : ps.blocks[k] - ps.teardown_blocks[k];
                }
                f(r);
            }
        }
    }
}

} // namespace

void suppressed_totals(const LeakScan* scan, const Analysis& a, ULong* bytes, ULong* blocks) {
    for (UInt k = 0; k <= kLeakKinds; ++k)
        bytes[k] = blocks[k] = 0;
    if (!a.leak_suppressed_by) return;
    for (UInt id = 0; id < scan->n_sites && id < a.n_sites; ++id) {
        if (!a.leak_suppressed_by[id]) continue;
        for (UInt k = 0; k < kReachable; ++k) {
            bytes[k] += scan->sites[id].bytes[k], blocks[k] += scan->sites[id].blocks[k];
            bytes[kLeakKinds] += scan->sites[id].bytes[k];
            blocks[kLeakKinds] += scan->sites[id].blocks[k];
        }
    }
}

void print_leaks(const Analysis& a, LeakDelta which, UInt limit) {
    bool deltas = which != LeakDelta::any;
    const LeakScan* scan = a.leaks;
    if (!scan) return;
    const LeakScan* prev = deltas ? leak_scan_previous() : nullptr;
    if (clo.leak_check == LeakCheck::full) {
        // Counted first: one per (site, kind, part) that has blocks, a few
        // per site; sized for every possible one, the table was 656 MB after
        // `import torch` (1.3 million sites).
        UInt n = 0;
        each_record(*scan, a, prev, [&n](const Record&) { ++n; });
        auto* records =
            static_cast<Record*>(VG_(malloc)("mg.leaks.records", (n + 1) * sizeof(Record)));
        n = 0;
        each_record(*scan, a, prev, [records, &n](const Record& r) { records[n++] = r; });
        VG_(ssort)(records, n, sizeof(Record), by_size);
        auto shown = [&](const Record& r) {
            if (!(clo.show_leak_kinds & (1u << r.kind))) return false;
            if (r.teardown && !(clo.show_leak_kinds & kTeardownBit)) return false;
            bool more = r.bytes + r.indirect > r.old_bytes || r.blocks > r.old_blocks;
            bool same = r.bytes + r.indirect == r.old_bytes && r.blocks == r.old_blocks;
            return !((which == LeakDelta::increased && !more) ||
                     (which == LeakDelta::changed && same) ||
                     (which == LeakDelta::fresh && r.old_blocks));
        };
        // Records are sorted smallest first: a limit skips the first ones.
        UInt skip = 0;
        if (limit) {
            for (UInt i = 0; i < n; ++i)
                skip += shown(records[i]);
            skip = skip > limit ? skip - limit : 0;
        }
        bool heading = false;
        for (UInt i = 0; i < n; ++i) {
            const Record& r = records[i];
            if (!shown(r)) continue;
            if (skip) {
                --skip;
                continue;
            }
            if (r.teardown && !heading) {
                heading = true;
                VG_(umsg)
                ("Lost by teardown (reachable when %s began; not errors):\n\n",
                 teardown_began_at());
            }
            print_record(r, i + 1, n, a, deltas);
        }
        VG_(free)(records);
    }

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
        if (k == kReachable && scan->bytes[k]) {
            bool any = false;
            for (UInt h = 1; h < reach::kHeuristicCount; ++h)
                any = any || scan->heuristic_blocks[h];
            if (any) VG_(umsg)("                      of which reachable via heuristic:\n");
            for (UInt h = 1; h < reach::kHeuristicCount; ++h)
                if (scan->heuristic_blocks[h]) VG_(umsg)
            ("                        %-19s: %'llu bytes in %'llu blocks\n",
             reach::heuristic_name(h), scan->heuristic_bytes[h], scan->heuristic_blocks[h]);
        }
    }
    delta(d_bytes, sup[kLeakKinds], psup[kLeakKinds], deltas);
    delta(d_blocks, sup_blocks[kLeakKinds], psup_blocks[kLeakKinds], deltas);
    VG_(umsg)
    ("        suppressed: %'llu%s bytes in %'llu%s blocks\n", sup[kLeakKinds], d_bytes,
     sup_blocks[kLeakKinds], d_blocks);
    // memcheck's totals above are the exit's; this says how much of what
    // they call lost was reachable when teardown began.
    if (scan->teardown_scanned) {
        ULong bytes = 0, blocks = 0;
        for (UInt k = 0; k < kReachable; ++k)
            bytes += scan->teardown_bytes[k], blocks += scan->teardown_blocks[k];
        VG_(umsg)
        ("  lost by teardown: %'llu bytes in %'llu blocks (of the lost above; reachable when %s "
         "began)\n",
         bytes, blocks, teardown_began_at());
    }
    VG_(umsg)("\n");
}

} // namespace mg
