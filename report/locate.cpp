// The innermost-user-frame rule (report/locate.hpp).
#include "report/locate.hpp"

#include "core/py_user.hpp"
#include "report/site_key.hpp"
#include "report/text.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace mg::report {

namespace {

bool starts_with(const std::string& s, const char* prefix) {
    return s.rfind(prefix, 0) == 0;
}

} // namespace

bool is_system_path(const std::string& path) {
    for (const char* dir :
         {"/lib/", "/lib32/", "/lib64/", "/usr/lib/", "/usr/lib32/", "/usr/lib64/", "/usr/libexec/",
          "/usr/include/", "/usr/share/", "/usr/local/lib/"})
        if (starts_with(path, dir)) return true;
    return false;
}

bool is_system_object(const std::string& object) {
    if (is_system_path(object)) return true;
    std::string name = base_name(object);
    for (const char* prefix :
         {"libc.so", "libc-", "ld-linux", "ld.so", "ld64.so", "libstdc++", "libgcc_s", "libm.so",
          "libm-", "libpthread", "libdl.so", "librt.so", "libpython", "vgpreload_"})
        if (starts_with(name, prefix)) return true;
    return false;
}

bool is_user_frame(const Frame& f) {
    if (!f.file || f.file->empty() || (*f.file)[0] == '<') return false;
    if (is_system_path(*f.file)) return false;
    if (f.python && python_library_file(f.file->c_str())) return false;
    if (f.object && is_system_object(*f.object)) return false;
    return true;
}

std::optional<SiteLocation> locate_site(const Site& s) {
    for (std::size_t i = 0; i < s.frames.size(); ++i)
        if (is_user_frame(s.frames[i])) return SiteLocation{i, true};
    for (std::size_t i = 0; i < s.frames.size(); ++i)
        if (s.frames[i].file && !s.frames[i].file->empty()) return SiteLocation{i, false};
    return std::nullopt;
}

std::vector<const Site*> leading_sites(const Report& r) {
    std::vector<const Site*> out;
    for (const Site& s : r.python_sites)
        out.push_back(&s);
    for (const Site& s : r.sites) {
        bool python =
            !r.python_sites.empty() &&
            std::any_of(s.frames.begin(), s.frames.end(), [](const Frame& f) { return f.python; });
        if (!python) out.push_back(&s);
    }
    return out;
}

std::string python_headline(const Report& r, const Site& s) {
    auto at = locate_site(s);
    std::string where = at ? frame_label(s.frames[at->frame]) : std::string("???");
    std::string time_unit = r.time_unit;
    if (s.process && static_cast<std::size_t>(*s.process) < r.processes.size())
        time_unit = r.processes[static_cast<std::size_t>(*s.process)].time_unit;
    return fmt::format("{}, {} in {} blocks, {:+.2g} B per {}", where, human_bytes(s.live_bytes),
                       with_commas(s.live_blocks), s.growth.rate, clock_unit(time_unit));
}

std::int64_t site_pid(const Report& r, const Site& s) {
    return s.pid ? *s.pid : r.pid;
}

std::string evidence_text(const Report& r, const Site& s) {
    std::string time_unit = r.time_unit;
    if (s.process && static_cast<std::size_t>(*s.process) < r.processes.size())
        time_unit = r.processes[static_cast<std::size_t>(*s.process)].time_unit;
    std::string out = class_name(s.cls);
    out += ": ";
    if (s.cls == SiteClass::leaked && s.lost)
        out += fmt::format("{} bytes definitely and {} indirectly lost; ",
                           with_commas(s.lost->definite), with_commas(s.lost->indirect));
    out += fmt::format("{} bytes in {} blocks live (peak {}), {} space", with_commas(s.live_bytes),
                       with_commas(s.live_blocks), with_commas(s.peak_bytes), s.space);
    const Growth& g = s.growth;
    if (g.rule == "trend" || g.rule == "refleak" || g.rule == "staircase" || g.rate != 0)
        out += fmt::format("; growth {:+.4g} bytes per {} ({:+.4g} per bucket), {} rule, "
                           "confidence {:.2g}",
                           g.rate, clock_unit(time_unit), g.rate_per_bucket,
                           g.rule.empty() ? "?" : g.rule, g.confidence);
    if (g.rate_per_mark) out += fmt::format("; {:+.4g} bytes per mark", *g.rate_per_mark);
    if (g.next_step_at)
        out += fmt::format("; resize staircase; next resize {} clock {}",
                           g.rule == "staircase" ? "due at" : "overdue since",
                           with_commas(*g.next_step_at));
    out += fmt::format("; pid {}", site_pid(r, s));
    return out;
}

} // namespace mg::report
