/* SPDX-License-Identifier: BSD-3-Clause */
/* memgrow client requests.

   Include this header in a program to talk to memgrow while it runs under
   `valgrind --tool=memgrow`. Every macro is a no-op returning 0 when the
   program runs natively or under another tool, so it can stay in release
   builds. Plain C, usable from C++.

   This header owns the request numbers for every part of memgrow; numbers
   are never reused or renumbered (append only). */
#ifndef MEMGROW_H
#define MEMGROW_H

#include <valgrind/valgrind.h>

typedef enum {
    /* An epoch boundary (one request served, one training step). arg1: a
       NUL-terminated label or NULL. Adds the per-mark view to the report. */
    VG_USERREQ__MEMGROW_MARK = VG_USERREQ_TOOL_BASE('M', 'G'),
    /* Write the JSON report now. arg1: a file name (%p/%q{VAR} expanded) or
       NULL for the --json-file name. Returns 1 when written. */
    VG_USERREQ__MEMGROW_REPORT,
    /* Run the leak scan now and print what is new since the last one. */
    VG_USERREQ__MEMGROW_LEAK_CHECK,
    /* The program's main work is over (exit(), Py_FinalizeEx): classify on
       the state now. arg1: a MemgrowTeardownReason, arg2: the stack pointer
       of the wrapper's caller (0: the current one). Used by memgrow's own
       preload; the first request wins. */
    VG_USERREQ__MEMGROW_TEARDOWN,
    /* A device-side allocation made outside the malloc family (the CUDA
       wrappers). arg1: address, arg2: size, arg3: MemgrowSpace,
       arg4: device number, arg5: MemgrowDeviceApi of the allocating call. */
    VG_USERREQ__MEMGROW_DEVICE_ALLOC,
    /* Its release. arg1: address, arg2: MemgrowSpace, arg3: MemgrowDeviceApi
       of the freeing call. Returns 1 if the block was known. */
    VG_USERREQ__MEMGROW_DEVICE_FREE,
    /* Start-up is over: the warm-up that classification ignores ends now
       (unless --warmup was given). The first request wins. arg1: a
       MemgrowWarmupReason. memgrow's preload sends it when CPython starts
       running the main script or -c command. */
    VG_USERREQ__MEMGROW_WARMUP_END,
    /* Virtual memory: [arg1, arg1 + arg2) is now backed by the physical
       allocation whose handle (arg3) a MEMGROW_DEVICE_ALLOC with
       MEMGROW_API_VMM registered. A released handle lives on until its last
       mapping goes. */
    VG_USERREQ__MEMGROW_DEVICE_MAP,
    /* [arg1, arg1 + arg2) is no longer mapped. */
    VG_USERREQ__MEMGROW_DEVICE_UNMAP,
    /* A copy or set is about to touch [arg1, arg1 + arg2) of device-side
       memory. arg3: MemgrowAccess, arg4: MemgrowDeviceApi of the call.
       Reports a range that runs past the end of a live allocation or into
       a freed one; returns 1 if the range is fine or unknown, 0 if not. */
    VG_USERREQ__MEMGROW_DEVICE_ACCESS,
    /* Used by memgrow's CUDA wrappers. arg1: a MemgrowCudaScope. Returns,
       for MEMGROW_CUDA_IS_ON, whether --cuda=yes; else, after entering or
       leaving, whether the calling thread should report (--cuda=yes and no
       wrapper active on it). The count lives in the tool so that the
       preload needs no thread-local storage (which would change the
       client's own TLS allocations). */
    VG_USERREQ__MEMGROW_CUDA_TRACKING,
    /* memgrow-internal (its preload and its Python module; programs use
       MEMGROW_RUNNING()): what the tool tells the client. arg1: a buffer or
       NULL, arg2: its size. Returns MemgrowClientConfig bits, 0 when not
       under memgrow; with MEMGROW_CONFIG_PYTHON_PATH the buffer holds the
       directory of memgrow's Python package. */
    VG_USERREQ__MEMGROW_CLIENT_CONFIG,
    /* The host heap's live bytes now (every site's blocks). */
    VG_USERREQ__MEMGROW_LIVE_BYTES,
    /* Growth since a checkpoint, for test harnesses (memgrow.pytest). arg1:
       a buffer or NULL, arg2: its size, arg3: 1 to set a new checkpoint
       after answering. Returns the host heap's live bytes added since the
       previous checkpoint (a negative number when it shrank); the buffer
       gets the site that added the most, as "function (file:line) +N
       bytes", innermost frame in the program's own code, Python's first,
       or "" when none grew. */
    VG_USERREQ__MEMGROW_GROWTH_SINCE,
    /* memgrow-internal (its preload): the --mark-at specs, comma-separated,
       into arg1 (a buffer of arg2 bytes). Returns their length (0: none). */
    VG_USERREQ__MEMGROW_CLIENT_MARK_AT,
    /* memgrow-internal (its Python module): what came of --mark-at, so that
       the tool can say which specs never made a mark. arg1: a
       MemgrowMarkAtEvent, arg2: the spec's index (0-based, in the order
       given) for MEMGROW_MARK_AT_CALLED. */
    VG_USERREQ__MEMGROW_MARK_AT_EVENT,
    /* Virtual memory's address space (the CUDA wrappers). arg1: a
       MemgrowDeviceVaOp, arg2: address, arg3: size; arg4: the device
       (MEMGROW_VA_RESERVE) or the CUmemAccess_flags granted
       (MEMGROW_VA_SET_ACCESS). A reservation is address space, not memory:
       copies and sets into it must stay inside it and touch only mapped
       pages whose access was granted. */
    VG_USERREQ__MEMGROW_DEVICE_VA
} MemgrowClientRequest;

