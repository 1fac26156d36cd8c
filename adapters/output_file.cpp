#include "adapters/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "adapters/parsers.hpp"

namespace sao::adapters {
namespace {

// Opens `file` for reading: "" with `fd` open and `st` its status, or why not (nothing open).
std::string open_output(const std::filesystem::path& file, const std::filesystem::path& directory,
                        int& fd, struct stat& st) {
  if (!lies_inside(file, directory)) {
    return "resolves outside the run directory (through a symbolic link or \"..\")";
  }
  fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ELOOP) return "is a symbolic link: outputs are read only from regular files";
    return "missing (not written by the code)";
  }
  std::string why;
  if (::fstat(fd, &st) != 0) {
    why = std::string("cannot be read: ") + std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    why = S_ISFIFO(st.st_mode)  ? "is a FIFO, not a regular file"
          : S_ISDIR(st.st_mode) ? "is a directory, not a regular file"
                                : "is not a regular file (a device or socket)";
  }
  if (!why.empty()) {
    ::close(fd);
    fd = -1;
  }
  return why;
}

}  // namespace

std::string check_output_file(const std::filesystem::path& file,
                              const std::filesystem::path& directory) {
  int fd = -1;
  struct stat st {};
  const std::string why = open_output(file, directory, fd, st);
  if (fd >= 0) ::close(fd);
  return why;
}

std::string read_output_text(const std::filesystem::path& file,
                             const std::filesystem::path& directory, std::string& text) {
  int fd = -1;
  struct stat st {};
  if (std::string why = open_output(file, directory, fd, st); !why.empty()) return why;
  std::string why;
  if (st.st_size > kMaxOutputBytes) {
    why = "is " + std::to_string(st.st_size >> 20) + " MiB, over the limit of " +
          std::to_string(kMaxOutputBytes >> 20) + " MiB for an output file";
  } else {
    text.clear();
    text.reserve(static_cast<size_t>(st.st_size));
    char buffer[1 << 16];
    for (;;) {
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        why = std::string("cannot be read: ") + std::strerror(errno);
        break;
      }
      if (n == 0) break;
      if (static_cast<long long>(text.size()) + n > kMaxOutputBytes) {
        why = "grew over the limit of " + std::to_string(kMaxOutputBytes >> 20) +
              " MiB while being read";
        break;
      }
      text.append(buffer, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  return why;
}

}  // namespace sao::adapters
