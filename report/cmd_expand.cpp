// SPDX-License-Identifier: GPL-2.0-or-later
// memgrow-report expand IN [-o OUT] (report/expand.hpp): a report in the
// format-1 layout, for scripts and jq.
//
// The output of a big format-2 report is tens of times its size (a 191 MB
// PyTorch report is 4.7 GB in format 1), so expand writes it while it reads:
// a first pass notes the order of the top-level fields, a second keeps only
// the frame table (each frame as its format-1 text) and the stack tree, and
// turns each row into its site as the row is read. Only a file whose tables
// come after the fields the rows need (as the tool writes them) streams;
// another one (hand-made) is expanded as a whole tree, as before.
#include "report/commands.hpp"
#include "report/expand.hpp"
#include "report/json_depth.hpp"
#include "report/load.hpp"
#include "report/write_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <unistd.h>

#include <nlohmann/json.hpp>

namespace mg::report {

namespace {

using ojson = nlohmann::ordered_json;
using DomParser = nlohmann::detail::json_sax_dom_parser<ojson>;

// The first pass: the top-level keys in order, and the format version.
struct KeyScan {
    std::vector<std::string> keys;
    std::optional<std::int64_t> version;
    std::size_t depth = 0;
    bool version_next = false;

    bool value() {
        if (version_next && depth == 1) version_next = false;
        return true;
    }
    bool null() { return value(); }
    bool boolean(bool) { return value(); }
    bool number_integer(ojson::number_integer_t v) {
        if (version_next && depth == 1) version = v;
        return value();
    }
    bool number_unsigned(ojson::number_unsigned_t v) {
        if (version_next && depth == 1 && v <= INT64_MAX) version = static_cast<std::int64_t>(v);
        return value();
    }
    bool number_float(ojson::number_float_t, const std::string&) { return value(); }
    bool string(std::string&) { return value(); }
    bool binary(ojson::binary_t&) { return value(); }
    bool start_object(std::size_t) { return value(), ++depth, true; }
    bool start_array(std::size_t) { return value(), ++depth, true; }
    bool end_object() { return --depth, true; }
    bool end_array() { return --depth, true; }
    bool key(std::string& k) {
        if (depth == 1) {
            keys.push_back(k);
            version_next = k == "memgrow";
        }
        return true;
    }
    template <class E> bool parse_error(std::size_t, const std::string&, const E& e) { throw e; }
};

// Where the expanded report goes: standard output, or OUT (written as
// report/write_file.hpp says), in chunks.
class Out {
  public:
    explicit Out(const std::string& path) : file_(path.empty() ? "-" : path) {
        buffer_.reserve(kFlush + (1 << 16));
    }
    void put(const std::string& s) {
        buffer_ += s;
        if (buffer_.size() >= kFlush) flush();
    }
    void put(char c) { buffer_ += c; }
    void finish() {
        flush();
        file_.commit();
    }

  private:
    static constexpr std::size_t kFlush = 1 << 20;
    void flush() {
        file_.write(buffer_);
        buffer_.clear();
    }
    OutputFile file_;
    std::string buffer_;
};

// The second pass, as SAX events: top-level values are built one at a time
// and written; the elements of "frames", "stacks", "sites" and
// "python_sites" one at a time.
class Expander {
  public:
    Expander(Out& out, bool v2) : out_(out), v2_(v2) {}

    bool null() { return scalar(ojson(nullptr)); }
    bool boolean(bool v) { return scalar(ojson(v)); }
    bool number_integer(ojson::number_integer_t v) { return scalar(ojson(v)); }
    bool number_unsigned(ojson::number_unsigned_t v) { return scalar(ojson(v)); }
    bool number_float(ojson::number_float_t v, const std::string&) { return scalar(ojson(v)); }
    bool string(std::string& v) { return scalar(ojson(v)); }
    bool binary(ojson::binary_t& v) { return scalar(ojson(v)); }

    bool start_object(std::size_t n) {
        ++depth_;
        if (depth_ == 1) return out_.put('{'), true;
        return begin(depth_).start_object(n);
    }
    bool start_array(std::size_t n) {
        ++depth_;
        if (depth_ == 2 && is_streamed(key_)) {
            streaming_ = true;
            index_ = 0;
            next_id_ = 0;
            if (!v2_ || key_ == "sites" || key_ == "python_sites") {
                member_key();
                out_.put('[');
            }
            return true;
        }
        return begin(depth_).start_array(n);
    }
    bool end_object() {
        --depth_;
        if (depth_ == 0) return out_.put('}'), true;
        return parser_->end_object() && end_value();
    }
    bool end_array() {
        --depth_;
        if (depth_ == 1 && streaming_) {
            streaming_ = false;
            if (!v2_ || key_ == "sites" || key_ == "python_sites") out_.put(']');
            return true;
        }
        return parser_->end_array() && end_value();
    }
    bool key(std::string& k) {
        if (depth_ == 1) return key_ = k, true;
        return parser_->key(k);
    }
    template <class E> bool parse_error(std::size_t, const std::string&, const E& e) { throw e; }

