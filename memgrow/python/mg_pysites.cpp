#include "python/mg_pysites.hpp"
#include "classify/mg_analysis.hpp"
#include "python/mg_python.hpp"
#include "records/mg_stack_tree.hpp"
#include "core/py_user.hpp"

namespace mg {

namespace {

UInt python_words(const Site* s, StackWord* out) {
    StackWord words[kMaxSiteFrames];
    UInt n = 0, n_words = site_frames(s, words);
    for (UInt i = 0; i < n_words; ++i)
        if (words[i] & kPythonFrameTag) out[n++] = words[i];
    return n;
}

bool same_stack(const PySite* ps, const Site* s, UInt stack) {
    return ps->stack == stack && ps->space == s->space && ps->device == s->device;
}

} // namespace

void python_sites_build(Analysis* a, const ClassifyParams& p) {
    a->py = nullptr;
    const UInt n = a->n_sites;
    StackWord words[kMaxSiteFrames];
    PySites* py = nullptr;
    UInt buckets = 0, cap = 0;
    PySite** table = nullptr;
    UInt* last = nullptr; // by Python site id: its last sub-site so far
    for (UInt id = 0; id < n; ++id) {
        const Site* s = site_at(id);
        const UInt nw = python_words(s, words);
        if (!nw) continue;
        if (!py) {
            py = static_cast<PySites*>(VG_(calloc)("mg.pysites", 1, sizeof(PySites)));
            py->of_site = static_cast<UInt*>(VG_(malloc)("mg.pysites.of", (n + 1) * sizeof(UInt)));
            py->next = static_cast<UInt*>(VG_(malloc)("mg.pysites.next", (n + 1) * sizeof(UInt)));
            for (UInt i = 0; i < n; ++i)
                py->of_site[i] = py->next[i] = kNoPySite;
            buckets = 1024;
            while (buckets < n)
                buckets *= 2;
            table = static_cast<PySite**>(VG_(calloc)("mg.pysites.t", buckets, sizeof(PySite*)));
        }
        // The Python frames alone are a stack of the tree too.
        const UInt stack = stack_tree_intern(words, nw);
        const UWord h =
            (stack * 0x9E3779B97F4A7C15ull >> 20) ^ (static_cast<UWord>(s->space) << 8 | s->device);
        PySite* ps = table[h & (buckets - 1)];
        while (ps && !(ps->hash == h && same_stack(ps, s, stack)))
            ps = ps->next_in_bucket;
        if (!ps) {
            ps = static_cast<PySite*>(VG_(calloc)("mg.pysite", 1, sizeof(PySite)));
            ps->hash = h;
            ps->space = s->space;
            ps->device = s->device;
            ps->stack = stack;
            // Sized to the run: a program like PyTorch has 10^5 Python stacks.
            ps->series = static_cast<i64*>(
                VG_(calloc)("mg.pysite.series", a->n_buckets + a->n_mark_buckets, sizeof(i64)));
            ps->marks = a->n_mark_buckets ? ps->series + a->n_buckets : nullptr;
            ps->first = id;
            ps->next_in_bucket = table[h & (buckets - 1)];
            table[h & (buckets - 1)] = ps;
            if (py->n == cap) {
                cap = cap ? cap * 2 : 256;
                py->sites = static_cast<PySite**>(
                    VG_(realloc)("mg.pysites.s", py->sites, cap * sizeof(PySite*)));
                last = static_cast<UInt*>(VG_(realloc)("mg.pysites.l", last, cap * sizeof(UInt)));
            }
            last[py->n] = id;
            py->of_site[id] = py->n;
            py->sites[py->n++] = ps;
        } else {
            const UInt k = py->of_site[ps->first];
            py->next[last[k]] = id;
            last[k] = id;
            py->of_site[id] = k;
        }
        ps->n_members++;
        ps->live_bytes += static_cast<ULong>(s->clock.live);
        ps->live_blocks += s->live_blocks;
        if (s->peak_bytes > ps->peak_bytes) ps->peak_bytes = s->peak_bytes;
        ps->allocated_bytes += s->allocated_bytes;
        ps->allocated_blocks += s->allocated_blocks;
        ps->at_exit_bytes += s->live_bytes_now;
        ps->at_exit_blocks += s->live_blocks_now;
        i64 levels[kBuckets];
        const i64* l = s->clock.levels(levels, a->n_buckets);
        for (UInt b = 0; b < a->n_buckets; ++b)
            ps->series[b] += l[b];
        if (a->n_mark_buckets) {
            i64 scratch[kBuckets];
            const i64* m = mark_levels(s, a->n_mark_buckets, scratch);
            for (UInt b = 0; b < a->n_mark_buckets; ++b)
                ps->marks[b] += m[b];
        }
    }
    if (!py) return;
    VG_(free)(table);
    VG_(free)(last);
    for (UInt k = 0; k < py->n; ++k) {
        PySite* ps = py->sites[k];
        ps->next_in_bucket = nullptr;
        ps->growth = classify(ps->series, a->n_buckets, ps->marks, a->n_mark_buckets, p);
        ps->history = ps->growth.cls;
        // The summed level at a bucket end, or a sub-site's own peak if higher.
        for (UInt b = 0; b < a->n_buckets; ++b)
            if (ps->series[b] > 0 && static_cast<ULong>(ps->series[b]) > ps->peak_bytes)
                ps->peak_bytes = static_cast<ULong>(ps->series[b]);
        bool any_classed = false, all_suppressed = true;
        for (UInt id = ps->first; id != kNoPySite; id = py->next[id]) {
            const SiteClass c = a->growth[id].cls;
            if (c == SiteClass::leaked) ps->growth.cls = SiteClass::leaked;
            if (c == SiteClass::stable) continue;
            any_classed = true;
            if (!a->class_suppressed_by(id)) all_suppressed = false;
        }
        ps->suppressed = any_classed && all_suppressed;
        py->in_class[static_cast<UInt>(ps->growth.cls)]++;
    }
    a->py = py;
}

void python_sites_release(Analysis* a) {
    PySites* py = a->py;
    if (!py) return;
    for (UInt k = 0; k < py->n; ++k) {
        VG_(free)(py->sites[k]->series);
        VG_(free)(py->sites[k]);
    }
    VG_(free)(py->sites);
    VG_(free)(py->of_site);
    VG_(free)(py->next);
    VG_(free)(py);
    a->py = nullptr;
}

void python_site_headline(const PySite* ps, const HChar** function, const HChar** file, Int* line) {
    *function = *file = nullptr;
    *line = 0;
    bool found = false;
    for (UInt node = ps->stack; node != kEmptyStack; node = stack_tree_caller(node)) {
        const HChar *fn, *f;
        Int l;
        if (!python_frame_name(stack_tree_word(node), &fn, &f, &l)) continue;
        if (!found) *function = fn, *file = f, *line = l, found = true;
        if (!python_library_file(f)) {
            *function = fn, *file = f, *line = l;
            return;
        }
    }
}

} // namespace mg
