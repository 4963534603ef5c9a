#include "checks/mg_mc_requests.hpp"
#include "checks/mg_abits.hpp"
#include "checks/mg_errors.hpp"
#include "memcheck.h"

namespace mg {

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
    default:
        return false;
    }
}

} // namespace mg
