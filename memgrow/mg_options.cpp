// SPDX-License-Identifier: GPL-2.0-or-later
#include "mg_options.hpp"
#include "core/classify.hpp"
#include "core/json_writer.hpp"
#include "core/reachability.hpp"
#include "output/mg_report_file.hpp"

namespace mg {

// The tool runs no global constructors: __constinit proves none is needed.
__constinit Options clo;
bool json_file_existed_at_start;

const HChar* time_unit_name(TimeUnit u) {
    switch (u) {
    case TimeUnit::instructions:
        return "i";
    case TimeUnit::millis:
        return "ms";
    default:
        return "B";
    }
}

static_assert(Options{}.heuristics == reach::kAllHeuristics, "default: every heuristic");
static_assert(Options{}.errors_for == (1u << static_cast<UInt>(SiteClass::leaked)),
              "default: leaked sites are errors (as memcheck's definite leaks)");

const HChar* leak_kind_name(UInt k) {
    const HChar* const names[kLeakKinds] = {"definite", "indirect", "possible", "reachable"};
    return k < kLeakKinds ? names[k] : "?";
}

// Comma-separated sets, "all" and "none" (memcheck's spelling). A "-" token
// holds a bit no name sets.
static Bool parse_set(const HChar* arg, const HChar* val, const HChar* tokens, UInt* out) {
    if (VG_(parse_enum_set)(tokens, True, val, out)) return True;
    if (tokens[0] == '-' && tokens[1] == ',') tokens += 2;
    VG_(fmsg_bad_option)(arg, "expected a comma-separated list of %s, or all or none\n", tokens);
    return False;
}

// --mark-at=MODULE:QUALNAME or --mark-at=torch, repeatable: the specs are
// kept comma-separated for the client (memgrow/_mark_at.py reads them).
// Python names may be any UTF-8 letters (PEP 3131): bytes past ASCII are
// taken as whole UTF-8 sequences; Python compares the names.
static Bool parse_mark_at(const HChar* arg, const HChar* val) {
    static HChar specs[2048];
    constexpr SizeT kMaxSpec = sizeof specs - 2; // with the comma and the NUL
    bool torch = VG_STREQ(val, "torch");
    const HChar* colon = VG_(strchr)(val, ':');
    bool ok = torch || (colon && colon != val && colon[1] != 0 && !VG_(strchr)(colon + 1, ':'));
    for (const HChar* c = val; ok && *c; ++c) {
        if (static_cast<UChar>(*c) >= 0x80) {
            Int len = utf8_length(c);
            if (len == 0) {
                VG_(fmsg_bad_option)(arg, "the name is not valid UTF-8\n");
                return False;
            }
            c += len - 1;
            continue;
        }
        ok = VG_(isdigit)(*c) || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
             *c == '_' || *c == '.' || *c == ':' || *c == '<' || *c == '>';
    }
    if (!ok) {
        VG_(fmsg_bad_option)
        (arg, "expected MODULE:QUALNAME (a Python function, such as "
              "train:Trainer.step) or torch\n");
        return False;
    }
    SizeT used = VG_(strlen)(specs), n = VG_(strlen)(val);
    if (n > kMaxSpec) {
        VG_(fmsg_bad_option)
        (arg, "the name is %lu bytes long: --mark-at takes names of at most %lu bytes\n", n,
         kMaxSpec);
        return False;
    }
    if (used + n + 2 > sizeof specs) {
        VG_(fmsg_bad_option)
        (arg, "too many --mark-at functions: their names add up to more than %lu bytes\n",
         kMaxSpec);
        return False;
    }
    if (used) specs[used++] = ',';
    VG_(strcpy)(specs + used, val);
    clo.mark_at = specs;
    return True;
}

// --warmup=P% (share of the clock) or --warmup=N (clock units).
static Bool parse_warmup(const HChar* arg, const HChar* val) {
    clo.warmup_given = true;
    HChar* end;
    Long n = VG_(strtoll10)(val, &end);
    if (end == val || n < 0) {
        VG_(fmsg_bad_option)(arg, "expected a percentage (5%%) or a number of clock units\n");
        return False;
    }
    if (end[0] == '%' && end[1] == 0) {
        if (n > 90) VG_(fmsg_bad_option)(arg, "the warm-up must be at most 90%% of the run\n");
        clo.warmup_percent = static_cast<UInt>(n);
        clo.warmup_units = 0;
        return True;
    }
    if (end[0] != 0) {
        VG_(fmsg_bad_option)(arg, "expected a percentage (5%%) or a number of clock units\n");
        return False;
    }
    clo.warmup_units = static_cast<ULong>(n);
    clo.warmup_percent = 0;
    return True;
}

// Valgrind's integer macros read an empty value as 0 and let a long one
// wrap around; its set parser reads an empty value as "none". Every memgrow
// option is checked for both before its own parser runs.
static const HChar* const kNumericOptions[] = {"--json-stable-min-bytes",
                                               "--json-format",
                                               "--lost-report-exitcode",
                                               "--depth",
                                               "--startup-depth",
                                               "--mark-warmup",
                                               "--top",
                                               "--quarantine-bytes",
                                               "--freelist-vol",
                                               "--freelist-big-blocks",
                                               "--site-compaction"};
static const HChar* const kOtherValueOptions[] = {"--time-unit",
                                                  "--report-every",
                                                  "--warmup",
                                                  "--leak-check",
                                                  "--show-leak-kinds",
                                                  "--leak-check-heuristics",
                                                  "--errors-for",
                                                  "--python",
                                                  "--emulate-insns",
                                                  "--cuda",
                                                  "--python-malloc",
                                                  "--pytorch-caching",
                                                  "--follow-launchers",
                                                  "--python-test-layout-mismatch",
                                                  "--teardown-scan",
                                                  "--mark-at",
                                                  "--addressability",
                                                  "--partial-loads-ok",
                                                  "--python-free-lists",
                                                  "--json-sites",
                                                  "--fork-pages"};

// The value of arg if it is "name=value", else null.
static const HChar* value_of(const HChar* arg, const HChar* name) {
    SizeT n = VG_(strlen)(name);
    return VG_(strncmp)(arg, name, n) == 0 && arg[n] == '=' ? arg + n + 1 : nullptr;
}

static void check_value(const HChar* arg) {
    for (const HChar* name : kNumericOptions) {
        const HChar* v = value_of(arg, name);
        if (!v) continue;
        if (!*v) VG_(fmsg_bad_option)(arg, "the value is empty: expected a number\n");
        SizeT digits = VG_(strspn)(v[0] == '-' ? v + 1 : v, "0123456789");
        if (digits > 18) VG_(fmsg_bad_option)(arg, "the number is too large\n");
        return;
    }
    for (const HChar* name : kOtherValueOptions) {
        const HChar* v = value_of(arg, name);
        if (v && !*v) VG_(fmsg_bad_option)(arg, "the value is empty\n");
    }
}

// --report-every=30s|10m|1h|500ms (wall time) or N% (of the clock).
static Bool parse_report_every(const HChar* arg, const HChar* val) {
    HChar* end;
    Long n = VG_(strtoll10)(val, &end);
    ULong unit_ms = 0;
    if (VG_STREQ(end, "ms"))
        unit_ms = 1;
    else if (VG_STREQ(end, "s"))
        unit_ms = 1000;
    else if (VG_STREQ(end, "m"))
        unit_ms = 60 * 1000;
    else if (VG_STREQ(end, "h"))
        unit_ms = 3600 * 1000;
    if (end == val || n <= 0 || VG_(strlen)(val) > 12 || (!unit_ms && !VG_STREQ(end, "%"))) {
        VG_(fmsg_bad_option)
        (arg, "expected a positive duration (500ms, 30s, 10m, 1h) or a "
              "share of the clock (10%%)\n");
        return False;
    }
    clo.report_every_ms = unit_ms ? static_cast<ULong>(n) * unit_ms : 0;
    clo.report_every_percent = unit_ms ? 0 : static_cast<UInt>(n);
    return True;
}

// --limit=SIZE: bytes, or K, M, G, T (powers of 1024, as cgroups and
// container runtimes count), an optional B or iB after the letter.
static Bool parse_limit(const HChar* arg, const HChar* val) {
    HChar* end;
    Long n = VG_(strtoll10)(val, &end);
    ULong scale = 1;
    switch (VG_(tolower)(*end)) {
    case 'k':
        scale = 1ull << 10, ++end;
        break;
    case 'm':
        scale = 1ull << 20, ++end;
        break;
    case 'g':
        scale = 1ull << 30, ++end;
        break;
    case 't':
        scale = 1ull << 40, ++end;
        break;
    }
    if (scale > 1 && VG_(strcasecmp)(end, "ib") == 0) end += 2;
    if (VG_(tolower)(*end) == 'b') ++end;
    if (end == val || n <= 0 || *end || static_cast<ULong>(n) > (1ull << 50) / scale) {
        VG_(fmsg_bad_option)(arg, "expected a size in bytes, or with K, M, G or T (16G)\n");
        return False;
    }
    clo.limit_bytes = static_cast<ULong>(n) * scale;
    return True;
}

// --mark-rate=N/s, N/m or N/h (N may have decimals): the program's real
// rate of marks, which Valgrind cannot see. At most 10^9 per second (a
// whole part of more digits would overflow).
static Bool parse_mark_rate(const HChar* arg, const HChar* val) {
    constexpr double kMaxPerH = 3.6e12;
    HChar* end;
    Long whole = VG_(strtoll10)(val, &end);
    double n = static_cast<double>(whole), scale = 1;
    bool digits = end != val && end - val <= 13;
    if (*end == '.')
        for (++end; *end >= '0' && *end <= '9'; ++end)
            scale /= 10, n += (*end - '0') * scale, digits = true;
    double per_h = VG_STREQ(end, "/s")   ? 3600
                   : VG_STREQ(end, "/m") ? 60
                   : VG_STREQ(end, "/h") ? 1
                                         : 0;
    if (!digits || whole < 0 || n <= 0 || per_h == 0 || VG_(strlen)(val) > 24 ||
        n * per_h > kMaxPerH) {
        VG_(fmsg_bad_option)
        (arg, "expected marks per second, minute or hour (100/s, 2.5/h), at most 10^9/s\n");
        return False;
    }
    clo.mark_rate_per_h = n * per_h;
    return True;
}

// One word of a fixed list, stored as the enum value of its position.
template <class E, UInt N>
static Bool parse_word(const HChar* arg, const HChar* val, const HChar* const (&words)[N], E* out,
                       const HChar* expected) {
    for (UInt i = 0; i < N; ++i)
        if (VG_STREQ(val, words[i])) {
            *out = static_cast<E>(i);
            return True;
        }
    VG_(fmsg_bad_option)(arg, "%s\n", expected);
    return False;
}

Bool process_option(const HChar* arg) {
    const HChar* str;
    check_value(arg);
    if VG_STR_CLO (arg, "--json-file", clo.json_file) {
        if (clo.json_file[0] == 0) VG_(fmsg_bad_option)(arg, "the file name is empty\n");
    } else if VG_BINT_CLO (arg, "--json-stable-min-bytes", clo.json_stable_min_bytes, 0,
                           1ull << 50) {
    } else if VG_BINT_CLO (arg, "--json-format", clo.json_format, 1, 2) {
    } else if VG_STR_CLO (arg, "--json-sites", str) {
        static const HChar* const sites[] = {"relevant", "all"}; // JsonSites' order
        return parse_word(arg, str, sites, &clo.json_sites, "expected relevant or all");
    } else if VG_BINT_CLO (arg, "--lost-report-exitcode", clo.lost_report_exitcode, 0, 255) {
    } else if VG_STR_CLO (arg, "--time-unit", str) {
        static const HChar* const units[] = {"B", "i", "ms"}; // TimeUnit's order
        return parse_word(arg, str, units, &clo.time_unit, "the time unit must be B, i or ms");
    } else if VG_BINT_CLO (arg, "--depth", clo.depth, 1, 256) {
    } else if VG_BINT_CLO (arg, "--startup-depth", clo.startup_depth, 1, 256) {
        clo.startup_depth_given = true;
    } else if VG_STR_CLO (arg, "--warmup", str) {
        return parse_warmup(arg, str);
    } else if VG_STR_CLO (arg, "--mark-at", str) {
        return parse_mark_at(arg, str);
    } else if VG_BINT_CLO (arg, "--mark-warmup", clo.mark_warmup, 0, 1000000) {
    } else if VG_BINT_CLO (arg, "--top", clo.top, 0, 100000) {
    } else if VG_BINT_CLO (arg, "--freelist-vol", clo.freelist_vol, 0, 1ull << 40) {
        clo.freelist_vol_given = true;
    } else if VG_BINT_CLO (arg, "--site-compaction", clo.site_compaction, 0, 1u << 30) {
    } else if VG_BINT_CLO (arg, "--quarantine-bytes", clo.freelist_vol, 0, 1ull << 40) {
        clo.freelist_vol_given = true;
    } else if VG_BINT_CLO (arg, "--freelist-big-blocks", clo.freelist_big_blocks, 0, 1ull << 40) {
    } else if VG_BOOL_CLO (arg, "--addressability", clo.addressability) {
    } else if VG_BOOL_CLO (arg, "--partial-loads-ok", clo.partial_loads_ok) {
    } else if VG_BOOL_CLO (arg, "--fork-pages", clo.fork_pages) {
    } else if VG_STR_CLO (arg, "--leak-check", str) {
        if VG_STREQ (str, "no")
            clo.leak_check = LeakCheck::no;
        else if VG_STREQ (str, "summary")
            clo.leak_check = LeakCheck::summary;
        else if (VG_STREQ(str, "full") || VG_STREQ(str, "yes"))
            clo.leak_check = LeakCheck::full;
        else
            VG_(fmsg_bad_option)(arg, "expected no, summary or full\n");
    } else if VG_STR_CLO (arg, "--show-leak-kinds", str) {
        return parse_set(arg, str, kShowLeakKinds, &clo.show_leak_kinds);
    } else if VG_STR_CLO (arg, "--leak-check-heuristics", str) {
        return parse_set(arg, str, "-,stdstring,length64,newarray,multipleinheritance,cpython",
                         &clo.heuristics);
    } else if VG_BOOL_CLO (arg, "--cuda", clo.cuda) {
    } else if VG_STR_CLO (arg, "--errors-for", str) {
        clo.errors_for_given = true;
        return parse_set(arg, str, "-,plateau,growing,leaked,teardown,startup", &clo.errors_for);
    } else if VG_BOOL_CLO (arg, "--teardown-scan", clo.teardown_scan) {
    } else if VG_STR_CLO (arg, "--python", str) {
        static const HChar* const views[] = {"hybrid", "only", "no"}; // PythonFrames' order
        return parse_word(arg, str, views, &clo.python, "expected hybrid, only or no");
    } else if VG_BOOL_CLO (arg, "--python-test-layout-mismatch", clo.python_test_layout_mismatch) {
    } else if VG_BOOL_CLO (arg, "--python-test-future-version", clo.python_test_future_version) {
    } else if VG_BOOL_CLO (arg, "--python-malloc", clo.python_malloc) {
    } else if VG_BOOL_CLO (arg, "--python-free-lists", clo.python_revival) {
    } else if VG_BOOL_CLO (arg, "--pytorch-caching", clo.pytorch_caching) {
    } else if VG_BOOL_CLO (arg, "--follow-launchers", clo.follow_launchers) {
    } else if VG_STR_CLO (arg, "--report-every", str) {
        return parse_report_every(arg, str);
    } else if VG_STR_CLO (arg, "--limit", str) {
        return parse_limit(arg, str);
    } else if VG_STR_CLO (arg, "--mark-rate", str) {
        return parse_mark_rate(arg, str);
    } else if VG_STR_CLO (arg, "--emulate-insns", str) {
        static const HChar* const words[] = {"auto", "always", "no"}; // EmulateInsns' order
        return parse_word(arg, str, words, &clo.emulate_insns, "expected auto, always or no");
    } else if (vgc::kReallocZeroReachesTool &&
               VG_BOOL_CLO(arg, "--show-realloc-size-zero", clo.show_realloc_size_zero)) {
    } else {
        // The core's options of tools that replace malloc: --alignment,
        // --trace-malloc, --realloc-zero-bytes-frees (3.21).
        return VG_(replacement_malloc_process_cmd_line_option)(arg);
    }
    return True;
}

void print_usage() {
    VG_(printf)
    ("    --json-file=<file>        JSON report [memgrow.out.%%p.json]; %%p is the pid,\n"
     "                              %%q{VAR} an environment variable\n"
     "    --json-sites=relevant|all  the report lists every site in full (all), or the\n"
     "                              classified, leaking and large ones and folds the\n"
     "                              rest into per-line totals [relevant]\n"
     "    --json-stable-min-bytes=<n>  stable sites whose peak stayed under n bytes are\n"
     "                              folded, not listed [0: 64 KiB or 0.1%% of the\n"
     "                              peak heap with relevant, none with all]\n"
     "    --json-format=1|2         report format: 2 interns frames and stacks and\n"
     "                              stores series sparsely, 1 is the older layout [2]\n"
     "    --lost-report-exitcode=<n>  exit code when the final report could not be\n"
     "                              written (the log says why) [1; 0: the program's]\n"
     "    --time-unit=B|i|ms        bucket clock: bytes allocated (deterministic),\n"
     "                              guest instructions, or milliseconds [B]\n"
     "    --depth=<n>               frames (native and Python) per allocation stack [32]\n"
     "    --startup-depth=<n>       frames per stack while a Python script's imports\n"
     "                              run (start-up, shown summed) [4; --depth's when\n"
     "                              --show-leak-kinds or --errors-for has startup,\n"
     "                              or --warmup is given]\n"
     "    --warmup=<p>%%|<n>         start-up ignored by classification: a share of\n"
     "                              the clock or clock units [up to MEMGROW_WARMUP_END\n"
     "                              or the first MEMGROW_MARK, else 5%%]\n"
     "    --mark-at=MODULE:QUALNAME  every call of this Python function is a mark\n"
     "                              (repeatable); --mark-at=torch: every PyTorch\n"
     "                              optimizer step [none]\n"
     "    --mark-warmup=<n>         repetitions (mark to mark) ignored by the per-mark\n"
     "                              rule [1]\n"
     "    --top=<n>                 sites shown per class in the summary [5]\n"
     "    --addressability=no|yes   check every load and store against the A-bits\n"
     "                              (heap redzones, freed blocks, below the stack\n"
     "                              pointer, unmapped memory), as memcheck; no is\n"
     "                              the fastest growth hunt [yes]\n"
     "    --partial-loads-ok=yes|no  an aligned load partly out of a block is no\n"
     "                              error (vectorised string code reads so) [yes]\n"
     "    --fork-pages=yes|no       a forked child says which of the pages it inherited\n"
     "                              it copied, what they held and who wrote them [yes]\n"
     "    --freelist-vol=<n>        freed bytes held back from reuse, to detect double\n"
     "                              frees and accesses after free [20000000 with\n"
     "                              --addressability=yes, 262144 with no]\n"
     "    --freelist-big-blocks=<n>  freed blocks of at least n bytes leave that\n"
     "                              queue first [1000000]\n"
     "    --leak-check=no|summary|full  scan for unreachable blocks at exit and on\n"
     "                              request; full lists the loss records [full]\n"
     "    --show-leak-kinds=kind1,kind2,.. loss records listed: definite indirect\n"
     "                              possible reachable, teardown (losses of blocks\n"
     "                              reachable when teardown began) and startup (of\n"
     "                              blocks allocated before the warm-up ended), all\n"
     "                              or none [definite,possible]\n"
     "    --leak-check-heuristics=heur1,heur2,... interior pointers that count as\n"
     "                              pointers to a block's start: stdstring length64\n"
     "                              newarray multipleinheritance cpython, all or none [all]\n"
     "    --errors-for=class1,...   site classes counted as errors (--error-exitcode):\n"
     "                              leaked growing plateau, all or none [leaked];\n"
     "                              teardown, startup: what teardown or start-up\n"
     "                              lost is leaked too\n"
     "    --teardown-scan=yes|no    scan reachability when teardown begins\n"
     "                              (Py_FinalizeEx, exit()) to tell what teardown lost\n"
     "                              from what the program lost [yes]\n"
     "    --python=hybrid|only|no   CPython frames in stacks: in place of the\n"
     "                              interpreter's loop among native frames, Python\n"
     "                              frames only, or none [hybrid]\n"
     "    --cuda=yes|no             record CUDA device, managed and pinned memory and\n"
     "                              check the CUDA memory API's use [yes]\n"
     "    --python-malloc=no|yes    set PYTHONMALLOC=malloc for the client unless set,\n"
     "                              so each Python object is a block of its own [yes]\n"
     "    --python-free-lists=yes|no  charge memory revived from CPython's free lists\n"
     "                              and NumPy's caches to the line reviving it [yes]\n"
     "    --pytorch-caching=yes|no  no: set PYTORCH_NO_CUDA_MEMORY_CACHING=1 for the\n"
     "                              client unless set, so each tensor is a device\n"
     "                              allocation of its own, at its Python line [yes]\n"
     "    --report-every=<time>|<p>%%  rewrite the JSON report every so often while\n"
     "                              the program runs: 30s, 10m, 1h of wall time, or\n"
     "                              whenever the clock grew by p%% [no snapshots]\n"
     "    --limit=<size>            the memory limit to project the growth to: bytes,\n"
     "                              or with K, M, G, T [the cgroup's limit, if any]\n"
     "    --mark-rate=<n>/s|/m|/h   the program's real rate of marks, to give the\n"
     "                              projection in hours [none]\n"
     "    --follow-launchers=yes|no  follow the execs of a client that is a shell\n"
     "                              or env (pyenv's shims, wrapper scripts) [yes]\n"
     "    --emulate-insns=auto|always|no  perform RDTSCP and RDPID on the host when\n"
     "                              Valgrind cannot decode them; always: RDTSCP\n"
     "                              even where it can (tests) [auto]\n");
    if (vgc::kReallocZeroReachesTool) VG_(printf)
    ("    --show-realloc-size-zero=yes|no  report realloc(p, 0) as an error, as\n"
     "                              memcheck does [yes]\n");
}

void print_debug_usage() {
    VG_(printf)
    ("    --quarantine-bytes=<n>    the old name of --freelist-vol\n"
     "    --site-compaction=<n>     sites that ended to gather before their records\n"
     "                              are compacted; 0: never (tests) [65536]\n"
     "    --python-test-layout-mismatch=no|yes  read CPython frames one word off,\n"
     "                              as if its layout had changed (tests) [no]\n"
     "    --python-test-future-version=no|yes  take CPython 3.13+ for 3.99, a version\n"
     "                              newer than memgrow knows (tests) [no]\n");
}

// An output file that cannot be written must fail now, not after hours of
// run time. Creating and removing it tests the directory and permissions.
// Returns whether the file existed.
void check_options() {
    if (!clo.freelist_vol_given)
        clo.freelist_vol = clo.addressability ? kFreelistVolChecked : kFreelistVolHunt;
    // Start-up's stacks are short only where nobody asked to see them: its
    // losses listed, or a --warmup of the user's own (a boundary that may
    // fall inside the imports).
    if (!clo.startup_depth_given &&
        ((clo.show_leak_kinds | clo.errors_for) & kStartupBit || clo.warmup_given))
        clo.startup_depth = clo.depth;
    if (clo.startup_depth > clo.depth) clo.startup_depth = clo.depth;
    report_file_init();
    HChar* name = VG_(expand_file_name)("--json-file", clo.json_file);
    json_file_existed_at_start = report_path_check("--json-file", name);
    VG_(free)(name);
    // Leaked sites come from the leak scan at exit: without it a gate on
    // them passes whatever leaks. (Only when asked for: --errors-for's
    // default is leaked.)
    const UInt leaks = 1u << static_cast<UInt>(SiteClass::leaked) | kTeardownBit;
    if (clo.leak_check == LeakCheck::no && (clo.errors_for & leaks) && clo.errors_for_given)
        VG_(umsg)
    ("memgrow: warning: --errors-for counts leaked sites, but --leak-check=no "
     "scans for none: nothing leaked will count (--leak-check=summary scans "
     "without listing the loss records)\n");
}

} // namespace mg
