// SPDX-License-Identifier: GPL-2.0-or-later
#include "python/mg_python.hpp"
#include "python/mg_client_memory.hpp"
#include "mg_options.hpp"
#include "python/mg_python_layout.hpp"
#include "records/mg_stacks.hpp"
#include "records/mg_symbols.hpp"
#include "records/mg_timeline.hpp"
#include "core/py_linetable.hpp"

#include <libvex_guest_amd64.h>

namespace mg {

namespace {

// ---- The interpreter ------------------------------------------------------

enum class State : UChar { searching, active, off };
State state = State::searching;
bool code_mapped = true; // look at the objects loaded at start-up too
PyLayout layout_copy;    // the version's table (one field moved by the test switch)
const PyLayout* layout = &layout_copy;
Addr runtime; // &_PyRuntime
SizeT runtime_size;
const HChar* interpreter_path;
ULong py_version;     // PY_VERSION_HEX
UInt frame_extent;    // bytes of a frame that hold the fields read
bool layout_verified; // a code object's type was "code"
// The interpreter's own code: libpython and the executable (static builds).
constexpr UInt kMaxObjects = 2;
Addr text_lo[kMaxObjects], text_hi[kMaxObjects];
UInt n_objects;
// Objects already examined, so that each is read once.
constexpr UInt kMaxExamined = 64;
const DebugInfo* examined[kMaxExamined];
UInt n_examined;

bool warmup_pending; // the main script started; its imports are start-up

struct Stats {
    ULong walks, frames, decodes, forgotten, bad_reads;
} stats;

void turn_off(const HChar* why) {
    state = State::off;
    stack_cache_clear(StackPurpose::allocation); // their payloads were for Python stacks
    stack_cache_clear(StackPurpose::revival);
    VG_(umsg)
    ("memgrow: warning: Python frames are off (%s; CPython %llu.%llu in %s); stacks are native "
     "only\n",
     why, py_version >> 24 & 0xff, py_version >> 16 & 0xff, interpreter_path);
}

// ---- The ELF file: .PyRuntime, Py_Version ---------------------------------
// Valgrind's symbol reader drops _PyRuntime (its own section since 3.11), so
// the tool reads the section headers itself.

struct Elf64Header {
    UChar ident[16];
    UShort type, machine;
    UInt version;
    ULong entry, phoff, shoff;
    UInt flags;
    UShort ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct Elf64Section {
    UInt name, type;
    ULong flags, addr, offset, size;
    UInt link, info;
    ULong addralign, entsize;
};
struct Elf64Symbol {
    UInt name;
    UChar info, other;
    UShort shndx;
    ULong value, size;
};

struct ElfFile {
    Int fd = -1;
    Elf64Section* sections = nullptr;
    UInt n_sections = 0;

