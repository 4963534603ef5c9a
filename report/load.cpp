// SPDX-License-Identifier: GPL-2.0-or-later
// Reading a report: nlohmann-json parses it as a stream of SAX events, this
// file checks the schema of format versions 1 and 2 field by field, so that
// the commands can trust the model. Only the small top-level fields become a
// JSON tree; the sites, Python sites, frames and stacks are taken one
// element at a time, so memory follows the model, not the file.
#include "report/load.hpp"
#include "report/format2.hpp"
#include "report/json_depth.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <set>
#include <sstream>
#include <type_traits>
#include <unordered_map>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace mg::report {

namespace {

using nlohmann::json;

std::string describe(const std::string& file, const std::string& message,
                     const std::string& pointer, std::optional<std::uint64_t> byte,
                     std::uint64_t line, std::uint64_t column) {
    if (byte) return fmt::format("{}:{}:{}: {} (byte {})", file, line, column, message, *byte);
    if (!pointer.empty()) return fmt::format("{}: {} (at {})", file, message, pointer);
    return fmt::format("{}: {}", file, message);
}

// Bytes of a broken file may appear in the parser's message: keep it
// printable whatever the file holds.
std::string printable(const std::string& s) {
    std::string out;
    for (unsigned char c : s) {
        if (c >= 0x20 && c < 0x7f)
            out += static_cast<char>(c);
        else
            out += fmt::format("\\x{:02x}", c);
    }
    return out;
}

using HeldByLists = std::vector<std::vector<HeldBy>>;

const char* type_of(const json& v) {
    return format2::kind_of(v);
}

// Walks the JSON with the pointer of each value, so that every message says
// where the wrong value is.
class Reader {
  public:
    explicit Reader(std::string file) : file_(std::move(file)) {}

    [[noreturn]] void fail(const std::string& where, const std::string& message) const {
        throw LoadError(file_, message, where.empty() ? "/" : where);
    }

    void expect(const json& v, bool ok, const std::string& where, const char* wanted) const {
        if (!ok) fail(where, fmt::format("expected {}, found {}", wanted, type_of(v)));
    }

    // The member `key` of object `obj`, or nullptr when absent.
    const json* member(const json& obj, const char* key) const {
        auto it = obj.find(key);
        return it == obj.end() ? nullptr : &*it;
    }

    const json& required(const json& obj, const std::string& where, const char* key) const {
        const json* v = member(obj, key);
        if (!v) fail(where, fmt::format("required field \"{}\" is missing", key));
        return *v;
    }

    std::int64_t integer(const json& v, const std::string& where) const {
        if (format2::is_huge_integer(v)) fail(where, "integer out of range");
        expect(v, v.is_number_integer(), where, "an integer");
        if (v.is_number_unsigned() && v.get<std::uint64_t>() > INT64_MAX)
            fail(where, "integer out of range");
        return v.get<std::int64_t>();
    }

    double number(const json& v, const std::string& where) const {
        expect(v, v.is_number(), where, "a number");
        return v.get<double>();
    }

    std::string string(const json& v, const std::string& where) const {
        expect(v, v.is_string(), where, "a string");
        return v.get<std::string>();
    }

    bool boolean(const json& v, const std::string& where) const {
        expect(v, v.is_boolean(), where, "a boolean");
        return v.get<bool>();
    }

    // Optional members: absent leaves `out` as it is.
    void opt_integer(const json& obj, const std::string& where, const char* key,
                     std::int64_t& out) const {
        if (const json* v = member(obj, key)) out = integer(*v, where + "/" + key);
    }
    template <typename T>
    void opt_integer_or_null(const json& obj, const std::string& where, const char* key,
                             std::optional<T>& out) const {
        if (const json* v = member(obj, key); v && !v->is_null()) {
            std::int64_t n = integer(*v, where + "/" + key);
            if (n < std::numeric_limits<T>::min() || n > std::numeric_limits<T>::max())
                fail(where + "/" + key, "integer out of range");
            out = static_cast<T>(n);
        }
    }
    void opt_string(const json& obj, const std::string& where, const char* key,
                    std::string& out) const {
        if (const json* v = member(obj, key)) out = string(*v, where + "/" + key);
    }
    void opt_bool(const json& obj, const std::string& where, const char* key, bool& out) const {
        if (const json* v = member(obj, key)) out = boolean(*v, where + "/" + key);
    }

    ForkCopy fork_copy(const json& v, const std::string& where) const {
        object(v, where);
        ForkCopy out;
        opt_integer(v, where, "parent_pid", out.parent_pid);
        opt_integer(v, where, "inherited_bytes", out.inherited_bytes);
        opt_integer(v, where, "copied_bytes", out.copied_bytes);
        if (const json* copied = member(v, "copied")) {
            array(*copied, where + "/copied");
            for (std::size_t i = 0; i < copied->size(); ++i) {
                std::string at = where + "/copied/" + std::to_string(i);
                const json& c = object((*copied)[i], at);
                std::int64_t bytes = integer(required(c, at, "bytes"), at + "/bytes");
                if (const json* site = member(c, "site"))
                    out.sites.emplace_back(integer(*site, at + "/site"), bytes);
                else
                    out.regions.emplace_back(string(required(c, at, "region"), at + "/region"),
                                             bytes);
            }
        }
        return out;
    }

    const json& object(const json& v, const std::string& where) const {
        expect(v, v.is_object(), where, "an object");
        return v;
    }

    const json& array(const json& v, const std::string& where) const {
        expect(v, v.is_array(), where, "an array");
        return v;
    }

    std::vector<std::int64_t> integers(const json& v, const std::string& where) const {
        std::vector<std::int64_t> out;
        array(v, where);
        out.reserve(v.size());
        for (std::size_t i = 0; i < v.size(); ++i)
            out.push_back(integer(v[i], where + "/" + std::to_string(i)));
        return out;
    }

    // `pages`: each series one level per bucket.
    Pages pages(const json& v, std::size_t buckets) const {
        object(v, "/pages");
        Pages out;
        for (auto [key, field] :
             {std::pair{"heap", &out.heap}, {"mapped", &out.mapped}, {"resident", &out.resident}}) {
            std::string where = std::string("/pages/") + key;
            *field = integers(required(v, "/pages", key), where);
            if (field->size() != buckets)
                fail(where, fmt::format("{} levels for {} buckets", field->size(), buckets));
        }
        if (const json* t = member(v, "teardown")) {
            object(*t, "/pages/teardown");
            out.teardown_resident =
                integer(required(*t, "/pages/teardown", "resident"), "/pages/teardown/resident");
        }
        return out;
    }

