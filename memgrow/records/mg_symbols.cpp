// SPDX-License-Identifier: GPL-2.0-or-later
#include "records/mg_symbols.hpp"
#include "records/mg_stack_tree.hpp"
#include "core/site_name.hpp"
#include "python/mg_python.hpp"

namespace mg {

namespace {

constexpr SizeT kText = 4096;

// One code address, symbolised once: its frames (more than one when calls
// were inlined there) and its object. Sites share most addresses (the same
// callers, the interpreter's loop), so a report looks each up only once.
struct SymbolFrame {
    const HChar* function; // null when unknown
    const HChar* file;
    Int line;
};

struct Symbolised {
    Symbolised* next; // VgHashNode layout: next, key
    UWord ip;
    DiEpoch ep;
    const HChar* object;
    UInt n;          // frames before a below-main one (or all of them)
    bool below_main; // the stack ends here
    SymbolFrame frames[];
};

VgHashTable* cache;

// Copies at most cap - 1 bytes and terminates (VG_(strncpy) pads the whole
// buffer with zeros, which costs more than the copy).
void copy_bounded(HChar* dst, const HChar* src, SizeT cap) {
    SizeT i = 0;
    for (; i + 1 < cap && src[i]; ++i)
        dst[i] = src[i];
    dst[i] = 0;
}

// The names kept, each once: a million stacks of a big program repeat a
// few hundred object names and files, and function names over many
// addresses (an object's name copied for each of the 117 k addresses of
// `import torch` was 6 MB).
struct KeptText {
    KeptText* next; // VgHashNode layout: next, key
    UWord hash;
    HChar text[];
};
VgHashTable* texts;

const HChar* keep(const HChar* s) {
    if (!s) return nullptr;
    UWord h = 0xcbf29ce484222325ull;
    for (const HChar* p = s; *p; ++p)
        h = (h ^ static_cast<UChar>(*p)) * 0x100000001b3ull;
    if (!texts) texts = VG_(HT_construct)("mg.symbols.texts");
    // A chain holds other keys too: each node's key is checked.
    for (auto* t = static_cast<KeptText*>(VG_(HT_lookup)(texts, h)); t; t = t->next)
        if (t->hash == h && VG_STREQ(t->text, s)) return t->text;
    SizeT n = VG_(strlen)(s) + 1;
    auto* t = static_cast<KeptText*>(VG_(malloc)("mg.symbols.text", sizeof(KeptText) + n));
    t->hash = h;
    VG_(memcpy)(t->text, s, n);
    VG_(HT_add_node)(texts, t);
    return t->text;
}

// VG_(describe_IP) is the only public API that walks inlined calls; it
// formats "0xADDR: function (file:line)" or "0xADDR: function (in object)".
// The suffix has a fixed shape, so it is parsed from the right (function
// names may contain parentheses).
SymbolFrame parse_description(const HChar* text) {
    static HChar buf[kText];
    const HChar* colon = VG_(strstr)(text, ": ");
    copy_bounded(buf, colon ? colon + 2 : text, kText);
    SizeT len = VG_(strlen)(buf);
    SymbolFrame f{buf, nullptr, 0};
    if (len && buf[len - 1] == ')') {
        HChar* open = nullptr;
        for (HChar* p = buf + len - 1; p > buf; --p) {
            if (p[0] == '(' && p[-1] == ' ') {
                open = p;
                break;
            }
        }
        if (open) {
            open[-1] = 0;
            buf[len - 1] = 0;
            HChar* inner = open + 1;
            if (!VG_STREQN(3, inner, "in ")) {
                HChar* last_colon = VG_(strrchr)(inner, ':');
                if (last_colon) {
                    *last_colon = 0;
                    f.file = inner;
                    f.line = static_cast<Int>(VG_(strtoll10)(last_colon + 1, nullptr));
                }
            }
        }
    }
    if (VG_STREQ(f.function, "???")) f.function = nullptr;
    return f;
}

bool is_below_main(const HChar* function) {
    // describe_IP renames below-main functions unless --show-below-main.
    return function && (VG_STREQ(function, "(below main)") ||
                        VG_(get_fnname_kind)(function) == Vg_FnNameBelowMain);
}

Symbolised* symbolise(Addr ip, DiEpoch ep) {
    constexpr UInt kMaxInlined = 64;
    SymbolFrame frames[kMaxInlined];
    UInt n = 0;
    bool below_main = false;
    InlIPCursor* iipc = VG_(new_IIPC)(ep, ip);
    do {
        SymbolFrame f = parse_description(VG_(describe_IP)(ep, ip, iipc));
        if (is_below_main(f.function)) {
            below_main = true;
            break;
        }
        if (n < kMaxInlined) frames[n++] = SymbolFrame{keep(f.function), keep(f.file), f.line};
    } while (VG_(next_IIPC)(iipc));
    VG_(delete_IIPC)(iipc);

    auto* s = static_cast<Symbolised*>(
        VG_(malloc)("mg.symbols", sizeof(Symbolised) + n * sizeof(SymbolFrame)));
    s->ip = ip;
    s->ep = ep;
    const HChar* object;
    s->object = VG_(get_objname)(ep, ip, &object) ? keep(object) : nullptr;
    s->n = n;
    s->below_main = below_main;
    for (UInt i = 0; i < n; ++i)
        s->frames[i] = frames[i];
    return s;
}

const Symbolised* lookup(Addr ip, DiEpoch ep) {
    if (!cache) cache = VG_(HT_construct)("mg.symbols.cache");
    auto* s = static_cast<Symbolised*>(VG_(HT_lookup)(cache, ip));
    if (s && s->ep.n == ep.n) return s;
    if (s) VG_(HT_remove)(cache, ip); // another epoch: code was unloaded and reloaded
    s = symbolise(ip, ep);
    VG_(HT_add_node)(cache, s);
    return s;
}

} // namespace

bool for_each_frame_of_word(StackWord w, DiEpoch ep, FrameVisitor visit, void* ctx) {
    if (w & kPythonFrameTag) {
        const HChar *function, *file;
        Int line;
        if (python_frame_name(w, &function, &file, &line))
            visit(Frame{w, function, file, line, nullptr, true, 0}, ctx);
        return true;
    }
    // Caller frames are already return address - 1 (the unwinder's
    // convention), so each word names the call instruction itself.
    const Symbolised* s = lookup(w, ep);
    for (UInt k = 0; k < s->n; ++k) {
        const SymbolFrame& sf = s->frames[k];
        visit(Frame{w, sf.function, sf.file, sf.line, s->object, false, k}, ctx);
    }
    return !s->below_main;
}

void for_each_frame(const StackWord* words, UInt n, DiEpoch ep, FrameVisitor visit, void* ctx) {
    for (UInt i = 0; i < n && for_each_frame_of_word(words[i], ep, visit, ctx); ++i) {
    }
}

void for_each_frame(UInt stack, DiEpoch ep, FrameVisitor visit, void* ctx) {
    for (UInt node = stack;
         node != kEmptyStack && for_each_frame_of_word(stack_tree_word(node), ep, visit, ctx);
         node = stack_tree_caller(node)) {
    }
}

void for_each_frame(const Site* s, FrameVisitor visit, void* ctx) {
    for_each_frame(s->stack, s->epoch, visit, ctx);
}

namespace {

// The rule is core/site_name.hpp's, shared with memgrow-report: the
// innermost frame of the program's own code names the site.
struct Title {
    SiteNamer namer;
    bool place_first; // "file:line (function)"
    HChar text[256];
};

const HChar* base_name(const HChar* path) {
    const HChar* slash = VG_(strrchr)(path, '/');
    return slash ? slash + 1 : path;
}

void take_title(const Frame& f, void* ctx) {
    auto* t = static_cast<Title*>(ctx);
    if (t->namer.settled()) return;
    t->namer.offer(f.function, f.file, f.object, f.python);
    if (t->namer.index + 1 != t->namer.seen) return; // not better than the one kept
    const HChar* fn = f.function ? f.function : "???";
    if (f.file && t->place_first)
        VG_(snprintf)(t->text, sizeof t->text, "%s:%d (%s)", shown_file(f.file), f.line, fn);
    else if (f.file)
        VG_(snprintf)(t->text, sizeof t->text, "%s (%s:%d)", fn, shown_file(f.file), f.line);
    else if (f.object)
        VG_(snprintf)(t->text, sizeof t->text, "%s (in %s)", fn, base_name(f.object));
    else
        VG_(snprintf)(t->text, sizeof t->text, "%s", fn);
}

} // namespace

void site_title(const Site* s, HChar* out, SizeT size) {
    Title t{};
    for_each_frame(s, take_title, &t);
    VG_(snprintf)(out, size, "%s", t.text);
}

void stack_place(UInt stack, DiEpoch ep, HChar* out, SizeT size) {
    Title t{};
    t.place_first = true;
    for_each_frame(stack, ep, take_title, &t);
    VG_(snprintf)(out, size, "%s", t.text);
}

const HChar* static_data_object(Addr a) {
    const HChar* file = nullptr;
    if (VG_(DebugInfo_sect_kind)(&file, a) != Vg_SectUnknown && file) return file;
    const NSegment* seg = VG_(am_find_nsegment)(a);
    return seg && seg->kind == SkFileC ? VG_(am_get_filename)(seg) : nullptr;
}

bool in_loader(Addr ip) {
    const DebugInfo* di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), ip);
    const HChar* so = di ? VG_(DebugInfo_get_soname)(di) : nullptr;
    return so && VG_(strncmp)(so, "ld-linux", 8) == 0;
}

} // namespace mg