/* arg1 of VG_USERREQ__MEMGROW_MARK_AT_EVENT. */
typedef enum {
    MEMGROW_MARK_AT_INSTALLED = 0,   /* the hooks are in place (a Python program runs) */
    MEMGROW_MARK_AT_CALLED = 1,      /* spec arg2 made its first mark */
    MEMGROW_MARK_AT_HOOK_REMOVED = 2 /* at exit: the program had replaced the hook
                                        (sys.setprofile(None)) */
} MemgrowMarkAtEvent;

/* Memory spaces of a site (the JSON report's "space"). */
typedef enum {
    MEMGROW_SPACE_HOST = 0,
    MEMGROW_SPACE_DEVICE = 1,
    MEMGROW_SPACE_MANAGED = 2,
    MEMGROW_SPACE_PINNED = 3
} MemgrowSpace;

typedef enum {
    MEMGROW_TEARDOWN_EXIT = 1,       /* exit() */
    MEMGROW_TEARDOWN_PY_FINALIZE = 2 /* Py_FinalizeEx() */
} MemgrowTeardownReason;

/* arg1 of VG_USERREQ__MEMGROW_WARMUP_END (MEMGROW_WARMUP_END() sends 0). */
typedef enum {
    MEMGROW_WARMUP_PROGRAM = 0,    /* the program says so: now */
    MEMGROW_WARMUP_PYTHON_MAIN = 1 /* memgrow-internal: CPython starts the main script or -c
                                      command; warm-up ends once it runs code outside an
                                      import */
} MemgrowWarmupReason;

/* The answer to VG_USERREQ__MEMGROW_CLIENT_CONFIG. */
typedef enum {
    MEMGROW_CONFIG_RUNNING = 1,          /* always set by memgrow */
    MEMGROW_CONFIG_PYTHON_MALLOC = 2,    /* --python-malloc=yes: set PYTHONMALLOC=malloc */
    MEMGROW_CONFIG_PYTHON_PATH = 4,      /* the buffer holds the Python package's directory */
    MEMGROW_CONFIG_NO_TORCH_CACHING = 8, /* --pytorch-caching=no: set
                                            PYTORCH_NO_CUDA_MEMORY_CACHING=1 */
    MEMGROW_CONFIG_MARK_AT = 16          /* --mark-at given: set MEMGROW_MARK_AT and
                                            import memgrow._mark_at at start-up */
} MemgrowClientConfig;