    // `device_memory`: per device, the run's series one level per bucket.
    std::vector<DeviceMemory> device_memory(const json& v, std::size_t buckets) const {
        array(v, "/device_memory");
        std::vector<DeviceMemory> out;
        for (std::size_t i = 0; i < v.size(); ++i) {
            std::string at = "/device_memory/" + std::to_string(i);
            const json& d = object(v[i], at);
            DeviceMemory m;
            m.device = integer(required(d, at, "device"), at + "/device");
            m.allocated_bytes =
                integer(required(d, at, "allocated_bytes"), at + "/allocated_bytes");
            m.reserved_bytes = integer(required(d, at, "reserved_bytes"), at + "/reserved_bytes");
            for (auto [key, field] : {std::pair{"allocated", &m.allocated},
                                      {"reserved", &m.reserved},
                                      {"mark_allocated", &m.mark_allocated},
                                      {"mark_reserved", &m.mark_reserved}})
                *field = integers(required(d, at, key), at + "/" + key);
            for (auto [key, field] :
                 {std::pair{"allocated", &m.allocated}, {"reserved", &m.reserved}})
                if (field->size() != buckets)
                    fail(at + "/" + key,
                         fmt::format("{} levels for {} buckets", field->size(), buckets));
            out.push_back(std::move(m));
        }
        return out;
    }

    SiteClass site_class(const json& v, const std::string& where) const {
        std::string name = string(v, where);
        auto c = parse_class(name);
        if (!c)
            fail(where, fmt::format("unknown class \"{}\" (expected leaked, growing, plateau "
                                    "or stable)",
                                    printable(name)));
        return *c;
    }

    std::optional<std::string> string_or_null(const json& obj, const std::string& where,
                                              const char* key) const {
        const json* v = member(obj, key);
        if (!v || v->is_null()) return std::nullopt;
        return string(*v, where + "/" + key);
    }

    Frame frame(const json& v, const std::string& where) const {
        object(v, where);
        Frame f;
        required(v, where, "function");
        f.function = string_or_null(v, where, "function");
        f.file = string_or_null(v, where, "file");
        f.object = string_or_null(v, where, "object");
        opt_integer_or_null(v, where, "line", f.line);
        opt_bool(v, where, "python", f.python);
        f.ip = string_or_null(v, where, "ip").value_or(""); // null for a Python frame
        return f;
    }

    std::vector<Frame> frames(const json& v, const std::string& where) const {
        std::vector<Frame> out;
        array(v, where);
        for (std::size_t i = 0; i < v.size(); ++i)
            out.push_back(frame(v[i], where + "/" + std::to_string(i)));
        return out;
    }

    Growth growth(const json& v, const std::string& where) const {
        object(v, where);
        Growth g;
        if (const json* c = member(v, "class")) g.history_class = site_class(*c, where + "/class");
        opt_string(v, where, "rule", g.rule);
        g.rate = number(required(v, where, "rate"), where + "/rate");
        g.confidence = number(required(v, where, "confidence"), where + "/confidence");
        if (const json* r = member(v, "rate_per_bucket"))
            g.rate_per_bucket = number(*r, where + "/rate_per_bucket");
        if (const json* r = member(v, "rate_per_mark"); r && !r->is_null())
            g.rate_per_mark = number(*r, where + "/rate_per_mark");
        opt_clock_or_null(v, where, "began_at", g.began_at);
        opt_clock_or_null(v, where, "stopped_at", g.stopped_at);
        opt_integer(v, where, "marks_used", g.marks_used);
        opt_integer(v, where, "marks_adding", g.marks_adding);
        opt_bool(v, where, "released_at_end", g.released_at_end);
        opt_bool(v, where, "after_marks", g.after_marks);
        opt_integer(v, where, "staircase_steps", g.staircase_steps);
        opt_clock_or_null(v, where, "next_step_at", g.next_step_at);
        opt_integer_or_null(v, where, "bound", g.bound);
        opt_integer_or_null(v, where, "bound_bytes", g.bound_bytes);
        if (const json* f = member(v, "fill"); f && !f->is_null())
            g.fill = number(*f, where + "/fill");
        return g;
    }

    // The fields that name a holder (docs/holders.md), each optional: a
    // report of an older tool has fewer of them.
    void holder_name(const json& v, const std::string& where, HolderName& out) const {
        opt_string(v, where, "path", out.path);
        opt_string(v, where, "root", out.root);
        out.type = string_or_null(v, where, "type");
        opt_integer_or_null(v, where, "length", out.length);
        opt_integer_or_null(v, where, "bound", out.bound);
    }

    // A site's "held_by": who keeps its memory, largest first.
    std::vector<HeldBy> held_by(const json& v, const std::string& where) const {
        array(v, where);
        std::vector<HeldBy> out;
        for (std::size_t i = 0; i < v.size(); ++i) {
            std::string at = where + "/" + std::to_string(i);
            const json& h = object(v[i], at);
            HeldBy b;
            holder_name(h, at, b);
            if (const json* n = member(h, "bytes")) b.bytes = count(*n, at + "/bytes");
            if (const json* n = member(h, "blocks")) b.blocks = count(*n, at + "/blocks");
            if (const json* n = member(h, "share")) b.share = number(*n, at + "/share");
            opt_integer_or_null(h, at, "holder", b.holder);
            out.push_back(std::move(b));
        }
        return out;
    }

    // The "held_by" of site `s` (in object `obj`), if any, as one more of
    // the report's lists (Site::held_by).
    void held_by_of(const json& obj, const std::string& where, Site& s, HeldByLists& lists) const {
        const json* h = member(obj, "held_by");
        if (!h) return;
        std::vector<HeldBy> list = held_by(*h, where + "/held_by");
        if (list.empty()) return;
        if (lists.size() >= Site::kNoHolders) fail(where + "/held_by", "too many held_by lists");
        s.held_by = static_cast<std::uint32_t>(lists.size());
        lists.push_back(std::move(list));
    }

