// How holders read in every view (report/holders.hpp).
#include "report/holders.hpp"

#include "report/text.hpp"

#include <cctype>

#include <fmt/format.h>

namespace mg::report {

std::string holder_about(const HolderName& h) {
    std::string about = h.type ? *h.type : "";
    auto add = [&](const std::string& part) { about += (about.empty() ? "" : ", ") + part; };
    if (h.length) {
        bool keyed = h.type && h.type->find("dict") != std::string::npos;
        add(fmt::format("{} {}", with_commas(*h.length), keyed ? "keys" : "items"));
    }
    if (h.bound)
        add("bound " + with_commas(*h.bound));
    else if (h.type)
        add("no bound");
    return about;
}

std::string holder_words(const HolderName& h) {
    std::string about = holder_about(h);
    if (!h.type && !h.root.empty()) about = h.root + (about.empty() ? "" : ", " + about);
    return about.empty() ? h.path : fmt::format("{} ({})", h.path, about);
}

std::string held_by_text(const HeldBy& h) {
    return fmt::format("{}, {} bytes in {} blocks, {:.3g}%", holder_words(h), with_commas(h.bytes),
                       with_commas(h.blocks), 100 * h.share);
}

std::vector<std::string> holder_steps(const std::string& path) {
    static const std::string kArrow = " \u2192 ";
    std::vector<std::string> out;
    std::size_t from = 0;
    for (std::size_t at; (at = path.find(kArrow, from)) != std::string::npos;
         from = at + kArrow.size())
        out.push_back(path.substr(from, at - from));
    out.push_back(path.substr(from));
    return out;
}

std::string holder_path_key(const std::string& path) {
    std::string out;
    for (std::size_t i = 0; i < path.size(); ++i) {
        // ":88)" -> ")"
        if (path[i] == ':') {
            std::size_t j = i + 1;
            while (j < path.size() && std::isdigit(static_cast<unsigned char>(path[j])))
                ++j;
            if (j > i + 1 && j < path.size() && path[j] == ')') {
                i = j - 1;
                continue;
            }
        }
        out += path[i];
    }
    return out;
}

std::int64_t bytes_held(const Report& r, const Site& s, const Holder& h) {
    for (const HeldBy& b : held_by(r, s))
        if (b.holder ? *b.holder == h.id : b.path == h.path) return b.bytes;
    return s.live_bytes;
}

} // namespace mg::report
