// SPDX-License-Identifier: GPL-2.0-or-later
// Writing a command's output file as the tool writes its report
// (core/output_path.hpp; docs/robustness.md, "Where a report goes"): a new
// path or a regular file through a temporary name and a rename, so that a
// reader (or a crash) never sees half of it, and through symbolic links to
// their target; devices, FIFOs, Unix sockets and /dev/stdout written through.
// "-" is standard output. Failures throw std::runtime_error naming the path
// given and the reason.
#pragma once

#include "core/output_path.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace mg::report {

class OutputFile {
  public:
    explicit OutputFile(std::string path) : path_(std::move(path)) {
        namespace op = mg::output_path;
        int fd = path_ == "-" ? 1 : op::descriptor_of(path_.c_str(), getpid());
        if (fd >= 0) {
            std::cout.flush(); // what the command printed before stays before
            fd_ = dup(fd);
            if (fd_ < 0) fail(errno);
            return;
        }
        struct stat st;
        op::FileType type = op::FileType::missing;
        if (stat(path_.c_str(), &st) == 0)
            type = S_ISREG(st.st_mode)    ? op::FileType::regular
                   : S_ISDIR(st.st_mode)  ? op::FileType::directory
                   : S_ISFIFO(st.st_mode) ? op::FileType::fifo
                   : S_ISSOCK(st.st_mode) ? op::FileType::socket
                                          : op::FileType::device;
        else if (errno != ENOENT)
            fail(errno);
        switch (op::how_to_write(type)) {
        case op::WriteHow::refuse:
            fail(EISDIR);
        case op::WriteHow::connect:
            fd_ = connect_socket();
            break;
        case op::WriteHow::write_through:
            fd_ = open(path_.c_str(), O_WRONLY | O_CLOEXEC);
            break;
        case op::WriteHow::replace:
            target_ = link_target();
            tmp_ = target_ + ".tmp." + std::to_string(getpid());
            fd_ = open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
            break;
        }
        if (fd_ < 0) fail(errno);
    }
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;
    ~OutputFile() {
        if (fd_ >= 0) close(fd_);
        if (!tmp_.empty()) unlink(tmp_.c_str());
    }

    void write(std::string_view data) {
        while (!data.empty()) {
            ssize_t n = ::write(fd_, data.data(), data.size());
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) fail(n < 0 ? errno : EIO);
            data.remove_prefix(static_cast<std::size_t>(n));
        }
    }
    // Done: a replacement is renamed into place.
    void commit() {
        int fd = fd_;
        fd_ = -1;
        if (close(fd) != 0) fail(errno);
        if (tmp_.empty()) return;
        if (std::rename(tmp_.c_str(), target_.c_str()) != 0) fail(errno);
        tmp_.clear();
    }

  private:
    [[noreturn]] void fail(int err) const {
        std::string link =
            !target_.empty() && target_ != path_ ? " (a link to " + target_ + ")" : "";
        throw std::runtime_error("cannot write " + path_ + link + ": " + std::strerror(err));
    }
    std::string link_target() const {
        std::string at = path_;
        char link[4096];
        for (int i = 0; i <= mg::output_path::kMaxLinks; ++i) {
            ssize_t n = readlink(at.c_str(), link, sizeof link - 1);
            if (n < 0) return at;
            link[n] = 0;
            std::string next(at.size() + static_cast<std::size_t>(n) + 2, '\0');
            if (!mg::output_path::join_link(at.c_str(), link, next.data(), next.size()))
                fail(ENAMETOOLONG);
            at = next.c_str();
        }
        fail(ELOOP);
    }
    int connect_socket() const {
        sockaddr_un sa{};
        if (path_.size() >= sizeof sa.sun_path) fail(ENAMETOOLONG);
        sa.sun_family = AF_UNIX;
        std::memcpy(sa.sun_path, path_.c_str(), path_.size() + 1);
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s < 0) return s;
        if (connect(s, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0) return s;
        int err = errno;
        close(s);
        errno = err;
        return -1;
    }
    std::string path_, target_, tmp_;
    int fd_ = -1;
};

inline void write_file(const std::string& path, std::string_view text) {
    OutputFile out(path);
    out.write(text);
    out.commit();
}

// The whole file, or a LoadError-worthy message: callers wrap it.
inline bool read_file(const std::string& path, std::string& text) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return !in.bad();
}

} // namespace mg::report
