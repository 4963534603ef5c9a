// SPDX-License-Identifier: GPL-2.0-or-later
// The frame a site is named by, everywhere a site is named (the tool's log,
// memgrow-report's show, html, sarif and junit): the innermost frame in the
// program's own code, not in the C library, the dynamic loader, the C++
// runtime, memgrow's preload, a system header inlined into the program, or
// (for Python frames) the standard library or an installed package. A
// person reads `cache_response (service.c:35)`, not `strdup (strdup.c:42)`.
// Header-only and freestanding (no library at all): the tool includes it.
#pragma once

#include "py_user.hpp"

namespace mg {

namespace site_name_detail {
inline bool starts_with(const char* s, const char* prefix) {
    while (*prefix)
        if (*s++ != *prefix++) return false;
    return true;
}
inline const char* base_name(const char* path) {
    const char* base = path;
    for (const char* p = path; *p; ++p)
        if (*p == '/') base = p + 1;
    return base;
}
} // namespace site_name_detail

// A path of the system: installed programs and libraries, their headers (an
// inlined std::vector::push_back is in /usr/include) and Python's standard
// library.
inline bool system_path(const char* path) {
    if (!path) return false;
    const char* const dirs[] = {"/bin/",         "/lib/",         "/lib32/",     "/lib64/",
                                "/usr/bin/",     "/usr/lib/",     "/usr/lib32/", "/usr/lib64/",
                                "/usr/libexec/", "/usr/include/", "/usr/share/", "/usr/local/lib/"};
    for (const char* d : dirs)
        if (site_name_detail::starts_with(path, d)) return true;
    return false;
}

// An ELF object of the system or of the runtime: a system path, or one named
// like the C library, the loader, the C++ runtime, the Python interpreter
// (a static one holds all of CPython), libpython or a Valgrind preload,
// wherever it lies (pyenv's interpreters, an in-place build), or one in a
// Python library's directory (an installed package's extension module).
inline bool system_object(const char* object) {
    if (!object) return false;
    if (system_path(object)) return true;
    // An extension module of an installed package (NumPy's) is a library too.
    if (*object == '/' && python_library_file(object)) return true;
    const char* name = site_name_detail::base_name(object);
    const char* const prefixes[] = {"libc.so",   "libc-",    "ld-linux",  "ld.so",  "ld64.so",
                                    "libstdc++", "libgcc_s", "libm.so",   "libm-",  "libpthread",
                                    "libdl.so",  "librt.so", "libpython", "python", "vgpreload_"};
    for (const char* p : prefixes)
        if (site_name_detail::starts_with(name, p)) return true;
    return false;
}

// How well a frame names its site: the lowest rank of a stack wins, the
// innermost frame among equals.
enum class NameRank : int {
    user = 0,           // the program's own code, with a source file
    python_library = 1, // a Python frame of a library: still Python code
    user_no_file = 2,   // the program's own object, built without -g
    system_file = 3,    // any other frame with a source file
    function = 4,       // a function name only
    unknown = 5,        // nothing known
};

// `function`, `file`, `object` may be null (unknown); a Python frame has no
// object.
inline NameRank name_rank(const char* function, const char* file, const char* object, bool python) {
    bool has_file = file && *file && *file != '<'; // "<frozen ...>", "<string>"
    if (python) {
        if (has_file && !python_library_file(file)) return NameRank::user;
        return file && *file ? NameRank::python_library : NameRank::unknown;
    }
    bool system = system_object(object) || system_path(file);
    if (has_file && !system) return NameRank::user;
    if (!system && object && function) return NameRank::user_no_file;
    if (has_file) return NameRank::system_file;
    return function ? NameRank::function : NameRank::unknown;
}

// Fed a stack's frames innermost first, keeps the one that names the site.
struct SiteNamer {
    NameRank best = NameRank::unknown;
    unsigned index = 0; // of the best frame, in the order offered
    unsigned seen = 0;
    bool any = false;

    void offer(const char* function, const char* file, const char* object, bool python) {
        NameRank r = name_rank(function, file, object, python);
        if (!any || static_cast<int>(r) < static_cast<int>(best)) {
            best = r;
            index = seen;
            any = true;
        }
        ++seen;
    }
    // Whether the frame found so far is the program's own: later frames
    // cannot beat it.
    bool settled() const { return any && best == NameRank::user; }
};

} // namespace mg
