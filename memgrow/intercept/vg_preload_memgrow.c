/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Code memgrow runs inside the client: wrappers that tell the tool when the
   program's main work ends. Linked with Valgrind's malloc-replacement layer
   (libreplacemalloc_toolpreload) into vgpreload_memgrow-amd64-linux.so. */
#include "pub_tool_basics.h"
#include "pub_tool_redir.h"
#include "valgrind.h"
#include "include/memgrow.h"

/* exit(): main returning calls it too. Teardown begins before atexit
   handlers and static destructors run, so what they free does not hide
   growth. The wrappers' frames are memgrow's, not the program's: the
   teardown scan reads the stack from their caller's stack pointer up, and
   the tool zeroes the stack below (docs/leak-check.md). exit()'s wrapper
   never returns, so the exit scan reads its frame: it asks first, with no
   frame of its own (the request's words in the red zone), and only then
   goes on in a C function whose frame is built in zeroed stack, where no
   slot holds what the program's dead frames left. */
#define MEMGROW_CALLER_SP ((unsigned long)__builtin_frame_address(0) + 2 * sizeof(void*))

__attribute__((used, noinline, noreturn)) static void exit_after_teardown(int status) {
    OrigFn fn;
    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_v_W(fn, status);
    __builtin_unreachable();
}

void I_WRAP_SONAME_FNNAME_ZU(libcZdsoZa, exit)(int status);
__attribute__((naked)) void I_WRAP_SONAME_FNNAME_ZU(libcZdsoZa, exit)(int status) {
    __asm__ volatile("movq %0, -48(%%rsp)\n\t"
                     "movq %1, -40(%%rsp)\n\t"
                     "leaq 8(%%rsp), %%rax\n\t" /* the caller's stack pointer */
                     "movq %%rax, -32(%%rsp)\n\t"
                     "movq $0, -24(%%rsp)\n\t"
                     "movq $0, -16(%%rsp)\n\t"
                     "movq $0, -8(%%rsp)\n\t"
                     "leaq -48(%%rsp), %%rax\n\t"
                     "xorl %%edx, %%edx\n\t" __SPECIAL_INSTRUCTION_PREAMBLE "xchgq %%rbx, %%rbx\n\t"
                     "jmp exit_after_teardown" ::"i"(VG_USERREQ__MEMGROW_TEARDOWN),
                     "i"(MEMGROW_TEARDOWN_EXIT));
}

/* Py_FinalizeEx(): CPython's finalization, which runs atexit handlers and
   tears down modules before exit(). In libpython (shared builds) or in the
   executable itself (static builds such as Debian's). */
#define MEMGROW_WRAP_PY_FINALIZE(soname)                                                           \
    int I_WRAP_SONAME_FNNAME_ZU(soname, Py_FinalizeEx)(void);                                      \
    int I_WRAP_SONAME_FNNAME_ZU(soname, Py_FinalizeEx)(void) {                                     \
        OrigFn fn;                                                                                 \
        int result;                                                                                \
        VALGRIND_GET_ORIG_FN(fn);                                                                  \
        MEMGROW_TEARDOWN(MEMGROW_TEARDOWN_PY_FINALIZE, MEMGROW_CALLER_SP);                         \
        CALL_FN_W_v(result, fn);                                                                   \
        return result;                                                                             \
    }

MEMGROW_WRAP_PY_FINALIZE(libpython3Za)
MEMGROW_WRAP_PY_FINALIZE(NONE)

/* The libc functions the preload uses are weak: it links no libc (every
   dynamically linked client has one). So are CPython's: they are there only
   when the client is an interpreter (the executable or its libpython). */
extern char* getenv(const char* name) __attribute__((weak));
extern int putenv(char* string) __attribute__((weak));
extern char** environ __attribute__((weak));
extern void* PyImport_ImportModule(const char* name) __attribute__((weak));
extern void PyErr_Print(void) __attribute__((weak));
extern void Py_DecRef(void* object) __attribute__((weak));

