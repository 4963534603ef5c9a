#include "mg_report_file.hpp"
#include "core/output_path.hpp"

namespace mg {

namespace {

namespace op = output_path;

// amd64 Linux system calls the tool headers do not wrap (or wrap without
// their errno).
constexpr UWord kSysRename = 82, kSysFchmod = 91, kSysUmask = 95, kSysSocket = 41, kSysConnect = 42;
constexpr UWord kSysFcntl = 72, kSetFlags = 4, kSockCloexec = 02000000;
constexpr Int kENameTooLong = 36;

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

// A FIFO opened without waiting when a reader is there; else say that the
// report waits for one (the program has ended by now), then wait.
SysRes open_fifo(const HChar* path) {
    SysRes r = VG_(open)(path, VKI_O_WRONLY | VKI_O_NONBLOCK, 0);
    if (!sr_isError(
            r)) { // a reader is there: write without O_NONBLOCK (closing would end its read)
        syscall(kSysFcntl, sr_Res(r), kSetFlags, 0);
        return r;
    }
    if (sr_Err(r) != VKI_ENXIO) return r;
    VG_(umsg)("memgrow: waiting for a reader of the FIFO '%s' to write the report\n", path);
    return VG_(open)(path, VKI_O_WRONLY, 0);
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

bool report_file_open(const HChar* path, ReportFile* f) {
    *f = ReportFile{};
    Int fd = op::descriptor_of(path, VG_(getpid)());
    if (fd >= 0) {
        SysRes r = VG_(dup)(fd);
        if (sr_isError(r)) {
            say_cannot(path, nullptr, static_cast<Int>(sr_Err(r)));
            return false;
        }
        f->fd = static_cast<Int>(sr_Res(r));
        return true;
    }
    Int err;
    op::FileType t = file_type(path, &err);
    if (err && err != VKI_ENOENT) {
        say_cannot(path, nullptr, err);
        return false;
    }
    SysRes r;
    switch (op::how_to_write(t)) {
    case op::WriteHow::refuse:
        say_cannot(path, nullptr, VKI_EISDIR);
        return false;
    case op::WriteHow::connect:
        fd = connect_socket(path);
        if (fd < 0) {
            say_cannot(path, nullptr, -fd);
            return false;
        }
        f->fd = fd;
        return true;
    case op::WriteHow::write_through:
        r = t == op::FileType::fifo ? open_fifo(path) : VG_(open)(path, VKI_O_WRONLY, 0);
        break;
    case op::WriteHow::replace: {
        f->target = link_target(path, &err);
        if (!f->target) {
            say_cannot(path, nullptr, err);
            return false;
        }
        f->tmp = static_cast<HChar*>(VG_(malloc)("mg.report.path", VG_(strlen)(f->target) + 32));
        VG_(sprintf)(f->tmp, "%s.tmp.%d", f->target, VG_(getpid)());
        r = VG_(open)(f->tmp, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_TRUNC, 0600);
        break;
    }
    }
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
