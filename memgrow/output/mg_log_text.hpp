// SPDX-License-Identifier: GPL-2.0-or-later
// A name from the client (a holder's path, a Python function or file, a
// mark's label) as the tool's log prints it: escaped as `memgrow-report
// show` escapes it (core/terminal_text.hpp), so that a name can neither
// forge a log line nor send a terminal escape.
#pragma once

#include "mg_vg.hpp"
#include "core/terminal_text.hpp"

namespace mg {

class LogText {
  public:
    // s itself when nothing in it needs an escape; null stays null.
    explicit LogText(const HChar* s) : text_(s) {
        if (!s) return;
        SizeT n = VG_(strlen)(s), out = 0;
        terminal_text::escape(s, n, [&](const char*, unsigned long k) { out += k; });
        if (out == n) return; // every escape is longer than what it stands for
        owned_ = static_cast<HChar*>(VG_(malloc)("mg.log.text", out + 1));
        SizeT at = 0;
        terminal_text::escape(s, n, [&](const char* piece, unsigned long k) {
            VG_(memcpy)(owned_ + at, piece, k);
            at += k;
        });
        owned_[at] = 0;
        text_ = owned_;
    }
    ~LogText() {
        if (owned_) VG_(free)(owned_);
    }
    LogText(const LogText&) = delete;
    LogText& operator=(const LogText&) = delete;
    const HChar* c_str() const { return text_; }

  private:
    const HChar* text_;
    HChar* owned_ = nullptr;
};

} // namespace mg
