// SPDX-License-Identifier: GPL-2.0-or-later
#include "holders/mg_pynames.hpp"
#include "python/mg_client_memory.hpp"
#include "python/mg_pyobject.hpp"

namespace mg {

namespace {

constexpr UInt kLruFunc = 88;  // lru_cache_object.func
constexpr SizeT kKeyText = 32; // keys are shown short

void append(HChar* path, SizeT cap, const HChar* s) {
    SizeT len = VG_(strlen)(path);
    if (len + 1 < cap) VG_(snprintf)(path + len, cap - len, "%s", s);
}

bool word_at(Addr a, Addr* out) {
    return a % 8 == 0 && read_client(a, out);
}

// A module's namespace by its `__name__`: a dict that also has `__builtins__`,
// a module or a dict (the interpreter's table of interned strings has both
// keys too, each its own value).
bool module_namespace_name(Addr dict, HChar* out, SizeT n) {
    Addr name = pyobj_dict_get(dict, "__name__");
    Addr builtins = pyobj_dict_get(dict, "__builtins__");
    Addr type = builtins ? pyobj_type(builtins) : 0;
    return name && (pyobj_type_is(type, "module") || pyobj_type_is(type, "dict")) &&
           pyobj_str(name, out, n);
}

// What names itself: a module, its namespace, a class, a function, an
// lru_cache wrapper (by the function it wraps).
bool self_name(Addr obj, Addr type, HChar* out, SizeT n) {
    ULong flags = pyobj_type_flags(type);
    if (pyobj_type_is(type, "module")) {
        Addr dict = pyobj_attributes(obj), name = dict ? pyobj_dict_get(dict, "__name__") : 0;
        return name && pyobj_str(name, out, n);
    }
    if (pyobj_type_is(type, "dict")) return module_namespace_name(obj, out, n);
    if (flags & kPyTypeIsType) { // obj is a class: its own flags say whose
        if (!(pyobj_type_flags(obj) & kPyTypeHeap)) return false; // a built-in type
        pyobj_type_name(obj, out, n);
        return out[0] != 0;
    }
    if (pyobj_type_is(type, "functools._lru_cache_wrapper")) {
        Addr func;
        if (!word_at(obj + kLruFunc, &func) || !func) return false;
        obj = func, type = pyobj_type(func);
    } else if (pyobj_python_lru(obj)) { // functools' own globals: name it by what it wraps
        obj = pyobj_closure_variable(obj, "user_function");
        type = pyobj_type(obj);
    }
    if (pyobj_type_is(type, "function")) {
        Addr globals, qualname;
        HChar module[128], qual[128];
        if (!word_at(obj + kFuncGlobals, &globals) || !word_at(obj + kFuncQualname, &qualname) ||
            !module_namespace_name(globals, module, sizeof module) ||
            !pyobj_str(qualname, qual, sizeof qual))
            return false;
        VG_(snprintf)(out, n, "%s.%s", module, qual);
        return true;
    }
    return false;
}

// The entry of a dict-like (a dict, or an object's attributes) whose value
// points into [lo, hi).
struct Find {
    Addr lo, hi;
    Addr key;
};
bool value_in(void* ctx, Addr key, Addr value, Addr) {
    auto* f = static_cast<Find*>(ctx);
    if (value >= f->lo && value < f->hi) {
        f->key = key;
        return false;
    }
    return true;
}
Addr key_of(Addr dict, const WayBlock& child) {
    Find f{child.addr, child.addr + child.size, 0};
    pyobj_dict_entries(dict, value_in, &f);
    return f.key;
}

bool points_into(Addr at, const WayBlock& child) {
    Addr v;
    return word_at(at, &v) && v >= child.addr && v < child.addr + child.size;
}

// How the object `parent` (of type `type`) holds the block `child`. A
// class's or instance's attribute dict is transparent (attrs: the parent is
// one, its keys are attribute names).
void edge_label(Addr parent, Addr type, const WayBlock& child, bool attrs_dict, HChar* out,
                SizeT n) {
    HChar key[kKeyText + 8];
    ULong flags = pyobj_type_flags(type);
    out[0] = 0;
    if (pyobj_type_is(type, "dict")) {
        Addr k = key_of(parent, child);
        if (!k) {
            VG_(snprintf)(out, n, ".keys()[*]");
            return;
        }
        HChar name[kKeyText];
        if ((attrs_dict || module_namespace_name(parent, name, sizeof name)) &&
            pyobj_str(k, key, sizeof key)) {
            VG_(snprintf)(out, n, ".%s", key);
            return;
        }
        pyobj_key_text(k, key, sizeof key);
        VG_(snprintf)(out, n, "[%s]", key);
        return;
    }
    if (pyobj_type_is(type, "cell")) return; // a closure's variable: the cell is transparent
    if (pyobj_type_is(type, "function")) {
        if (points_into(parent + kFuncClosure, child))
            VG_(snprintf)(out, n, ".__closure__");
        else if (points_into(parent + kFuncDefaults, child))
            VG_(snprintf)(out, n, ".__defaults__");
        else if (points_into(parent + kFuncCode, child))
            VG_(snprintf)(out, n, ".__code__");
    }
    if (!out[0]) {
        Addr attrs = pyobj_attributes(parent);
        Addr k = attrs ? key_of(attrs, child) : 0;
        if (k && pyobj_str(k, key, sizeof key)) {
            VG_(snprintf)(out, n, ".%s", key);
            return;
        }
        if (attrs && attrs != parent && child.addr <= attrs && attrs < child.addr + child.size)
            return; // its attributes' dict: the next step names the attribute
    }
    if (out[0]) return;
    if (pyobj_type_is(type, "set") || pyobj_type_is(type, "frozenset"))
        VG_(snprintf)(out, n, "{*}");
    else if (flags & ((1ul << 25) | (1ul << 26)) || pyobj_type_is(type, "collections.deque"))
        VG_(snprintf)(out, n, "[*]");
    else
        VG_(snprintf)(out, n, ".?");
}

} // namespace

bool py_module_namespace(const WayBlock& b) {
    Addr obj = pyobj_in_block(b.addr, b.size);
    HChar name[8];
    return obj && pyobj_type_is(pyobj_type(obj), "dict") &&
           module_namespace_name(obj, name, sizeof name);
}

bool py_way_name(const WayBlock* way, UInt n, HChar* path, SizeT cap, bool root_is_variable) {
    if (!pyobj_on()) return false;
    Addr prev = 0, prev_type = 0; // the last object on the way
    bool any = false, attrs_dict = false;
    HChar buf[256];
    for (UInt i = 0; i < n; ++i) {
        Addr obj = pyobj_in_block(way[i].addr, way[i].size);
        if (!obj) continue; // a keys table, an item array: its object's
        Addr type = pyobj_type(obj);
        if (self_name(obj, type, buf, sizeof buf)) {
            VG_(snprintf)(path, cap, "%s", buf);
            attrs_dict = false;
        } else if (prev) {
            edge_label(prev, prev_type, WayBlock{obj, way[i].addr + way[i].size - obj}, attrs_dict,
                       buf, sizeof buf);
            append(path, cap, buf);
            Addr attrs = pyobj_attributes(prev);
            attrs_dict = attrs == obj && attrs != prev;
        } else if (!root_is_variable) {
            HChar t[64];
            pyobj_type_name(type, t, sizeof t);
            VG_(snprintf)(buf, sizeof buf, " → %s", t);
            append(path, cap, buf);
        }
        any = true;
        prev = obj, prev_type = type;
    }
    return any;
}

bool py_describe(const WayBlock& b, HChar* type, SizeT cap, Long* length, Long* bound) {
    Addr obj = pyobj_in_block(b.addr, b.size);
    if (!obj) return false;
    if (pyobj_python_lru(obj)) // the same cache as the C one, in Python
        VG_(snprintf)(type, cap, "functools._lru_cache_wrapper");
    else
        pyobj_type_name(pyobj_type(obj), type, cap);
    if (!pyobj_length(obj, length, bound)) *length = -1, *bound = -1;
    return true;
}

UInt py_presented(const WayBlock* way, UInt n) {
    if (!n || !pyobj_on()) return n ? n - 1 : 0;
    Addr held = pyobj_in_block(way[n - 1].addr, way[n - 1].size);
    if (!held) return n - 1;
    // Up to three blocks up (an instance's attribute values or dict between;
    // a closure's tuple and cell, for the Python lru_cache).
    for (UInt up = 1; up <= 3 && up < n; ++up) {
        Addr owner = pyobj_in_block(way[n - 1 - up].addr, way[n - 1 - up].size);
        if (!owner) continue;
        HChar name[64];
        Addr type = pyobj_type(owner);
        pyobj_type_name(type, name, sizeof name);
        Long length, bound;
        if ((VG_(strcmp)(name, "functools._lru_cache_wrapper") == 0 ||
             VG_(strcmp)(name, "queue.Queue") == 0 || VG_(strcmp)(name, "queue.LifoQueue") == 0 ||
             VG_(strcmp)(name, "queue.PriorityQueue") == 0 || pyobj_python_lru(owner)) &&
            pyobj_length(owner, &length, &bound))
            return n - 1 - up;
        if (!pyobj_type_is(type, "cell") && !pyobj_type_is(type, "tuple"))
            break; // the nearest object decides
    }
    return n - 1;
}

} // namespace mg