  private:
    static bool is_streamed(const std::string& key) {
        return key == "sites" || key == "python_sites" || key == "frames" || key == "stacks";
    }

    // A value below the top level, or an element of a streamed array,
    // begins at `depth`.
    DomParser& begin(std::size_t depth) {
        if (!parser_) {
            value_ = ojson();
            parser_ = std::make_unique<DomParser>(value_);
            value_depth_ = depth;
        }
        return *parser_;
    }
    bool end_value() {
        if (depth_ + 1 != value_depth_) return true;
        parser_.reset();
        done(value_);
        value_ = ojson();
        return true;
    }
    bool scalar(ojson v) {
        if (parser_) {
            // Forward it to the tree being built.
            switch (v.type()) {
            case ojson::value_t::null:
                return parser_->null();
            case ojson::value_t::boolean:
                return parser_->boolean(v.get<bool>());
            case ojson::value_t::number_integer:
                return parser_->number_integer(v.get<std::int64_t>());
            case ojson::value_t::number_unsigned:
                return parser_->number_unsigned(v.get<std::uint64_t>());
            case ojson::value_t::number_float:
                return parser_->number_float(v.get<double>(), {});
            case ojson::value_t::string:
                return parser_->string(v.get_ref<std::string&>());
            default:
                return parser_->binary(v.get_binary());
            }
        }
        done(v);
        return true;
    }

    void member_key() {
        if (!first_) out_.put(',');
        first_ = false;
        out_.put(ojson(key_).dump());
        out_.put(':');
    }

    // A complete top-level value, or an element of a streamed array.
    void done(ojson& v) {
        if (streaming_) {
            element(v);
            ++index_;
            return;
        }
        if (key_ == "memgrow") {
            member_key();
            out_.put(v2_ ? std::string("1") : v.dump());
            return;
        }
        if (key_ == "revision") revision_ = format2::revision_of(ojson{{"revision", v}});
        if (key_ == "buckets") buckets_ = v.is_array() ? v.size() : 0;
        if (key_ == "leak_check") leak_scan_ = true;
        if (key_ == "mark_buckets" && v.is_number_unsigned()) mark_buckets_ = v.get<std::size_t>();
        if (key_ == "quiet_growth") quiet_ = v;
        if (v2_ && format2::own_field(key_)) return;
        if (v2_ && key_ == "fork" && v.is_object()) return fork(v);
        member_key();
        if (v2_ && key_ == "folded" && v.is_array()) return folded(v);
        out_.put(v.dump());
    }

    // The folded rows as format-1 objects, their frames from the tables.
    void folded(const ojson& rows) {
        out_.put('[');
        for (std::size_t i = 0; i < rows.size(); ++i) {
            std::string head = format2::folded_object(rows[i], ojson::array()).dump();
            head.resize(head.size() - 2); // its "]}": the frames go in "frames":[
            if (i) out_.put(',');
            out_.put(head);
            frames_of(rows[i][0]);
            out_.put("]}");
        }
        out_.put(']');
    }

    // The frames of a stack node, innermost first, as comma-separated text.
    void frames_of(const ojson& start_node) {
        if (start_node.is_null()) return;
        std::int64_t start = start_node.get<std::int64_t>();
        std::size_t n = std::min(node_frame_.size(), node_caller_.size()), hops = 0;
        std::uint32_t node =
            start < 0 || start >= kNone ? kNone : static_cast<std::uint32_t>(start);
        for (bool first = true; node < n && hops++ < n; first = false) {
            std::uint32_t f = node_frame_[node];
            if (f >= frames_.size()) break;
            if (!first) out_.put(',');
            out_.put(frames_[f]);
            node = node_caller_[node];
        }
    }

    void element(ojson& v) {
        if (!v2_) { // format 1: as it is
            if (index_) out_.put(',');
            out_.put(v.dump());
        } else if (key_ == "frames") {
            frames_.push_back(format2::frame_object(v).dump());
        } else if (key_ == "stacks") {
            // 32 bits a number, as in the loader's tree (which checked them).
            std::int64_t x = v.get<std::int64_t>();
            if (index_ % 2 == 0) {
                node_frame_.push_back(x < 0 || x >= kNone ? kNone : static_cast<std::uint32_t>(x));
            } else {
                std::int64_t node = static_cast<std::int64_t>(index_ / 2);
                if (revision_ >= 2) x = format2::caller_of(node, x, "");
                node_caller_.push_back(x < 0 || x >= kNone ? kNone : static_cast<std::uint32_t>(x));
            }
        } else {
            row(v);
        }
    }

    // The frames of a stack node (null: none) as a format-1 array.
    void put_frames(const ojson& stack) {
        out_.put('[');
        if (stack.is_number_integer()) frames_of(stack);
        out_.put(']');
    }

