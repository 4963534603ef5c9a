// SPDX-License-Identifier: GPL-2.0-or-later
// How a report reaches the path a user names (docs/robustness.md, "Where a
// report goes"). A new path or a regular file is replaced atomically (a
// temporary file beside it, renamed over it), so that a reader never sees
// half a report; through a symbolic link, the link's target is replaced and
// the link kept. Anything else is written through as it is: /dev/null must
// stay a device, a FIFO's reader must get the report, a socket is connected
// to, and /dev/stdout writes to the descriptor the process already has.
// Shared by the tool and memgrow-report; header-only and freestanding (no
// library at all): the tool includes it.
#pragma once

namespace mg::output_path {

// The file a path names now (stat, following links), as far as writing it
// is concerned.
enum class FileType { missing, regular, directory, fifo, device, socket };

enum class WriteHow {
    replace,       // a temporary file in the target's directory, renamed over it
    write_through, // open the path for writing (devices, FIFOs), no truncation games
    connect,       // a Unix-domain socket: connect and write
    refuse,        // a directory: nothing can be written there
};

inline WriteHow how_to_write(FileType t) {
    switch (t) {
    case FileType::missing:
    case FileType::regular:
        return WriteHow::replace;
    case FileType::fifo:
    case FileType::device:
        return WriteHow::write_through;
    case FileType::socket:
        return WriteHow::connect;
    case FileType::directory:
        break;
    }
    return WriteHow::refuse;
}

namespace detail {
inline bool starts_with(const char* s, const char* prefix, const char** rest) {
    while (*prefix)
        if (*s++ != *prefix++) return false;
    *rest = s;
    return true;
}
inline bool equals(const char* a, const char* b) {
    while (*a && *a == *b)
        ++a, ++b;
    return *a == *b;
}
// A whole non-negative decimal number (at most 9 digits), or -1.
inline int number(const char* s) {
    if (!*s) return -1;
    int n = 0, digits = 0;
    for (; *s; ++s, ++digits) {
        if (*s < '0' || *s > '9' || digits == 9) return -1;
        n = n * 10 + (*s - '0');
    }
    return n;
}
} // namespace detail

// The descriptor of this process a path names (/dev/stdout, /dev/stderr,
// /dev/fd/N, /proc/self/fd/N, /proc/PID/fd/N of this pid), or -1. Such a
// path is written to that descriptor at its offset: opening it anew would
// start a redirected file over, and replacing it would cut the link.
inline int descriptor_of(const char* path, int own_pid) {
    const char* rest;
    if (!path) return -1;
    if (detail::equals(path, "/dev/stdout")) return 1;
    if (detail::equals(path, "/dev/stderr")) return 2;
    if (detail::starts_with(path, "/dev/fd/", &rest) ||
        detail::starts_with(path, "/proc/self/fd/", &rest) ||
        detail::starts_with(path, "/proc/thread-self/fd/", &rest))
        return detail::number(rest);
    if (detail::starts_with(path, "/proc/", &rest)) {
        int pid = 0;
        for (; *rest >= '0' && *rest <= '9'; ++rest)
            pid = pid * 10 + (*rest - '0');
        if (pid == own_pid && detail::starts_with(rest, "/fd/", &rest)) return detail::number(rest);
    }
    return -1;
}

// A symbolic link's target as a path: an absolute target as it is, a
// relative one joined to the link's directory. Writes it to out (n bytes
// with the NUL); false when it does not fit.
inline bool join_link(const char* link, const char* target, char* out, unsigned long n) {
    unsigned long len = 0;
    auto put = [&](const char* s, unsigned long k) {
        for (unsigned long i = 0; i < k; ++i) {
            if (len + 1 >= n) return false;
            out[len++] = s[i];
        }
        return true;
    };
    auto length = [](const char* s) {
        unsigned long k = 0;
        while (s[k])
            ++k;
        return k;
    };
    if (target[0] != '/') {
        unsigned long dir = 0; // the link's directory, with its slash
        for (unsigned long i = 0; link[i]; ++i)
            if (link[i] == '/') dir = i + 1;
        if (!put(link, dir)) return false;
    }
    if (!put(target, length(target)) || n == 0) return false;
    out[len] = 0;
    return true;
}

// Links followed before a path is called a loop (the kernel's ELOOP limit).
constexpr int kMaxLinks = 40;

} // namespace mg::output_path
