// SPDX-License-Identifier: GPL-2.0-or-later
#include "intercept/mg_exec.hpp"
#include "python/mg_client_memory.hpp"
#include "mg_options.hpp"
#include "intercept/mg_limits.hpp"
#include "pages/mg_cow.hpp"
#include "pages/mg_mapped.hpp"
#include "records/mg_timeline.hpp"
#include "intercept/mg_requests.hpp"
#include "pub_tool_vkiscnums.h"

namespace mg {

namespace {

// Programs whose exec leads to the real program: a shell running a script
// (pyenv's shims, wrapper scripts, a virtual environment's activate-and-run)
// or env resolving a `#!/usr/bin/env python3` line.
const HChar* const kLaunchers[] = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "env"};

bool client_is_launcher;
bool following; // trace_children was set for an exec that may yet fail
ULong allocated_at_fork;
// A child that execs at once (a command spawned by subprocess, system(),
// posix_spawn) copies a few pages of stack and static data: tens of KiB.
constexpr ULong kSpawnCopies = 1 << 20;

// Whether a forked child did work of its own before its exec: allocated
// since the fork, wrote pages holding the heap objects it inherited, or
// copied more than a spawned command does.
bool child_did_work() {
    if (tl.bytes_allocated != allocated_at_fork) return true;
    const CowSummary* c = cow_summary();
    return c && (c->n_sites > 0 || c->copied_bytes >= kSpawnCopies);
}

const HChar* base_name(const HChar* path) {
    const HChar* slash = VG_(strrchr)(path, '/');
    return slash ? slash + 1 : path;
}

bool is_launcher(const HChar* path) {
    const HChar* name = base_name(path);
    for (const HChar* l : kLaunchers)
        if (VG_STREQ(name, l)) return true;
    return false;
}

// The file the client started from: the command as given, looked up in PATH
// when it has no slash (as the core's launcher does).
bool find_in_path(const HChar* cmd, HChar* out, SizeT size) {
    if (VG_(strchr)(cmd, '/')) {
        VG_(snprintf)(out, size, "%s", cmd);
        return true;
    }
    const HChar* path = VG_(getenv)("PATH");
    while (path && *path) {
        const HChar* colon = VG_(strchr)(path, ':');
        Int len = colon ? static_cast<Int>(colon - path) : static_cast<Int>(VG_(strlen)(path));
        VG_(snprintf)(out, size, "%.*s/%s", len, path, cmd);
        if (VG_(access)(out, False, False, True) == 0) return true;
        path = colon ? colon + 1 : nullptr;
    }
    return false;
}

// The program that runs first: the interpreter of a `#!` script, else the
// file itself.
void started_program(HChar* out, SizeT size) {
    HChar file[VKI_PATH_MAX];
    if (!find_in_path(VG_(args_the_exename), file, sizeof file)) {
        VG_(snprintf)(out, size, "%s", VG_(args_the_exename));
        return;
    }
    VG_(snprintf)(out, size, "%s", file);
    SysRes r = VG_(open)(file, VKI_O_RDONLY, 0);
    if (sr_isError(r)) return;
    HChar head[256] = {};
    Int n = VG_(read)(sr_Res(r), head, sizeof head - 1);
    VG_(close)(sr_Res(r));
    if (n < 3 || head[0] != '#' || head[1] != '!') return;
    HChar* p = head + 2;
    while (*p == ' ' || *p == '\t')
        ++p;
    HChar* end = p;
    while (*end && *end != ' ' && *end != '\t' && *end != '\n')
        ++end;
    *end = 0;
    VG_(snprintf)(out, size, "%s", p);
}

// The exec'd path, read from client memory with checks.
bool client_string(Addr a, HChar* out, SizeT size) {
    for (SizeT i = 0; i < size; ++i) {
        if (!read_client(a + i, &out[i])) return false;
        if (!out[i]) return true;
    }
    return false;
}

void pre_syscall(ThreadId, UInt sysno, UWord* args, UInt) {
    limits_pre_syscall(sysno, args); // the core takes one pair of hooks: this one
    if (following) {                 // the exec failed: later execs are not followed unasked
        VG_(clo_trace_children) = False;
        following = false;
    }
    if (sysno != __NR_execve || VG_(clo_trace_children)) return;
    HChar path[VKI_PATH_MAX];
    // An exec that will fail (execvp tries each PATH entry) changes nothing.
    if (!client_string(args[0], path, sizeof path) || VG_(access)(path, False, False, True) != 0)
        return;
    if (client_is_launcher && !forked_child && clo.follow_launchers) {
        VG_(umsg)
        ("memgrow: following the exec of %s: this process is a launcher "
         "(--follow-launchers=no stops it)\n",
         path);
        VG_(clo_trace_children) = True;
        following = true;
        return;
    }
    // A launcher's subshell running a command writes nothing, as at its
    // exit. Another forked child's work is reported here (its exit will not
    // come); one that did none is a spawned command: only a Python
    // interpreter is worth a line there.
    if (launcher_subshell()) return;
    bool report = !forked_child || child_did_work();
    bool python = VG_(strncmp)(base_name(path), "python", 6) == 0;
    if (!report && !python && VG_(clo_verbosity) <= 1) return;
    VG_(umsg)
    ("memgrow: the %s execs %s, which Valgrind does not follow: "
     "--trace-children=yes follows it%s\n",
     forked_child ? "forked child" : "client", path,
     report ? "; the report covers what ran before" : "");
    ReportHow how;
    how.summary = true;
    if (report) report_now(clo.json_file, how);
}

void post_syscall(ThreadId tid, UInt sysno, UWord* args, UInt, SysRes res) {
    limits_post_syscall(sysno, args, res);
    mapped_post_syscall(tid, sysno, args, res);
    if (sysno == __NR_execve && following) {
        VG_(clo_trace_children) = False;
        following = false;
    }
}

} // namespace

void exec_at_fork() {
    allocated_at_fork = tl.bytes_allocated;
}

bool launcher_subshell() {
    return client_is_launcher && forked_child;
}

void exec_pre_init() {
    VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);
}

void exec_init() {
    HChar program[VKI_PATH_MAX];
    started_program(program, sizeof program);
    client_is_launcher = is_launcher(program);
}

} // namespace mg