    // The report's "holders" (`r`'s sites read already): one finding per
    // holder. What a holder leaves out comes from the sites whose held_by
    // names it: its sites' ids ("sites" may be their count) and its class,
    // the highest of the sites it keeps at least half of (a holder of a few
    // bytes of a growing site does not grow).
    std::vector<Holder> holders(const json& v, const std::string& where, const Report& r) const {
        array(v, where);
        std::vector<Holder> out;
        std::vector<bool> find_sites, find_class;
        std::unordered_map<std::int64_t, std::size_t> by_id;
        for (std::size_t i = 0; i < v.size(); ++i) {
            std::string at = where + "/" + std::to_string(i);
            const json& h = object(v[i], at);
            Holder o;
            holder_name(h, at, o);
            opt_integer(h, at, "id", o.id);
            const json* c = member(h, "class");
            if (c && !c->is_null()) o.cls = site_class(*c, at + "/class");
            find_class.push_back(!c || c->is_null());
            if (const json* n = member(h, "bytes")) o.bytes = count(*n, at + "/bytes");
            if (const json* n = member(h, "blocks")) o.blocks = count(*n, at + "/blocks");
            if (const json* n = member(h, "rate"); n && !n->is_null())
                o.rate = number(*n, at + "/rate");
            if (const json* n = member(h, "live_bytes"))
                o.live_bytes = count(*n, at + "/live_bytes");
            if (const json* n = member(h, "n_sites")) o.n_sites = count(*n, at + "/n_sites");
            const json* ids = member(h, "sites");
            if (ids && !ids->is_number_integer()) o.sites = integers(*ids, at + "/sites");
            if (const json* py = member(h, "python_sites"))
                o.python_sites = integers(*py, at + "/python_sites");
            if (const json* m = member(h, "members")) {
                array(*m, at + "/members");
                for (std::size_t k = 0; k < m->size(); ++k) {
                    std::string mat = at + "/members/" + std::to_string(k);
                    const json& e = object((*m)[k], mat);
                    HolderMember hm;
                    if (const json* py = member(e, "python"))
                        hm.python = boolean(*py, mat + "/python");
                    if (const json* n = member(e, "id")) hm.id = count(*n, mat + "/id");
                    if (const json* n = member(e, "bytes")) hm.bytes = count(*n, mat + "/bytes");
                    o.members.push_back(hm);
                }
            }
            find_sites.push_back(!ids || ids->is_number_integer());
            by_id.emplace(o.id, out.size());
            out.push_back(std::move(o));
        }
        for (const auto* list : {&r.sites, &r.python_sites})
            for (const Site& s : *list)
                for (const HeldBy& b : report::held_by(r, s)) {
                    auto found = b.holder ? by_id.find(*b.holder) : by_id.end();
                    if (found == by_id.end()) continue;
                    Holder& o = out[found->second];
                    if (find_sites[found->second])
                        (s.python ? o.python_sites : o.sites).push_back(s.id);
                    if (find_class[found->second] && b.share >= 0.5) o.cls = std::max(o.cls, s.cls);
                }
        return out;
    }

    Site site(const json& v, const std::string& where, HeldByLists& held) const {
        Site s = site_body(v, where, held);
        s.frames = frames(required(v, where, "frames"), where + "/frames");
        return s;
    }

    // A group of folded sites: a format-1 object with its frames, or a
    // format-2 row [stack, python_site, sites, seven counts] (the caller
    // links the stack).
    Folded folded(const json& v, const std::string& where) const {
        Folded f;
        const bool row = v.is_array();
        if (row && v.size() != format2::kFoldedFields)
            fail(where, fmt::format("a folded row holds {} fields", format2::kFoldedFields));
        if (!row) object(v, where);
        auto field = [&](std::size_t i, const char* key) -> const json& {
            return row ? v[i] : required(v, where, key);
        };
        auto at = [&](std::size_t i, const char* key) {
            return where + "/" + (row ? std::to_string(i) : std::string(key));
        };
        const json& py = field(1, "python_site");
        if (!py.is_null()) f.python_site = count(py, at(1, "python_site"));
        std::int64_t* counts[] = {&f.sites,         &f.live_bytes,      &f.live_blocks,
                                  &f.peak_bytes,    &f.allocated_bytes, &f.allocated_blocks,
                                  &f.at_exit_bytes, &f.at_exit_blocks};
        for (std::size_t i = 0; i < std::size(format2::kFoldedCounts); ++i)
            *counts[i] = count(field(2 + i, format2::kFoldedCounts[i]),
                               at(2 + i, format2::kFoldedCounts[i]));
        if (!row) {
            f.frames = frames(required(v, where, "frames"), where + "/frames");
            opt_integer_or_null(v, where, "pid", f.pid);
            opt_integer_or_null(v, where, "process", f.process);
        }
        return f;
    }

    // A number of bytes or blocks: not negative.
    std::int64_t count(const json& v, const std::string& where) const {
        std::int64_t n = integer(v, where);
        if (n < 0) fail(where, "a negative count");
        return n;
    }

    // A time on the run's clock: the tool's clock starts at 0.
    std::int64_t clock(const json& v, const std::string& where) const {
        std::int64_t n = integer(v, where);
        if (n < 0) fail(where, fmt::format("a negative clock value ({})", n));
        return n;
    }
    void opt_clock(const json& obj, const std::string& where, const char* key,
                   std::int64_t& out) const {
        if (const json* v = member(obj, key)) out = clock(*v, where + "/" + key);
    }
    void opt_clock_or_null(const json& obj, const std::string& where, const char* key,
                           std::optional<std::int64_t>& out) const {
        if (const json* v = member(obj, key); v && !v->is_null())
            out = clock(*v, where + "/" + key);
    }

    Lost lost(const json& l, const std::string& at) const {
        object(l, at);
        Lost out;
        for (auto [key, field] :
             {std::pair{"definite", &out.definite}, std::pair{"indirect", &out.indirect},
              std::pair{"possible", &out.possible}})
            if (const json* v = member(l, key)) *field = count(*v, at + "/" + key);
        return out;
    }

    // A format-2 sparse series (docs/output-format.md), checked; into `out`
    // when given. `changes`: a level holds from its bucket on.
    void sparse(const json& v, const std::string& where, std::size_t buckets, Series* out) const {
        array(v, where);
        if (v.size() % 2) fail(where, "a sparse series holds pairs [bucket, value, ...]");
        if (out) out->reserve(v.size() / 2);
        std::size_t next = 0;
        for (std::size_t i = 0; i < v.size(); i += 2) {
            std::int64_t b = integer(v[i], where + "/" + std::to_string(i));
            if (b < static_cast<std::int64_t>(next) || b >= static_cast<std::int64_t>(buckets))
                fail(where + "/" + std::to_string(i),
                     fmt::format("bucket {} is out of order or past the {} buckets", b, buckets));
            std::int64_t x = integer(v[i + 1], where + "/" + std::to_string(i + 1));
            if (out) out->change(static_cast<std::uint32_t>(b), x);
            next = static_cast<std::size_t>(b) + 1;
        }
        if (out) out->resize(buckets);
    }

