// SPDX-License-Identifier: GPL-2.0-or-later
#include "checks/mg_suppressions.hpp"
#include "records/mg_symbols.hpp"
#include "core/suppression.hpp"

namespace mg {

namespace {

constexpr const HChar* kShippedFile = "memgrow-default.supp";

// A class suppression as memgrow keeps it: the lines point into the file's
// text, which stays loaded for the run.
struct ClassSupp {
    ClassSupp* next;
    const HChar* name;
    const HChar* file;
    UInt line;
    SiteClass kind;
    supp::Line* lines;
    UInt n_lines;
    ULong used;
};

ClassSupp* supps; // in file order, reversed (as the core keeps them)
UInt n_supps;

bool kind_of(const HChar* name, SiteClass* out) {
    if (VG_STREQ(name, "Leaked"))
        *out = SiteClass::leaked;
    else if (VG_STREQ(name, "Growing"))
        *out = SiteClass::growing;
    else if (VG_STREQ(name, "Plateau"))
        *out = SiteClass::plateau;
    else
        return false;
    return true;
}

const HChar* kind_name(SiteClass c) {
    return c == SiteClass::leaked ? "Leaked" : c == SiteClass::growing ? "Growing" : "Plateau";
}

[[noreturn]] void fatal(const HChar* file, UInt line, const HChar* message) {
    VG_(umsg)("FATAL: in suppressions file \"%s\" near line %u:\n", file, line);
    VG_(umsg)("   %s\n", message);
    VG_(umsg)("exiting now.\n");
    VG_(exit)(1);
}

// The whole file, NUL-terminated (the parser works in place).
HChar* read_file(const HChar* path) {
    SysRes r = VG_(open)(path, VKI_O_RDONLY, 0);
    if (sr_isError(r)) {
        VG_(umsg)("FATAL: can't open suppressions file \"%s\"\n", path);
        VG_(exit)(1);
    }
    Int fd = static_cast<Int>(sr_Res(r));
    struct vg_stat st;
    if (VG_(fstat)(fd, &st) != 0 || VKI_S_ISDIR(st.mode)) {
        VG_(umsg)("FATAL: suppressions file \"%s\" is not a readable file\n", path);
        VG_(exit)(1);
    }
    SizeT size = static_cast<SizeT>(st.size), got = 0;
    auto* text = static_cast<HChar*>(VG_(malloc)("mg.supp.text", size + 1));
    while (got < size) {
        Int n = VG_(read)(fd, text + got, static_cast<Int>(size - got));
        if (n <= 0) break;
        got += static_cast<SizeT>(n);
    }
    VG_(close)(fd);
    text[got] = 0;
    return text;
}

// Valgrind's own reader of suppression files, which reads them after
// memgrow, asserts on a line of 51,199 characters or more ("the impossible
// happened"): such a file gets a clear error here first.
constexpr SizeT kMaxLine = 50000;
void check_line_lengths(const HChar* path, const HChar* text) {
    UInt line = 1;
    for (const HChar* start = text;; ++line) {
        const HChar* end = VG_(strchr)(start, '\n');
        SizeT len = end ? static_cast<SizeT>(end - start) : VG_(strlen)(start);
        if (len >= kMaxLine) fatal(path, line, "the line is 50,000 characters or longer");
        if (!end) return;
        start = end + 1;
    }
}

void load(const HChar* path) {
    HChar* text = read_file(path);
    check_line_lengths(path, text);
    const HChar* file = VG_(strdup)("mg.supp.file", path);
    supp::ParseError err{0, nullptr};
    bool ok = supp::parse(
        text, "memgrow",
        [file](const supp::Entry& e) {
            SiteClass kind;
            if (!kind_of(e.kind, &kind)) return true; // an error kind: the core's
            auto* s = static_cast<ClassSupp*>(VG_(malloc)("mg.supp", sizeof(ClassSupp)));
            s->name = e.name;
            s->file = file;
            s->line = e.first_line;
            s->kind = kind;
            s->n_lines = e.n_lines;
            s->lines = static_cast<supp::Line*>(
                VG_(malloc)("mg.supp.lines", e.n_lines * sizeof(supp::Line)));
            for (UInt i = 0; i < e.n_lines; ++i)
                s->lines[i] = e.lines[i];
            s->used = 0;
            s->next = supps;
            supps = s;
            ++n_supps;
            return true;
        },
        &err);
    if (!ok) fatal(path, err.line, err.message);
}

// The site's frames as the matcher sees them (the symbol cache keeps the
// strings for the run).
struct FrameList {
    supp::FrameView frames[supp::kMaxLines];
    UInt n;
};

void collect(const Frame& f, void* ctx) {
    auto* list = static_cast<FrameList*>(ctx);
    if (list->n == supp::kMaxLines) return;
    list->frames[list->n++] = supp::FrameView{f.function, f.file, static_cast<u32>(f.line),
                                              f.python ? nullptr : f.object, f.python};
}

FrameList* frames_of(const Site* s) {
    static FrameList list; // one site at a time
    list.n = 0;
    for_each_frame(s, collect, &list);
    return &list;
}

} // namespace

void suppressions_init() {
    if (VG_(clo_default_supp)) {
        HChar* path = static_cast<HChar*>(
            VG_(malloc)("mg.supp.path", VG_(strlen)(VG_(libdir)) + VG_(strlen)(kShippedFile) + 2));
        VG_(sprintf)(path, "%s/%s", VG_(libdir), kShippedFile);
        struct vg_stat st;
        if (sr_isError(VG_(stat)(path, &st)))
            VG_(umsg)("memgrow: warning: the default suppressions %s are missing\n", path);
        else
            VG_(add_suppression_file)(path);
        VG_(free)(path);
    }
    for (Word i = 0; i < VG_(sizeXA)(VG_(clo_suppressions)); ++i)
        load(*static_cast<HChar**>(VG_(indexXA)(VG_(clo_suppressions), i)));
}

const HChar* class_suppression(const Site* s, SiteClass kind) {
    FrameList* list = nullptr;
    for (ClassSupp* c = supps; c; c = c->next) {
        if (c->kind != kind) continue;
        if (!list) list = frames_of(s);
        if (supp::matches(c->lines, c->n_lines, list->frames, list->n)) return c->name;
    }
    return nullptr;
}

bool have_class_suppressions() {
    return supps != nullptr;
}

void count_suppression_use(const HChar* name) {
    for (ClassSupp* c = supps; c; c = c->next)
        if (c->name == name) c->used++;
}

void print_generated_suppression(const Site* s, SiteClass kind) {
    FrameList* list = frames_of(s);
    HChar kind_line[32];
    VG_(sprintf)(kind_line, "memgrow:%s", kind_name(kind));
    constexpr SizeT kCap = 64 * 1024;
    auto* text = static_cast<HChar*>(VG_(malloc)("mg.supp.gen", kCap));
    supp::generate(nullptr, kind_line, list->frames, list->n, text, kCap);
    // Each line on its own, so the log prefix ("==pid== ") stays off it: a
    // user pastes the block as it is, like the core's output.
    VG_(printf)("%s", text);
    VG_(free)(text);
}

void print_used_suppressions() {
    for (ClassSupp* c = supps; c; c = c->next)
        if (c->used)
            VG_(dmsg)("used_suppression: %6llu %s %s:%u\n", c->used, c->name, c->file, c->line);
}

} // namespace mg
