/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Replacements of libc's string and memory functions, compiled into the
   preload. glibc's vectorised versions read whole 16- and 32-byte words
   across a string's or block's end, often unaligned (a read the page
   allows but the block does not); under --addressability=yes each would be
   an invalid read. Memcheck replaces them in its preload (Valgrind's
   shared/vg_replace_strmem.c); these are memgrow's own, simple versions
   that read only the bytes the function's contract allows. The
   equivalence-class tags are memcheck's, so a symbol both tools would
   replace is replaced the same way.

   They replace the functions in every run: the redirections are read from
   the preload before the options are known. Under Valgrind the byte loops
   cost about what glibc's vector code costs (docs/addressability.md gives
   the measurement). */
#include "pub_tool_basics.h"
#include "pub_tool_redir.h"

typedef unsigned long mg_size;
typedef int mg_wchar; /* wchar_t on Linux */

/* Each replacement is defined under every name it covers: the exported
   IFUNC symbol (internal calls reach the chosen variant through it) and
   the hidden and versioned names memcheck also lists. */
#define LIBC VG_Z_LIBC_SONAME
/* The dynamic linker's own copies: after start-up it works on blocks of
   the replaced malloc (paths, object names) with SSE2 code that reads
   unaligned words past their ends. */
#define LDSO VG_Z_LD_LINUX_X86_64_SO_2

#define STRLEN(soname, fnname)                                                                     \
    mg_size VG_REPLACE_FUNCTION_EZU(20070, soname, fnname)(const char* s);                         \
    mg_size VG_REPLACE_FUNCTION_EZU(20070, soname, fnname)(const char* s) {                        \
        mg_size i = 0;                                                                             \
        while (s[i])                                                                               \
            i++;                                                                                   \
        return i;                                                                                  \
    }
STRLEN(LIBC, strlen)
STRLEN(LIBC, __GI_strlen)
STRLEN(LDSO, strlen)

#define STRNLEN(soname, fnname)                                                                    \
    mg_size VG_REPLACE_FUNCTION_EZU(20060, soname, fnname)(const char* s, mg_size n);              \
    mg_size VG_REPLACE_FUNCTION_EZU(20060, soname, fnname)(const char* s, mg_size n) {             \
        mg_size i = 0;                                                                             \
        while (i < n && s[i])                                                                      \
            i++;                                                                                   \
        return i;                                                                                  \
    }
STRNLEN(LIBC, strnlen)
STRNLEN(LIBC, __GI_strnlen)
STRNLEN(LDSO, strnlen)

#define STRCHR(soname, fnname)                                                                     \
    char* VG_REPLACE_FUNCTION_EZU(20020, soname, fnname)(const char* s, int c);                    \
    char* VG_REPLACE_FUNCTION_EZU(20020, soname, fnname)(const char* s, int c) {                   \
        char ch = (char)c;                                                                         \
        for (;; s++) {                                                                             \
            if (*s == ch) return (char*)s;                                                         \
            if (!*s) return 0;                                                                     \
        }                                                                                          \
    }
STRCHR(LIBC, strchr)
STRCHR(LIBC, __GI_strchr)
STRCHR(LIBC, index)
STRCHR(LDSO, strchr)
STRCHR(LDSO, index)

#define STRCHRNUL(soname, fnname)                                                                  \
    char* VG_REPLACE_FUNCTION_EZU(20250, soname, fnname)(const char* s, int c);                    \
    char* VG_REPLACE_FUNCTION_EZU(20250, soname, fnname)(const char* s, int c) {                   \
        char ch = (char)c;                                                                         \
        while (*s && *s != ch)                                                                     \
            s++;                                                                                   \
        return (char*)s;                                                                           \
    }
STRCHRNUL(LIBC, strchrnul)

#define STRRCHR(soname, fnname)                                                                    \
    char* VG_REPLACE_FUNCTION_EZU(20010, soname, fnname)(const char* s, int c);                    \
    char* VG_REPLACE_FUNCTION_EZU(20010, soname, fnname)(const char* s, int c) {                   \
        char ch = (char)c;                                                                         \
        const char* last = 0;                                                                      \
        for (;; s++) {                                                                             \
            if (*s == ch) last = s;                                                                \
            if (!*s) return (char*)last;                                                           \
        }                                                                                          \
    }