    // A format-2 row (docs/output-format.md) straight into the model: the
    // checks and pointers are the row's own ("/sites/3/4"), its object's
    // fields are checked as format 1's. The stack node is the caller's.
    // `quiet`: the report's "quiet_growth" (the evidence a row leaves out);
    // `mark_buckets`: the length of the mark series (stored as change points).
    // `revision`: format 2's encoding; `next_id`: the previous row's id + 1;
    // `held`: the report's held_by lists (the row's joins them).
    Site row(const json& v, const std::string& where, HeldByLists& held, bool python,
             std::size_t buckets, const Shared<Growth>& quiet, std::size_t mark_buckets,
             int revision, std::int64_t next_id) const {
        array(v, where);
        if (v.size() < format2::kRowFields)
            fail(where, fmt::format("a site row has {} fields, this one {}", format2::kRowFields,
                                    v.size()));
        Site s;
        auto at = [&](std::size_t i) { return where + "/" + std::to_string(i); };
        try {
            s.id = format2::row_id(v[0], revision, next_id, "");
        } catch (const format2::RowError& e) {
            fail(at(0), e.what());
        }
        if (!v[1].is_null()) integer(v[1], at(1));
        if (revision >= 2) {
            std::int64_t c = integer(v[2], at(2));
            if (c < 0 || c > 3)
                fail(at(2), fmt::format("class code {} is not 0 to 3 (stable, plateau, growing, "
                                        "leaked)",
                                        c));
            s.cls = static_cast<SiteClass>(c);
        } else {
            if (v[2].is_number_integer())
                fail(at(2), "expected a class name, found a class code (revision 2's; is "
                            "\"revision\": 2 missing, or after the rows?)");
            s.cls = site_class(v[2], at(2));
        }
        std::int64_t* counts[] = {&s.live_bytes,      &s.live_blocks,      &s.peak_bytes,
                                  &s.allocated_bytes, &s.allocated_blocks, &s.at_exit_bytes,
                                  &s.at_exit_blocks};
        for (std::size_t i = 0; i < 7; ++i)
            *counts[i] = integer(v[3 + i], at(3 + i));
        if (s.live_bytes < 0) fail(at(3), "a byte count cannot be negative");
        sparse(v[10], at(10), buckets, &s.series);
        sparse(v[11], at(11), buckets, nullptr);
        const json& extra = object(v[12], at(12));
        std::string x = at(12);
        std::string space = "host";
        opt_string(extra, x, "space", space);
        s.space = space;
        opt_integer_or_null(extra, x, "device", s.device);
        opt_bool(extra, x, "suppressed", s.suppressed);
        std::string suppression;
        opt_string(extra, x, "suppression", suppression);
        s.suppression = suppression;
        if (const json* l = member(extra, "leak"); l && revision >= 2) {
            // [definite, indirect, possible, ...] (docs/output-format.md)
            std::size_t n = python ? format2::kPythonLeak : format2::kSiteLeak;
            array(*l, x + "/leak");
            if (l->size() != n)
                fail(x + "/leak", fmt::format("\"leak\" holds {} counts, not {}", n, l->size()));
            Lost out;
            std::int64_t* kinds[] = {&out.definite, &out.indirect, &out.possible};
            for (std::size_t k = 0; k < n; ++k) {
                std::int64_t c = count((*l)[k], x + "/leak/" + std::to_string(k));
                if (k < 3) *kinds[k] = c;
            }
            s.lost = out;
        } else if (const json* l = member(extra, "lost")) {
            s.lost = lost(*l, x + "/lost");
        }
        held_by_of(extra, x, s, held);
        if (const json* g = member(extra, "growth"))
            s.growth = growth(*g, x + "/growth");
        else
            s.growth = quiet;
        if (const json* m = member(extra, "mark_series"))
            sparse(*m, x + "/mark_series", mark_buckets, &s.mark_series);
        else // all zero (a marked report leaves such a series out)
            s.mark_series.resize(mark_buckets);
        opt_integer_or_null(extra, x, "pid", s.pid);
        opt_integer_or_null(extra, x, "process", s.process);
        if (python) {
            s.python = true;
            if (const json* subs = member(extra, "sites")) {
                s.sub_sites = integers(*subs, x + "/sites");
                // Revision 2: each the step from the one before (ids rise).
                for (std::size_t i = 0; revision >= 2 && i < s.sub_sites.size(); ++i) {
                    std::int64_t prev = i ? s.sub_sites[i - 1] : 0, d = s.sub_sites[i];
                    if (d < 0 || d > INT64_MAX - prev)
                        fail(fmt::format("{}/sites/{}", x, i),
                             "sub-site ids rise: a step cannot be negative or huge");
                    s.sub_sites[i] = prev + d;
                }
            }
        }
        return s;
    }

    // Every field of a site but its frames.
    Site site_body(const json& v, const std::string& where, HeldByLists& held) const {
        object(v, where);
        Site s;
        auto int_field = [&](const char* key, std::int64_t& out) {
            out = integer(required(v, where, key), where + "/" + key);
        };
        opt_integer(v, where, "id", s.id);
        s.space = string(required(v, where, "space"), where + "/space");
        opt_integer_or_null(v, where, "device", s.device);
        s.cls = site_class(required(v, where, "class"), where + "/class");
        int_field("live_bytes", s.live_bytes);
        if (s.live_bytes < 0) fail(where + "/live_bytes", "a byte count cannot be negative");
        int_field("live_blocks", s.live_blocks);
        int_field("peak_bytes", s.peak_bytes);
        int_field("allocated_bytes", s.allocated_bytes);
        int_field("allocated_blocks", s.allocated_blocks);
        int_field("at_exit_bytes", s.at_exit_bytes);
        opt_integer(v, where, "at_exit_blocks", s.at_exit_blocks);
        s.suppressed = boolean(required(v, where, "suppressed"), where + "/suppressed");
        std::string suppression;
        opt_string(v, where, "suppression", suppression);
        s.suppression = suppression;
        if (const json* l = member(v, "lost")) s.lost = lost(*l, where + "/lost");
        held_by_of(v, where, s, held);
        s.growth = growth(required(v, where, "growth"), where + "/growth");
        s.series = integers(required(v, where, "series"), where + "/series");
        if (const json* m = member(v, "mark_series"))
            s.mark_series = integers(*m, where + "/mark_series");
        opt_integer_or_null(v, where, "pid", s.pid);
        opt_integer_or_null(v, where, "process", s.process);
        if (const json* subs = member(v, "sites")) {
            s.python = true;
            s.sub_sites = integers(*subs, where + "/sites");
        }
        return s;
    }

