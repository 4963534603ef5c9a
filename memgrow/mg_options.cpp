#include "mg_options.hpp"
#include "../core/classify.hpp"
#include "../core/reachability.hpp"

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

Bool process_option(const HChar* arg) {
    const HChar* str;
    if VG_STR_CLO (arg, "--json-file", clo.json_file) {
        if (clo.json_file[0] == 0) VG_(fmsg_bad_option)(arg, "the file name is empty\n");
    } else if VG_BINT_CLO (arg, "--json-stable-min-bytes", clo.json_stable_min_bytes, 0,
                           1ull << 50) {
    } else if VG_STR_CLO (arg, "--time-unit", str) {
        if VG_STREQ (str, "B")
            clo.time_unit = TimeUnit::bytes;
        else if VG_STREQ (str, "i")
            clo.time_unit = TimeUnit::instructions;
        else if VG_STREQ (str, "ms")
            clo.time_unit = TimeUnit::millis;
        else
            VG_(fmsg_bad_option)(arg, "the time unit must be B, i or ms\n");
    } else if VG_BINT_CLO (arg, "--depth", clo.depth, 1, 256) {
    } else if VG_STR_CLO (arg, "--warmup", str) {
        return parse_warmup(arg, str);
    } else if VG_BINT_CLO (arg, "--mark-warmup", clo.mark_warmup, 0, 1000000) {
    } else if VG_BINT_CLO (arg, "--top", clo.top, 0, 100000) {
    } else if VG_BINT_CLO (arg, "--quarantine-bytes", clo.quarantine_bytes, 0, 1ull << 40) {
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
        return parse_set(arg, str, "definite,indirect,possible,reachable", &clo.show_leak_kinds);
    } else if VG_STR_CLO (arg, "--leak-check-heuristics", str) {
        return parse_set(arg, str, "-,stdstring,length64,newarray,multipleinheritance,cpython",
                         &clo.heuristics);
    } else if VG_BOOL_CLO (arg, "--cuda", clo.cuda) {
    } else if VG_STR_CLO (arg, "--errors-for", str) {
        return parse_set(arg, str, "-,plateau,growing,leaked", &clo.errors_for);
    } else if VG_STR_CLO (arg, "--python", str) {
        if VG_STREQ (str, "hybrid")
            clo.python = PythonFrames::hybrid;
        else if VG_STREQ (str, "only")
            clo.python = PythonFrames::only;
        else if VG_STREQ (str, "no")
            clo.python = PythonFrames::no;
        else
            VG_(fmsg_bad_option)(arg, "expected hybrid, only or no\n");
    } else if VG_BOOL_CLO (arg, "--python-test-layout-mismatch", clo.python_test_layout_mismatch) {
    } else if VG_BOOL_CLO (arg, "--python-test-future-version", clo.python_test_future_version) {
    } else if VG_BOOL_CLO (arg, "--python-malloc", clo.python_malloc) {
    } else if VG_BOOL_CLO (arg, "--pytorch-caching", clo.pytorch_caching) {
    } else {
        return False;
    }
    return True;
}

void print_usage() {
    VG_(printf)
    ("    --json-file=<file>        JSON report [memgrow.out.%%p.json]; %%p is the pid,\n"
     "                              %%q{VAR} an environment variable\n"
     "    --json-stable-min-bytes=<n>  stable sites whose peak stayed under n bytes are\n"
     "                              counted in the report, not listed [0: list all]\n"
     "    --time-unit=B|i|ms        bucket clock: bytes allocated (deterministic),\n"
     "                              guest instructions, or milliseconds [B]\n"
     "    --depth=<n>               frames (native and Python) per allocation stack [32]\n"
     "    --warmup=<p>%%|<n>         start-up ignored by classification: a share of\n"
     "                              the clock or clock units [up to MEMGROW_WARMUP_END\n"
     "                              or the first MEMGROW_MARK, else 5%%]\n"
     "    --mark-warmup=<n>         repetitions (mark to mark) ignored by the per-mark\n"
     "                              rule [1]\n"
     "    --top=<n>                 sites shown per class in the summary [5]\n"
     "    --quarantine-bytes=<n>    freed bytes held back to detect double frees [4194304]\n"
     "    --leak-check=no|summary|full  scan for unreachable blocks at exit and on\n"
     "                              request; full lists the loss records [full]\n"
     "    --show-leak-kinds=kind1,kind2,.. loss records listed: definite indirect\n"
     "                              possible reachable, all or none [definite,possible]\n"
     "    --leak-check-heuristics=heur1,heur2,... interior pointers that count as\n"
     "                              pointers to a block's start: stdstring length64\n"
     "                              newarray multipleinheritance cpython, all or none [all]\n"
     "    --errors-for=class1,...   site classes counted as errors (--error-exitcode):\n"
     "                              leaked growing plateau, all or none [leaked]\n"
     "    --python=hybrid|only|no   CPython frames in stacks: in place of the\n"
     "                              interpreter's loop among native frames, Python\n"
     "                              frames only, or none [hybrid]\n"
     "    --cuda=yes|no             record CUDA device, managed and pinned memory and\n"
     "                              check the CUDA memory API's use [yes]\n"
     "    --python-malloc=no|yes    set PYTHONMALLOC=malloc for the client unless set,\n"
     "                              so each Python object is a block of its own [yes]\n"
     "    --pytorch-caching=yes|no  no: set PYTORCH_NO_CUDA_MEMORY_CACHING=1 for the\n"
     "                              client unless set, so each tensor is a device\n"
     "                              allocation of its own, at its Python line [yes]\n");
}

void print_debug_usage() {
    VG_(printf)
    ("    --python-test-layout-mismatch=no|yes  read CPython frames one word off,\n"
     "                              as if its layout had changed (tests) [no]\n"
     "    --python-test-future-version=no|yes  take CPython 3.13+ for 3.99, a version\n"
     "                              newer than memgrow knows (tests) [no]\n");
}

// An output file that cannot be written must fail now, not after hours of
// run time. Creating and removing it tests the directory and permissions.
// Returns whether the file existed.
static bool check_writable(const HChar* option, const HChar* pattern) {
    HChar* name = VG_(expand_file_name)(option, pattern);
    struct vg_stat st;
    Bool existed = !sr_isError(VG_(stat)(name, &st));
    SysRes r = VG_(open)(name, VKI_O_WRONLY | VKI_O_CREAT, 0666);
    if (sr_isError(r)) {
        // After option parsing fmsg_bad_option no longer exits by itself.
        VG_(fmsg_bad_option)(option, "cannot write '%s' (%s)\n", name, VG_(strerror)(sr_Err(r)));
        VG_(exit)(1);
    }
    VG_(close)(sr_Res(r));
    if (!existed) VG_(unlink)(name);
    VG_(free)(name);
    return existed;
}

void check_options() {
    json_file_existed_at_start = check_writable("--json-file", clo.json_file);
}

} // namespace mg