STRRCHR(LIBC, strrchr)
STRRCHR(LIBC, __GI_strrchr)
STRRCHR(LIBC, rindex)

#define STRCMP(soname, fnname)                                                                     \
    int VG_REPLACE_FUNCTION_EZU(20160, soname, fnname)(const char* a, const char* b);              \
    int VG_REPLACE_FUNCTION_EZU(20160, soname, fnname)(const char* a, const char* b) {             \
        const unsigned char* x = (const unsigned char*)a;                                          \
        const unsigned char* y = (const unsigned char*)b;                                          \
        while (*x && *x == *y)                                                                     \
            x++, y++;                                                                              \
        return (int)*x - (int)*y;                                                                  \
    }
STRCMP(LIBC, strcmp)
STRCMP(LIBC, __GI_strcmp)
STRCMP(LDSO, strcmp)

#define STRNCMP(soname, fnname)                                                                    \
    int VG_REPLACE_FUNCTION_EZU(20110, soname, fnname)(const char* a, const char* b, mg_size n);   \
    int VG_REPLACE_FUNCTION_EZU(20110, soname, fnname)(const char* a, const char* b, mg_size n) {  \
        const unsigned char* x = (const unsigned char*)a;                                          \
        const unsigned char* y = (const unsigned char*)b;                                          \
        for (; n; n--, x++, y++) {                                                                 \
            if (*x != *y) return (int)*x - (int)*y;                                                \
            if (!*x) return 0;                                                                     \
        }                                                                                          \
        return 0;                                                                                  \
    }
STRNCMP(LIBC, strncmp)
STRNCMP(LIBC, __GI_strncmp)
STRNCMP(LDSO, strncmp)