    ByteCount byte_count(const json& obj, const std::string& where, const char* key) const {
        ByteCount c;
        if (const json* v = member(obj, key)) {
            std::string at = where + "/" + key;
            object(*v, at);
            opt_integer(*v, at, "bytes", c.bytes);
            opt_integer(*v, at, "blocks", c.blocks);
        }
        return c;
    }

    LeakCheck leak_check(const json& v, const std::string& where) const {
        object(v, where);
        LeakCheck lc;
        opt_string(v, where, "mode", lc.mode);
        opt_integer(v, where, "scans", lc.scans);
        lc.definite = byte_count(v, where, "definite");
        lc.indirect = byte_count(v, where, "indirect");
        lc.possible = byte_count(v, where, "possible");
        lc.reachable = byte_count(v, where, "reachable");
        lc.suppressed = byte_count(v, where, "suppressed");
        return lc;
    }

    // The fields of the tree `root`; the streamed ones (sites, Python
    // sites) are in `r` already.
    void report(const json& root, Report& r) const {
        if (!root.is_object())
            throw LoadError(file_, fmt::format("not a memgrow report: the JSON is {}, not an "
                                               "object with a \"memgrow\" version",
                                               type_of(root)));
        const json* version = member(root, "memgrow");
        if (!version)
            throw LoadError(file_, "not a memgrow report: no \"memgrow\" format version field");
        if (!version->is_number_integer())
            fail("/memgrow",
                 fmt::format("the format version is {}, not an integer", type_of(*version)));
        if (*version != 1 && *version != kFormatVersion)
            throw LoadError(file_, fmt::format("unsupported report format version {} (this "
                                               "memgrow-report reads versions 1 and {})",
                                               version->dump(), kFormatVersion));
        r.path = file_;
        r.version = version->get<int>();
        const json& command = array(required(root, "", "command"), "/command");
        for (std::size_t i = 0; i < command.size(); ++i)
            r.command.push_back(string(command[i], "/command/" + std::to_string(i)));
        r.pid = integer(required(root, "", "pid"), "/pid");
        opt_integer(root, "", "ppid", r.ppid);
        r.time_unit = string(required(root, "", "time_unit"), "/time_unit");
        if (const json* w = member(root, "bucket_width")) {
            r.bucket_width = integer(*w, "/bucket_width");
            if (r.bucket_width <= 0)
                fail("/bucket_width",
                     fmt::format("a bucket is at least 1 clock unit wide, not {}", r.bucket_width));
        }
        opt_clock(root, "", "warmup_end", r.warmup_end);
        r.teardown_at = clock(required(root, "", "teardown_at"), "/teardown_at");
        opt_string(root, "", "teardown", r.teardown);
        if (const json* p = member(root, "projection")) {
            object(*p, "/projection");
            Projection out;
            opt_integer(*p, "/projection", "limit_bytes", out.limit_bytes);
            opt_string(*p, "/projection", "limit_source", out.limit_source);
            for (auto [key, field] : {std::pair{"clock_to_limit", &out.clock_to_limit},
                                      {"marks_to_limit", &out.marks_to_limit},
                                      {"hours_to_limit", &out.hours_to_limit}})
                if (const json* v = member(*p, key); v && !v->is_null()) {
                    expect(*v, v->is_number(), std::string("/projection/") + key, "a number");
                    *field = v->get<double>();
                }
            r.projection = out;
        }
        if (const json* m = member(root, "marks")) {
            object(*m, "/marks");
            opt_integer(*m, "/marks", "count", r.marks.count);
            opt_clock(*m, "/marks", "first_at", r.marks.first_at);
            opt_integer(*m, "/marks", "per_bucket", r.marks.per_bucket);
        }
        const json& buckets = array(required(root, "", "buckets"), "/buckets");
        for (std::size_t i = 0; i < buckets.size(); ++i) {
            std::string at = "/buckets/" + std::to_string(i);
            const json& b = object(buckets[i], at);
            Bucket out;
            out.end = clock(required(b, at, "end"), at + "/end");
            opt_integer(b, at, "live_bytes", out.live_bytes);
            opt_integer(b, at, "allocated_bytes", out.allocated_bytes);
            opt_integer(b, at, "freed_bytes", out.freed_bytes);
            if (const json* spaces = member(b, "spaces")) {
                object(*spaces, at + "/spaces");
                for (const auto& [name, v] : spaces->items()) {
                    std::string sat = at + "/spaces/" + name;
                    object(v, sat);
                    SpaceBucket sb;
                    sb.space = name;
                    opt_integer(v, sat, "live_bytes", sb.live_bytes);
                    opt_integer(v, sat, "allocated_bytes", sb.allocated_bytes);
                    opt_integer(v, sat, "freed_bytes", sb.freed_bytes);
                    out.spaces.push_back(std::move(sb));
                }
            }
            r.buckets.push_back(std::move(out));
        }
        if (const json* lc = member(root, "leak_check"))
            r.leak_check = leak_check(*lc, "/leak_check");
        if (const json* f = member(root, "fork")) r.fork = fork_copy(*f, "/fork");
        if (const json* p = member(root, "pages")) r.pages = pages(*p, r.buckets.size());
        if (const json* d = member(root, "device_memory"))
            r.device_memory = device_memory(*d, r.buckets.size());
        if (const json* h = member(root, "holders")) r.holders = holders(*h, "/holders", r);
        if (const json* procs = member(root, "processes")) {
            array(*procs, "/processes");
            for (std::size_t i = 0; i < procs->size(); ++i) {
                std::string at = "/processes/" + std::to_string(i);
                const json& p = object((*procs)[i], at);
                Process out;
                out.pid = integer(required(p, at, "pid"), at + "/pid");
                opt_integer(p, at, "ppid", out.ppid);
                if (const json* c = member(p, "command")) {
                    array(*c, at + "/command");
                    for (std::size_t k = 0; k < c->size(); ++k)
                        out.command.push_back(
                            string((*c)[k], at + "/command/" + std::to_string(k)));
                }
                opt_string(p, at, "time_unit", out.time_unit);
                opt_string(p, at, "teardown", out.teardown);
                if (const json* f = member(p, "fork")) out.fork = fork_copy(*f, at + "/fork");
                r.processes.push_back(std::move(out));
            }
        }
        array(required(root, "", "sites"), "/sites");
        if (const json* py = member(root, "python_sites")) array(*py, "/python_sites");
        for (std::size_t i = 0; i < r.python_sites.size(); ++i)
            if (!r.python_sites[i].python)
                fail("/python_sites/" + std::to_string(i), "a Python site lists its \"sites\"");
        // The commands add up live bytes (per class, per key, per report):
        // a total no process can reach would overflow them. Found by
        // tests/fuzz/fuzz_report_load.
        constexpr std::int64_t kMaxTotal = std::int64_t{1} << 62;
        std::int64_t total = 0;
        for (std::size_t i = 0; i < r.sites.size(); ++i) {
            if (r.sites[i].live_bytes > kMaxTotal - total)
                fail("/sites/" + std::to_string(i) + "/live_bytes",
                     "the sites' live bytes add up to more than 2^62");
            total += r.sites[i].live_bytes;
        }
        for (const auto* list : {&r.sites, &r.python_sites})
            for (std::size_t i = 0; i < list->size(); ++i)
                if (const auto& p = (*list)[i].process;
                    p && (*p < 0 || static_cast<std::size_t>(*p) >= r.processes.size()))
                    fail(fmt::format("/{}/{}/process", list == &r.sites ? "sites" : "python_sites",
                                     i),
                         fmt::format("process {} is not in \"processes\" ({} entries)", *p,
                                     r.processes.size()));
        if (const json* errors = member(root, "errors")) {
            array(*errors, "/errors");
            for (std::size_t i = 0; i < errors->size(); ++i) {
                std::string at = "/errors/" + std::to_string(i);
                const json& e = object((*errors)[i], at);
                Error out;
                out.kind = string(required(e, at, "kind"), at + "/kind");
                opt_integer(e, at, "count", out.count);
                opt_string(e, at, "message", out.message);
                opt_string(e, at, "description", out.description);
                opt_string(e, at, "address", out.address);
                opt_integer_or_null(e, at, "process", out.process);
                if (const json* f = member(e, "frames")) out.frames = frames(*f, at + "/frames");
                r.errors.push_back(std::move(out));
            }
        }
    }

