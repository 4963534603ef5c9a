// SPDX-License-Identifier: GPL-2.0-or-later
// Number, stack and sparkline formatting shared by the commands.
#include "report/text.hpp"

#include "core/format.hpp"
#include "core/terminal_text.hpp"
#include "report/site_key.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>

namespace mg::report {

std::string markup_escape(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&#39;";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r')
                out += "\xef\xbf\xbd"; // U+FFFD
            else
                out += c;
        }
    }
    return out;
}

std::string terminal_text(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    ::mg::terminal_text::escape(s.data(), s.size(),
                                [&](const char* piece, unsigned long n) { out.append(piece, n); });
    return out;
}

std::string with_commas(std::int64_t n, bool sign) {
    // The magnitude as unsigned: -INT64_MIN does not fit an int64.
    std::uint64_t m = n < 0 ? 0 - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
    std::string digits = std::to_string(m);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    if (n < 0) return "-" + out;
    return sign ? "+" + out : out;
}

std::string rate_text(double v) {
    char out[kDecimalBuf];
    format_rate(v, out);
    return out;
}

std::string percent_text(double share, unsigned decimals) {
    char out[kDecimalBuf];
    format_decimal(100 * share, decimals, out);
    return out;
}

std::string confidence_text(double c) {
    char out[kDecimalBuf];
    format_decimal(c, 3, out);
    return out;
}

std::string clock_unit(const std::string& time_unit) {
    if (time_unit == "B") return "byte allocated";
    if (time_unit == "i") return "instruction";
    if (time_unit == "ms") return "ms";
    return time_unit;
}

std::string human_bytes(std::int64_t n) {
    char out[kDecimalBuf];
    format_size_short(n, out);
    return out;
}

std::string stack_line(const Site& s, std::size_t frames) {
    std::string out;
    std::size_t n = std::min(frames, s.frames.size());
    for (std::size_t i = 0; i < n; ++i)
        out += (i ? " <- " : "") + terminal_text(frame_label(s.frames[i]));
    if (n < s.frames.size()) out += " <- ...";
    if (s.frames.empty()) out = "(no frames)";
    return out;
}

std::string sparkline(const std::vector<std::int64_t>& series, std::size_t width, bool ascii) {
    static const char* const blocks[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    static const char* const plain[] = {"_", ".", ",", "-", "=", "+", "*", "#"};
    if (series.empty() || width == 0) return {};
    std::size_t columns = std::min(width, series.size());
    std::vector<std::int64_t> column(columns, 0);
    for (std::size_t c = 0; c < columns; ++c) {
        std::size_t from = c * series.size() / columns, to = (c + 1) * series.size() / columns;
        column[c] = *std::max_element(series.begin() + from, series.begin() + to);
    }
    std::int64_t top = std::max<std::int64_t>(0, *std::max_element(column.begin(), column.end()));
    std::string out;
    for (std::int64_t v : column) {
        // 0 is the lowest step and the maximum the highest: the scale starts at
        // zero so that a small rise on a large level looks small.
        std::size_t level =
            top == 0 || v <= 0
                ? 0
                : static_cast<std::size_t>(
                      (static_cast<double>(v) / static_cast<double>(top)) * 7.0 + 0.5);
        level = std::min<std::size_t>(level, 7);
        out += ascii ? plain[level] : blocks[level];
    }
    return out;
}

} // namespace mg::report
