// SPDX-License-Identifier: GPL-2.0-or-later
#include "output/mg_live.hpp"
#include "mg_options.hpp"
#include "intercept/mg_requests.hpp"
#include "records/mg_sites.hpp"
#include "records/mg_symbols.hpp"
#include "records/mg_timeline.hpp"

namespace mg {

namespace {

ULong next_ms, next_clock; // the next snapshot's deadline, by wall time or by clock
ULong snapshots, pause_total_ms, pause_max_ms;

// Writes a snapshot; returns its pause in ms.
ULong snapshot() {
    ULong t0 = VG_(read_millisecond_timer)();
    ReportHow how;
    how.scan = false;     // a leak scan reads all memory: on request only
    how.may_wait = false; // the program never stops for a FIFO's reader
    report_now(clo.json_file, how);
    ULong pause = VG_(read_millisecond_timer)() - t0;
    ++snapshots;
    pause_total_ms += pause;
    if (pause > pause_max_ms) pause_max_ms = pause;
    return pause;
}

// A report of a program with many sites takes a while to write: the next
// snapshot waits at least 9 times the last pause, so snapshots never take
// more than a tenth of the run, whatever --report-every asks.
constexpr ULong kPauseShare = 9;

// Called by the scheduler each time it resumes the client (every time
// slice): cheap enough to read the timer, and no allocation is needed for a
// snapshot to come.
void on_start_client_code(ThreadId, ULong) {
    if (clo.report_every_ms) {
        ULong now = VG_(read_millisecond_timer)();
        if (now < next_ms) return;
        ULong pause = snapshot();
        ULong wait =
            clo.report_every_ms > kPauseShare * pause ? clo.report_every_ms : kPauseShare * pause;
        next_ms = VG_(read_millisecond_timer)() + wait;
    } else if (clo.report_every_percent) {
        ULong clock = clock_now();
        if (clock < next_clock) return;
        snapshot(); // geometric steps bound the pauses' share already
        // Geometric: a run of any length gets a bounded number of snapshots.
        next_clock = clock + clock * clo.report_every_percent / 100 + 1;
    }
}

} // namespace

void live_pre_init() {
    VG_(track_start_client_code)(on_start_client_code);
}

void live_init() {
    next_ms = clo.report_every_ms;
    next_clock = 1;
}

ULong live_bytes_now() {
    ULong live = 0;
    for (UInt id = 0; id < site_count(); ++id) {
        SiteView s(id);
        if (s->space == Space::host) live += s->live_bytes_now;
    }
    return live;
}

namespace {
// Each host site's live bytes at the checkpoint (sites made since count 0).
ULong* checkpoint_bytes;
UInt checkpoint_sites;
ULong checkpoint_total;
} // namespace

Long growth_since(HChar* top, SizeT size, bool checkpoint) {
    ULong total = live_bytes_now();
    Long best = 0;
    Int best_id = -1;
    for (UInt id = 0; id < site_count(); ++id) {
        SiteView s(id);
        if (s->space != Space::host) continue;
        Long d = static_cast<Long>(s->live_bytes_now) -
                 static_cast<Long>(id < checkpoint_sites ? checkpoint_bytes[id] : 0);
        if (d > best) best = d, best_id = static_cast<Int>(id);
    }
    if (top && size) {
        top[0] = 0;
        if (best_id >= 0) {
            HChar title[256];
            site_title(SiteView(static_cast<UInt>(best_id)), title, sizeof title);
            VG_(snprintf)(top, size, "%s +%lld bytes", title[0] ? title : "???", best);
        }
    }
    Long delta = static_cast<Long>(total) - static_cast<Long>(checkpoint_total);
    if (checkpoint) {
        if (site_count() > checkpoint_sites) {
            if (checkpoint_bytes) VG_(free)(checkpoint_bytes);
            checkpoint_sites = site_count() + site_count() / 2 + 64;
            checkpoint_bytes =
                static_cast<ULong*>(VG_(malloc)("mg.checkpoint", checkpoint_sites * sizeof(ULong)));
        }
        for (UInt id = 0; id < checkpoint_sites; ++id)
            checkpoint_bytes[id] = id < site_count() ? SiteView(id)->live_bytes_now : 0;
        checkpoint_total = total;
    }
    return delta;
}

void live_print_stats() {
    if (snapshots) VG_(umsg)
    ("memgrow: %'llu snapshots, pauses %'llu ms in all, %'llu ms at most\n", snapshots,
     pause_total_ms, pause_max_ms);
}

} // namespace mg