  private:
    std::string file_;
};

} // namespace

LoadError::LoadError(std::string file_, std::string message_, std::string pointer_,
                     std::optional<std::uint64_t> byte_, std::uint64_t line_, std::uint64_t column_)
    : std::runtime_error(describe(file_, message_, pointer_, byte_, line_, column_)),
      file(std::move(file_)), message(std::move(message_)), pointer(std::move(pointer_)),
      byte(byte_), line(line_), column(column_) {}

namespace {

using DomParser = nlohmann::detail::json_sax_dom_parser<json>;

// The SAX handler: builds the top-level fields into `root`, except the
// arrays named in `streamed`, whose elements it builds one at a time and
// hands to `element` (array name, index, value) before dropping them.
class StreamingParser {
  public:
    using Element = std::function<void(const std::string&, std::size_t, json&)>;

    StreamingParser(json& root, const std::string& file, Element element)
        : root_(root), file_(file), element_(std::move(element)) {}

    bool null() { return scalar(nullptr); }
    bool boolean(bool v) { return scalar(v); }
    bool number_integer(json::number_integer_t v) { return scalar(v); }
    bool number_unsigned(json::number_unsigned_t v) { return scalar(v); }
    bool number_float(json::number_float_t v, const std::string&) { return scalar(v); }
    bool string(std::string& v) { return scalar(v); }
    bool binary(json::binary_t& v) { return scalar(v); }

    bool start_object(std::size_t n) {
        enter(true);
        if (elem_parser_) return elem_parser_->start_object(n);
        if (!streaming_.empty() && depth_ == 3) return begin_element().start_object(n);
        flush_key();
        return root_parser_.start_object(n);
    }
    bool start_array(std::size_t n) {
        enter(false);
        if (elem_parser_) return elem_parser_->start_array(n);
        if (!streaming_.empty() && depth_ == 3) return begin_element().start_array(n);
        if (streaming_.empty() && depth_ == 2 && pending_key_ && is_streamed(*pending_key_)) {
            streaming_ = *pending_key_;
            pending_key_.reset();
            if (!seen_.insert(streaming_).second)
                throw LoadError(file_, fmt::format("the field \"{}\" appears twice", streaming_),
                                "/" + streaming_);
            index_ = 0;
            // The tree gets an empty array: the schema check sees the field.
            std::string key = streaming_;
            return root_parser_.key(key) && root_parser_.start_array(0) && root_parser_.end_array();
        }
        flush_key();
        return root_parser_.start_array(n);
    }
    bool end_object() {
        --depth_;
        if (elem_parser_) return elem_parser_->end_object() && end_element();
        return root_parser_.end_object();
    }
    bool end_array() {
        --depth_;
        if (elem_parser_) return elem_parser_->end_array() && end_element();
        if (!streaming_.empty() && depth_ == 1) {
            streaming_.clear();
            return true;
        }
        return root_parser_.end_array();
    }
    bool key(std::string& k) {
        if (elem_parser_) return elem_parser_->key(k);
        if (depth_ == 1) {
            flush_key();
            pending_key_ = k;
            return true;
        }
        return root_parser_.key(k);
    }
    template <class Exception>
    bool parse_error(std::size_t at, const std::string& token, const Exception& e) {
        return root_parser_.parse_error(at, token, e);
    }

  private:
    static bool is_streamed(const std::string& key) {
        return key == "sites" || key == "python_sites" || key == "frames" || key == "stacks";
    }

    template <class T> bool scalar(T&& v) {
        if (elem_parser_) return forward_scalar(*elem_parser_, std::forward<T>(v));
        if (!streaming_.empty() && depth_ == 2) {
            json value(std::forward<T>(v));
            element_(streaming_, index_++, value);
            return true;
        }
        flush_key();
        return forward_scalar(root_parser_, std::forward<T>(v));
    }
    template <class T> static bool forward_scalar(DomParser& p, T&& v) {
        using V = std::decay_t<T>;
        if constexpr (std::is_same_v<V, std::nullptr_t>)
            return p.null();
        else if constexpr (std::is_same_v<V, bool>)
            return p.boolean(v);
        else if constexpr (std::is_same_v<V, json::number_integer_t>)
            return p.number_integer(v);
        else if constexpr (std::is_same_v<V, json::number_unsigned_t>)
            return p.number_unsigned(v);
        else if constexpr (std::is_same_v<V, json::number_float_t>)
            return p.number_float(v, {});
        else if constexpr (std::is_same_v<V, std::string>)
            return p.string(v);
        else
            return p.binary(v);
    }

