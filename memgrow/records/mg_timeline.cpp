// SPDX-License-Identifier: GPL-2.0-or-later
#include "records/mg_timeline.hpp"
#include "mg_options.hpp"
#include "pages/mg_resident.hpp"

namespace mg {

// The tool runs no global constructors: __constinit proves none is needed.
__constinit Timeline tl;

void timeline_init() {
    for (UInt i = 0; i < kSpaces; ++i)
        tl.totals[i].clear();
    tl.resident.clear();
    if (clo.time_unit == TimeUnit::millis) tl.start_ms = VG_(read_millisecond_timer)();
}

ULong* instruction_counter() {
    return &tl.instructions;
}

ULong clock_now() {
    switch (clo.time_unit) {
    case TimeUnit::instructions:
        return tl.instructions;
    case TimeUnit::millis:
        return VG_(read_millisecond_timer)() - tl.start_ms;
    default:
        return tl.bytes_allocated;
    }
}

ULong clock_end() {
    return tl.torn_down ? tl.teardown_at : clock_now();
}

// The mark histories by site id, kept out of the sites: only a program
// that marks has any, and then only the sites touched since its first mark.
static SiteSeries** mark_series;
static UInt mark_series_cap;

const SiteSeries* site_marks(const Site* s) {
    return s->id < mark_series_cap ? mark_series[s->id] : nullptr;
}

// A site's mark history starts when it is first touched after the first
// mark: until then its level was constant, so bucket 0 holds it.
static SiteSeries* marks_of(Site* s) {
    if (s->id >= mark_series_cap) {
        UInt cap = site_count() + 1024;
        if (cap < mark_series_cap * 2) cap = mark_series_cap * 2;
        mark_series = static_cast<SiteSeries**>(
            VG_(realloc)("mg.site.marks", mark_series, cap * sizeof(SiteSeries*)));
        for (UInt i = mark_series_cap; i < cap; ++i)
            mark_series[i] = nullptr;
        mark_series_cap = cap;
    }
    SiteSeries*& m = mark_series[s->id];
    if (!m) {
        m = static_cast<SiteSeries*>(VG_(malloc)("mg.site.marks", sizeof(SiteSeries)));
        m->clear();
        m->live = s->clock.live;
        m->live_end[0] = s->clock.live;
    }
    return m;
}

static void* dense_series(usize bytes) {
    return VG_(malloc)("mg.site.series", bytes);
}

// The end of the warm-up starts the run clock's buckets afresh (see
// BucketClock::fold). --warmup=N puts it at clock N; --warmup=P% leaves it to
// the end of the run (unknown until then), so nothing folds.
static bool folds_on_request() {
    return !clo.warmup_given;
}

static void fold_run_clock(ULong t) {
    tl.run.advance(t);
    tl.run.fold(t);
    tl.startup_units = 0;
}

// The resident bytes now, as the level of the clock's current bucket.
static void sample_resident() {
    tl.resident.add(tl.run, static_cast<i64>(resident_bytes_now()) - tl.resident.live);
}

// Pages given back since the last sample, past kReleaseSampleBytes: the
// next bucket's end samples however recent the last sample is, or the level
// from before the release stood for the buckets after it (a 64 MiB
// MADV_DONTNEED followed by quick small allocations kept 58 MiB resident for
// 35 buckets: issue 43, B12).
constexpr SizeT kReleaseSampleBytes = 1 << 20;
static bool pages_released;

void timeline_pages_released(SizeT bytes) {
    if (bytes >= kReleaseSampleBytes) pages_released = true;
}

// At a bucket's end: a sample costs 0.1 to 0.3 ms (a mincore per run of
// mappings), and the clock leaves about a thousand buckets over a long run,
// most of them in its first moments; within 50 ms of the last sample, the
// bucket keeps that one's level unless pages were given back since
// (docs/pages.md).
static void sample_resident_at_bucket_end() {
    constexpr UInt kMinGapMs = 50;
    static UInt last_ms;
    static bool sampled;
    UInt ms = VG_(read_millisecond_timer)();
    if (sampled && ms - last_ms < kMinGapMs && !pages_released) return;
    sampled = true;
    last_ms = ms;
    pages_released = false;
    sample_resident();
}

// Mappings do not move the default clock: a thread's stack (8 MiB, mostly
// untouched) or a pool's reservation would squeeze a small program's work
// into its last buckets; the clock stays the heap's bytes allocated.
static bool moves_clock(const Site* s) {
    return s->space != Space::mapped;
}

// `moves`: the clock units the change itself adds (an allocation's bytes
// under the bytes-allocated clock).
static void record(Site* s, i64 delta, ULong moves = 0) {
    if (tl.n_marks) marks_of(s)->add(tl.marks, delta); // before the level changes
    ULong now = clock_now();
    if (now >= tl.run.end_of(tl.run.current)) sample_resident_at_bucket_end();
    if (clo.warmup_units && !tl.run.folds && now >= clo.warmup_units) fold_run_clock(now);
    tl.run.advance(now);
    // An allocation that carries the clock to its bucket's end is in flight
    // there: the level at that end is the one before it. Counted with it, a
    // block freed at once (malloc; free) or a buffer rebuilt longer (the old
    // and the new copy) is live at every bucket's end that its own bytes
    // crossed (docs/classification.md, "Input").
    const bool in_flight = moves && now + moves >= tl.run.end_of(tl.run.current);
    s->clock.add(tl.run, delta, dense_series, in_flight);
    tl.totals[static_cast<UInt>(s->space)].add(tl.run, delta, in_flight);
}

// Clock units an allocation of `bytes` at s adds.
static ULong clock_moves(const Site* s, SizeT bytes) {
    return clo.time_unit == TimeUnit::bytes && moves_clock(s) ? bytes : 0;
}

void timeline_alloc(Site* s, SizeT bytes) {
    s->live_bytes_now += bytes;
    s->live_blocks_now++;
    if (tl.torn_down) return;
    // An allocation happens when it starts: a big one at start-up belongs
    // to the start, not to the span of clock its own bytes make.
    record(s, static_cast<i64>(bytes), clock_moves(s, bytes));
    if (moves_clock(s)) tl.bytes_allocated += bytes;
    s->live_blocks++;
    s->allocated_blocks++;
    if (static_cast<ULong>(s->clock.live) > s->peak_bytes) s->peak_bytes = s->clock.live;
}

void timeline_free(Site* s, SizeT bytes) {
    s->live_bytes_now -= bytes;
    s->live_blocks_now--;
    if (tl.torn_down) return;
    record(s, -static_cast<i64>(bytes));
    s->live_blocks--;
}

void timeline_split(Site* s) {
    s->live_blocks_now++;
    if (!tl.torn_down) s->live_blocks++;
}

void timeline_resize(Site* s, SizeT from, SizeT to) {
    s->live_bytes_now += to - from; // modulo 2^64: a shrink subtracts
    if (tl.torn_down) return;
    record(s, static_cast<i64>(to) - static_cast<i64>(from),
           to > from ? clock_moves(s, to - from) : 0);
    if (to <= from) return;
    if (moves_clock(s)) tl.bytes_allocated += to - from;
    if (static_cast<ULong>(s->clock.live) > s->peak_bytes) s->peak_bytes = s->clock.live;
}

void timeline_recharge(Site* from, Site* to, SizeT bytes) {
    from->live_bytes_now -= bytes;
    from->live_blocks_now--;
    to->live_bytes_now += bytes;
    to->live_blocks_now++;
    if (tl.torn_down) return;
    record(from, -static_cast<i64>(bytes));
    from->live_blocks--;
    // The reviving line allocated it, as the program sees it.
    record(to, static_cast<i64>(bytes));
    to->live_blocks++;
    to->allocated_blocks++;
    if (static_cast<ULong>(to->clock.live) > to->peak_bytes) to->peak_bytes = to->clock.live;
    site_may_be_done(from);
}

void timeline_park(UInt id, SizeT bytes, ULong birth) {
    // Out since the block's birth (its malloc or its last revival): a free
    // list's object died soon after, as a temporary does; taken out at the
    // end only, it would read as a release at teardown (the classifier then
    // judges the history before it). The marks' view: at its end.
    Site* s = site_at(id);
    const i64 out = static_cast<i64>(bytes);
    if (tl.n_marks) marks_of(s)->add(tl.marks, -out);
    const u32 from = tl.run.bucket_of(birth);
    s->clock.remove_since(tl.run, from, out, dense_series);
    tl.totals[static_cast<UInt>(s->space)].remove_since(tl.run, from, out);
    s->live_blocks--;
}

void timeline_mark(const HChar* label) {
    if (tl.torn_down) return;
    // The log says "per step" when every mark says "step".
    if (!label || !label[0] || (tl.n_marks && VG_(strcmp)(tl.mark_label, label) != 0))
        tl.mark_label[0] = 0;
    else if (tl.n_marks == 0)
        VG_(strncpy)(tl.mark_label, label, sizeof tl.mark_label - 1);
    if (tl.n_marks == 0) {
        tl.first_mark_at = clock_now();
        if (folds_on_request()) fold_run_clock(tl.first_mark_at);
    }
    tl.n_marks++;
    tl.last_mark_at = clock_now();
    tl.marks.advance(tl.n_marks);
}

void timeline_warmup_end() {
    if (tl.torn_down || tl.warmup_ended) return;
    tl.warmup_ended = true;
    tl.warmup_end_at = clock_now();
    if (folds_on_request()) fold_run_clock(tl.warmup_end_at);
}

void timeline_warmup_announced() {
    tl.warmup_announced = true;
}

ULong timeline_startup_end(bool* announced) {
    bool known = (clo.warmup_given && clo.warmup_units) ||
                 (!clo.warmup_given && (tl.warmup_ended || tl.n_marks || tl.startup_folded_at));
    if (announced) *announced = known;
    if (clo.warmup_given) return clo.warmup_units;
    if (!known) return 0;
    ULong w = tl.warmup_end_at > tl.first_mark_at ? tl.warmup_end_at : tl.first_mark_at;
    return tl.startup_folded_at > w ? tl.startup_folded_at : w;
}

// The CUDA driver's start-up allocates tens of MB of host memory once: on an
// H100 (driver 580, CUDA 13) cuInit and the primary context's creation took
// 46 MB inside a program's first cudaMalloc, ten times what the program
// allocated after it. Counted as run clock, that start-up squeezed the
// program's own work into the last 5 of 48 buckets (a ring of buffers read
// as growing) and made the driver's own tables 36 "growing" sites. So the
// end of a start-up call is a warm-up end, as CPython's start is: it folds
// the run clock, when the start-up calls took at least half of the clock
// since the last fold (a service that starts CUDA after hours of host work
// keeps its history), unless the program announced its own warm-up or
// marks, or --warmup was given.
void timeline_device_startup(bool begin) {
    if (tl.torn_down) return;
    ULong now = clock_now();
    if (begin) {
        if (tl.startup_depth++ == 0) tl.startup_began_at = now;
        return;
    }
    if (tl.startup_depth == 0 || --tl.startup_depth > 0) return;
    ULong since_fold = now - (tl.run.folds ? tl.run.origin : 0);
    tl.startup_units += now - tl.startup_began_at;
    if (!folds_on_request() || tl.warmup_announced || tl.n_marks) return;
    if (tl.startup_units == 0 || tl.startup_units * 2 < since_fold) return;
    if (VG_(clo_verbosity) > 1) VG_(umsg)
    ("memgrow: the CUDA driver's start-up took %'llu of the run clock's %'llu; "
     "the warm-up ends after it\n",
     tl.startup_units, now);
    fold_run_clock(now);
    tl.startup_folded_at = now;
}

bool timeline_teardown(UInt reason) {
    if (tl.torn_down) return false;
    tl.teardown_at = clock_now();
    tl.run.advance(tl.teardown_at);
    sample_resident();
    tl.resident_at_teardown = static_cast<ULong>(tl.resident.live);
    resident_files_at_teardown();
    tl.teardown_reason = reason;
    tl.torn_down = true;
    return true;
}

void timeline_sync_all() {
    if (!tl.torn_down) tl.run.advance(clock_now());
    for (UInt i = 0; i < kSpaces; ++i)
        tl.totals[i].sync(tl.run);
    tl.resident.sync(tl.run);
    for (UInt id = 0; id < site_count(); ++id) {
        // A compact site is synced when it is read (SiteView).
        if (Site* s = site_if_full(id)) s->clock.sync(tl.run);
        if (id < mark_series_cap && mark_series[id]) mark_series[id]->sync(tl.marks);
    }
}

} // namespace mg
