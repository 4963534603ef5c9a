// SPDX-License-Identifier: GPL-2.0-or-later
#include "python/mg_pyobject.hpp"
#include "python/mg_client_memory.hpp"
#include "python/mg_python.hpp"
#include "python/mg_python_layout.hpp"
#include "python/mg_pylocals.hpp"
#include "records/mg_blocks.hpp"

namespace mg {

namespace {

// Offsets shared by 3.11 to 3.15 (Include/cpython/object.h, dictobject.h,
// listobject.h, internal/pycore_dict.h; Modules/_collectionsmodule.c and
// _functoolsmodule.c for deque and lru_cache).
constexpr UInt kTpBasicsize = 32, kTpFlags = 168, kTpDict = 264, kTpDictoffset = 288;
constexpr UInt kDictUsed = 16, kDictKeys = 32, kDictValues = 40;
constexpr UInt kKeysLog2Size = 8, kKeysLog2IndexBytes = 9, kKeysKind = 10, kKeysNentries = 24,
               kKeysIndices = 32;
constexpr UInt kDequeMaxlen = 64;
constexpr UInt kLruCache = 72, kLruMaxsize = 96;
constexpr UInt kModuleDict = 16;
constexpr ULong kManagedWeakref = 1ul << 3, kManagedDict = 1ul << 4, kInlineValues = 1ul << 2;
constexpr ULong kReady = 1ul << 12;
// A free list's objects: past a GC header or none (3.11 to 3.15 keep no
// object with a pre-header on one), a float's block, the smallest keys table.
constexpr Addr kGcHeaderBytes = 16;
constexpr SizeT kFloatBlock = 32;
constexpr UChar kKeysMinLog2 = 3, kKeysUnicode = 1;
constexpr ULong kTpListSub = 1ul << 25, kTpTupleSub = 1ul << 26, kTpDictSub = 1ul << 29;

bool word(Addr a, Addr* out) {
    return a % 8 == 0 && read_client(a, out);
}

// Validated types, direct-mapped: a scan asks about the same few hundred.
constexpr UInt kTypeCache = 512;
Addr type_cache[kTypeCache];
ULong flags_cache[kTypeCache];

// A type is an object whose type is a metatype (flagged a type subclass),
// and whose chain of types reaches `type`, its own type; both are ready.
bool valid_type(Addr t, ULong* flags) {
    if (!t || t % 8) return false;
    UInt slot = static_cast<UInt>(t >> 4) % kTypeCache;
    if (type_cache[slot] == t) {
        *flags = flags_cache[slot];
        return true;
    }
    Addr meta;
    ULong f, meta_flags;
    if (!word(t + kObType, &meta) || !meta || !read_client(t + kTpFlags, &f) ||
        !read_client(meta + kTpFlags, &meta_flags) || !(f & kReady) ||
        !(meta_flags & kPyTypeIsType) || !(meta_flags & kReady))
        return false;
    Addr x = meta;
    for (UInt hop = 0; hop < 4; ++hop) {
        Addr up;
        if (!word(x + kObType, &up) || !up) return false;
        if (up == x) {
            type_cache[slot] = t, flags_cache[slot] = f;
            *flags = f;
            return true;
        }
        x = up;
    }
    return false;
}

// Where a GC object's GC header begins in front of it, by its type's flags.
UInt preheader(ULong flags, UInt minor) {
    UInt pre = flags & kPyTypeGC ? 16 : 0;
    if (flags & kManagedDict || (minor >= 12 && flags & kManagedWeakref)) pre += 16;
    return pre;
}

UInt minor() {
    const PyLayout* l = python_layout();
    return l ? l->minor : 0;
}

// Anonymous client memory that is no thread's stack: CPython's frame
// chunks keep the dead frames' values after they return (and its arenas,
// objects that are not ours).
bool in_anonymous_memory(Addr a) {
    const NSegment* seg = VG_(am_find_nsegment)(a);
    if (!seg || seg->kind != SkAnonC || seg->isCH) return false;
    ThreadId tid;
    Addr stack_min, stack_max;
    VG_(thread_stack_reset_iter)(&tid);
    while (VG_(thread_stack_next)(&tid, &stack_min, &stack_max))
        if (a >= stack_min && a <= stack_max) return false;
    return true;
}

bool is_weakref(Addr obj) {
    Addr t, name;
    HChar prefix[8];
    if (!word(obj + kObType, &t) || !word(t + kTpName, &name) || !client_readable(name, 8))
        return false;
    VG_(memcpy)(prefix, reinterpret_cast<const void*>(name), 8);
    ULong flags;
    return VG_(memcmp)(prefix, "weakref.", 8) == 0 && valid_type(t, &flags);
}

} // namespace

bool pyobj_pointer_free(Addr type, Addr at) {
    constexpr Addr kStrHeader = 80; // 3.11's PyUnicodeObject
    if (at < kObType + 8) return false;
    ULong flags = pyobj_type_flags(type);
    if (flags & kPyTypeLongSubclass) return pyobj_type_is(type, "int");
    if (flags & kPyTypeBytesSubclass) return pyobj_type_is(type, "bytes");
    if (flags & kPyTypeUnicodeSubclass) return at >= kStrHeader && pyobj_type_is(type, "str");
    return pyobj_type_is(type, "float");
}

namespace {

// Whether a word is a free list's link: null (the list's last), or the
// object of another heap block (its start, or past a GC header).
bool free_list_link(Addr w) {
    // 3.14's immortal objects keep this count (3.12's and 3.13's, 2^32 - 1,
    // is odd): never a link, even where a block starts there.
    constexpr Addr kImmortal314 = Addr(3) << 30;
    if (w == 0) return true;
    if (w % 8 || w == kImmortal314) return false;
    Block* b = block_find(Table::host, w);
    if (!b && w >= kGcHeaderBytes) b = block_find(Table::host, w - kGcHeaderBytes);
    return b != nullptr;
}

} // namespace

Parked pyobj_parked(Addr block, SizeT size) {
    if (!pyobj_on()) return Parked::no;
    Addr count, type;
    for (Addr off = 0; off <= kGcHeaderBytes; off += kGcHeaderBytes) {
        Addr obj = block + off;
        if (size < off + 16 || !word(obj, &count) || !word(obj + kObType, &type)) break;
        ULong flags;
        bool typed = valid_type(type, &flags) && preheader(flags, minor()) == off;
        if (!free_list_link(count)) {
            if (typed) return Parked::no; // a live object
            continue;
        }
        if (typed) return Parked::object;
        // 3.11 and 3.12 link their floats through ob_type.
        if (off == 0 && count == 0 && size <= kFloatBlock && minor() <= 12 && free_list_link(type))
            return Parked::untyped;
    }
    // A dict keys table of the smallest size and str keys (the only ones
    // kept), its dk_refcnt the count or the link.
    UChar log2_size, log2_index, kind;
    return word(block, &count) && free_list_link(count) &&
                   read_client(block + kKeysLog2Size, &log2_size) && log2_size == kKeysMinLog2 &&
                   read_client(block + kKeysLog2IndexBytes, &log2_index) &&
                   log2_index == kKeysMinLog2 && read_client(block + kKeysKind, &kind) &&
                   kind == kKeysUnicode
               ? Parked::object
               : Parked::no;
}

bool pyobj_on() {
    return python_layout() != nullptr;
}

Addr pyobj_type(Addr obj) {
    Addr t;
    ULong flags;
    return word(obj + kObType, &t) && valid_type(t, &flags) ? t : 0;
}

ULong pyobj_type_flags(Addr type) {
    ULong flags;
    return valid_type(type, &flags) ? flags : 0;
}

Addr pyobj_in_block(Addr block, SizeT size) {
    if (!pyobj_on()) return 0;
    for (UInt off = 0; off <= 32; off += 16) {
        if (size < off + 16) break;
        Addr t = pyobj_type(block + off);
        if (!t) continue;
        ULong flags = pyobj_type_flags(t);
        ULong basic;
        if (preheader(flags, minor()) != off || !read_client(t + kTpBasicsize, &basic) ||
            off + basic > size)
            continue;
        return block + off;
    }
    return 0;
}

bool pyobj_weak_edge(Addr at, Addr ptr, Addr target, SizeT size, Addr parent) {
    // The interpreter's own statics: sys.modules, but also its caches (the
    // type attribute cache, free lists, borrowed keys tables) and GC
    // generation heads; and the frame chunks past the live frames' locals.
    // The program's ways (its stack, its live frames) and the
    // deferred ones name modules as well.
    if (!parent && (python_static_data(at) || (in_anonymous_memory(at) && !pylocals_slot(at))))
        return true;
    // A weak reference's referent (wr_object, past the object header), and
    // what a code object points at: its constants and names, and the
    // specialising interpreter's inline caches (a class, a function).
    if (parent && at >= 16 && is_weakref(at - 16)) return true;
    Addr parent_type = parent ? pyobj_type(parent) : 0;
    if (parent_type &&
        (pyobj_type_is(parent_type, "code") || pyobj_pointer_free(parent_type, at - parent)))
        return true;
    if (ptr % 8 || ptr + 32 > target + size) return false;
    ULong flags;
    Addr t;
    // A pointer at a GC header: what follows it is an object of a GC type,
    // and the pointer is not itself an object's start.
    if (word(ptr + 16 + kObType, &t) && valid_type(t, &flags) && flags & kPyTypeGC &&
        !pyobj_type(ptr))
        return true;
    // An object's type pointer: the word past its reference count, at the
    // object's start in the parent block (by the type's own flags), to a type.
    if (!parent || at < parent + kObType) return false;
    Addr obj = at - kObType;
    if (!pyobj_type(ptr) || !(pyobj_type_flags(pyobj_type(ptr)) & kPyTypeIsType)) return false;
    if (!valid_type(ptr, &flags) || obj - parent != preheader(flags, minor())) return false;
    ULong refcnt;
    return read_client(obj, &refcnt) && refcnt > 0 && refcnt < (1ul << 40);
}

bool pyobj_type_is(Addr type, const HChar* name) {
    Addr p;
    SizeT n = VG_(strlen)(name) + 1;
    return word(type + kTpName, &p) && client_readable(p, n) &&
           VG_(memcmp)(reinterpret_cast<const void*>(p), name, n) == 0;
}

void pyobj_type_name(Addr type, HChar* buf, SizeT n) {
    Addr p;
    buf[0] = 0;
    SizeT len = 0;
    ULong flags = pyobj_type_flags(type);
    Addr tp_name;
    HChar first[128] = "";
    bool dotted = false; // a C type's tp_name has its module already
    if (word(type + kTpName, &tp_name)) {
        for (SizeT i = 0; i + 1 < sizeof first; ++i) {
            if (!read_client(tp_name + i, &first[i]) || !first[i]) break;
            dotted = dotted || first[i] == '.';
        }
    }
    if (flags & kPyTypeHeap && !dotted) { // a class of the program: tp_name lacks the module
        Addr dict = 0, module = 0;
        if (word(type + kTpDict, &dict) && dict) module = pyobj_dict_get(dict, "__module__");
        if (module && pyobj_str(module, buf, n) && VG_(strcmp)(buf, "builtins") != 0) {
            len = VG_(strlen)(buf);
            if (len + 1 < n) buf[len++] = '.';
        }
        buf[len] = 0;
    }
    if (!word(type + kTpName, &p)) return;
    for (; len + 1 < n; ++len, ++p) {
        HChar c;
        if (!read_client(p, &c) || !c) break;
        buf[len] = c;
    }
    buf[len] = 0;
}

bool pyobj_str(Addr obj, HChar* buf, SizeT n) {
    if (n < 8 || !pyobj_type_is(pyobj_type(obj), "str") || !python_string(obj, buf, n))
        return false;
    ULong length;
    if (read_client(obj + kUnicodeLength, &length) && VG_(strlen)(buf) < length &&
        VG_(strlen)(buf) + 1 == n) // cut: end with an ellipsis on a character boundary
    {
        SizeT end = n - 4;
        while (end && (buf[end] & 0xc0) == 0x80)
            --end;
        VG_(strcpy)(buf + end, "…");
    }
    return true;
}

bool pyobj_int(Addr obj, Long* v) {
    if (!pyobj_type_is(pyobj_type(obj), "int")) return false;
    ULong tag;
    ULong two; // the first two 30-bit digits, in 32-bit units
    if (!read_client(obj + 16, &tag) || !read_client(obj + 24, &two)) return false;
    UInt digits[2] = {static_cast<UInt>(two), static_cast<UInt>(two >> 32)};
    Long ndigits, sign = 1;
    if (minor() >= 12) { // lv_tag: digit count << 3 | sign (0 +, 1 zero, 2 -)
        ndigits = static_cast<Long>(tag >> 3);
        if ((tag & 3) == 1) ndigits = 0;
        if ((tag & 3) == 2) sign = -1;
    } else { // ob_size: signed digit count
        ndigits = static_cast<Long>(tag);
        if (ndigits < 0) sign = -1, ndigits = -ndigits;
    }
    if (ndigits > 2) return false;
    Long value = 0;
    if (ndigits >= 1) value = digits[0] & 0x3fffffff;
    if (ndigits == 2) value |= static_cast<Long>(digits[1] & 0x3fffffff) << 30;
    *v = sign * value;
    return true;
}

void pyobj_key_text(Addr obj, HChar* buf, SizeT n) {
    HChar s[40];
    Long v;
    // Cut to fit inside its quotes (a cut through them would split the
    // ellipsis's bytes).
    SizeT fits = n >= 2 && n - 2 < sizeof s ? n - 2 : sizeof s;
    if (pyobj_str(obj, s, fits)) {
        VG_(snprintf)(buf, n, "'%s'", s);
    } else if (pyobj_int(obj, &v)) {
        VG_(snprintf)(buf, n, "%lld", v);
    } else {
        HChar t[64];
        Addr type = pyobj_type(obj);
        if (type)
            pyobj_type_name(type, t, sizeof t);
        else
            VG_(strcpy)(t, "?");
        VG_(snprintf)(buf, n, "<%s>", t);
    }
}

namespace {

// A dict's keys table, read and bounded: entries start at `entries`, each
// `entry_size` bytes (24: hash, key, value; 16: key, value for str-only
// and split tables, whose values may live apart).
struct Keys {
    Addr entries;
    UInt entry_size;
    ULong n;
    UChar kind;
};

bool read_keys(Addr keys, Keys* k) {
    UChar log2_size, log2_index_bytes;
    ULong nentries;
    if (!read_client(keys + kKeysLog2Size, &log2_size) ||
        !read_client(keys + kKeysLog2IndexBytes, &log2_index_bytes) ||
        !read_client(keys + kKeysKind, &k->kind) || !read_client(keys + kKeysNentries, &nentries))
        return false;
    if (log2_size < 3 || log2_size > 40 || log2_index_bytes > 43 || k->kind > 2 ||
        nentries > (1ul << log2_size))
        return false;
    k->entries = keys + kKeysIndices + (1ul << log2_index_bytes);
    k->entry_size = k->kind == 0 ? 24 : 16;
    k->n = nentries;
    return client_readable(k->entries, k->n * k->entry_size + 1);
}

// The values array of an object with managed, split attributes: 3.13+
// keeps them inline past the object (a header of 8 bytes first), 3.11 and
// 3.12 in an array the pre-header points at (3.12 tags it with bit 0).
Addr managed_values(Addr obj, Addr type, ULong flags) {
    if (minor() >= 13) {
        ULong basic;
        if (!(flags & kInlineValues) || !read_client(type + kTpBasicsize, &basic)) return 0;
        return obj + basic + 8;
    }
    if (!(flags & kManagedDict)) return 0;
    Addr v;
    if (minor() == 11) return word(obj - 32, &v) ? v : 0;
    if (!read_client(obj - 24, &v) || !(v & 1)) return 0;
    return v - 1;
}

// A heap type's shared keys (ht_cached_keys): the split keys table among
// the words past PyTypeObject (its position moves between versions).
Addr shared_keys(Addr type) {
    for (Addr a = type + 400; a < type + 1000; a += 8) {
        Addr k;
        UChar kind, log2;
        if (word(a, &k) && k && k % 8 == 0 && read_client(k + kKeysKind, &kind) && kind == 2 &&
            read_client(k + kKeysLog2Size, &log2) && log2 >= 3 && log2 < 30) {
            Keys keys;
            if (read_keys(k, &keys)) return k;
        }
    }
    return 0;
}

void entries_of(Addr keys_addr, Addr values, DictVisit f, void* ctx) {
    Keys k;
    if (!read_keys(keys_addr, &k)) return;
    for (ULong i = 0; i < k.n; ++i) {
        Addr e = k.entries + i * k.entry_size, key, value;
        Addr key_at = k.entry_size == 24 ? e + 8 : e;
        Addr value_at = values ? values + i * 8 : key_at + 8;
        if (!word(key_at, &key) || !key || !word(value_at, &value) || !value) continue;
        if (!f(ctx, key, value, value_at)) return;
    }
}

struct Lookup {
    const HChar* want;
    Addr found;
};
bool match_key(void* ctx, Addr key, Addr value, Addr) {
    auto* l = static_cast<Lookup*>(ctx);
    HChar s[128];
    if (pyobj_str(key, s, sizeof s) && VG_(strcmp)(s, l->want) == 0) {
        l->found = value;
        return false;
    }
    return true;
}

} // namespace

void pyobj_dict_entries(Addr dict, DictVisit f, void* ctx) {
    Addr type = pyobj_type(dict);
    if (!(pyobj_type_flags(type) & kTpDictSub)) {
        // A split instance dict that was never made: the object itself.
        ULong flags = pyobj_type_flags(type);
        Addr values = type ? managed_values(dict, type, flags) : 0;
        Addr keys = values ? shared_keys(type) : 0;
        if (keys) entries_of(keys, values, f, ctx);
        return;
    }
    Addr keys, values;
    if (!word(dict + kDictKeys, &keys) || !word(dict + kDictValues, &values)) return;
    if (values && minor() >= 13) values += 8; // PyDictValues' header
    entries_of(keys, values, f, ctx);
}

Addr pyobj_dict_get(Addr dict, const HChar* key) {
    Lookup l{key, 0};
    pyobj_dict_entries(dict, match_key, &l);
    return l.found;
}

Addr pyobj_attributes(Addr obj) {
    Addr type = pyobj_type(obj), d = 0;
    if (!type) return 0;
    ULong flags = pyobj_type_flags(type);
    if (flags & kPyTypeIsType) return word(obj + kTpDict, &d) ? d : 0;
    if (pyobj_type_is(type, "module")) return word(obj + kModuleDict, &d) ? d : 0;
    if (flags & kManagedDict) { // the dict when made, else the values themselves
        Addr at = obj - 24;
        if (minor() == 12) {
            if (read_client(at, &d) && d && !(d & 1)) return d;
        } else if (word(at, &d) && d) {
            return d;
        }
        return managed_values(obj, type, flags) ? obj : 0;
    }
    Long off;
    if (read_client(type + kTpDictoffset, &off) && off > 0 && off < 4096 && word(obj + off, &d))
        return d;
    return 0;
}

Addr pyobj_tuple_item(Addr tuple, Long k) {
    Long n;
    Addr item;
    // 3.14 caches a tuple's hash before its items.
    UInt items = minor() >= 14 ? 32 : 24;
    return pyobj_type_flags(pyobj_type(tuple)) & kTpTupleSub && read_client(tuple + kObSize, &n) &&
                   k >= 0 && k < n && word(tuple + items + 8 * static_cast<Addr>(k), &item)
               ? item
               : 0;
}

Addr pyobj_closure_variable(Addr func, const HChar* name) {
    const PyLayout* l = python_layout();
    Addr code, closure, names, cell, value;
    Long n_cells, n_names;
    if (!l || !pyobj_type_is(pyobj_type(func), "function") || !word(func + kFuncCode, &code) ||
        !word(func + kFuncClosure, &closure) || !closure ||
        !word(code + l->code_localsplusnames, &names) ||
        !read_client(closure + kObSize, &n_cells) || !read_client(names + kObSize, &n_names) ||
        n_cells > n_names)
        return 0;
    // The free variables are the last names, in the closure's order.
    for (Long k = 0; k < n_cells && k < 256; ++k) {
        HChar s[32];
        Addr var = pyobj_tuple_item(names, n_names - n_cells + k);
        if (var && pyobj_str(var, s, sizeof s) && VG_(strcmp)(s, name) == 0)
            return (cell = pyobj_tuple_item(closure, k)) && word(cell + 16, &value) ? value : 0;
    }
    return 0;
}

bool pyobj_python_lru(Addr obj) {
    const PyLayout* l = python_layout();
    Addr code, qualname;
    HChar s[48];
    return l && pyobj_type_is(pyobj_type(obj), "function") && word(obj + kFuncCode, &code) &&
           word(code + l->code_qualname, &qualname) && pyobj_str(qualname, s, sizeof s) &&
           VG_(strcmp)(s, "_lru_cache_wrapper.<locals>.wrapper") == 0;
}

bool pyobj_length(Addr obj, Long* length, Long* bound) {
    Addr type = pyobj_type(obj);
    if (!type) return false;
    ULong flags = pyobj_type_flags(type);
    *bound = -1;
    Long v;
    if (flags & kTpDictSub) return read_client(obj + kDictUsed, length) && *length >= 0;
    if (flags & (kTpListSub | kTpTupleSub) || pyobj_type_is(type, "set"))
        return read_client(obj + (flags & (kTpListSub | kTpTupleSub) ? kObSize : 24), length) &&
               *length >= 0;
    if (pyobj_type_is(type, "collections.deque")) {
        if (!read_client(obj + kObSize, length) || !read_client(obj + kDequeMaxlen, &v) ||
            *length < 0 || v < -1 || (v >= 0 && *length > v))
            return false;
        *bound = v;
        return true;
    }
    if (pyobj_type_is(type, "functools._lru_cache_wrapper")) {
        Addr cache;
        if (!word(obj + kLruCache, &cache) || !read_client(obj + kLruMaxsize, &v) ||
            !read_client(cache + kDictUsed, length) || *length < 0)
            return false;
        *bound = v > 0 ? v : -1;
        return true;
    }
    if (pyobj_python_lru(obj)) { // its closure's cache and maxsize (None: unbounded)
        Addr cache = pyobj_closure_variable(obj, "cache");
        Addr maxsize = pyobj_closure_variable(obj, "maxsize");
        if (!cache || !pyobj_type_is(pyobj_type(cache), "dict") ||
            !read_client(cache + kDictUsed, length) || *length < 0)
            return false;
        *bound = maxsize && pyobj_int(maxsize, &v) && v > 0 ? v : -1;
        return true;
    }
    HChar name[64];
    pyobj_type_name(type, name, sizeof name);
    if (VG_(strcmp)(name, "queue.Queue") == 0 || VG_(strcmp)(name, "queue.LifoQueue") == 0 ||
        VG_(strcmp)(name, "queue.PriorityQueue") == 0) {
        Addr attrs = pyobj_attributes(obj);
        Addr items = attrs ? pyobj_dict_get(attrs, "queue") : 0;
        Addr maxsize = attrs ? pyobj_dict_get(attrs, "maxsize") : 0;
        Long b;
        if (!items || !pyobj_length(items, length, &b)) return false;
        *bound = maxsize && pyobj_int(maxsize, &v) && v > 0 ? v : -1;
        return true;
    }
    return false;
}

} // namespace mg