    void flush_key() {
        if (!pending_key_) return;
        root_parser_.key(*pending_key_);
        pending_key_.reset();
    }

    DomParser& begin_element() {
        element_value_ = json();
        elem_parser_ = std::make_unique<DomParser>(element_value_);
        return *elem_parser_;
    }
    bool end_element() {
        if (depth_ != 2) return true;
        elem_parser_.reset();
        element_(streaming_, index_++, element_value_);
        element_value_ = json();
        return true;
    }

    // A container begins: a root array is refused at once (the schema
    // check would refuse it only once it is built).
    void enter(bool object) {
        if (depth_ == 0 && !object)
            throw LoadError(file_, "not a memgrow report: the JSON is an array, not an object "
                                   "with a \"memgrow\" version");
        ++depth_;
    }

    json& root_;
    DomParser root_parser_{root_};
    const std::string& file_;
    Element element_;
    std::size_t depth_ = 0;
    std::optional<std::string> pending_key_; // a top-level key whose value has not begun
    std::string streaming_;                  // the streamed array being read, or empty
    std::set<std::string> seen_;
    std::size_t index_ = 0;
    json element_value_;
    std::unique_ptr<DomParser> elem_parser_;
};

// Turns the streamed elements into the model as they come.
class Assembler {
  public:
    Assembler(const std::string& file, json& root, std::uint64_t input_size)
        : reader_(file), root_(root), input_size_(input_size) {}

    // The format-2 writer says how many rows follow: reserving them keeps a
    // million sites from being moved as the vector doubles. Bounded by the
    // input's size, whatever the file claims.
    void reserve(std::vector<Site>& list, bool python) {
        auto it = root_.find(python ? "python_site_count" : "site_count");
        if (it != root_.end() && it->is_number_unsigned())
            list.reserve(std::min<std::uint64_t>(it->get<std::uint64_t>(), input_size_ / 16));
    }

    // What a row without "growth" has: the report's quiet evidence, else
    // that of a stable site with no evidence at all.
    Growth quiet() const {
        if (auto it = root_.find("quiet_growth"); it != root_.end())
            return reader_.growth(*it, "/quiet_growth");
        Growth g;
        g.history_class = SiteClass::stable;
        g.rule = "none";
        return g;
    }
    std::size_t mark_buckets() const {
        auto it = root_.find("mark_buckets");
        if (it == root_.end()) return 0;
        std::int64_t n = reader_.integer(*it, "/mark_buckets");
        if (n < 0 || n > 1 << 20) reader_.fail("/mark_buckets", "not a count of mark buckets");
        return static_cast<std::size_t>(n);
    }

    // Format 2's revision, as the tables and rows need it: the field comes
    // before them (finish() checks that it did).
    int revision() {
        if (!revision_) {
            try {
                revision_ = format2::revision_of(root_);
            } catch (const format2::RowError& e) {
                reader_.fail("/revision", e.what());
            }
        }
        return *revision_;
    }

    void operator()(const std::string& array, std::size_t i, json& v) {
        std::string where = "/" + array + "/" + std::to_string(i);
        if (array == "frames") {
            try {
                tree_->frames.push_back(reader_.frame(format2::frame_object(v), where));
            } catch (const format2::RowError& e) {
                reader_.fail(where + e.at, e.what());
            }
        } else if (array == "stacks") {
            // Straight into the tree's arrays, 4 bytes a number; what needs
            // the whole file (frames, earlier nodes) is checked in finish().
            std::int64_t x = reader_.integer(v, where);
            if (i % 2 == 0) {
                if (x < 0 || x >= std::int64_t{StackTree::kNoNode})
                    reader_.fail(where, fmt::format("frame {} is not in \"frames\"", x));
                tree_->node_frame.push_back(static_cast<std::uint32_t>(x));
            } else {
                if (revision() >= 2) { // the caller as a distance back: an index again
                    try {
                        x = format2::caller_of(static_cast<std::int64_t>(i / 2), x, "");
                    } catch (const format2::RowError& e) {
                        reader_.fail(where, e.what());
                    }
                }
                if (x < -1 || x >= std::int64_t{StackTree::kNoNode})
                    reader_.fail(where, fmt::format("caller node {} is not an earlier node", x));
                tree_->node_parent.push_back(x < 0 ? StackTree::kNoNode
                                                   : static_cast<std::uint32_t>(x));
            }
        } else {
            bool python = array == "python_sites";
            auto& list = python ? r.python_sites : r.sites;
            if (v.is_array()) {
                if (!first_row_) first_row_ = where;
                auto it = root_.find("buckets");
                if (it == root_.end() || !it->is_array())
                    reader_.fail(where, "a format-2 report lists \"buckets\" before its sites");
                if (list.empty()) reserve(list, python);
                has_scan_ = root_.contains("leak_check");
                if (!quiet_) quiet_ = quiet();
                std::int64_t next =
                    list.empty() || list.back().id == INT64_MAX ? 0 : list.back().id + 1;
                list.push_back(reader_.row(v, where, r.held_by, python, it->size(), *quiet_,
                                           mark_buckets(), revision(), next));
                // A report with a leak scan has "lost" at every site.
                if (has_scan_ && !list.back().lost) list.back().lost = Lost{};
                if (!v[1].is_null()) {
                    std::int64_t node = reader_.integer(v[1], where + "/1");
                    if (node < 0 || node >= std::int64_t{StackTree::kNoNode})
                        reader_.fail(where + "/1", "not a stack node");
                    list.back().frames = FrameList::unlinked(static_cast<std::uint32_t>(node));
                }
            } else {
                if (!first_object_) first_object_ = where;
                list.push_back(reader_.site(v, where, r.held_by));
            }
        }
    }