    ~ElfFile() {
        if (sections) VG_(free)(sections);
        if (fd >= 0) VG_(close)(fd);
    }
    bool read(ULong offset, void* buf, SizeT n) {
        return VG_(lseek)(fd, static_cast<Off64T>(offset), VKI_SEEK_SET) ==
                   static_cast<Off64T>(offset) &&
               VG_(read)(fd, buf, static_cast<Int>(n)) == static_cast<Int>(n);
    }
    // A section's contents, allocated; null if unreadable or implausible.
    HChar* contents(const Elf64Section& s, SizeT limit) {
        if (s.size == 0 || s.size > limit) return nullptr;
        auto* buf = static_cast<HChar*>(VG_(malloc)("mg.python.elf", s.size + 1));
        if (!read(s.offset, buf, s.size)) {
            VG_(free)(buf);
            return nullptr;
        }
        buf[s.size] = 0;
        return buf;
    }
    bool open(const HChar* path) {
        SysRes r = VG_(open)(path, VKI_O_RDONLY, 0);
        if (sr_isError(r)) return false;
        fd = static_cast<Int>(sr_Res(r));
        Elf64Header h;
        if (!read(0, &h, sizeof h) || VG_(memcmp)(h.ident, "\177ELF\2", 5) != 0 ||
            h.shentsize != sizeof(Elf64Section) || h.shnum == 0 || h.shnum > 4096)
            return false;
        n_sections = h.shnum;
        sections = static_cast<Elf64Section*>(
            VG_(malloc)("mg.python.elf", n_sections * sizeof(Elf64Section)));
        return read(h.shoff, sections, n_sections * sizeof(Elf64Section));
    }
};

struct Found {
    Addr runtime; // the .PyRuntime section's address in the file
    SizeT runtime_size;
    ULong version; // Py_Version (PY_VERSION_HEX); 0 when absent
    bool has_eval; // defines _PyEval_EvalFrameDefault
    // The section's first bytes as the file initialises them: 3.13+ begins
    // with _Py_DebugOffsets (read here: the page may not be mapped yet).
    UChar head[1024];
    SizeT head_size;
};

bool read_elf(const HChar* path, Found* out) {
    ElfFile elf;
    if (!elf.open(path)) return false;
    // e_shstrndx names the section-name table.
    Elf64Header h;
    if (!elf.read(0, &h, sizeof h) || h.shstrndx >= elf.n_sections) return false;
    HChar* names = elf.contents(elf.sections[h.shstrndx], 1 << 20);
    if (!names) return false;
    out->runtime = out->version = 0;
    out->has_eval = false;
    out->head_size = 0;
    const Elf64Section* dynsym = nullptr;
    for (UInt i = 0; i < elf.n_sections; ++i) {
        const Elf64Section& s = elf.sections[i];
        if (s.name >= elf.sections[h.shstrndx].size) continue;
        if (VG_STREQ(names + s.name, ".PyRuntime")) {
            out->runtime = s.addr;
            out->runtime_size = s.size;
            SizeT n = s.size < sizeof out->head ? s.size : sizeof out->head;
            constexpr UInt kProgbits = 1; // SHT_PROGBITS: initialised from the file
            if (s.type == kProgbits && elf.read(s.offset, out->head, n)) out->head_size = n;
        }
        if (VG_STREQ(names + s.name, ".dynsym")) dynsym = &s;
    }
    VG_(free)(names);
    if (!dynsym || dynsym->link >= elf.n_sections) return out->runtime != 0;
    auto* syms = reinterpret_cast<Elf64Symbol*>(elf.contents(*dynsym, 16 << 20));
    HChar* strs = elf.contents(elf.sections[dynsym->link], 16 << 20);
    if (syms && strs) {
        SizeT n = dynsym->size / sizeof(Elf64Symbol), strs_size = elf.sections[dynsym->link].size;
        for (SizeT i = 0; i < n; ++i) {
            const Elf64Symbol& sym = syms[i];
            if (sym.name >= strs_size || sym.shndx == 0 || sym.shndx >= elf.n_sections) continue;
            const HChar* name = strs + sym.name;
            if (VG_STREQ(name, "_PyEval_EvalFrameDefault")) out->has_eval = true;
            if (VG_STREQ(name, "Py_Version") && sym.size >= 4) {
                // Read from the file: the constant's page may not be mapped yet.
                const Elf64Section& s = elf.sections[sym.shndx];
                UInt v = 0;
                if (sym.value >= s.addr && sym.value + 4 <= s.addr + s.size &&
                    elf.read(s.offset + (sym.value - s.addr), &v, sizeof v))
                    out->version = v;
            }
        }
    }
    if (syms) VG_(free)(syms);
    if (strs) VG_(free)(strs);
    return true;
}

bool already_examined(const DebugInfo* di) {
    for (UInt i = 0; i < n_examined; ++i)
        if (examined[i] == di) return true;
    return false;
}

// The layout for the interpreter in `path`: its _Py_DebugOffsets (3.13+)
// or a table (3.11, 3.12). False, with one warning, when there is none.
bool choose_layout(const Found& f, const HChar* path) {
    pydebug::Offsets o;
    pydebug::Status st =
        pydebug::parse(f.head, f.head_size, &o, clo.python_test_future_version ? 99 : 0);
    py_version = st == pydebug::Status::no_cookie ? f.version : o.version;
    ULong major = py_version >> 24 & 0xff, minor = py_version >> 16 & 0xff;
    switch (st) {
    case pydebug::Status::ok:
        if (o.free_threaded) {
            // Its objects live in CPython's own mimalloc heaps, which memgrow
            // does not see, and it refuses PYTHONMALLOC=malloc.
            VG_(umsg)
            ("memgrow: warning: CPython %llu.%llut in %s is a free-threaded build: memgrow sees "
             "neither its Python frames nor its objects (they live in CPython's mimalloc heaps); "
             "stacks are native only\n",
             major, minor, path);
            return false;
        }
        layout_copy = layout_from_debug_offsets(o);
        if (o.newer && VG_(clo_verbosity) > 1) VG_(umsg)
        ("memgrow: CPython %llu.%llu is newer than the versions memgrow was tested with "
         "(3.11 to 3.15); its frames are read by its debug offsets\n",
         major, minor);
        return true;
    case pydebug::Status::no_cookie:
        if (major == 3 && (minor == 11 || minor == 12)) {
            layout_copy = minor == 11 ? kPython311 : kPython312;
            return true;
        }
        VG_(umsg)
        ("memgrow: warning: CPython %llu.%llu in %s is not supported (3.11 and newer are); "
         "stacks are native only\n",
         major, minor, path);
        return false;
    default:
        VG_(umsg)
        ("memgrow: warning: CPython %llu.%llu in %s: its debug offsets (_Py_DebugOffsets) are "
         "not laid out as in the versions memgrow knows (3.13 to 3.15); stacks are native "
         "only\n",
         major, minor, path);
        return false;
    }
}

void examine(const DebugInfo* di) {
    if (n_examined < kMaxExamined) examined[n_examined++] = di;
    const HChar* path = VG_(DebugInfo_get_filename)(di);
    // Interpreters are named so (python3.11, libpython3.12.so.1.0); an
    // embedding program with a static libpython is not looked into.
    if (!path || !VG_(strstr)(path, "python")) return;
    Found f;
    if (!read_elf(path, &f) || !f.has_eval) return;
    if (n_objects < kMaxObjects) {
        text_lo[n_objects] = VG_(DebugInfo_get_text_avma)(di);
        text_hi[n_objects] = text_lo[n_objects] + VG_(DebugInfo_get_text_size)(di);
        ++n_objects;
    }
    if (!f.runtime) return; // the executable of a shared-libpython build
    if (!choose_layout(f, path)) {
        state = State::off;
        return;
    }
    // The test switch reads each frame's code one word off, as a CPython
    // whose layout changed would.
    if (clo.python_test_layout_mismatch) layout_copy.frame_code += 8;
    frame_extent = 8 + VG_MAX(VG_MAX(layout->frame_code, layout->frame_previous),
                              VG_MAX(layout->frame_prev_instr, layout->frame_owner));
    if (layout->frame_is_entry >= 0)
        frame_extent = VG_MAX(frame_extent, static_cast<UInt>(layout->frame_is_entry) + 1);
    runtime = f.runtime + static_cast<Addr>(VG_(DebugInfo_get_text_bias)(di));
    runtime_size = f.runtime_size;
    interpreter_path = VG_(strdup)("mg.python.path", path);
    state = State::active;
    if (VG_(clo_verbosity) > 1) VG_(umsg)
    ("memgrow: CPython 3.%u in %s, _PyRuntime at %#lx, layout from %s\n", layout->minor, path,
     runtime, layout->minor >= 13 ? "its debug offsets" : "memgrow's table");
    // Cached allocation stacks carry sites made without Python frames.
    stack_cache_clear(StackPurpose::allocation);
    stack_cache_clear(StackPurpose::revival);
}

// ---- Strings ----------------------------------------------------------------

constexpr SizeT kMaxString = 512;

void put_utf8(HChar* out, SizeT* n, UInt c) {
    auto put = [&](UInt byte) {
        if (*n + 1 < kMaxString) out[(*n)++] = static_cast<HChar>(byte);
    };
    if (c < 0x80) {
        put(c);
    } else if (c < 0x800) {
        put(0xc0 | (c >> 6)), put(0x80 | (c & 63));
    } else if (c < 0x10000) {
        put(0xe0 | (c >> 12)), put(0x80 | ((c >> 6) & 63)), put(0x80 | (c & 63));
    } else {
        put(0xf0 | (c >> 18)), put(0x80 | ((c >> 12) & 63)), put(0x80 | ((c >> 6) & 63)),
            put(0x80 | (c & 63));
    }
}

// A str object as UTF-8 (truncated to kMaxString - 1 bytes). Only compact
// strings (all that code objects hold) are read.
bool read_string(Addr obj, HChar* out) {
    ULong length;
    UInt state_word;
    if (!read_client(obj + kUnicodeLength, &length) ||
        !read_client(obj + kUnicodeState, &state_word))
        return false;
    state_word &= 0xff; // the upper bits are padding, not always zero
    UInt kind = (state_word >> 2) & 7, compact = (state_word >> 5) & 1,
         ascii = (state_word >> 6) & 1;
    if (!compact || (kind != 1 && kind != 2 && kind != 4)) return false;
    Addr data = obj + (ascii ? layout->ascii_size : layout->compact_size);
    SizeT len = length < kMaxString ? length : kMaxString - 1;
    if (!client_readable(data, len * kind + 1)) return false;
    SizeT n = 0;
    for (SizeT i = 0; i < len; ++i) {
        UInt c = kind == 1   ? reinterpret_cast<const UChar*>(data)[i]
                 : kind == 2 ? reinterpret_cast<const UShort*>(data)[i]
                             : reinterpret_cast<const UInt*>(data)[i];
        put_utf8(out, &n, c);
    }
    out[n] = 0;
    return true;
}

// ---- Functions: what a token names ----------------------------------------
// A token is (function, line); the function is interned by its file,
// qualified name and first line, so that the same function in two code
// objects (a module imported twice) is one frame, and the table stays as
// small as the program's source.

struct Function {
    Function* next; // VgHashNode layout: next, key
    UWord hash;
    UInt id;
    Int first_line;
    HChar* file;
    HChar* name;
};

VgHashTable* functions; // by hash
Function** function_by_id;
UInt n_functions, function_cap;

UWord hash_string(UWord h, const HChar* s) {
    for (; *s; ++s)
        h = (h ^ static_cast<UChar>(*s)) * 0x100000001b3ull;
    return h;
}

Function* intern_function(const HChar* file, const HChar* name, Int first_line) {
    UWord h = hash_string(hash_string(0xcbf29ce484222325ull + first_line, file), name);
    if (!functions) functions = VG_(HT_construct)("mg.python.functions");
    for (auto* f = static_cast<Function*>(VG_(HT_lookup)(functions, h)); f; f = f->next)
        if (f->hash == h && f->first_line == first_line && VG_STREQ(f->file, file) &&
            VG_STREQ(f->name, name))
            return f;
    auto* f = static_cast<Function*>(VG_(malloc)("mg.python.function", sizeof(Function)));
    f->hash = h;
    f->id = n_functions;
    f->first_line = first_line;
    f->file = VG_(strdup)("mg.python.function", file);
    f->name = VG_(strdup)("mg.python.function", name);
    if (n_functions == function_cap) {
        function_cap = function_cap ? 2 * function_cap : 256;
        function_by_id = static_cast<Function**>(
            VG_(realloc)("mg.python.functions", function_by_id, function_cap * sizeof(Function*)));
    }
    function_by_id[n_functions++] = f;
    VG_(HT_add_node)(functions, f);
    return f;
}

StackWord token(const Function* f, Int line) {
    return kPythonFrameTag | (static_cast<StackWord>(f->id) << 32) |
           static_cast<UInt>(line > 0 ? line : 0);
}

// ---- Code objects -----------------------------------------------------------
// Decoded once: the function and the line table as runs. A hit is checked
// against the fields it was decoded from (a freed code object's memory may
// hold another one), and a freed code object is forgotten.

struct Code {
    Code* next; // VgHashNode layout: next, key
    UWord addr;
    Addr filename, qualname, linetable; // the fingerprint
    Int first_line;
    UInt n_units, n_runs;
    bool hidden; // the import system's own frames (importlib, zipimport), left out as
                 // tracebacks do
    bool module; // a module's code (`<module>`): a script's top level, or an import's
    Function* function;
    pyline::Run* runs;
};

VgHashTable* codes;
// Counts the decoded code objects forgotten (freed, or found replaced): what
// was read from one may not hold for the address any more.
ULong code_epoch = 1;

struct CodeFields {
    Addr type, filename, qualname, linetable;
    Int first_line;
    ULong n_units;
};

bool read_code_fields(Addr code, CodeFields* c) {
    if (!client_readable(code, layout->code_size)) return false;
    auto field = [code](UInt offset) { return *reinterpret_cast<const Addr*>(code + offset); };
    c->type = field(kObType);
    c->n_units = field(kObSize);
    c->filename = field(layout->code_filename);
    c->qualname = field(layout->code_qualname);
    c->linetable = field(layout->code_linetable);
    c->first_line = *reinterpret_cast<const Int*>(code + layout->code_firstlineno);
    return true;
}

bool is_code_type(Addr type) {
    Addr name;
    HChar buf[8];
    if (!read_client(type + kTpName, &name) || !client_readable(name, 5)) return false;
    VG_(memcpy)(buf, reinterpret_cast<const void*>(name), 5);
    return VG_(memcmp)(buf, "code", 5) == 0;
}

Code* decode_code(Addr addr, const CodeFields& c) {
    if (!is_code_type(c.type)) {
        if (!layout_verified) turn_off("a frame's code object is not of type 'code'");
        return nullptr;
    }
    layout_verified = true;
    static HChar file[kMaxString], name[kMaxString];
    ULong table_size;
    if (c.n_units > (1u << 24) || !read_string(c.filename, file) ||
        !read_string(c.qualname, name) || !read_client(c.linetable + kObSize, &table_size) ||
        table_size > (1u << 24) || !client_readable(c.linetable + kBytesData, table_size))
        return nullptr;
    ++stats.decodes;
    const auto* table = reinterpret_cast<const u8*>(c.linetable + kBytesData);
    UInt n_runs = 0;
    pyline::decode(table, table_size, c.first_line, [&](pyline::Run) { ++n_runs; });
    auto* code = static_cast<Code*>(VG_(malloc)("mg.python.code", sizeof(Code)));
    code->addr = addr;
    code->filename = c.filename, code->qualname = c.qualname, code->linetable = c.linetable;
    code->first_line = c.first_line;
    code->n_units = static_cast<UInt>(c.n_units);
    code->function = intern_function(file, name, c.first_line);
    code->hidden = VG_(strncmp)(file, "<frozen importlib._bootstrap", 28) == 0 ||
                   VG_STREQ(file, "<frozen zipimport>");
    code->module = VG_STREQ(name, "<module>");
    code->runs =
        n_runs
            ? static_cast<pyline::Run*>(VG_(malloc)("mg.python.code", n_runs * sizeof(pyline::Run)))
            : nullptr;
    code->n_runs = 0;
    pyline::decode(table, table_size, c.first_line, [&](pyline::Run r) {
        if (code->n_runs < n_runs) code->runs[code->n_runs++] = r;
    });
    return code;
}

// The code objects seen last, direct-mapped in front of the table: a walk
// meets the same few again and again.
Code* recent_codes[256];

Code*& recent_code(Addr addr) {
    return recent_codes[(addr >> 4 ^ addr >> 12) & 255];
}

void free_code(Code* code) {
    if (recent_code(code->addr) == code) recent_code(code->addr) = nullptr;
    if (code->runs) VG_(free)(code->runs);
    VG_(free)(code);
}

Code* code_at(Addr addr) {
    if (!codes) codes = VG_(HT_construct)("mg.python.codes");
    CodeFields c;
    if (!read_code_fields(addr, &c)) {
        if (!layout_verified) turn_off("a frame's code object is unreadable");
        return nullptr;
    }
    Code*& recent = recent_code(addr);
    auto* code =
        recent && recent->addr == addr ? recent : static_cast<Code*>(VG_(HT_lookup)(codes, addr));
    if (code && code->filename == c.filename && code->qualname == c.qualname &&
        code->linetable == c.linetable && code->first_line == c.first_line)
        return recent = code;
    if (code) {
        VG_(HT_remove)(codes, addr);
        free_code(code);
        ++code_epoch;
    }
    code = decode_code(addr, c);
    if (code) VG_(HT_add_node)(codes, code);
    return recent = code;
}

// ---- Threads and frames -----------------------------------------------------

Addr thread_self(ThreadId tid) {
    return vgc::guest_register(tid, offsetof(VexGuestAMD64State, guest_FS_CONST));
}

// The first thread state, in any interpreter, that `found` accepts; 0 when
// none does or the chain cannot be read.
template <class Found> Addr find_thread_state(Found found) {
    Addr interp;
    if (!read_client(runtime + layout->runtime_interpreters_head, &interp)) return 0;
    for (UInt i = 0; interp && i < 64; ++i) {
        Addr ts;
        if (!read_client(interp + layout->interp_threads_head, &ts)) return 0;
        for (UInt k = 0; ts && k < 4096; ++k) {
            Addr back;
            if (!read_client(ts + layout->tstate_interp, &back)) return 0;
            // Each thread state points back at its interpreter: a layout
            // that does not match shows here before any frame is read.
            if (back != interp) {
                if (!layout_verified)
                    turn_off("a thread state does not point back at its interpreter");
                return 0;
            }
            if (found(ts)) return ts;
            if (!read_client(ts + layout->tstate_next, &ts)) return 0;
        }
        if (!read_client(interp + layout->interp_next, &interp)) return 0;
    }
    return 0;
}

// The thread state whose thread_id is tid's pthread_self, in any
// interpreter: not the GIL holder's (a thread that released the GIL to run
// C code still allocates on behalf of its Python frames).
Addr thread_state(ThreadId tid) {
    Addr self = thread_self(tid);
    return find_thread_state([self](Addr ts) {
        Addr id;
        return read_client(ts + layout->tstate_thread_id, &id) && id == self;
    });
}

struct RawFrame {
    Addr code, prev_instr, previous;
    UChar owner, is_entry;
};

bool read_frame(Addr f, RawFrame* out) {
    if (!client_readable(f, frame_extent)) return false;
    auto word = [f](UInt offset) { return *reinterpret_cast<const Addr*>(f + offset); };
    // 3.14+: a tagged _PyStackRef; the low bits are flags, objects are aligned.
    out->code = word(layout->frame_code) & ~static_cast<Addr>(3);
    out->previous = word(layout->frame_previous);
    out->prev_instr = word(layout->frame_prev_instr);
    out->owner = *reinterpret_cast<const UChar*>(f + layout->frame_owner);
    out->is_entry = layout->frame_is_entry >= 0
                        ? *reinterpret_cast<const UChar*>(f + layout->frame_is_entry)
                        : 0;
    return true;
}

bool pymalloc_warned;
// Every object is a heap block of its own (PYTHONMALLOC=malloc), so the free
// of each code object is seen (frame tokens, below, rely on it).
bool object_frees_seen;

// Under pymalloc small objects are carved out of its arenas and memgrow
// sees the arenas: say so once the interpreter runs.
void check_allocator() {
    pymalloc_warned = true;
    if (!layout->runtime_preconfig_allocator) return;
    Int allocator;
    if (!read_client(runtime + layout->runtime_preconfig_allocator, &allocator)) return;
    // PYMEM_ALLOCATOR_MALLOC = 3, PYMEM_ALLOCATOR_MALLOC_DEBUG = 4.
    object_frees_seen = allocator == 3 || allocator == 4;
    // The user chose pymalloc (--python-malloc=no).
    if (!clo.python_malloc || object_frees_seen) return;
    VG_(umsg)
    ("memgrow: warning: CPython uses pymalloc: objects under 512 bytes live in its "
     "arenas, which memgrow sees instead of the objects. Run with PYTHONMALLOC=malloc "
     "(memgrow sets it unless PYTHONMALLOC is set, or -E/-I or an embedding program "
     "ignores it).\n");
}

// ---- Frame tokens -------------------------------------------------------------
// A frame's token follows from its code object, its instruction and its
// owner alone, and a loop meets the same few again and again (each
// allocation and each free-list revival walks the frames): they are
// remembered, direct-mapped, while the frees of code objects are seen. A
// decoded code object's free ends every entry (its memory may hold another
// one); under pymalloc such frees are not seen, and each frame is decoded.
struct TokenMemo {
    Addr code, instr;
    ULong epoch; // code_epoch when filled; 0: empty
    UChar owner;
    bool shown; // the frame gives a token: complete, not the import system's
    StackWord token;
};
constexpr UInt kTokenMemoBits = 12;
TokenMemo token_memo[1u << kTokenMemoBits];

TokenMemo& token_memo_slot(Addr code, Addr instr) {
    return token_memo[((code >> 4) * 0x9E3779B97F4A7C15ull ^ instr) * 0x9E3779B97F4A7C15ull >>
                      (64 - kTokenMemoBits)];
}

VG_MINIMAL_JMP_BUF(walk_jmp);

// The reads are checked first; this catches a mapping that changed without
// the address space manager's knowledge.
void on_walk_fault(Int sig, Addr) {
    unmask_signal(sig);
    if (sig == VKI_SIGSEGV || sig == VKI_SIGBUS) VG_MINIMAL_LONGJMP(walk_jmp);
}

void walk_frames(ThreadId tid, UInt max_tokens, PythonStack* out);

} // namespace

bool python_poll() {
    if (clo.python == PythonFrames::no) return false;
    if (state == State::searching && code_mapped) {
        code_mapped = false;
        for (const DebugInfo* di = VG_(next_DebugInfo)(nullptr); di && state == State::searching;
             di = VG_(next_DebugInfo)(di))
            if (!already_examined(di)) examine(di);
    }
    return state == State::active;
}

void python_code_mapped() {
    code_mapped = true;
}

void python_stack(ThreadId tid, UInt max_tokens, PythonStack* out) {
    out->n_tokens = out->n_segments = 0;
    if (state != State::active) return;
    if (max_tokens > PythonStack::kMaxTokens) max_tokens = PythonStack::kMaxTokens;
    ++stats.walks;
    fault_catcher_t prev = VG_(set_fault_catcher)(on_walk_fault);
    if (VG_MINIMAL_SETJMP(walk_jmp) == 0) {
        walk_frames(tid, max_tokens, out);
    } else {
        ++stats.bad_reads;
        out->n_tokens = out->n_segments = 0;
    }
    VG_(set_fault_catcher)(prev);
}

namespace {

// A frame's token from its code object, and whether it has one (complete
// frames outside the import system); false when the code object is
// unreadable. While the warm-up's end is looked for, *module becomes the
// frame when it runs a module's code outside the import system (the
// outermost one that does is the script's top level).
bool decode_frame(const RawFrame& f, bool* shown, StackWord* word, bool* importing,
                  RawFrame* module) {
    Code* code = code_at(f.code);
    if (!code) return false;
    // The outermost module frame outside the import system: the script's top level.
    if (warmup_pending && code->module && !code->hidden) *module = f;
    Addr units = f.code + layout->code_adaptive;
    // Incomplete frames (still setting up) are not the program's lines.
    bool incomplete = false, at_resume = false;
    if (layout->code_firsttraceable) {
        Int firsttraceable = *reinterpret_cast<const Int*>(f.code + layout->code_firsttraceable);
        Addr first = units + 2 * static_cast<Addr>(firsttraceable);
        incomplete = f.owner != layout->owned_by_generator && f.prev_instr < first;
        at_resume = f.prev_instr == first;
    }
    // An import statement allocates before importlib's frames appear, and
    // what the eval breaker runs at a frame's first instruction (a garbage
    // collection, a signal handler: `_Py_HandlePending` at the script's
    // line 1, as start-up's allocations happen to cross the GC's threshold)
    // is no statement of the program: neither ends the warm-up (asked only
    // while its end is looked for).
    UChar opcode;
    *importing |= warmup_pending &&
                  (code->hidden || at_resume ||
                   (!incomplete && layout->import_name && read_client(f.prev_instr, &opcode) &&
                    (opcode == layout->import_name || opcode == layout->import_from)));
    *shown = !incomplete && !code->hidden;
    if (!*shown) return true;
    Int line = code->first_line;
    if (f.prev_instr >= units && f.prev_instr < units + 2ull * code->n_units) {
        Int l = pyline::line_of(code->runs, code->n_runs,
                                static_cast<UInt>((f.prev_instr - units) / 2));
        if (l > 0) line = l;
    }
    *word = token(code->function, line);
    return true;
}

// The script's `<module>` frame: the imports at its top are start-up, and
// so are the statements among them (a sys.path or os.environ change, a
// def): while an import statement of its code is still ahead of the frame's
// line, the warm-up goes on. Only the lines not yet executed are read: an
// inline cache there still holds its initial value (zero, or a counter no
// opcode's number), never a specialized word that reads as IMPORT_NAME. A
// backward jump (a loop at the module's level) has executed what follows,
// so the first one ends the look ahead.
struct ScriptModule {
    Addr code = 0, furthest = 0; // its code, the furthest instruction seen
    bool looped = false;
    Addr asked = 0;       // the instruction last asked about (a call's many allocations), ...
    bool ahead = false;   // ... and the answer
    Int import_line = -1; // the line of the import statement it was last seen running
};
ScriptModule script_module;

ScriptModule& script_module_of(const RawFrame& f) {
    if (script_module.code != f.code) script_module = ScriptModule{f.code};
    return script_module;
}

// The script's frame runs an import statement: the rest of its line is the
// import's (`import json, asyncio` stores json, allocating, before it
// imports asyncio). Known from the instruction itself, never from the words
// after it (the executed ones may be caches that read as anything).
void note_import_line(const RawFrame& f) {
    Code* code = code_at(f.code);
    UChar opcode;
    Addr units = f.code + layout->code_adaptive;
    if (!code || !layout->import_name || f.prev_instr < units ||
        f.prev_instr >= units + 2ull * code->n_units || !read_client(f.prev_instr, &opcode) ||
        (opcode != layout->import_name && opcode != layout->import_from))
        return;
    script_module_of(f).import_line =
        pyline::line_of(code->runs, code->n_runs, static_cast<UInt>((f.prev_instr - units) / 2));
}

bool import_ahead(const RawFrame& f) {
    Code* code = code_at(f.code);
    if (!code || !layout->import_name) return false;
    ScriptModule& m = script_module_of(f);
    if (f.prev_instr == m.asked) return m.ahead;
    m.looped = m.looped || f.prev_instr < m.furthest;
    if (f.prev_instr > m.furthest) m.furthest = f.prev_instr;
    m.asked = f.prev_instr, m.ahead = false;
    Addr units = f.code + layout->code_adaptive;
    if (m.looped || f.prev_instr < units || f.prev_instr >= units + 2ull * code->n_units)
        return false;
    UInt at = static_cast<UInt>((f.prev_instr - units) / 2);
    Int line = pyline::line_of(code->runs, code->n_runs, at);
    if (line == m.import_line) return m.ahead = true;
    while (at < code->n_units && pyline::line_of(code->runs, code->n_runs, at) == line)
        ++at;
    // An import on an earlier line is a handler moved to the code's end
    // (`except ImportError: import json`), not one ahead.
    for (; at < code->n_units; ++at) {
        UChar opcode;
        if (!read_client(units + 2ull * at, &opcode)) return false;
        if (opcode == layout->import_name && pyline::line_of(code->runs, code->n_runs, at) > line)
            return m.ahead = true;
    }
    return false;
}

// A thread's innermost frame, and the frame its chain ends at (0, or 3.15's
// sentinel base frame).
bool frame_chain(Addr ts, Addr* frame, Addr* base) {
    *base = 0;
    if (!ts || !read_client(ts + layout->tstate_cframe, frame)) return false;
    // 3.11, 3.12: through the _PyCFrame; 3.13+: tstate->current_frame.
    if (layout->cframe_current_frame >= 0 &&
        (!*frame || !read_client(*frame + layout->cframe_current_frame, frame)))
        return false;
    return layout->tstate_base_frame < 0 || read_client(ts + layout->tstate_base_frame, base);
}

void walk_frames(ThreadId tid, UInt max_tokens, PythonStack* out) {
    Addr frame, base;
    if (!frame_chain(thread_state(tid), &frame, &base)) return;
    auto end_segment = [out](Addr entry) {
        if (out->n_segments < PythonStack::kMaxSegments) {
            out->segment_entry[out->n_segments] = entry;
            out->segment_end[out->n_segments++] = out->n_tokens;
        }
    };
    bool open = false;      // tokens since the last segment end
    bool importing = false; // the import system is on the stack
    RawFrame module{};      // the outermost module frame (while the warm-up's end is looked for)
    bool full = false;      // max_tokens taken: only the current segment's entry is wanted
    bool placed = false;    // ... and found
    // Bounded: a cycle in garbage memory must not loop forever.
    for (UInt visited = 0; frame && frame != base && visited < 4 * PythonStack::kMaxTokens;
         ++visited) {
        RawFrame f;
        if (!read_frame(frame, &f)) {
            ++stats.bad_reads;
            break;
        }
        // 3.12+: one C call's frames end at its entry frame.
        if (f.owner >= layout->first_entry_owner) {
            if (!placed) end_segment(frame); // past max_tokens, only the first is wanted
            placed = full;
            open = false;
            if (full && !(warmup_pending && !importing)) break;
            frame = f.previous;
            continue;
        }
        // Past max_tokens, the walk goes on to the segment's entry frame,
        // which places the tokens in the native stack (mg_sites.cpp).
        full = out->n_tokens >= max_tokens;
        if (full) {
            // While the warm-up's end is looked for (and no import is seen
            // yet), the frames past max_tokens still say whether an import
            // runs, and which is the script's.
            if (warmup_pending && !importing) {
                bool shown;
                StackWord word;
                if (!decode_frame(f, &shown, &word, &importing, &module)) break;
            } else if (layout->first_entry_owner == 0xff) {
                break; // 3.11: entries are not on the C stack
            }
            frame = f.previous;
            continue;
        }
        // (While the warm-up's end is looked for, the import statements are.)
        bool memo_on = object_frees_seen && !warmup_pending;
        TokenMemo* memo = memo_on ? &token_memo_slot(f.code, f.prev_instr) : nullptr;
        if (!memo || memo->epoch != code_epoch || memo->code != f.code ||
            memo->instr != f.prev_instr || memo->owner != f.owner) {
            bool shown;
            StackWord word;
            if (!decode_frame(f, &shown, &word, &importing, &module)) {
                if (state != State::active) return;
                ++stats.bad_reads;
                break;
            }
            if (memo)
                *memo = TokenMemo{f.code, f.prev_instr, code_epoch, f.owner, shown, word};
            else if (shown) {
                out->tokens[out->n_tokens++] = word;
                open = true;
                ++stats.frames;
            }
        }
        if (memo && memo->shown) {
            out->tokens[out->n_tokens++] = memo->token;
            open = true;
            ++stats.frames;
        }
        if (f.is_entry) { // 3.11: the first frame of one C call
            end_segment(0);
            open = false;
        }
        frame = f.previous;
    }
    if (open) end_segment(0);
    if (!pymalloc_warned && out->n_tokens) check_allocator();
    // The warm-up ends in the script's code: what the interpreter runs in
    // Python before it (3.13+ registers `-c`'s source with linecache) is
    // start-up.
    if (warmup_pending && module.code) note_import_line(module);
    if (warmup_pending && out->n_tokens && !importing && module.code && !import_ahead(module)) {
        warmup_pending = false;
        timeline_warmup_end();
        const Function* f = function_by_id[(out->tokens[0] & ~kPythonFrameTag) >> 32];
        if (VG_(clo_verbosity) > 1) VG_(umsg)
        ("memgrow: warm-up ends at %s (%s:%u)\n", f->name, f->file,
         static_cast<UInt>(out->tokens[0] & 0xffffffffu));
    }
}

// python_is_eval's answers by code address and debug-info epoch. Each new
// native stack asks for each of its frames in the interpreter, and stacks
// share most of their frames: a symbol lookup (a search, the name's
// demangling) per frame was 4% of `python -c pass` under the growth hunt.
// Direct-mapped; a collision only costs the lookup again.
struct EvalMemo {
    Addr ip; // 0: empty
    UInt epoch;
    bool eval;
};
constexpr UInt kEvalMemoBits = 14;
EvalMemo eval_memo[1u << kEvalMemoBits];

} // namespace

bool python_is_eval(Addr ip) {
    if (!python_in_interpreter(ip)) return false;
    DiEpoch ep = VG_(current_DiEpoch)();
    EvalMemo& m = eval_memo[(ip * 0x9E3779B97F4A7C15ull) >> (64 - kEvalMemoBits)];
    if (m.ip == ip && m.epoch == ep.n) return m.eval;
    const HChar* name;
    bool eval =
        VG_(get_fnname)(ep, ip, &name) && VG_(strncmp)(name, "_PyEval_EvalFrameDefault", 24) == 0;
    m = EvalMemo{ip, ep.n, eval};
    return eval;
}

bool python_startup_pending() {
    return state == State::active && warmup_pending;
}

bool python_defer_warmup_end() {
    if (state != State::active) return false;
    // Py_RunMain, then the script's own entry point: the first one counts.
    static bool deferred;
    if (!deferred) warmup_pending = deferred = true;
    return true;
}

void python_settle_warmup() {
    if (!warmup_pending) return;
    warmup_pending = false;
    timeline_warmup_end();
}

bool python_in_interpreter(Addr ip) {
    for (UInt i = 0; i < n_objects; ++i)
        if (ip >= text_lo[i] && ip < text_hi[i]) return true;
    return false;
}

void python_block_freed(Addr a, SizeT size) {
    if (!codes || size < layout->code_size) return;
    if (auto* code = static_cast<Code*>(VG_(HT_remove)(codes, a))) {
        free_code(code);
        ++stats.forgotten;
        ++code_epoch;
    }
}

bool python_immortal_object(Addr a, SizeT size) {
    if (state != State::active || layout->minor < 12 || size < 16) return false;
    ULong refcnt;
    Addr type, meta, metameta;
    // _Py_IsImmortal on 64-bit builds: the low 32 bits, as a signed number,
    // are negative (3.12, 3.13: 0xffffffff; 3.14+ start at 3 << 30 and
    // keep flags in the upper half).
    // A type's type is `type` (or a metaclass whose type is `type`).
    return read_client(a, &refcnt) && static_cast<Int>(static_cast<UInt>(refcnt)) < 0 &&
           read_client(a + kObType, &type) && read_client(type + kObType, &meta) &&
           read_client(meta + kObType, &metameta) &&
           (meta == metameta || (read_client(metameta + kObType, &meta) && meta == metameta));
}

bool python_runtime_offset(Addr a, ULong* off, ULong* size) {
    if (state != State::active || a < runtime || a - runtime >= runtime_size) return false;
    *off = a - runtime, *size = runtime_size;
    return true;
}

bool python_static_data(Addr a) {
    if (state != State::active) return false;
    if (a >= runtime && a - runtime < runtime_size) return true;
    const HChar* file = static_data_object(a); // its .bss tail too
    return file && interpreter_path && VG_(strcmp)(file, interpreter_path) == 0;
}

void python_for_each_frame(void (*fn)(Addr frame, Addr code, void* ctx), void* ctx) {
    if (state != State::active) return;
    find_thread_state([fn, ctx](Addr ts) {
        Addr frame, base;
        if (!frame_chain(ts, &frame, &base)) return false;
        for (UInt visited = 0; frame && frame != base && visited < 4096; ++visited) {
            RawFrame f;
            if (!read_frame(frame, &f)) break;
            // 3.12+: the entry frames of C calls run no code of their own.
            Addr type;
            if (f.owner < layout->first_entry_owner && read_client(f.code + kObType, &type) &&
                is_code_type(type))
                fn(frame, f.code, ctx);
            frame = f.previous;
        }
        return false; // every thread
    });
}

const PyLayout* python_layout() {
    return state == State::active ? layout : nullptr;
}

bool python_string(Addr obj, HChar* out, SizeT n) {
    static HChar buf[kMaxString];
    if (state != State::active || !n || !read_string(obj, buf)) return false;
    SizeT len = VG_(strlen)(buf);
    if (len >= n) len = n - 1;
    VG_(memcpy)(out, buf, len);
    out[len] = 0;
    return true;
}

bool python_frame_name(StackWord w, const HChar** function, const HChar** file, Int* line) {
    if (!(w & kPythonFrameTag)) return false;
    UInt id = static_cast<UInt>((w & ~kPythonFrameTag) >> 32);
    if (id >= n_functions) return false;
    *function = function_by_id[id]->name;
    *file = function_by_id[id]->file;
    *line = static_cast<Int>(w & 0xffffffffu);
    return true;
}

void python_print_stats() {
    if (state == State::searching) return;
    VG_(umsg)
    ("memgrow: Python: %'llu walks, %'llu frames, %'llu code objects decoded, %'llu "
     "forgotten, %'u functions, %'llu bad reads\n",
     stats.walks, stats.frames, stats.decodes, stats.forgotten, n_functions, stats.bad_reads);
}

} // namespace mg
