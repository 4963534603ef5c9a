// Whether a Python source file is the user's own code or a library's: the
// interpreter's standard library, an installed package, or a pseudo-file
// ("<frozen importlib._bootstrap>", "<string>"). A Python site's headline
// names its innermost frame in the user's code (docs/python.md). Shared by
// the tool's log and memgrow-report; no dependencies.
#pragma once

namespace mg {

namespace py_user_detail {
inline bool contains(const char* s, const char* part) {
    for (; *s; ++s) {
        const char *a = s, *b = part;
        while (*a && *b && *a == *b)
            ++a, ++b;
        if (!*b) return true;
    }
    return false;
}
} // namespace py_user_detail

// A library file: a pseudo-file, a file of an installed package
// (site-packages, dist-packages) or of a standard library (a directory
// named lib/pythonX.Y, wherever the interpreter lives: pyenv, a venv's base,
// /usr/lib).
inline bool python_library_file(const char* file) {
    using py_user_detail::contains;
    if (!file || !*file || *file == '<') return true;
    return contains(file, "/site-packages/") || contains(file, "/dist-packages/") ||
           contains(file, "/lib/python3") || contains(file, "/lib64/python3");
}

} // namespace mg
