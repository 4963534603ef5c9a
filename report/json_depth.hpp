// SPDX-License-Identifier: GPL-2.0-or-later
// Reading JSON no deeper than a report nests. nlohmann's parser keeps its own
// stack, but it builds whatever it is given (50 MB of "[" took 21 s and
// 3.7 GB), and what it builds is copied and written recursively: a value
// nested 100,000 deep (an unknown field of a newer writer's, or a hostile
// file) overflowed the stack in expand and merge. Every reader goes through
// DepthLimited: a value deeper than kMaxDepth is skipped as it comes, never
// built, and stands as null. No field of the schema lies that deep, so an
// unknown field is ignored however deep it goes, and a known field whose
// value nests that deep is refused for its type at its own level.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace mg::report {

// A report nests a handful of levels (the root, sites, a site, its frames,
// a frame).
constexpr std::size_t kMaxDepth = 16;

// Forwards the SAX events of a document to `Handler`, less the values that
// begin deeper than kMaxDepth, each of which comes as one null.
template <class Json, class Handler> class DepthLimited {
  public:
    explicit DepthLimited(Handler& handler) : h_(handler) {}

    bool null() { return skipping() || h_.null(); }
    bool boolean(bool v) { return skipping() || h_.boolean(v); }
    bool number_integer(typename Json::number_integer_t v) {
        return skipping() || h_.number_integer(v);
    }
    bool number_unsigned(typename Json::number_unsigned_t v) {
        return skipping() || h_.number_unsigned(v);
    }
    bool number_float(typename Json::number_float_t v, const std::string& s) {
        return skipping() || h_.number_float(v, s);
    }
    bool string(typename Json::string_t& v) { return skipping() || h_.string(v); }
    bool binary(typename Json::binary_t& v) { return skipping() || h_.binary(v); }
    bool key(typename Json::string_t& k) { return skipping() || h_.key(k); }
    bool start_object(std::size_t n) { return enter() || h_.start_object(n); }
    bool start_array(std::size_t n) { return enter() || h_.start_array(n); }
    bool end_object() { return skipping() ? leave_skipped() : (--depth_, h_.end_object()); }
    bool end_array() { return skipping() ? leave_skipped() : (--depth_, h_.end_array()); }
    template <class Exception>
    bool parse_error(std::size_t at, const std::string& token, const Exception& e) {
        return h_.parse_error(at, token, e);
    }

  private:
    // A container begins; true when it is (inside) one being skipped.
    bool enter() {
        if (++depth_ > kMaxDepth && !skip_from_) skip_from_ = depth_;
        return skipping();
    }
    bool skipping() const { return skip_from_ != 0; }
    // A container inside the skipped value ends; when it is the skipped
    // value itself, null takes its place.
    bool leave_skipped() {
        if (depth_-- != skip_from_) return true;
        skip_from_ = 0;
        return h_.null();
    }

    Handler& h_;
    std::size_t depth_ = 0;
    std::size_t skip_from_ = 0; // depth of the value being skipped, 0: none
};

// Parses a whole document as DepthLimited reads it (syntax errors throw
// Json::parse_error).
template <class Json, class Input> Json parse_limited(Input&& input) {
    Json root;
    nlohmann::detail::json_sax_dom_parser<Json> dom(root);
    DepthLimited<Json, decltype(dom)> sax(dom);
    Json::sax_parse(std::forward<Input>(input), &sax);
    return root;
}

} // namespace mg::report
