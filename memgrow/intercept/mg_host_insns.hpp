// SPDX-License-Identifier: GPL-2.0-or-later
// Instructions the host executes but Valgrind's decoder refuses: memgrow
// performs them on the host so the client goes on (docs/robustness.md).
//
// VEX decodes RDTSCP only when the host's CPUID advertises it, yet the
// guest's emulated CPUID always does; some hosts hide the flag while running
// the instruction, and a client that trusts CPUID (libhwy's timer, loaded by
// PyTorch) then dies of SIGILL under every tool. RDPID VEX never decodes.
// A block that ends in a decode failure at one of these reaches the tool
// like any other: the failure is replaced by a helper call that runs the
// instruction natively and writes the guest registers it defines.
#pragma once

#include "mg_options.hpp"

namespace mg {

// Probes, once options are known, which of the instructions the host runs.
void host_insns_init();

// Rewrites a superblock: an undecodable instruction the host runs becomes a
// helper call (with --emulate-insns=always, RDTSCP also where VEX decodes
// it); any other decode failure is noted, so a client killed by it is told
// why. Returns `bb` untouched when there is nothing to do.
IRSB* host_insns_instrument(IRSB* bb, const VexArchInfo* host);

// A signal handler of the client ran: a SIGILL it caught did not kill it.
void host_insns_signal_delivered(Int sig);

// If the client died at an instruction Valgrind cannot decode, says so in
// one log line; returns whether it did (for the JSON report).
struct FatalInsn {
    Addr addr;
    UChar bytes[8];
    UInt n_bytes;
};
const FatalInsn* host_insns_fatal();
// "0f 04 ..." into out (3 characters a byte).
void format_bytes(const FatalInsn& f, HChar* out);
void host_insns_report_fatal();

} // namespace mg
