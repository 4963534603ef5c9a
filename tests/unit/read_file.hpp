// SPDX-License-Identifier: GPL-2.0-or-later
// A whole file as a string, for the report unit tests (which read the
// reports the tool wrote during make check).
#pragma once

#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>
#include <string>

inline std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    BOOST_REQUIRE_MESSAGE(in, "cannot read " << path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}
