// SPDX-License-Identifier: GPL-2.0-or-later
// Where a site "is" and what it is called, in every view (show, html, SARIF,
// JUnit): the innermost frame of its stack in the user's own code, not in the
// C library, the C++ runtime, the Python interpreter or memgrow's preload
// (core/site_name.hpp holds the rule, shared with the tool's log).
#pragma once

#include "report/model.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mg::report {

// A path of the system: under /bin, /lib, /lib64, /usr/bin, /usr/lib,
// /usr/lib64, /usr/libexec, /usr/include, /usr/share, /usr/local/lib
// (installed programs, libraries, their headers and Python's standard
// library).
bool is_system_path(const std::string& path);

// An ELF object of the system or of the runtime: a system path, or a file
// named like libc, ld.so, libstdc++, libgcc_s, libm, libpthread, libdl,
// librt, python*, libpython or a Valgrind preload (vgpreload_*), wherever it
// lies.
bool is_system_object(const std::string& object);

// A frame of the user's code: it has a source file (not a pseudo-file such
// as "<frozen importlib._bootstrap>"), the file is not a system path, and its
// object (when known) is not a system object.
bool is_user_frame(const Frame& f);

struct SiteLocation {
    std::size_t frame = 0; // index into Site::frames
    bool user = false;     // false: no user frame, the innermost frame with a file
};

// The innermost user frame; else, among the frames with a source file, the
// best by the naming rule (a Python library line before native code);
// nullopt when no frame has one.
std::optional<SiteLocation> locate_site(const Site& s);

// The index of the frame that names the site (core/site_name.hpp): like
// locate_site, but a frame of the program without a source file counts;
// nullopt for a site without frames.
std::optional<std::size_t> name_frame(const Site& s);

// "cache_response (leaky_service.c:35)": the site's name in every view;
// "(no frames)" without frames.
std::string site_title(const Site& s);

// The evidence for a leaked or growing site in one sentence, for the CI
// formats: "leaked: 3,200 bytes definitely and 0 indirectly lost; ..." with
// live and peak bytes, the growth rate per clock unit and per bucket, the
// rule and confidence, the bound of a bounded holder, what holds the site's
// memory ("held by journal (global), ...") and the pid.
std::string evidence_text(const Report& r, const Site& s);

// What the views list, in order: the Python sites first, then the sites
// without Python frames (a site with Python frames is a sub-site of its
// Python site). Without Python sites: every site.
std::vector<const Site*> leading_sites(const Report& r);

// A Python site's headline: "update_stats (service.py:30), 2.9 MB in 48,000
// blocks, +0.026 B per byte allocated" (its innermost frame in the user's
// code, docs/python.md); a leaked site's lost bytes first: "<module>
// (app.py:8), 59 kB definitely lost, of 67.8 MB live in 411,031 blocks, ...".
std::string python_headline(const Report& r, const Site& s);

// The site's pid: its own (a merged report) or the report's.
std::int64_t site_pid(const Report& r, const Site& s);

} // namespace mg::report
