// SPDX-License-Identifier: GPL-2.0-or-later
// Profiles for the viewers people already use (docs/memgrow-report.md,
// "speedscope and pprof"): one sample per site of the report's native sites
// (their stacks interleave Python and native frames as the log does; the
// Python sites only regroup them, so counting both would count twice),
// weighed by live bytes at teardown, bytes allocated and bytes gained after
// the warm-up (report/gains.hpp).
#pragma once

#include "report/model.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace mg::report {

// speedscope's file format (its file-format-schema.json): two sampled
// profiles, "live bytes at teardown" and "bytes gained after the warm-up",
// sharing one frame table; `exporter` names the writer.
nlohmann::json speedscope_file(const Report& r, const std::string& exporter);

// pprof's profile.proto, gzipped as pprof, Pyroscope and Grafana read it:
// sample types inuse_space, alloc_space and growth_space (bytes, the
// default), a location per distinct frame, labels `class` and `space`.
std::string pprof_profile(const Report& r);

} // namespace mg::report
