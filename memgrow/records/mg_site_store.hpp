// SPDX-License-Identifier: GPL-2.0-or-later
// Where the site records live: by id, a full record, or for a site that
// held one block and freed it (most of the million sites of `import
// torch`) a compact one of 20 bytes instead of 88, revived when the site
// allocates again.
#pragma once

#include "records/mg_sites.hpp"

namespace mg {

// No site (an id).
constexpr UInt kNoSite = ~0u;

// A new record, zeroed, with the next id.
Site* site_store_new();
UInt site_count();
// The record of a site to update (an allocation's, a free's): a compact
// one is revived first.
Site* site_at(UInt id);
// Its record when it has one, else null (a compact site).
Site* site_if_full(UInt id);
// Its stack node and key (space and device as mg_sites.cpp combines them),
// without reviving it.
void site_key_of(UInt id, UInt* stack, UInt* key);

// A site to read (the reports, error messages): its record, or a compact
// site decoded into the view with its series synced to the run clock.
// Valid while the view lives; nothing read through it is kept.
class SiteView {
  public:
    explicit SiteView(UInt id);
    SiteView(const SiteView&) = delete;
    SiteView& operator=(const SiteView&) = delete;
    const Site* operator->() const { return site_; }
    const Site* get() const { return site_; }
    operator const Site*() const { return site_; }

  private:
    Site copy_;
    const Site* site_;
};

// A host site whose only block left (freed and out of the quarantine, or
// moved to a reviving site): a candidate for a compact record.
void site_may_be_done(const Site* s);
// Compacts the candidates once enough have come; true when it did. Every
// Site* of a compacted site is then stale: callers drop their caches.
bool sites_compact_if_due();

struct SiteStoreStats {
    ULong candidates, compacted, revived;
    UInt compact_now;
};
SiteStoreStats site_store_stats();

} // namespace mg
