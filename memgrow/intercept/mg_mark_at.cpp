// SPDX-License-Identifier: GPL-2.0-or-later
#include "intercept/mg_mark_at.hpp"
#include "mg_options.hpp"
#include "core/json_writer.hpp"
#include "include/memgrow.h"

namespace mg {

namespace {

// At most one spec per 4 characters of clo.mark_at ("m:f,").
constexpr UInt kMaxSpecs = 1024;
__constinit bool called[kMaxSpecs];
__constinit bool installed, hook_removed;

// Calls f(index, spec) for each comma-separated spec of --mark-at (a copy:
// Valgrind's printf has no precision for strings).
template <class F> void for_each_spec(F f) {
    HChar spec[2048]; // as long as clo.mark_at
    UInt index = 0;
    for (const HChar* s = clo.mark_at; *s; ++index) {
        const HChar* comma = VG_(strchr)(s, ',');
        SizeT len = comma ? static_cast<SizeT>(comma - s) : VG_(strlen)(s);
        if (len >= sizeof spec) len = sizeof spec - 1;
        VG_(memcpy)(spec, s, len);
        spec[len] = 0;
        f(index, spec);
        s = comma ? comma + 1 : s + VG_(strlen)(s);
    }
}

} // namespace

void mark_at_event(UWord event, UWord spec) {
    if (event == MEMGROW_MARK_AT_INSTALLED)
        installed = true;
    else if (event == MEMGROW_MARK_AT_CALLED && spec < kMaxSpecs)
        called[spec] = true;
    else if (event == MEMGROW_MARK_AT_HOOK_REMOVED)
        hook_removed = true;
}

void mark_at_print_warnings() {
    for_each_spec([](UInt i, const HChar* spec) {
        if (i < kMaxSpecs && called[i]) return;
        VG_(umsg)
        ("memgrow: --mark-at=%s was never called: no mark came from it%s\n", spec,
         installed ? "" : " (no Python program ran)");
    });
    if (hook_removed) VG_(umsg)
    ("memgrow: --mark-at: the program removed memgrow's hook (sys.setprofile, or "
     "sys.monitoring's tool): its calls after that made no marks\n");
}

void mark_at_write_json(JsonWriter& w) {
    if (!clo.mark_at[0]) return;
    w.key("mark_at");
    w.begin_object();
    w.key("never_called");
    w.begin_array();
    for_each_spec([&w](UInt i, const HChar* spec) {
        if (!(i < kMaxSpecs && called[i])) w.string(spec);
    });
    w.end_array();
    w.member_bool("python", installed);
    w.member_bool("hook_removed", hook_removed);
    w.end_object();
}

} // namespace mg