/* --mark-at: memgrow's Python module turns the calls of the functions named
   into marks (memgrow/_mark_at.py). Imported once, as CPython starts
   running the program, with the GIL held. */
static void import_mark_at(void) {
    static int done;
    void* module;
    if (done || !getenv || !PyImport_ImportModule || !getenv("MEMGROW_MARK_AT")) return;
    done = 1;
    module = PyImport_ImportModule("memgrow._mark_at");
    if (module && Py_DecRef)
        Py_DecRef(module);
    else if (!module && PyErr_Print)
        PyErr_Print();
}

/* The interpreter's start-up (site, encodings, the imports it makes before
   any user code) is warm-up: it ends when CPython starts running the
   program (Py_RunMain: a script, -c, -m; or, for embedders,
   _PyRun_AnyFileObject and PyRun_SimpleStringFlags) and that runs code
   outside an import (the tool tells, from the frames). */
#define MEMGROW_WRAP_PY_RUN(soname, fn, params, call)                                              \
    int I_WRAP_SONAME_FNNAME_ZU(soname, fn) params;                                                \
    int I_WRAP_SONAME_FNNAME_ZU(soname, fn) params {                                               \
        OrigFn orig;                                                                               \
        int result;                                                                                \
        VALGRIND_GET_ORIG_FN(orig);                                                                \
        import_mark_at();                                                                          \
        VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__MEMGROW_WARMUP_END,                            \
                                        MEMGROW_WARMUP_PYTHON_MAIN, 0, 0, 0, 0);                   \
        call;                                                                                      \
        return result;                                                                             \
    }

#define MEMGROW_PY_RUN_FILE_PARAMS (void* fp, void* name, int closeit, void* flags)
#define MEMGROW_PY_RUN_FILE_CALL CALL_FN_W_WWWW(result, orig, fp, name, closeit, flags)
#define MEMGROW_PY_RUN_STRING_PARAMS (const char* command, void* flags)
#define MEMGROW_PY_RUN_STRING_CALL CALL_FN_W_WW(result, orig, command, flags)

#define MEMGROW_PY_RUN_MAIN_PARAMS (void)
#define MEMGROW_PY_RUN_MAIN_CALL CALL_FN_W_v(result, orig)

MEMGROW_WRAP_PY_RUN(libpython3Za, Py_RunMain, MEMGROW_PY_RUN_MAIN_PARAMS, MEMGROW_PY_RUN_MAIN_CALL)
MEMGROW_WRAP_PY_RUN(NONE, Py_RunMain, MEMGROW_PY_RUN_MAIN_PARAMS, MEMGROW_PY_RUN_MAIN_CALL)
MEMGROW_WRAP_PY_RUN(libpython3Za, _PyRun_AnyFileObject, MEMGROW_PY_RUN_FILE_PARAMS,
                    MEMGROW_PY_RUN_FILE_CALL)
MEMGROW_WRAP_PY_RUN(NONE, _PyRun_AnyFileObject, MEMGROW_PY_RUN_FILE_PARAMS,
                    MEMGROW_PY_RUN_FILE_CALL)
MEMGROW_WRAP_PY_RUN(libpython3Za, PyRun_SimpleStringFlags, MEMGROW_PY_RUN_STRING_PARAMS,
                    MEMGROW_PY_RUN_STRING_CALL)
MEMGROW_WRAP_PY_RUN(NONE, PyRun_SimpleStringFlags, MEMGROW_PY_RUN_STRING_PARAMS,
                    MEMGROW_PY_RUN_STRING_CALL)

/* The Python settings, made before any interpreter reads its environment:
   each object a malloc block of its own (PYTHONMALLOC=malloc, unless the
   user chose an allocator or --python-malloc=no), and memgrow's Python
   package importable (its directory last on PYTHONPATH), and with
   --pytorch-caching=no PyTorch's CUDA caching allocator off, and the
   --mark-at functions. Children inherit them. This needs libc's environ,
   which is set before this constructor runs only because the preload is not
   linked with -z initfirst. The entries are static strings, and the array
   that holds them is the preload's own: putenv would copy environ into a
   heap block, one more reachable block than memcheck sees in every client
   (and in a program's VALGRIND_COUNT_LEAKS). libc's setenv and putenv copy
   an environ they did not allocate into a block of the program's, as they
   copy the initial one under memcheck. Only an environment of more than
   kEnvironSlots entries goes through putenv. */
