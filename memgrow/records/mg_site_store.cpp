// SPDX-License-Identifier: GPL-2.0-or-later
// Site records by id. Most sites of a big program's start-up are made for
// one block that is freed soon after (896 thousand of the 1.46 million
// sites of `import torch`): such a site's record says nothing its stack,
// its size and its two buckets do not. Once its block has left (out of the
// quarantine, or moved to a reviving site) it is a candidate; every 64 Ki
// candidates (--site-compaction) those still so are copied to a 20-byte
// compact record and their full record's slot is reused. A compact site that allocates again
// is revived into a full record; readers decode it into a view. A record is
// compacted only when decoding it gives it back byte for byte.
#include "records/mg_site_store.hpp"
#include "mg_options.hpp"
#include "records/mg_timeline.hpp"

namespace mg {

namespace {

// What a compact site keeps (a host site, device 0, one block of `size`
// bytes allocated and freed, its sparse series' own fields).
struct CompactSite {
    UInt stack;
    UInt epoch;
    UInt size;
    UShort n_frames;
    UChar bucket0, bucket1, n_and_first, last, gen, folds;
};
static_assert(sizeof(CompactSite) == 20, "keep the compact record small");
// n_and_first: the series' bucket count (0..2), then whether its first
// bucket's level, and its allocations, are `size` (else 0).
constexpr UChar kFirstLevel = 4, kFirstAdded = 8;

// Chunked arrays that never move: records, compact records, and by id the
// slot of each site (a record's, or kCompact | a compact record's).
template <typename T, UInt kBits> class Chunks {
  public:
    static constexpr UInt kChunk = 1u << kBits;
    T& operator[](UInt i) const { return chunks_[i >> kBits][i & (kChunk - 1)]; }
    // Slot i exists (i <= the largest asked for so far + 1).
    void ensure(UInt i, const HChar* cc) {
        UInt c = i >> kBits;
        if (c < n_chunks_) return;
        if (c == cap_) {
            cap_ = cap_ ? cap_ * 2 : 64;
            chunks_ = static_cast<T**>(VG_(realloc)(cc, chunks_, cap_ * sizeof(T*)));
        }
        chunks_[c] = static_cast<T*>(VG_(calloc)(cc, kChunk, sizeof(T)));
        n_chunks_ = c + 1;
    }

  private:
    T** chunks_ = nullptr;
    UInt n_chunks_ = 0, cap_ = 0;
};

constexpr UInt kCompact = 1u << 31;
constexpr UInt kNone = ~0u;

__constinit Chunks<Site, 13> records;
__constinit Chunks<CompactSite, 14> compacts;
__constinit Chunks<UInt, 14> slot_of;
UInt n_sites, n_records, n_compacts;
// Free slots, linked through their `stack` field.
UInt free_record = kNone, free_compact = kNone;

UInt* candidates;
UInt n_candidates, cap_candidates;

SiteStoreStats stats;

UInt new_record_slot() {
    if (free_record != kNone) {
        UInt r = free_record;
        free_record = records[r].stack;
        VG_(memset)(&records[r], 0, sizeof(Site));
        return r;
    }
    records.ensure(n_records, "mg.site");
    return n_records++;
}

void decode(UInt id, const CompactSite& c, Site* s) {
    VG_(memset)(s, 0, sizeof *s);
    s->id = id;
    s->stack = c.stack;
    s->n_frames = c.n_frames;
    s->space = Space::host;
    s->epoch.n = c.epoch;
    s->peak_bytes = c.size;
    s->allocated_blocks = 1;
    s->clock.allocated = c.size;
    s->clock.set_first(c.n_and_first & kFirstLevel ? c.size : 0,
                       c.n_and_first & kFirstAdded ? c.size : 0);
    s->clock.bucket[0] = c.bucket0;
    s->clock.bucket[1] = c.bucket1;
    s->clock.n = c.n_and_first & 3;
    s->clock.last = c.last;
    s->clock.gen = c.gen;
    s->clock.folds = c.folds;
}

// The compact copy of s, when decoding it gives s back exactly.
bool encode(const Site& s, CompactSite* c) {
    if (s.space != Space::host || s.device || s.allocated_blocks != 1 || s.live_blocks_now ||
        s.live_blocks || s.live_bytes_now || s.clock.dense() || s.clock.live ||
        s.peak_bytes > 0xffffffffu || s.clock.n > 2)
        return false;
    UInt size = static_cast<UInt>(s.peak_bytes);
    i64 level = s.clock.first_level();
    u64 added = s.clock.first_added();
    if ((level != 0 && level != size) || (added != 0 && added != size)) return false;
    *c = CompactSite{
        s.stack,
        s.epoch.n,
        size,
        s.n_frames,
        s.clock.bucket[0],
        s.clock.bucket[1],
        static_cast<UChar>(s.clock.n | (level ? kFirstLevel : 0) | (added ? kFirstAdded : 0)),
        s.clock.last,
        s.clock.gen,
        s.clock.folds};
    Site back;
    decode(s.id, *c, &back);
    return VG_(memcmp)(&back, &s, sizeof back) == 0;
}

void compact(UInt id) {
    UInt& slot = slot_of[id];
    if (slot & kCompact) return;
    const Site& s = records[slot];
    if (s.allocated_blocks != 1 || site_marks(&s)) return; // allocated again; marked
    CompactSite c;
    if (!encode(s, &c)) return;
    UInt k;
    if (free_compact != kNone) {
        k = free_compact;
        free_compact = compacts[k].stack;
    } else {
        compacts.ensure(n_compacts, "mg.site.compact");
        k = n_compacts++;
    }
    compacts[k] = c;
    records[slot].stack = free_record;
    free_record = slot;
    slot = kCompact | k;
    ++stats.compacted;
    ++stats.compact_now;
}

} // namespace

Site* site_store_new() {
    slot_of.ensure(n_sites, "mg.site.slots");
    UInt r = new_record_slot();
    slot_of[n_sites] = r;
    Site* s = &records[r];
    s->id = n_sites++;
    return s;
}

UInt site_count() {
    return n_sites;
}

Site* site_at(UInt id) {
    UInt& slot = slot_of[id];
    if (slot & kCompact) {
        UInt k = slot & ~kCompact;
        UInt r = new_record_slot();
        decode(id, compacts[k], &records[r]);
        compacts[k].stack = free_compact;
        free_compact = k;
        slot = r;
        ++stats.revived;
        --stats.compact_now;
    }
    return &records[slot];
}

Site* site_if_full(UInt id) {
    UInt slot = slot_of[id];
    return slot & kCompact ? nullptr : &records[slot];
}

void site_key_of(UInt id, UInt* stack, UInt* key) {
    UInt slot = slot_of[id];
    if (slot & kCompact) {
        *stack = compacts[slot & ~kCompact].stack;
        *key = 0; // host, device 0
        return;
    }
    const Site& s = records[slot];
    *stack = s.stack;
    *key = static_cast<UInt>(s.space) << 8 | s.device;
}

SiteView::SiteView(UInt id) {
    UInt slot = slot_of[id];
    if (!(slot & kCompact)) {
        site_ = &records[slot];
        return;
    }
    decode(id, compacts[slot & ~kCompact], &copy_);
    copy_.clock.sync(tl.run);
    site_ = &copy_;
}

void site_may_be_done(const Site* s) {
    if (s->allocated_blocks != 1 || s->live_blocks_now || s->space != Space::host || tl.torn_down ||
        !clo.site_compaction)
        return;
    if (n_candidates == cap_candidates) {
        cap_candidates = cap_candidates ? cap_candidates * 2 : 1024;
        candidates = static_cast<UInt*>(
            VG_(realloc)("mg.site.candidates", candidates, cap_candidates * sizeof(UInt)));
    }
    candidates[n_candidates++] = s->id;
    ++stats.candidates;
}

bool sites_compact_if_due() {
    if (!clo.site_compaction || n_candidates < clo.site_compaction) return false;
    if (tl.torn_down) { // the frozen state stays as it is
        n_candidates = 0;
        return false;
    }
    ULong before = stats.compacted;
    for (UInt i = 0; i < n_candidates; ++i)
        compact(candidates[i]);
    n_candidates = 0;
    return stats.compacted != before;
}

SiteStoreStats site_store_stats() {
    return stats;
}

} // namespace mg