    // Checks what only the whole file shows, and links the sites to their
    // stacks.
    Report finish() {
        reader_.report(root_, r);
        if (r.version == 1 && first_row_)
            reader_.fail(*first_row_, "expected an object (a format-1 site), found an array");
        if (r.version == 2 && first_object_)
            reader_.fail(*first_object_, "expected an array (a format-2 site row), found an "
                                         "object");
        // The tables and rows were read with the revision known then.
        if (r.version == 2 && revision_) {
            int now = 1;
            try {
                now = format2::revision_of(root_);
            } catch (const format2::RowError& e) {
                reader_.fail("/revision", e.what());
            }
            if (now != *revision_)
                reader_.fail("/revision", "\"revision\" comes after the tables and rows it "
                                          "describes");
        }
        std::size_t n = tree_->node_frame.size();
        if (tree_->node_parent.size() != n)
            reader_.fail("/stacks", "the stacks are pairs (frame, caller)");
        if (n >= StackTree::kNoNode) reader_.fail("/stacks", "too many stack nodes");
        tree_->node_depth.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            std::uint32_t frame = tree_->node_frame[i], parent = tree_->node_parent[i];
            if (frame >= tree_->frames.size())
                reader_.fail(fmt::format("/stacks/{}", 2 * i),
                             fmt::format("frame {} is not in \"frames\" ({} frames)", frame,
                                         tree_->frames.size()));
            // A caller comes before its callees: the tree has no cycle.
            if (parent != StackTree::kNoNode && parent >= i)
                reader_.fail(fmt::format("/stacks/{}", 2 * i + 1),
                             fmt::format("caller node {} is not an earlier node", parent));
            tree_->node_depth[i] = parent == StackTree::kNoNode ? 1 : tree_->node_depth[parent] + 1;
        }
        std::shared_ptr<const StackTree> tree = std::move(tree_);
        for (auto* list : {&r.sites, &r.python_sites})
            for (std::size_t i = 0; i < list->size(); ++i) {
                FrameList& f = (*list)[i].frames;
                if (f.in_tree() || f.node() == StackTree::kNoNode) continue; // own frames
                if (f.node() >= n)
                    reader_.fail(
                        fmt::format("/{}/{}/1", list == &r.python_sites ? "python_sites" : "sites",
                                    i),
                        fmt::format("stack node {} is not in \"stacks\" ({} nodes)", f.node(), n));
                f.link(tree);
            }
        folded(tree);
        return std::move(r);
    }

  private:
    // "folded" (not streamed: a group per line, not per stack): format 1's
    // objects, or format 2's rows on the stack tree.
    void folded(const std::shared_ptr<const StackTree>& tree) {
        const json* list = reader_.member(root_, "folded");
        if (!list) return;
        reader_.array(*list, "/folded");
        r.folded.reserve(list->size());
        for (std::size_t i = 0; i < list->size(); ++i) {
            std::string where = "/folded/" + std::to_string(i);
            const json& v = (*list)[i];
            if (v.is_array() != (r.version == 2))
                reader_.fail(where, r.version == 2 ? "expected a folded row (an array)"
                                                   : "expected an object (a format-1 group)");
            Folded f = reader_.folded(v, where);
            if (f.python_site && static_cast<std::size_t>(*f.python_site) > INT32_MAX)
                reader_.fail(where, "not a Python site's id");
            if (v.is_array() && !v[0].is_null()) {
                std::int64_t node = reader_.integer(v[0], where + "/0");
                if (node < 0 || static_cast<std::size_t>(node) >= tree->node_frame.size())
                    reader_.fail(where + "/0",
                                 fmt::format("stack node {} is not in \"stacks\"", node));
                f.frames = FrameList(tree, static_cast<std::uint32_t>(node));
            }
            r.folded.push_back(std::move(f));
        }
    }

    Reader reader_;
    json& root_;
    std::uint64_t input_size_;
    bool has_scan_ = false;
    std::optional<Shared<Growth>> quiet_; // one evidence for every quiet row
    std::optional<int> revision_;         // format 2's, once a table or row needed it
    Report r;
    std::unique_ptr<StackTree> tree_ = std::make_unique<StackTree>();
    std::optional<std::string> first_row_, first_object_;
};

// Where byte `at` of the input is, 1-based.
template <class Input>
std::pair<std::uint64_t, std::uint64_t> line_column(Input& in, std::uint64_t at) {
    std::uint64_t line = 1, column = 1;
    char c;
    for (std::uint64_t i = 0; i < at && in.get(c); ++i) {
        if (c == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return {line, column};
}

// Parses `input` (a string or a stream); `rewind` gives a stream over the
// same bytes from the start, for the line and column of a syntax error.
template <class Input, class Rewind>
Report parse(Input&& input, std::uint64_t size, const std::string& file, Rewind rewind) {
    json root;
    Assembler assemble(file, root, size);
    try {
        StreamingParser sax(root, file, std::ref(assemble));
        DepthLimited<json, StreamingParser> limited(sax);
        json::sax_parse(std::forward<Input>(input), &limited);
    } catch (const json::parse_error& e) {
        // nlohmann's position is the count of bytes read, the bad one included.
        std::uint64_t at = e.byte > 0 ? e.byte - 1 : 0;
        auto [line, column] = [&] {
            auto in = rewind();
            return line_column(*in, at);
        }();
        std::string why = e.what();
        // Keep the parser's reason, not its exception id and position prefix.
        if (auto colon = why.find(": ");
            why.rfind("[json.exception", 0) == 0 && colon != std::string::npos)
            why = why.substr(colon + 2);
        std::string message = size == 0        ? "empty file, not a memgrow report"
                              : e.byte >= size ? "the JSON ends early (a truncated "
                                                 "report?): " +
                                                     printable(why)
                                               : "not valid JSON (a memgrow report "
                                                 "is JSON): " +
                                                     printable(why);
        throw LoadError(file, message, {}, at, line, column);
    } catch (const json::exception& e) {
        // A number too large for a double ("1e999": out_of_range.406) is
        // thrown without a position; found by tests/fuzz/fuzz_report_load.
        std::string why = e.what();
        if (auto colon = why.find("] ");
            why.rfind("[json.exception", 0) == 0 && colon != std::string::npos)
            why = why.substr(colon + 2);
        throw LoadError(file, "not valid JSON (a memgrow report is JSON): " + printable(why));
    }
    return assemble.finish();
}

} // namespace

Report parse_report(const std::string& text, const std::string& file) {
    return parse(text, text.size(), file,
                 [&] { return std::make_unique<std::istringstream>(text); });
}

Report load_report(const std::string& file) {
    std::error_code ec;
    if (std::filesystem::is_directory(file, ec))
        throw LoadError(file, "cannot read: it is a directory");
    std::ifstream in(file, std::ios::binary);
    if (!in) throw LoadError(file, fmt::format("cannot open: {}", std::strerror(errno)));
    auto size = std::filesystem::file_size(file, ec);
    if (ec) throw LoadError(file, "cannot read the file");
    Report r = parse(in, size, file,
                     [&] { return std::make_unique<std::ifstream>(file, std::ios::binary); });
    if (in.bad()) throw LoadError(file, "cannot read the file");
    return r;
}

} // namespace mg::report
