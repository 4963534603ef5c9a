// SPDX-License-Identifier: GPL-2.0-or-later
// The Valgrind tool API, included the one way that works from C++:
// basics and vki outside `extern "C"` (vki has templates), the rest inside.
#pragma once

#include "pub_tool_basics.h"
#include "pub_tool_vki.h"
// Valgrind 3.27's guest state headers end with C11's _Static_assert
// (configure finds out; mg_vg_compat.hpp holds the other differences).
#if MG_VG_C11_STATIC_ASSERT
#define _Static_assert static_assert
#endif
extern "C" {
#include "pub_tool_aspacehl.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_errormgr.h"
#include "pub_tool_execontext.h"
#include "pub_tool_gdbserver.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_libcsetjmp.h"
#include "pub_tool_libcsignal.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_poolalloc.h"
#include "pub_tool_replacemalloc.h"
#include "pub_tool_seqmatch.h"
#include "pub_tool_signals.h"
#include "pub_tool_stacktrace.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_transtab.h"
#include "pub_tool_xarray.h"
#include "pub_tool_addrinfo.h" // needs ExeContext, XArray, VgSectKind
}

// Exported by libcoregrind but missing from the public headers.
extern "C" const HChar* VG_(strerror)(UWord errnum);
extern "C" Addr* VG_(get_ExeContext_StackTrace)(const ExeContext* e);
extern "C" Bool VG_(clo_read_inline_info);
// The core's demangler (C++ names, as in stack traces); *result is valid
// until its next call.
extern "C" void VG_(demangle)(Bool do_cxx_demangling, Bool do_z_demangling, const HChar* orig,
                              const HChar** result);
// The core's suppression files (--suppressions, default.supp) and options
// it owns: memgrow adds its shipped files to the list and matches its class
// suppressions itself (Python frames are not in the core's stacks).
extern "C" XArray* VG_(clo_suppressions);
extern "C" void VG_(add_suppression_file)(const HChar* filename);
extern "C" Bool VG_(clo_default_supp);
extern "C" Int VG_(clo_gen_suppressions);
// Whether the core explains decode failures (--sigill-diagnostics).
extern "C" Bool VG_(clo_sigill_diag);
// Whether execs are followed (--trace-children): memgrow follows launchers.
extern "C" Bool VG_(clo_trace_children);
// How many sectors of translations the core keeps (--num-transtab-sectors),
// read when the translation cache is made, after post_clo_init.
extern "C" UInt VG_(clo_num_transtab_sectors);
// The exit code when errors were found (--error-exitcode): a lost report
// sets it (--lost-report-exitcode).
extern "C" Int VG_(clo_error_exitcode);
extern "C" Int VG_(access)(const HChar* path, Bool irusr, Bool iwusr, Bool ixusr);

#include "mg_vg_compat.hpp"
