#include "mg_symbols.hpp"

namespace mg {

namespace {

constexpr SizeT kText = 4096;

// VG_(describe_IP) is the only public API that walks inlined calls; it
// formats "0xADDR: function (file:line)" or "0xADDR: function (in object)".
// The suffix has a fixed shape, so it is parsed from the right (function
// names may contain parentheses).
void parse_description(const HChar* text, HChar* buf, Frame* f) {
    const HChar* colon = VG_(strstr)(text, ": ");
    VG_(strncpy)(buf, colon ? colon + 2 : text, kText - 1);
    buf[kText - 1] = 0;
    SizeT len = VG_(strlen)(buf);
    f->function = buf;
    f->file = nullptr;
    f->line = 0;
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
                    f->file = inner;
                    f->line = static_cast<Int>(VG_(strtoll10)(last_colon + 1, nullptr));
                }
            }
        }
    }
    if (VG_STREQ(f->function, "???")) f->function = nullptr;
}

} // namespace

void for_each_frame(const StackWord* words, UInt n, DiEpoch ep, FrameVisitor visit, void* ctx) {
    static HChar buf[kText];
    static HChar object_buf[kText];
    for (UInt i = 0; i < n; ++i) {
        StackWord w = words[i];
        if (w & kPythonFrameTag) continue; // named by the Python stage
        // Caller frames are already return address - 1 (the unwinder's
        // convention), so each word names the call instruction itself.
        Addr ip = w;
        const HChar* object = nullptr;
        const HChar* name;
        if (VG_(get_objname)(ep, ip, &name)) {
            VG_(strncpy)(object_buf, name, kText - 1);
            object_buf[kText - 1] = 0;
            object = object_buf;
        }
        InlIPCursor* iipc = VG_(new_IIPC)(ep, ip);
        bool below_main = false;
        do {
            Frame f{};
            parse_description(VG_(describe_IP)(ep, ip, iipc), buf, &f);
            f.ip = w;
            f.object = object;
            // describe_IP renames below-main functions unless --show-below-main.
            if (f.function && (VG_STREQ(f.function, "(below main)") ||
                               VG_(get_fnname_kind)(f.function) == Vg_FnNameBelowMain)) {
                below_main = true;
                break;
            }
            visit(f, ctx);
        } while (VG_(next_IIPC)(iipc));
        VG_(delete_IIPC)(iipc);
        if (below_main) return;
    }
}

} // namespace mg