    // A forked child's "fork" (after the tables): its writers' stacks as frames.
    void fork(const ojson& v) {
        member_key();
        out_.put('{');
        bool first = true;
        for (auto it = v.begin(); it != v.end(); ++it) {
            if (!first) out_.put(',');
            first = false;
            out_.put(ojson(it.key()).dump());
            out_.put(':');
            if (it.key() != "writers" || !it.value().is_array()) {
                out_.put(it.value().dump());
                continue;
            }
            out_.put('[');
            for (std::size_t i = 0; i < it.value().size(); ++i) {
                const ojson& w = it.value()[i];
                out_.put(i ? ",{\"frames\":" : "{\"frames\":");
                put_frames(w.is_object() ? w.value("stack", ojson()) : ojson());
                out_.put(",\"bytes\":");
                out_.put((w.is_object() ? w.value("bytes", ojson(0)) : ojson(0)).dump());
                out_.put('}');
            }
            out_.put(']');
        }
        out_.put('}');
    }

    // A row as its site: the parts before and after the frames from
    // format2.hpp, the frames from the tables as text.
    void row(const ojson& v) {
        format2::SiteParts<ojson> p =
            format2::site_parts(v, key_ == "python_sites", buckets_, leak_scan_,
                                quiet_ ? &*quiet_ : nullptr, mark_buckets_, revision_, next_id_);
        if (revision_ >= 2) next_id_ = format2::after(p.head["id"]);
        std::string head = p.head.dump();
        head.pop_back(); // its '}'
        if (index_) out_.put(',');
        out_.put(head);
        out_.put(",\"frames\":");
        put_frames(v[1]);
        for (auto it = p.tail.begin(); it != p.tail.end(); ++it) {
            out_.put(',');
            out_.put(ojson(it.key()).dump());
            out_.put(':');
            out_.put(it.value().dump());
        }
        out_.put('}');
    }

    Out& out_;
    bool v2_;
    std::size_t depth_ = 0, value_depth_ = 0, index_ = 0;
    std::string key_;
    bool first_ = true, streaming_ = false;
    std::unique_ptr<DomParser> parser_;
    ojson value_;
    // What the rows need, from the fields before them.
    int revision_ = 1;
    std::size_t buckets_ = 0, mark_buckets_ = 0;
    bool leak_scan_ = false;
    std::optional<ojson> quiet_;
    std::int64_t next_id_ = 0;
    // The tables: each frame's format-1 text, each node's frame and caller.
    std::vector<std::string> frames_;
    static constexpr std::uint32_t kNone = UINT32_MAX;
    std::vector<std::uint32_t> node_frame_, node_caller_;
};

// Whether the file can be expanded as it is read: the fields that the rows
// need come before the first of them, each top-level key once.
bool streamable(const KeyScan& scan) {
    std::set<std::string> seen;
    for (const std::string& k : scan.keys)
        if (!seen.insert(k).second) return false;
    if (scan.version != 2) return true;
    auto first_row = std::find_if(scan.keys.begin(), scan.keys.end(), [](const std::string& k) {
        return k == "sites" || k == "python_sites" || k == "folded";
    });
    for (const char* needed : {"memgrow", "revision", "buckets", "leak_check", "quiet_growth",
                               "mark_buckets", "frames", "stacks"}) {
        auto at = std::find(scan.keys.begin(), scan.keys.end(), needed);
        if (at != scan.keys.end() && at > first_row) return false;
    }
    return true;
}

void expand_file(const std::string& input, const std::string& output);

// What the check let through but expand cannot read still names the file.
void expand_checked(const std::string& input, const std::string& output) {
    try {
        expand_file(input, output);
    } catch (const format2::RowError& e) {
        throw LoadError(input, e.what(), e.at);
    } catch (const nlohmann::json::exception& e) {
        throw LoadError(input, e.what());
    }
}

void expand_file(const std::string& input, const std::string& output) {
    KeyScan scan;
    {
        std::ifstream in(input, std::ios::binary);
        ojson::sax_parse(in, &scan);
    }
    if (!streamable(scan)) { // a hand-made order: the whole tree, as before
        std::ifstream in(input, std::ios::binary);
        auto root = parse_limited<ojson>(in);
        std::string text = expand_document(root).dump() + "\n";
        root = nullptr;
        if (output.empty())
            std::cout << text;
        else
            write_file(output, text);
        return;
    }
    Out out(output);
    Expander expander(out, scan.version == 2);
    {
        std::ifstream in(input, std::ios::binary);
        DepthLimited<ojson, Expander> limited(expander);
        ojson::sax_parse(in, &limited);
    }
    out.put('\n');
    out.finish();
}

} // namespace

void add_expand_command(CLI::App& app, Commands& commands) {
    struct Options {
        std::string input, output;
    };
    auto o = std::make_shared<Options>();
    CLI::App* cmd = app.add_subcommand(
        "expand", "the report in the format-1 layout: every site with its frames inline and "
                  "its series dense (a format-1 report comes out unchanged)");
    cmd->add_option("IN", o->input, "a memgrow JSON report")->required();
    cmd->add_option("-o,--output", o->output, "the file to write (default: standard output)");
    commands.emplace_back(cmd, [o]() {
        // Every check, and a one-line LoadError naming the file; the model
        // is dropped before the output is written.
        load_report(o->input);
        expand_checked(o->input, o->output);
        return kOk;
    });
}

} // namespace mg::report
