// SPDX-License-Identifier: GPL-2.0-or-later
#include "mg_report_file.hpp"
#include "core/output_path.hpp"
#include "intercept/mg_requests.hpp"

namespace mg {

namespace {

namespace op = output_path;

// amd64 Linux system calls the tool headers do not wrap (or wrap without
// their errno).
constexpr UWord kSysRename = 82, kSysFchmod = 91, kSysUmask = 95, kSysSocket = 41, kSysConnect = 42;
constexpr UWord kSysFcntl = 72, kSetFlags = 4, kSetLock = 6, kSockCloexec = 02000000;
constexpr Int kOpenCloexec = 02000000;
constexpr UWord kSysRtSigpending = 127;
constexpr Int kENameTooLong = 36;
constexpr short kWriteLock = 1, kUnlock = 2; // F_WRLCK, F_UNLCK
constexpr UInt kPollMs = 10;
// A forked child waits this long for a FIFO's reader: the one it would have
// shared with its parent may have gone for good (docs/robustness.md).
constexpr UInt kChildWaitMs = 10000;
// A FIFO's writer stays open this long after its report, so that other
// processes of the run polling for the same reader get it before it sees
// the end of its input.
constexpr UInt kFifoLingerMs = 250;

UInt umask_at_start = 022;

SysRes syscall(UWord n, UWord a = 0, UWord b = 0, UWord c = 0) {
    return vgc::VG_(do_syscall)(n, a, b, c, 0, 0, 0, 0, 0);
}

// The system's words for an errno; the core's table lacks some that paths
// and sockets give.
const HChar* reason(Int err) {
    switch (err) {
    case 36:
        return "File name too long";
    case 40:
        return "Too many levels of symbolic links";
    case 88:
        return "Socket operation on non-socket";
    case 91:
        return "Protocol wrong type for socket";
    case 104:
        return "Connection reset by peer";
    case 107:
        return "Transport endpoint is not connected";
    case 111:
        return "Connection refused";
    case 116:
        return "Stale file handle";
    case 122:
        return "Disk quota exceeded";
    }
    return VG_(strerror)(static_cast<UWord>(err));
}

op::FileType file_type(const HChar* path, Int* err) {
    struct vg_stat st;
    SysRes r = VG_(stat)(path, &st);
    *err = 0;
    if (sr_isError(r)) {
        *err = static_cast<Int>(sr_Err(r));
        return op::FileType::missing;
    }
    if (VKI_S_ISREG(st.mode)) return op::FileType::regular;
    if (VKI_S_ISDIR(st.mode)) return op::FileType::directory;
    if (VKI_S_ISFIFO(st.mode)) return op::FileType::fifo;
    if (VKI_S_ISSOCK(st.mode)) return op::FileType::socket;
    return op::FileType::device;
}

// The file a chain of symbolic links ends at (path itself when it is not
// one); null with *err set for a loop.
HChar* link_target(const HChar* path, Int* err) {
    HChar* at = VG_(strdup)("mg.report.path", path);
    HChar link[VKI_PATH_MAX];
    for (Int i = 0;; ++i) {
        Int n = VG_(readlink)(at, link, sizeof link - 1);
        if (n < 0) return at;
        if (i == op::kMaxLinks) break;
        link[n] = 0;
        SizeT size = VG_(strlen)(at) + static_cast<SizeT>(n) + 2;
        HChar* next = static_cast<HChar*>(VG_(malloc)("mg.report.path", size));
        bool fits = op::join_link(at, link, next, size);
        VG_(free)(at);
        at = next;
        if (!fits) break;
    }
    VG_(free)(at);
    *err = VKI_ELOOP;
    return nullptr;
}

HChar last_failure[VKI_PATH_MAX * 2 + 128];

// "cannot write" or "writing ... failed", in the log and kept for vgdb.
void say_failure(const HChar* path, const HChar* target, Int err, bool while_writing) {
    HChar link[VKI_PATH_MAX + 32] = "";
    if (target && !VG_STREQ(target, path))
        VG_(snprintf)(link, sizeof link, " (a link to '%s')", target);
    if (while_writing) VG_(snprintf)
    (last_failure, sizeof last_failure, "memgrow: writing the report '%s'%s failed: %s", path, link,
     reason(err));
    else VG_(snprintf)(last_failure, sizeof last_failure,
                       "memgrow: cannot write the report '%s'%s: %s", path, link, reason(err));
    VG_(umsg)("%s\n", last_failure);
}

void say_cannot(const HChar* path, const HChar* target, Int err) {
    say_failure(path, target, err, false);
}

// A Unix-domain socket at path, connected (stream sockets): a descriptor,
// or minus the errno.
Int connect_socket(const HChar* path) {
    struct vki_sockaddr_un sa;
    VG_(memset)(&sa, 0, sizeof sa);
    if (VG_(strlen)(path) >= sizeof sa.sun_path) return -kENameTooLong;
    sa.sun_family = VKI_AF_UNIX;
    VG_(strcpy)(sa.sun_path, path);
    SysRes s = syscall(kSysSocket, VKI_AF_UNIX, VKI_SOCK_STREAM | kSockCloexec, 0);
    if (sr_isError(s)) return -static_cast<Int>(sr_Err(s));
    SysRes c = syscall(kSysConnect, sr_Res(s), reinterpret_cast<UWord>(&sa), sizeof sa);
    if (!sr_isError(c)) return static_cast<Int>(sr_Res(s));
    VG_(close)(static_cast<Int>(sr_Res(s)));
    return -static_cast<Int>(sr_Err(c));
}

// The signal, among those a user sends to stop a process, that is pending
// now (0: none). The core keeps signals blocked while tool code runs: a wait
// of the tool sees them only here, and gives way to them.
Int pending_stop_signal() {
    vki_sigset_t set;
    VG_(memset)(&set, 0, sizeof set);
    if (sr_isError(syscall(kSysRtSigpending, reinterpret_cast<UWord>(&set), sizeof set))) return 0;
    static const Int kStops[] = {VKI_SIGINT, VKI_SIGTERM, VKI_SIGHUP, VKI_SIGQUIT};
    for (Int sig : kStops)
        if (set.sig[0] & (1ul << (sig - 1))) return sig;
    return 0;
}

const HChar* signal_name(Int sig) {
    switch (sig) {
    case VKI_SIGINT:
        return "SIGINT";
    case VKI_SIGTERM:
        return "SIGTERM";
    case VKI_SIGHUP:
        return "SIGHUP";
    }
    return "SIGQUIT";
}

// Retries `ready` every kPollMs until it is true (0), a stop signal is
// pending (the signal) or limit_ms has passed (-1; 0: no limit).
template <class Ready> Int wait_until(Ready ready, UInt limit_ms) {
    UInt began = VG_(read_millisecond_timer)();
    while (!ready()) {
        if (Int sig = pending_stop_signal()) return sig;
        if (limit_ms && VG_(read_millisecond_timer)() - began >= limit_ms) return -1;
        VG_(poll)(nullptr, 0, kPollMs);
    }
    return 0;
}

// A report given up while waiting: one line, kept for vgdb.
__attribute__((format(printf, 1, 2))) void say_given_up(const HChar* format, ...) {
    va_list args;
    va_start(args, format);
    VG_(vsnprintf)(last_failure, sizeof last_failure, format, args);
    va_end(args);
    VG_(umsg)("%s\n", last_failure);
}

// A FIFO opened when a reader is there; else, unless `wait` is false (a
// snapshot is then skipped), say that the report waits for one (the program
// has ended by now) and poll for it: a stop signal ends the wait, and a
// forked child waits kChildWaitMs at most. Without a reader, says why and
// returns -1.
Int open_fifo(const HChar* path, bool wait) {
    SysRes r;
    auto try_open = [&] {
        r = VG_(open)(path, VKI_O_WRONLY | VKI_O_NONBLOCK, 0);
        return !sr_isError(r) || sr_Err(r) != VKI_ENXIO;
    };
    if (!try_open()) {
        if (!wait) {
            static bool said; // snapshots come often: once is enough
            if (!said) VG_(umsg)
            ("memgrow: the FIFO '%s' has no reader: snapshots are skipped while it "
             "has none\n",
             path);
            said = true;
            return -1;
        }
        VG_(umsg)("memgrow: waiting for a reader of the FIFO '%s' to write the report\n", path);
        Int ended = wait_until(try_open, forked_child ? kChildWaitMs : 0);
        if (ended > 0)
            say_given_up("memgrow: the report was not read: %s came while waiting for a reader "
                         "of the FIFO '%s'",
                         signal_name(ended), path);
        if (ended < 0)
            say_given_up("memgrow: the report was not read: no reader of the FIFO '%s' came "
                         "within %u s (a forked child waits no longer)",
                         path, kChildWaitMs / 1000);
        if (ended) return -1;
    }
    if (sr_isError(r)) {
        say_cannot(path, nullptr, static_cast<Int>(sr_Err(r)));
        return -1;
    }
    // Written without O_NONBLOCK: a slow reader is waited for, not a short write.
    syscall(kSysFcntl, sr_Res(r), kSetFlags, 0);
    return static_cast<Int>(sr_Res(r));
}

// The --json-file FIFO, held open from the start when it had a reader then:
// every process of the run inherits the descriptor, so the reader reads each
// one's report and sees the end of its input only when the last has ended
// (a forked child opening the FIFO anew would find it gone after a gap).
// dev and ino tell whether the descriptor is still ours: the program may
// close it and open another file under its number.
struct HeldFifo {
    Int fd = -1;
    HChar* path = nullptr;
    ULong dev = 0, ino = 0;
} held_fifo;

void hold_fifo(const HChar* path) {
    SysRes r = VG_(open)(path, VKI_O_WRONLY | VKI_O_NONBLOCK | kOpenCloexec, 0);
    if (sr_isError(r)) return; // no reader yet: the report waits for one
    Int fd = static_cast<Int>(sr_Res(r));
    struct vg_stat st;
    syscall(kSysFcntl, static_cast<UWord>(fd), kSetFlags, 0);
    if (VG_(fstat)(fd, &st) != 0) {
        VG_(close)(fd);
        return;
    }
    held_fifo = HeldFifo{fd, VG_(strdup)("mg.report.path", path), st.dev, st.ino};
}

// A descriptor of the held FIFO for a report to path, or -1.
Int held_fifo_dup(const HChar* path) {
    struct vg_stat st;
    if (held_fifo.fd < 0 || !VG_STREQ(path, held_fifo.path)) return -1;
    if (VG_(fstat)(held_fifo.fd, &st) != 0 || st.dev != held_fifo.dev || st.ino != held_fifo.ino) {
        held_fifo.fd = -1; // the program's now: left alone
        return -1;
    }
    SysRes r = VG_(dup)(held_fifo.fd);
    return sr_isError(r) ? -1 : static_cast<Int>(sr_Res(r));
}

bool set_lock(Int fd, short type, Int* err = nullptr) {
    struct vki_flock l;
    VG_(memset)(&l, 0, sizeof l);
    l.l_type = type;
    l.l_whence = VKI_SEEK_SET; // l_start = l_len = 0: the whole file
    SysRes r = syscall(kSysFcntl, static_cast<UWord>(fd), kSetLock, reinterpret_cast<UWord>(&l));
    if (err) *err = sr_isError(r) ? static_cast<Int>(sr_Err(r)) : 0;
    return !sr_isError(r);
}

// Processes of a run writing through one path (a descriptor they share, a
// device, a FIFO) would interleave their reports at the writer's 16 KiB
// flushes: each takes a write lock on what it writes to (a record lock, as
// fcntl's are per process where flock's would be shared with the
// descriptor's other holders), waiting while another process writes. A file
// that takes no lock (ENOLCK, EINVAL) is written unlocked. False, after
// saying why and closing it, when a stop signal ended the wait.
bool lock_for_report(const HChar* path, ReportFile* f) {
    Int err = 0;
    Int ended = wait_until(
        [&] {
            return set_lock(f->fd, kWriteLock, &err) || (err != VKI_EAGAIN && err != VKI_EACCES);
        },
        0);
    if (ended) {
        say_given_up("memgrow: the report '%s' was not written: %s came while another process "
                     "of the run was writing there",
                     path, signal_name(ended));
        VG_(close)(f->fd);
        *f = ReportFile{};
        return false;
    }
    f->locked = err == 0;
    return true;
}

} // namespace

const HChar* report_file_last_failure() {
    return last_failure;
}

void report_file_init() {
    SysRes r = syscall(kSysUmask, 0);
    umask_at_start = static_cast<UInt>(sr_Res(r)) & 0777;
    syscall(kSysUmask, umask_at_start);
}

bool report_path_check(const HChar* option, const HChar* path) {
    auto refuse = [&](Int err) {
        // After option parsing fmsg_bad_option no longer exits by itself.
        VG_(fmsg_bad_option)(option, "cannot write '%s' (%s)\n", path, reason(err));
        VG_(exit)(1);
    };
    Int fd = op::descriptor_of(path, VG_(getpid)());
    struct vg_stat st;
    if (fd >= 0) {
        if (VG_(fstat)(fd, &st) != 0) refuse(VKI_EBADF);
        return false;
    }
    Int err;
    op::FileType t = file_type(path, &err);
    if (err && err != VKI_ENOENT) refuse(err);
    switch (op::how_to_write(t)) {
    case op::WriteHow::refuse:
        refuse(VKI_EISDIR);
        break;
    case op::WriteHow::write_through:
    case op::WriteHow::connect:
        if (VG_(access)(path, False, True, False) != 0) refuse(VKI_EACCES);
        if (t == op::FileType::fifo) hold_fifo(path);
        return false;
    case op::WriteHow::replace:
        break;
    }
    // A regular file or a new one: it and its directory must take a file.
    HChar* target = link_target(path, &err);
    if (!target) refuse(err);
    SysRes r = VG_(open)(target, VKI_O_WRONLY | VKI_O_CREAT, 0666);
    if (sr_isError(r)) refuse(static_cast<Int>(sr_Err(r)));
    VG_(close)(static_cast<Int>(sr_Res(r)));
    if (t == op::FileType::missing) VG_(unlink)(target);
    VG_(free)(target);
    return t == op::FileType::regular;
}

bool report_path_written_through(const HChar* path) {
    if (op::descriptor_of(path, VG_(getpid)()) >= 0) return true;
    Int err;
    op::FileType t = file_type(path, &err);
    return op::how_to_write(t) != op::WriteHow::replace;
}

bool report_file_open(const HChar* path, ReportFile* f, bool may_wait) {
    *f = ReportFile{};
    Int fd = op::descriptor_of(path, VG_(getpid)());
    if (fd >= 0) {
        SysRes r = VG_(dup)(fd);
        if (sr_isError(r)) {
            say_cannot(path, nullptr, static_cast<Int>(sr_Err(r)));
            return false;
        }
        f->fd = static_cast<Int>(sr_Res(r));
        return lock_for_report(path, f);
    }
    Int err;
    op::FileType t = file_type(path, &err);
    if (err && err != VKI_ENOENT) {
        say_cannot(path, nullptr, err);
        return false;
    }
    switch (op::how_to_write(t)) {
    case op::WriteHow::refuse:
        say_cannot(path, nullptr, VKI_EISDIR);
        return false;
    case op::WriteHow::connect: // a connection of its own: nothing to share
        fd = connect_socket(path);
        if (fd < 0) {
            say_cannot(path, nullptr, -fd);
            return false;
        }
        f->fd = fd;
        return true;
    case op::WriteHow::write_through:
        if (t == op::FileType::fifo) {
            f->fd = held_fifo_dup(path);
            if (f->fd < 0) {
                f->fd = open_fifo(path, may_wait);
                if (f->fd < 0) return false;
                f->linger = may_wait;
            }
        } else {
            SysRes r = VG_(open)(path, VKI_O_WRONLY, 0);
            if (sr_isError(r)) {
                say_cannot(path, nullptr, static_cast<Int>(sr_Err(r)));
                return false;
            }
            f->fd = static_cast<Int>(sr_Res(r));
        }
        return lock_for_report(path, f);
    case op::WriteHow::replace:
        break;
    }
    f->target = link_target(path, &err);
    if (!f->target) {
        say_cannot(path, nullptr, err);
        return false;
    }
    f->tmp = static_cast<HChar*>(VG_(malloc)("mg.report.path", VG_(strlen)(f->target) + 32));
    VG_(sprintf)(f->tmp, "%s.tmp.%d", f->target, VG_(getpid)());
    SysRes r = VG_(open)(f->tmp, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_TRUNC, 0600);
    if (sr_isError(r)) {
        say_cannot(path, f->target, static_cast<Int>(sr_Err(r)));
        VG_(free)(f->target);
        VG_(free)(f->tmp);
        *f = ReportFile{};
        return false;
    }
    f->fd = static_cast<Int>(sr_Res(r));
    return true;
}

bool report_file_finish(const HChar* path, ReportFile* f, Int write_error) {
    Int err = write_error;
    if (!err && f->tmp) {
        SysRes r = syscall(kSysFchmod, static_cast<UWord>(f->fd), 0666 & ~umask_at_start);
        if (sr_isError(r)) err = static_cast<Int>(sr_Err(r));
    }
    if (f->locked) set_lock(f->fd, kUnlock); // before lingering: the others may write
    if (f->linger) VG_(poll)(nullptr, 0, kFifoLingerMs);
    VG_(close)(f->fd);
    if (!err && f->tmp) {
        SysRes r = syscall(kSysRename, reinterpret_cast<UWord>(f->tmp),
                           reinterpret_cast<UWord>(f->target));
        if (sr_isError(r)) err = static_cast<Int>(sr_Err(r));
    }
    if (err) {
        say_failure(path, f->target, err, true);
        if (f->tmp) VG_(unlink)(f->tmp);
    }
    VG_(free)(f->target);
    VG_(free)(f->tmp);
    *f = ReportFile{};
    return !err;
}

} // namespace mg