/* The API family of a device allocation or free, so that freeing with the
   wrong family can be reported. 0 means unspecified. */
typedef enum {
    MEMGROW_API_UNSPECIFIED = 0,
    MEMGROW_API_DRIVER = 1,  /* cuMemAlloc / cuMemFree ... */
    MEMGROW_API_RUNTIME = 2, /* cudaMalloc / cudaFree ... */
    MEMGROW_API_HOST = 3,    /* cudaHostAlloc / cudaFreeHost, cuMemHostAlloc / cuMemFreeHost */
    MEMGROW_API_ASYNC = 4,   /* stream-ordered: cuMemAllocAsync / cuMemFreeAsync */
    MEMGROW_API_VMM = 5      /* cuMemCreate / cuMemRelease: the address is the handle */
} MemgrowDeviceApi;

typedef enum {
    MEMGROW_CUDA_IS_ON = 0,
    MEMGROW_CUDA_ENTER = 1,         /* a wrapper starts on this thread */
    MEMGROW_CUDA_LEAVE = 2,         /* ... and ends */
    MEMGROW_CUDA_OUTERMOST = 3,     /* no wrapper active on this thread */
    MEMGROW_CUDA_STARTUP_BEGIN = 4, /* the driver's start-up (cuInit, a context's creation) */
    MEMGROW_CUDA_STARTUP_END = 5    /* ... and its end: may end the warm-up */
} MemgrowCudaScope;

/* arg1 of VG_USERREQ__MEMGROW_DEVICE_VA. */
typedef enum {
    MEMGROW_VA_RESERVE = 1,   /* cuMemAddressReserve */
    MEMGROW_VA_FREE = 2,      /* cuMemAddressFree */
    MEMGROW_VA_SET_ACCESS = 3 /* cuMemSetAccess: arg4 is 1 (read) or 3 (read and write) */
} MemgrowDeviceVaOp;

/* What a copy or set does to a device-side range. */
typedef enum { MEMGROW_ACCESS_READ = 1, MEMGROW_ACCESS_WRITE = 2 } MemgrowAccess;

#define MEMGROW_MARK(label)                                                                        \
    ((void)VALGRIND_DO_CLIENT_REQUEST_EXPR(0, VG_USERREQ__MEMGROW_MARK, (label), 0, 0, 0, 0))

/* Value-returning requests are statement expressions so that ignoring the
   result does not warn. */
#define MEMGROW_REPORT(file)                                                                       \
    __extension__({                                                                                \
        int _mg_res = (int)VALGRIND_DO_CLIENT_REQUEST_EXPR(0, VG_USERREQ__MEMGROW_REPORT, (file),  \
                                                           0, 0, 0, 0);                            \
        _mg_res;                                                                                   \
    })

#define MEMGROW_WARMUP_END()                                                                       \
    ((void)VALGRIND_DO_CLIENT_REQUEST_EXPR(0, VG_USERREQ__MEMGROW_WARMUP_END, 0, 0, 0, 0, 0))

/* Scans for leaks now and prints the loss records that are new or grew since
   the previous scan; returns the definitely and indirectly lost bytes (not
   suppressed), 0 when not running under memgrow. */
#define MEMGROW_LEAK_CHECK()                                                                       \
    __extension__({                                                                                \
        unsigned long _mg_res = (unsigned long)VALGRIND_DO_CLIENT_REQUEST_EXPR(                    \
            0, VG_USERREQ__MEMGROW_LEAK_CHECK, 0, 0, 0, 0, 0);                                     \
        _mg_res;                                                                                   \
    })

/* The host heap's live bytes now; 0 when not under memgrow. */
#define MEMGROW_LIVE_BYTES()                                                                       \
    ((unsigned long)VALGRIND_DO_CLIENT_REQUEST_EXPR(0, VG_USERREQ__MEMGROW_LIVE_BYTES, 0, 0, 0, 0, \
                                                    0))

