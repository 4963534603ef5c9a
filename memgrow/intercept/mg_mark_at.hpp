// SPDX-License-Identifier: GPL-2.0-or-later
// What came of --mark-at: memgrow's Python module (python/memgrow/_mark_at.py)
// says when its hooks are in place, when each spec makes its first mark and
// whether the program removed the hook; the run's end names the specs that
// never made a mark, where a typo or a native program would otherwise leave
// the report without marks and without a word.
#pragma once

#include "mg_vg.hpp"

namespace mg {

class JsonWriter;

// VG_USERREQ__MEMGROW_MARK_AT_EVENT: a MemgrowMarkAtEvent and a spec index.
void mark_at_event(UWord event, UWord spec);
// The log's lines at the end of the run: each spec never called, the hook
// removed. Nothing without --mark-at.
void mark_at_print_warnings();
// The report's "mark_at" member of "marks": each spec and whether it made a
// mark, and whether the hook was removed. Nothing without --mark-at.
void mark_at_write_json(JsonWriter& w);

} // namespace mg