static char python_malloc[] = "PYTHONMALLOC=malloc";
static char no_torch_caching[] = "PYTORCH_NO_CUDA_MEMORY_CACHING=1";
static char python_path[16384] = "PYTHONPATH=";
static char mark_at[2100] = "MEMGROW_MARK_AT=";
enum { kEnvironSlots = 4096 };
static char* environ_copy[kEnvironSlots];

/* Sets entry ("NAME=value"), replacing NAME's entry if there is one. */
static void set_environment(char* entry) {
    unsigned long n = 0, name = 0;
    while (entry[name] != '=')
        ++name;
    if (environ != environ_copy) {
        while (environ && environ[n])
            ++n;
        if (n + 1 >= kEnvironSlots) {
            putenv(entry);
            return;
        }
        for (unsigned long i = 0; i < n; ++i)
            environ_copy[i] = environ[i];
        environ = environ_copy;
    }
    for (n = 0; environ_copy[n]; ++n) {
        unsigned long i = 0;
        while (i <= name && environ_copy[n][i] == entry[i])
            ++i;
        if (i > name) {
            environ_copy[n] = entry;
            return;
        }
    }
    if (n + 1 >= kEnvironSlots) {
        putenv(entry);
        return;
    }
    environ_copy[n] = entry;
}

/* Whether dir is one of the entries of the colon-separated path. */
static int path_has(const char* path, const char* dir) {
    while (*path) {
        const char* d = dir;
        while (*d && *path == *d) {
            ++path;
            ++d;
        }
        if (*d == 0 && (*path == ':' || *path == 0)) return 1;
        while (*path && *path != ':')
            ++path;
        if (*path == ':') ++path;
    }
    return 0;
}

static void add_python_path(const char* dir) {
    const char* old = getenv("PYTHONPATH");
    if (old && path_has(old, dir)) return; /* a traced child of a traced process */
    unsigned long n = sizeof "PYTHONPATH=" - 1, end = sizeof python_path - 1;
    if (old && *old) {
        while (*old && n < end)
            python_path[n++] = *old++;
        if (n < end) python_path[n++] = ':';
    }
    while (*dir && n < end)
        python_path[n++] = *dir++;
    if ((old && *old) || *dir) return; /* too long: leave the user's value alone */
    python_path[n] = 0;
    set_environment(python_path);
}

__attribute__((constructor)) static void memgrow_python_environment(void) {
    char dir[4096];
    unsigned long config;
    if (!getenv || !putenv || !&environ) return;
    config = MEMGROW_CLIENT_CONFIG(dir, sizeof dir);
    if ((config & MEMGROW_CONFIG_PYTHON_MALLOC) && !getenv("PYTHONMALLOC"))
        set_environment(python_malloc);
    if (config & MEMGROW_CONFIG_PYTHON_PATH) add_python_path(dir);
    /* PyTorch's caching allocator keeps freed device memory in its own
       segments; without it every tensor is a cudaMalloc of its own. */
    if ((config & MEMGROW_CONFIG_NO_TORCH_CACHING) && !getenv("PYTORCH_NO_CUDA_MEMORY_CACHING"))
        set_environment(no_torch_caching);
    if (config & MEMGROW_CONFIG_MARK_AT) {
        const unsigned long prefix = sizeof "MEMGROW_MARK_AT=" - 1;
        if (VALGRIND_DO_CLIENT_REQUEST_EXPR(0, VG_USERREQ__MEMGROW_CLIENT_MARK_AT, mark_at + prefix,
                                            sizeof mark_at - prefix, 0, 0, 0))
            set_environment(mark_at);
    }
}
