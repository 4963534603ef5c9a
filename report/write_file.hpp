// Writing a command's output file through a temporary name and a rename, so
// that a reader (or a crash) never sees half of it.
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace mg::report {

inline void write_file(const std::string& path, const std::string& text) {
    std::string tmp = path + ".tmp." + std::to_string(getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << text;
        out.flush();
        if (!out) {
            int err = errno;
            std::remove(tmp.c_str());
            throw std::runtime_error("cannot write " + path + ": " + std::strerror(err));
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        int err = errno;
        std::remove(tmp.c_str());
        throw std::runtime_error("cannot write " + path + ": " + std::strerror(err));
    }
}

// The whole file, or a LoadError-worthy message: callers wrap it.
inline bool read_file(const std::string& path, std::string& text) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return !in.bad();
}

} // namespace mg::report