static int mg_lower(int c) {
    return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

/* The C locale's case folding: what CPython and most callers need; a
   program in another locale compares ASCII letters the same way. */
#define STRCASECMP(soname, fnname)                                                                 \
    int VG_REPLACE_FUNCTION_EZU(20120, soname, fnname)(const char* a, const char* b);              \
    int VG_REPLACE_FUNCTION_EZU(20120, soname, fnname)(const char* a, const char* b) {             \
        const unsigned char* x = (const unsigned char*)a;                                          \
        const unsigned char* y = (const unsigned char*)b;                                          \
        while (*x && mg_lower(*x) == mg_lower(*y))                                                 \
            x++, y++;                                                                              \
        return mg_lower(*x) - mg_lower(*y);                                                        \
    }
STRCASECMP(LIBC, strcasecmp)

#define STRNCASECMP(soname, fnname)                                                                \
    int VG_REPLACE_FUNCTION_EZU(20130, soname, fnname)(const char* a, const char* b, mg_size n);   \
    int VG_REPLACE_FUNCTION_EZU(20130, soname, fnname)(const char* a, const char* b, mg_size n) {  \
        const unsigned char* x = (const unsigned char*)a;                                          \
        const unsigned char* y = (const unsigned char*)b;                                          \
        for (; n; n--, x++, y++) {                                                                 \
            if (mg_lower(*x) != mg_lower(*y)) return mg_lower(*x) - mg_lower(*y);                  \
            if (!*x) return 0;                                                                     \
        }                                                                                          \
        return 0;                                                                                  \
    }
STRNCASECMP(LIBC, strncasecmp)

#define STRCPY(soname, fnname)                                                                     \
    char* VG_REPLACE_FUNCTION_EZU(20080, soname, fnname)(char* d, const char* s);                  \
    char* VG_REPLACE_FUNCTION_EZU(20080, soname, fnname)(char* d, const char* s) {                 \
        char* r = d;                                                                               \
        while ((*d++ = *s++))                                                                      \
            ;                                                                                      \
        return r;                                                                                  \
    }
STRCPY(LIBC, strcpy)
STRCPY(LIBC, __GI_strcpy)
STRCPY(LDSO, strcpy)

#define STPCPY(soname, fnname)                                                                     \
    char* VG_REPLACE_FUNCTION_EZU(20200, soname, fnname)(char* d, const char* s);                  \
    char* VG_REPLACE_FUNCTION_EZU(20200, soname, fnname)(char* d, const char* s) {                 \
        while ((*d = *s))                                                                          \
            d++, s++;                                                                              \
        return d;                                                                                  \
    }
STPCPY(LIBC, stpcpy)
STPCPY(LIBC, __GI_stpcpy)
STPCPY(LIBC, __stpcpy)
STPCPY(LDSO, stpcpy)
STPCPY(LDSO, __stpcpy)

#define STRNCPY(soname, fnname)                                                                    \
    char* VG_REPLACE_FUNCTION_EZU(20090, soname, fnname)(char* d, const char* s, mg_size n);       \
    char* VG_REPLACE_FUNCTION_EZU(20090, soname, fnname)(char* d, const char* s, mg_size n) {      \
        mg_size i = 0;                                                                             \
        for (; i < n && s[i]; i++)                                                                 \
            d[i] = s[i];                                                                           \
        for (; i < n; i++)                                                                         \
            d[i] = 0;                                                                              \
        return d;                                                                                  \
    }
STRNCPY(LIBC, strncpy)
STRNCPY(LIBC, __GI_strncpy)

#define STRCAT(soname, fnname)                                                                     \
    char* VG_REPLACE_FUNCTION_EZU(20030, soname, fnname)(char* d, const char* s);                  \
    char* VG_REPLACE_FUNCTION_EZU(20030, soname, fnname)(char* d, const char* s) {                 \
        char* r = d;                                                                               \
        while (*d)                                                                                 \
            d++;                                                                                   \
        while ((*d++ = *s++))                                                                      \
            ;                                                                                      \
        return r;                                                                                  \
    }
STRCAT(LIBC, strcat)
STRCAT(LIBC, __GI_strcat)

#define STRNCAT(soname, fnname)                                                                    \
    char* VG_REPLACE_FUNCTION_EZU(20040, soname, fnname)(char* d, const char* s, mg_size n);       \
    char* VG_REPLACE_FUNCTION_EZU(20040, soname, fnname)(char* d, const char* s, mg_size n) {      \
        char* r = d;                                                                               \
        while (*d)                                                                                 \
            d++;                                                                                   \
        for (; n && *s; n--)                                                                       \
            *d++ = *s++;                                                                           \
        *d = 0;                                                                                    \
        return r;                                                                                  \
    }
STRNCAT(LIBC, strncat)

#define STRSPN(soname, fnname, tag, want)                                                          \
    mg_size VG_REPLACE_FUNCTION_EZU(tag, soname, fnname)(const char* s, const char* set);          \
    mg_size VG_REPLACE_FUNCTION_EZU(tag, soname, fnname)(const char* s, const char* set) {         \
        mg_size i = 0;                                                                             \
        for (; s[i]; i++) {                                                                        \
            const char* p = set;                                                                   \
            while (*p && *p != s[i])                                                               \
                p++;                                                                               \
            if ((*p != 0) != (want)) break;                                                        \
        }                                                                                          \
        return i;                                                                                  \
    }
STRSPN(LIBC, strspn, 20340, 1)
STRSPN(LIBC, strcspn, 20330, 0)

char* VG_REPLACE_FUNCTION_EZU(20320, LIBC, strpbrk)(const char* s, const char* set);
char* VG_REPLACE_FUNCTION_EZU(20320, LIBC, strpbrk)(const char* s, const char* set) {
    for (; *s; s++)
        for (const char* p = set; *p; p++)
            if (*p == *s) return (char*)s;
    return 0;
}

char* VG_REPLACE_FUNCTION_EZU(20310, LIBC, strstr)(const char* h, const char* n);
char* VG_REPLACE_FUNCTION_EZU(20310, LIBC, strstr)(const char* h, const char* n) {
    if (!*n) return (char*)h;
    for (; *h; h++) {
        mg_size i = 0;
        while (n[i] && h[i] == n[i])
            i++;
        if (!n[i]) return (char*)h;
    }
    return 0;
}

#define MEMCHR(soname, fnname)                                                                     \
    void* VG_REPLACE_FUNCTION_EZU(20170, soname, fnname)(const void* s, int c, mg_size n);         \
    void* VG_REPLACE_FUNCTION_EZU(20170, soname, fnname)(const void* s, int c, mg_size n) {        \
        const unsigned char* p = (const unsigned char*)s;                                          \
        for (mg_size i = 0; i < n; i++)                                                            \
            if (p[i] == (unsigned char)c) return (void*)(p + i);                                   \
        return 0;                                                                                  \
    }
MEMCHR(LIBC, memchr)
MEMCHR(LIBC, __GI_memchr)
MEMCHR(LDSO, memchr)

#define MEMRCHR(soname, fnname)                                                                    \
    void* VG_REPLACE_FUNCTION_EZU(20360, soname, fnname)(const void* s, int c, mg_size n);         \
    void* VG_REPLACE_FUNCTION_EZU(20360, soname, fnname)(const void* s, int c, mg_size n) {        \
        const unsigned char* p = (const unsigned char*)s;                                          \
        while (n--)                                                                                \
            if (p[n] == (unsigned char)c) return (void*)(p + n);                                   \
        return 0;                                                                                  \
    }
MEMRCHR(LIBC, memrchr)

#define RAWMEMCHR(soname, fnname)                                                                  \
    void* VG_REPLACE_FUNCTION_EZU(20260, soname, fnname)(const void* s, int c);                    \
    void* VG_REPLACE_FUNCTION_EZU(20260, soname, fnname)(const void* s, int c) {                   \
        const unsigned char* p = (const unsigned char*)s;                                          \
        while (*p != (unsigned char)c)                                                             \
            p++;                                                                                   \
        return (void*)p;                                                                           \
    }
RAWMEMCHR(LIBC, rawmemchr)
RAWMEMCHR(LIBC, __GI___rawmemchr)
RAWMEMCHR(LDSO, rawmemchr)
RAWMEMCHR(LDSO, __rawmemchr)

#define MEMCMP(soname, fnname)                                                                     \
    int VG_REPLACE_FUNCTION_EZU(20190, soname, fnname)(const void* a, const void* b, mg_size n);   \
    int VG_REPLACE_FUNCTION_EZU(20190, soname, fnname)(const void* a, const void* b, mg_size n) {  \
        const unsigned char* x = (const unsigned char*)a;                                          \
        const unsigned char* y = (const unsigned char*)b;                                          \
        for (mg_size i = 0; i < n; i++)                                                            \
            if (x[i] != y[i]) return (int)x[i] - (int)y[i];                                        \
        return 0;                                                                                  \
    }
MEMCMP(LIBC, memcmp)
MEMCMP(LIBC, __GI_memcmp)
MEMCMP(LIBC, bcmp)
/* glibc 2.35's equality-only memcmp, which GCC 12 and later call. */
MEMCMP(LIBC, __memcmpeq)
MEMCMP(LDSO, memcmp)
MEMCMP(LDSO, bcmp)

/* Copies forwards, a word at a time where both ends allow it. */
static void* mg_copy_fwd(void* d, const void* s, mg_size n) {
    unsigned char* x = (unsigned char*)d;
    const unsigned char* y = (const unsigned char*)s;
    if ((((unsigned long)x | (unsigned long)y) & 7) == 0) {
        for (; n >= 8; n -= 8, x += 8, y += 8)
            *(unsigned long*)x = *(const unsigned long*)y;
    }
    for (; n; n--)
        *x++ = *y++;
    return d;
}

static void* mg_copy_bwd(void* d, const void* s, mg_size n) {
    unsigned char* x = (unsigned char*)d + n;
    const unsigned char* y = (const unsigned char*)s + n;
    if ((((unsigned long)x | (unsigned long)y) & 7) == 0) {
        for (; n >= 8; n -= 8) {
            x -= 8, y -= 8;
            *(unsigned long*)x = *(const unsigned long*)y;
        }
    }
    while (n--)
        *--x = *--y;
    return d;
}

static void* mg_move(void* d, const void* s, mg_size n) {
    if ((unsigned long)d - (unsigned long)s >= n) return mg_copy_fwd(d, s, n);
    return mg_copy_bwd(d, s, n);
}

/* memcpy with overlapping arguments is the caller's bug, but copying as
   memmove does keeps the program's behaviour what glibc gives it. */
#define MEMCPY(soname, fnname, tag)                                                                \
    void* VG_REPLACE_FUNCTION_EZU(tag, soname, fnname)(void* d, const void* s, mg_size n);         \
    void* VG_REPLACE_FUNCTION_EZU(tag, soname, fnname)(void* d, const void* s, mg_size n) {        \
        return mg_move(d, s, n);                                                                   \
    }
MEMCPY(LIBC, memcpy, 20180)
MEMCPY(LIBC, memcpyZAGLIBCZu2Zd2Zd5, 20180) /* memcpy@GLIBC_2.2.5 */
MEMCPY(LIBC, memcpyZAZAGLIBCZu2Zd14, 20180) /* memcpy@@GLIBC_2.14 */
MEMCPY(LIBC, __GI_memcpy, 20180)
MEMCPY(LIBC, memmove, 20220)
MEMCPY(LIBC, __GI_memmove, 20220)
MEMCPY(LDSO, memcpy, 20180)
MEMCPY(LDSO, memmove, 20220)

#define MEMCPY_CHK(soname, fnname, tag)                                                            \
    void* VG_REPLACE_FUNCTION_EZU(tag, soname, fnname)(void* d, const void* s, mg_size n,          \
                                                       mg_size dn);                                \
    void* VG_REPLACE_FUNCTION_EZU(tag, soname, fnname)(void* d, const void* s, mg_size n,          \
                                                       mg_size dn) {                               \
        if (dn < n) __builtin_trap(); /* glibc's __chk_fail: the buffer overflows */               \
        return mg_move(d, s, n);                                                                   \
    }
MEMCPY_CHK(LIBC, __memcpy_chk, 20300)
MEMCPY_CHK(LIBC, __memmove_chk, 20240)

#define MEMPCPY(soname, fnname)                                                                    \
    void* VG_REPLACE_FUNCTION_EZU(20290, soname, fnname)(void* d, const void* s, mg_size n);       \
    void* VG_REPLACE_FUNCTION_EZU(20290, soname, fnname)(void* d, const void* s, mg_size n) {      \
        return (char*)mg_move(d, s, n) + n;                                                        \
    }
MEMPCPY(LIBC, mempcpy)
MEMPCPY(LIBC, __GI_mempcpy)
MEMPCPY(LIBC, __mempcpy)
MEMPCPY(LDSO, mempcpy)
MEMPCPY(LDSO, __mempcpy)

#define MEMSET(soname, fnname)                                                                     \
    void* VG_REPLACE_FUNCTION_EZU(20210, soname, fnname)(void* s, int c, mg_size n);               \
    void* VG_REPLACE_FUNCTION_EZU(20210, soname, fnname)(void* s, int c, mg_size n) {              \
        unsigned char* p = (unsigned char*)s;                                                      \
        unsigned long w = (unsigned char)c;                                                        \
        w |= w << 8, w |= w << 16, w |= w << 32;                                                   \
        for (; n && ((unsigned long)p & 7); n--)                                                   \
            *p++ = (unsigned char)c;                                                               \
        for (; n >= 8; n -= 8, p += 8)                                                             \
            *(unsigned long*)p = w;                                                                \
        for (; n; n--)                                                                             \
            *p++ = (unsigned char)c;                                                               \
        return s;                                                                                  \
    }
MEMSET(LIBC, memset)
MEMSET(LIBC, __GI_memset)
MEMSET(LDSO, memset)

#define WCSLEN(soname, fnname)                                                                     \
    mg_size VG_REPLACE_FUNCTION_EZU(20370, soname, fnname)(const mg_wchar* s);                     \
    mg_size VG_REPLACE_FUNCTION_EZU(20370, soname, fnname)(const mg_wchar* s) {                    \
        mg_size i = 0;                                                                             \
        while (s[i])                                                                               \
            i++;                                                                                   \
        return i;                                                                                  \
    }
WCSLEN(LIBC, wcslen)

mg_size VG_REPLACE_FUNCTION_EZU(20375, LIBC, wcsnlen)(const mg_wchar* s, mg_size n);
mg_size VG_REPLACE_FUNCTION_EZU(20375, LIBC, wcsnlen)(const mg_wchar* s, mg_size n) {
    mg_size i = 0;
    while (i < n && s[i])
        i++;
    return i;
}

int VG_REPLACE_FUNCTION_EZU(20380, LIBC, wcscmp)(const mg_wchar* a, const mg_wchar* b);
int VG_REPLACE_FUNCTION_EZU(20380, LIBC, wcscmp)(const mg_wchar* a, const mg_wchar* b) {
    while (*a && *a == *b)
        a++, b++;
    return *a < *b ? -1 : *a > *b;
}

int VG_REPLACE_FUNCTION_EZU(20385, LIBC, wcsncmp)(const mg_wchar* a, const mg_wchar* b, mg_size n);
int VG_REPLACE_FUNCTION_EZU(20385, LIBC, wcsncmp)(const mg_wchar* a, const mg_wchar* b, mg_size n) {
    for (; n; n--, a++, b++) {
        if (*a != *b) return *a < *b ? -1 : 1;
        if (!*a) return 0;
    }
    return 0;
}

mg_wchar* VG_REPLACE_FUNCTION_EZU(20390, LIBC, wcscpy)(mg_wchar* d, const mg_wchar* s);
mg_wchar* VG_REPLACE_FUNCTION_EZU(20390, LIBC, wcscpy)(mg_wchar* d, const mg_wchar* s) {
    mg_wchar* r = d;
    while ((*d++ = *s++))
        ;
    return r;
}

mg_wchar* VG_REPLACE_FUNCTION_EZU(20400, LIBC, wcschr)(const mg_wchar* s, mg_wchar c);
mg_wchar* VG_REPLACE_FUNCTION_EZU(20400, LIBC, wcschr)(const mg_wchar* s, mg_wchar c) {
    for (;; s++) {
        if (*s == c) return (mg_wchar*)s;
        if (!*s) return 0;
    }
}

mg_wchar* VG_REPLACE_FUNCTION_EZU(20410, LIBC, wcsrchr)(const mg_wchar* s, mg_wchar c);
mg_wchar* VG_REPLACE_FUNCTION_EZU(20410, LIBC, wcsrchr)(const mg_wchar* s, mg_wchar c) {
    const mg_wchar* last = 0;
    for (;; s++) {
        if (*s == c) last = s;
        if (!*s) return (mg_wchar*)last;
    }
}

mg_wchar* VG_REPLACE_FUNCTION_EZU(20420, LIBC, wmemchr)(const mg_wchar* s, mg_wchar c, mg_size n);
mg_wchar* VG_REPLACE_FUNCTION_EZU(20420, LIBC, wmemchr)(const mg_wchar* s, mg_wchar c, mg_size n) {
    for (mg_size i = 0; i < n; i++)
        if (s[i] == c) return (mg_wchar*)(s + i);
    return 0;
}

int VG_REPLACE_FUNCTION_EZU(20430, LIBC, wmemcmp)(const mg_wchar* a, const mg_wchar* b, mg_size n);
int VG_REPLACE_FUNCTION_EZU(20430, LIBC, wmemcmp)(const mg_wchar* a, const mg_wchar* b, mg_size n) {
    for (mg_size i = 0; i < n; i++)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}

mg_wchar* VG_REPLACE_FUNCTION_EZU(20440, LIBC, wmemset)(mg_wchar* s, mg_wchar c, mg_size n);
mg_wchar* VG_REPLACE_FUNCTION_EZU(20440, LIBC, wmemset)(mg_wchar* s, mg_wchar c, mg_size n) {
    for (mg_size i = 0; i < n; i++)
        s[i] = c;
    return s;
}

mg_wchar* VG_REPLACE_FUNCTION_EZU(20450, LIBC, wcscat)(mg_wchar* d, const mg_wchar* s);
mg_wchar* VG_REPLACE_FUNCTION_EZU(20450, LIBC, wcscat)(mg_wchar* d, const mg_wchar* s) {
    mg_wchar* r = d;
    while (*d)
        d++;
    while ((*d++ = *s++))
        ;
    return r;
}

mg_wchar* VG_REPLACE_FUNCTION_EZU(20460, LIBC, wcsncpy)(mg_wchar* d, const mg_wchar* s, mg_size n);
mg_wchar* VG_REPLACE_FUNCTION_EZU(20460, LIBC, wcsncpy)(mg_wchar* d, const mg_wchar* s, mg_size n) {
    mg_size i = 0;
    for (; i < n && s[i]; i++)
        d[i] = s[i];
    for (; i < n; i++)
        d[i] = 0;
    return d;
}

mg_wchar* VG_REPLACE_FUNCTION_EZU(20470, LIBC, wcpcpy)(mg_wchar* d, const mg_wchar* s);
mg_wchar* VG_REPLACE_FUNCTION_EZU(20470, LIBC, wcpcpy)(mg_wchar* d, const mg_wchar* s) {
    while ((*d = *s))
        d++, s++;
    return d;
}

mg_wchar* VG_REPLACE_FUNCTION_EZU(20480, LIBC, wcsncat)(mg_wchar* d, const mg_wchar* s, mg_size n);
mg_wchar* VG_REPLACE_FUNCTION_EZU(20480, LIBC, wcsncat)(mg_wchar* d, const mg_wchar* s, mg_size n) {
    mg_wchar* r = d;
    while (*d)
        d++;
    for (; n && *s; n--)
        *d++ = *s++;
    *d = 0;
    return r;
}

#define STPNCPY(soname, fnname)                                                                    \
    char* VG_REPLACE_FUNCTION_EZU(20490, soname, fnname)(char* d, const char* s, mg_size n);       \
    char* VG_REPLACE_FUNCTION_EZU(20490, soname, fnname)(char* d, const char* s, mg_size n) {      \
        mg_size i = 0;                                                                             \
        for (; i < n && s[i]; i++)                                                                 \
            d[i] = s[i];                                                                           \
        char* end = d + i;                                                                         \
        for (; i < n; i++)                                                                         \
            d[i] = 0;                                                                              \
        return end;                                                                                \
    }
STPNCPY(LIBC, stpncpy)
STPNCPY(LIBC, __stpncpy)

/* The locale argument is ignored: see strcasecmp above. */
int VG_REPLACE_FUNCTION_EZU(20140, LIBC, strcasecmp_l)(const char* a, const char* b, void* loc);
int VG_REPLACE_FUNCTION_EZU(20140, LIBC, strcasecmp_l)(const char* a, const char* b, void* loc) {
    const unsigned char* x = (const unsigned char*)a;
    const unsigned char* y = (const unsigned char*)b;
    (void)loc;
    while (*x && mg_lower(*x) == mg_lower(*y))
        x++, y++;
    return mg_lower(*x) - mg_lower(*y);
}

int VG_REPLACE_FUNCTION_EZU(20150, LIBC, strncasecmp_l)(const char* a, const char* b, mg_size n,
                                                        void* loc);
int VG_REPLACE_FUNCTION_EZU(20150, LIBC, strncasecmp_l)(const char* a, const char* b, mg_size n,
                                                        void* loc) {
    const unsigned char* x = (const unsigned char*)a;
    const unsigned char* y = (const unsigned char*)b;
    (void)loc;
    for (; n; n--, x++, y++) {
        if (mg_lower(*x) != mg_lower(*y)) return mg_lower(*x) - mg_lower(*y);
        if (!*x) return 0;
    }
    return 0;
}

void* VG_REPLACE_FUNCTION_EZU(20500, LIBC, __mempcpy_chk)(void* d, const void* s, mg_size n,
                                                          mg_size dn);
void* VG_REPLACE_FUNCTION_EZU(20500, LIBC, __mempcpy_chk)(void* d, const void* s, mg_size n,
                                                          mg_size dn) {
    if (dn < n) __builtin_trap();
    return (char*)mg_move(d, s, n) + n;
}

void* VG_REPLACE_FUNCTION_EZU(20510, LIBC, __memset_chk)(void* s, int c, mg_size n, mg_size dn);
void* VG_REPLACE_FUNCTION_EZU(20510, LIBC, __memset_chk)(void* s, int c, mg_size n, mg_size dn) {
    unsigned char* p = (unsigned char*)s;
    if (dn < n) __builtin_trap();
    for (mg_size i = 0; i < n; i++)
        p[i] = (unsigned char)c;
    return s;
}
