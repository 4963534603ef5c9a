// SPDX-License-Identifier: GPL-2.0-or-later
// The key that matches a site across two reports (two runs, two builds): the
// space and every frame's function, file name and line, innermost first.
// Addresses (`ip`) move whenever the code changes and directories differ
// between build trees, so neither takes part (a file is named without its
// directory); the object's file name stands in only for a frame without a
// source file. All frames count, not the first few: two
// sites of one report never share a full stack, so the key keeps them apart
// (truncating would merge the caller that leaks with the one that does not).
#pragma once

#include "core/py_user.hpp"
#include "report/model.hpp"

#include <string>

namespace mg::report {

using SiteKey = std::string;

inline std::string base_name(const std::string& path) {
    auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "function (file:line)" with the file as a person finds it
// (core/py_user.hpp's shown_file); what a person reads and what the key is
// made of.
inline std::string frame_label(const Frame& f) {
    std::string out = f.function ? *f.function : "???";
    if (f.file) {
        out += " (" + std::string(shown_file(f.file->c_str()));
        if (f.line) out += ":" + std::to_string(*f.line);
        out += ")";
    } else if (f.object) {
        out += " (in " + base_name(*f.object) + ")";
    }
    return out;
}

inline SiteKey site_key(const Site& s) {
    SiteKey key = s.space.str() + ":";
    for (std::size_t i = 0; i < s.frames.size(); ++i)
        key += (i ? " <- " : " ") + frame_label(s.frames[i]);
    return key;
}

} // namespace mg::report
