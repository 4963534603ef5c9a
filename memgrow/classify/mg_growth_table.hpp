// SPDX-License-Identifier: GPL-2.0-or-later
// Growth evidence by id, each distinct one held once (classify/mg_analysis.cpp
// has the code).
#pragma once

#include "mg_vg.hpp"
#include "core/classify.hpp"

namespace mg {

// Every site's growth evidence, read as growth[id]. Most sites of a big
// program (a million quiet stable stacks) have the same evidence: it is held
// once and a site keeps the index of its own, 4 bytes instead of a Growth.
class GrowthTable {
  public:
    const Growth& operator[](UInt id) const { return distinct_[of_site_[id]]; }
    void init(UInt n_sites);
    void set(UInt id, const Growth& g);
    void release();

  private:
    u32 add(const Growth& g);
    u32* of_site_ = nullptr;
    Growth* distinct_ = nullptr;
    u32 n_ = 0, cap_ = 0;
    u32 previous_ = 0, stable_ = 0; // the candidates a site's evidence is compared with
};

} // namespace mg
