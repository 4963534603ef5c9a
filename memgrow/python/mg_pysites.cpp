// SPDX-License-Identifier: GPL-2.0-or-later
#include "python/mg_pysites.hpp"
#include "classify/mg_analysis.hpp"
#include "python/mg_python.hpp"
#include "records/mg_stack_tree.hpp"
#include "core/intern_table.hpp"
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

void* keys_alloc(usize bytes) {
    return VG_(malloc)("mg.pysites.keys", bytes);
}
void keys_free(void* p) {
    VG_(free)(p);
}

} // namespace

void python_sites_build(Analysis* a, const ClassifyParams& p) {
    a->py = nullptr;
    const UInt n = a->n_sites;
    StackWord words[kMaxSiteFrames];
    PySites* py = nullptr;
    UInt cap = 0;
    // Python sites by (stack node, space and device): a key's dense id is
    // the Python site's.
    BasicInternTable<u32, false> keys(keys_alloc, keys_free);
    UInt* last = nullptr; // by Python site id: its last sub-site so far
    for (UInt id = 0; id < n; ++id) {
        SiteView s(id);
        const UInt nw = python_words(s, words);
        if (!nw) continue;
        if (!py) {
            py = static_cast<PySites*>(VG_(calloc)("mg.pysites", 1, sizeof(PySites)));
            py->of_site = static_cast<UInt*>(VG_(malloc)("mg.pysites.of", (n + 1) * sizeof(UInt)));
            py->next = static_cast<UInt*>(VG_(malloc)("mg.pysites.next", (n + 1) * sizeof(UInt)));
            for (UInt i = 0; i < n; ++i)
                py->of_site[i] = py->next[i] = kNoPySite;
        }
        // The Python frames alone are a stack of the tree too.
        const UInt stack = stack_tree_intern(words, nw);
        const UInt k = keys.intern(stack, static_cast<UInt>(s->space) << 8 | s->device);
        tl_assert2(k != keys.kNone, "memgrow: out of Python site ids");
        PySite* ps;
        if (k == py->n) { // new
            // Its series after it, sized to the run: a program like PyTorch
            // has 10^5 Python stacks.
            ps = static_cast<PySite*>(VG_(calloc)(
                "mg.pysite", 1, sizeof(PySite) + (a->n_buckets + a->n_mark_buckets) * sizeof(i64)));
            ps->space = s->space;
            ps->device = s->device;
            ps->stack = stack;
            ps->series = reinterpret_cast<i64*>(ps + 1);
            ps->marks = a->n_mark_buckets ? ps->series + a->n_buckets : nullptr;
            ps->first = id;
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
            ps = py->sites[k];
            py->next[last[k]] = id;
            last[k] = id;
            py->of_site[id] = k;
        }
        ps->n_members++;
        ps->live_bytes += static_cast<ULong>(s->clock.live);
        ps->live_blocks += s->live_blocks;
        if (s->peak_bytes > ps->peak_bytes) ps->peak_bytes = s->peak_bytes;
        ps->allocated_bytes += s->clock.allocated;
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
    keys.reset();
    if (!py) return;
    VG_(free)(last);
    py->growth.init(py->n);
    for (UInt k = 0; k < py->n; ++k) {
        PySite* ps = py->sites[k];
        Growth g = classify(ps->series, a->n_buckets, ps->marks, a->n_mark_buckets, p);
        ps->history = g.cls;
        // The summed level at a bucket end, or a sub-site's own peak if higher.
        for (UInt b = 0; b < a->n_buckets; ++b)
            if (ps->series[b] > 0 && static_cast<ULong>(ps->series[b]) > ps->peak_bytes)
                ps->peak_bytes = static_cast<ULong>(ps->series[b]);
        bool any_classed = false, all_suppressed = true;
        for (UInt id = ps->first; id != kNoPySite; id = py->next[id]) {
            const SiteClass c = a->growth[id].cls;
            if (c == SiteClass::leaked) g.cls = SiteClass::leaked;
            if (c == SiteClass::stable) continue;
            any_classed = true;
            if (!a->class_suppressed_by(id)) all_suppressed = false;
        }
        ps->suppressed = any_classed && all_suppressed;
        ps->cls = g.cls;
        py->growth.set(k, g);
        py->in_class[static_cast<UInt>(g.cls)]++;
    }
    a->py = py;
}

void python_sites_release(Analysis* a) {
    PySites* py = a->py;
    if (!py) return;
    for (UInt k = 0; k < py->n; ++k)
        VG_(free)(py->sites[k]);
    VG_(free)(py->sites);
    py->growth.release();
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
