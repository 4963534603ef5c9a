// SPDX-License-Identifier: GPL-2.0-or-later
// The errors' views (report/errors_view.hpp).
#include "report/errors_view.hpp"

#include "report/locate.hpp"
#include "report/site_key.hpp"

#include <fmt/format.h>

namespace mg::report {

std::optional<std::size_t> error_frame(const Error& e) {
    std::optional<std::size_t> with_file;
    for (std::size_t i = 0; i < e.frames.size(); ++i) {
        if (is_user_frame(e.frames[i])) return i;
        if (!with_file && e.frames[i].file && !e.frames[i].file->empty()) with_file = i;
    }
    return with_file;
}

std::string error_text(const Error& e) {
    std::string out = e.message.empty() ? e.kind : e.message;
    if (e.count > 1) out += fmt::format(" ({} times)", e.count);
    if (!e.description.empty()) out += ": " + e.description;
    return out;
}

std::string error_stack_text(const Error& e) {
    std::string out;
    for (std::size_t i = 0; i < e.frames.size(); ++i)
        out += (i ? "    by " : "    at ") + frame_label(e.frames[i]) + "\n";
    return out;
}

} // namespace mg::report
