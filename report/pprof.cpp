// SPDX-License-Identifier: GPL-2.0-or-later
// pprof's profile.proto through protoc's generated classes (the .proto is
// Debian's copy of google/pprof's, golang-github-google-pprof-dev), written
// gzipped with protobuf's own GzipOutputStream.
#include "report/exports.hpp"

#include "report/gains.hpp"
#include "report/locate.hpp"
#include "report/site_key.hpp"

#include "profile.pb.h"

#include <google/protobuf/io/gzip_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <map>
#include <stdexcept>
#include <string>

namespace mg::report {

namespace {

namespace pb = perftools::profiles;

// The string table: index 0 is "", as the format requires.
class Strings {
  public:
    explicit Strings(pb::Profile& p) : p_(p) { (*this)(""); }
    std::int64_t operator()(const std::string& s) {
        auto [it, added] = index_.emplace(s, p_.string_table_size());
        if (added) p_.add_string_table(s);
        return it->second;
    }

  private:
    pb::Profile& p_;
    std::map<std::string, std::int64_t> index_;
};

} // namespace

std::string pprof_profile(const Report& r) {
    pb::Profile p;
    Strings str(p);
    for (const char* type : {"inuse_space", "alloc_space", "growth_space"}) {
        pb::ValueType* v = p.add_sample_type();
        v->set_type(str(type));
        v->set_unit(str("bytes"));
    }
    p.set_default_sample_type(str("growth_space"));
    std::string command;
    for (const std::string& c : r.command)
        command += (command.empty() ? "" : " ") + c;
    p.add_comment(str("memgrow: " + command));

    std::map<std::pair<std::string, std::string>, std::uint64_t> functions; // name, file
    std::map<std::string, std::uint64_t> locations;                         // by label
    auto location_of = [&](const Frame& f) {
        std::string key = (f.python ? "py " : "") + frame_label(f);
        auto [loc, added] = locations.emplace(key, locations.size() + 1);
        if (!added) return loc->second;
        std::string name = f.function.value_or("???");
        std::string file = f.file ? *f.file : f.object.value_or("");
        auto [fn, new_fn] = functions.emplace(std::make_pair(name, file), functions.size() + 1);
        if (new_fn) {
            pb::Function* out = p.add_function();
            out->set_id(fn->second);
            out->set_name(str(name));
            out->set_system_name(str(name));
            out->set_filename(str(file));
        }
        pb::Location* out = p.add_location();
        out->set_id(loc->second);
        if (!f.ip.empty()) out->set_address(std::stoull(f.ip, nullptr, 16));
        pb::Line* line = out->add_line();
        line->set_function_id(fn->second);
        line->set_line(f.line.value_or(0));
        return loc->second;
    };

    const auto warmup = warmup_bucket(r);
    const std::int64_t class_key = str("class"), space_key = str("space"), pid_key = str("pid");
    for (const Site& s : r.sites) {
        std::int64_t gained = gained_bytes(s, warmup);
        if (!s.live_bytes && !s.allocated_bytes && !gained) continue;
        pb::Sample* sample = p.add_sample();
        for (const Frame& f : s.frames) // innermost first, as pprof wants
            sample->add_location_id(location_of(f));
        for (std::int64_t v : {s.live_bytes, s.allocated_bytes, gained})
            sample->add_value(v);
        pb::Label* cls = sample->add_label();
        cls->set_key(class_key);
        cls->set_str(str(class_name(s.cls)));
        pb::Label* space = sample->add_label();
        space->set_key(space_key);
        space->set_str(str(s.space));
        if (s.pid) {
            pb::Label* pid = sample->add_label();
            pid->set_key(pid_key);
            pid->set_num(site_pid(r, s));
        }
    }

    std::string out;
    {
        google::protobuf::io::StringOutputStream raw(&out);
        google::protobuf::io::GzipOutputStream::Options o;
        o.format = google::protobuf::io::GzipOutputStream::GZIP;
        google::protobuf::io::GzipOutputStream gz(&raw, o);
        if (!p.SerializeToZeroCopyStream(&gz) || !gz.Close())
            throw std::runtime_error("cannot encode the pprof profile");
    }
    return out;
}

} // namespace mg::report