/* Live bytes added since the last checkpoint (long; 0 when not under
   memgrow), the top site into buf; checkpoint != 0 starts a new one. */
#define MEMGROW_GROWTH_SINCE(buf, size, checkpoint)                                                \
    ((long)VALGRIND_DO_CLIENT_REQUEST_EXPR(0, VG_USERREQ__MEMGROW_GROWTH_SINCE, (buf), (size),     \
                                           (checkpoint), 0, 0))

/* memgrow-internal: VG_USERREQ__MEMGROW_CLIENT_CONFIG's answer. */
#define MEMGROW_CLIENT_CONFIG(buf, size)                                                           \
    ((unsigned long)VALGRIND_DO_CLIENT_REQUEST_EXPR(0, VG_USERREQ__MEMGROW_CLIENT_CONFIG, (buf),   \
                                                    (size), 0, 0, 0))

/* 1 when running under memgrow, else 0. */
#define MEMGROW_RUNNING()                                                                          \
    __extension__({                                                                                \
        int _mg_res = (MEMGROW_CLIENT_CONFIG(0, 0) & MEMGROW_CONFIG_RUNNING) != 0;                 \
        _mg_res;                                                                                   \
    })

#define MEMGROW_TEARDOWN(reason, caller_sp)                                                        \
    ((void)VALGRIND_DO_CLIENT_REQUEST_EXPR(0, VG_USERREQ__MEMGROW_TEARDOWN, (reason), (caller_sp), \
                                           0, 0, 0))

#define MEMGROW_DEVICE_ALLOC(addr, size, space, device, api)                                       \
    ((void)VALGRIND_DO_CLIENT_REQUEST_EXPR(0, VG_USERREQ__MEMGROW_DEVICE_ALLOC, (addr), (size),    \
                                           (space), (device), (api)))

#define MEMGROW_DEVICE_FREE(addr, space, api)                                                      \
    __extension__({                                                                                \
        int _mg_res = (int)VALGRIND_DO_CLIENT_REQUEST_EXPR(0, VG_USERREQ__MEMGROW_DEVICE_FREE,     \
                                                           (addr), (space), (api), 0, 0);          \
        _mg_res;                                                                                   \
    })

#define MEMGROW_DEVICE_MAP(addr, size, handle)                                                     \
    ((void)VALGRIND_DO_CLIENT_REQUEST_EXPR(0, VG_USERREQ__MEMGROW_DEVICE_MAP, (addr), (size),      \
                                           (handle), 0, 0))

#define MEMGROW_DEVICE_UNMAP(addr, size)                                                           \
    ((void)VALGRIND_DO_CLIENT_REQUEST_EXPR(0, VG_USERREQ__MEMGROW_DEVICE_UNMAP, (addr), (size), 0, \
                                           0, 0))

#define MEMGROW_DEVICE_VA(op, addr, size, arg)                                                     \
    ((void)VALGRIND_DO_CLIENT_REQUEST_EXPR(0, VG_USERREQ__MEMGROW_DEVICE_VA, (op), (addr), (size), \
                                           (arg), 0))

/* 1 when fine or not running under memgrow. */
#define MEMGROW_DEVICE_ACCESS(addr, size, access, api)                                             \
    __extension__({                                                                                \
        int _mg_res = (int)VALGRIND_DO_CLIENT_REQUEST_EXPR(1, VG_USERREQ__MEMGROW_DEVICE_ACCESS,   \
                                                           (addr), (size), (access), (api), 0);    \
        _mg_res;                                                                                   \
    })

#define MEMGROW_CUDA_TRACKING(scope)                                                               \
    __extension__({                                                                                \
        int _mg_res = (int)VALGRIND_DO_CLIENT_REQUEST_EXPR(0, VG_USERREQ__MEMGROW_CUDA_TRACKING,   \
                                                           (scope), 0, 0, 0, 0);                   \
        _mg_res;                                                                                   \
    })

#endif /* MEMGROW_H */
