#include "checks/mg_mc_requests.hpp"
#include "checks/mg_abits.hpp"
#include "checks/mg_errors.hpp"
#include "intercept/mg_requests.hpp"
#include "mg_options.hpp"
#include "memcheck.h"

namespace mg {

namespace {

// VALGRIND_DO_LEAK_CHECK and its variants: mode 0 full, 1 summary;
// deltamode 0 any, 1 increased, 2 changed, 3 new (memcheck's codes and
// warnings; 3, DO_NEW_LEAK_CHECK, from Valgrind 3.21, as that release's
// memcheck: before, it is unknown).
void do_leak_check(UWord mode, UWord deltamode) {
    if (mode > 1) VG_(umsg)("Warning: unknown memcheck leak search mode\n");
    const LeakDelta deltas[] = {LeakDelta::any, LeakDelta::increased, LeakDelta::changed,
                                LeakDelta::fresh};
    const UWord known = vgc::kNewLeakSearch321 ? 3 : 2;
    if (deltamode > known) VG_(umsg)("Warning: unknown memcheck leak search deltamode\n");
    leak_check_now(deltamode > known ? LeakDelta::any : deltas[deltamode], mode != 1,
                   clo.show_leak_kinds);
}

// COUNT_LEAKS / COUNT_LEAK_BLOCKS: the last scan's leaked (definite and
// indirect), dubious, reachable and suppressed, into the client's four
// variables.
void write_counts(const UWord* args, const ULong* counts) {
    const ULong values[4] = {counts[kDefinite] + counts[kIndirect], counts[kPossible],
                             counts[kReachable], counts[kLeakKinds]};
    for (UInt i = 0; i < 4; ++i)
        if (VG_(am_is_valid_for_client)(args[i + 1], sizeof(UWord), VKI_PROT_WRITE))
            *reinterpret_cast<UWord*>(args[i + 1]) = values[i];
}

} // namespace

bool mc_client_request(ThreadId tid, UWord* args, UWord* ret) {
    Addr a = args[1];
    SizeT len = args[2];
    switch (args[0]) {
    case VG_USERREQ__MAKE_MEM_NOACCESS:
        abits_make(a, len, false);
        *ret = static_cast<UWord>(-1); // memcheck's answer
        return true;
    // Without definedness bits, undefined and defined are both addressable.
    case VG_USERREQ__MAKE_MEM_UNDEFINED:
    case VG_USERREQ__MAKE_MEM_DEFINED:
        abits_make(a, len, true);
        *ret = static_cast<UWord>(-1);
        return true;
    case VG_USERREQ__MAKE_MEM_DEFINED_IF_ADDRESSABLE:
        *ret = static_cast<UWord>(-1);
        return true;
    case VG_USERREQ__CHECK_MEM_IS_ADDRESSABLE:
    case VG_USERREQ__CHECK_MEM_IS_DEFINED: {
        // 0 when all is addressable, else the first bad address (and an
        // error, memcheck's "client check request" one).
        Addr bad;
        *ret = 0;
        if (abits_first_bad(a, len, &bad)) {
            report_user_check_error(tid, bad);
            *ret = bad;
        }
        return true;
    }
    case VG_USERREQ__DO_LEAK_CHECK:
        do_leak_check(args[1], args[2]);
        *ret = 0;
        return true;
    case VG_USERREQ__COUNT_LEAKS:
        write_counts(args, last_leak_counts().bytes);
        *ret = 0;
        return true;
    case VG_USERREQ__COUNT_LEAK_BLOCKS:
        write_counts(args, last_leak_counts().blocks);
        *ret = 0;
        return true;
    default:
        return false;
    }
}

} // namespace mg
