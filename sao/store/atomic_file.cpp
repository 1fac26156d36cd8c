#include "sao/store/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace sao {
namespace {

// Writes all of `text` to fd: 0, or the errno of the failure (EIO for a write of nothing).
int write_all(int fd, std::string_view text) {
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    done += static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

void make_output_folder(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw FileWriteError("cannot create the output folder " + dir.string() + ": " + ec.message());
}

void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
  auto fail = [&](const char* what, int error) {
    throw FileWriteError(
        "cannot write " + path.string() + ": " + what + ": " + std::strerror(error) +
        (error == ENOSPC || error == EFBIG ? " (disk full or file size limit)" : "") +
        "; the previous file, if any, is unchanged");
  };
  // A device or a pipe (/dev/null, /dev/stdout, a FIFO) is written in place: a rename would
  // put a regular file where the device was.
  struct stat target {};
  if (::stat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode) && !S_ISDIR(target.st_mode)) {
    const int out = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (out < 0) fail("open", errno);
    if (const int error = write_all(out, text)) {
      ::close(out);
      fail("write", error);
    }
    if (::close(out) != 0) fail("close", errno);
    return;
  }
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : ".";
  std::string name(1, '.');  // a hidden temporary file beside the target
  name.append(path.filename().string()).append(".XXXXXX");
  std::string temp = (folder / name).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) fail("cannot create a temporary file in its folder", errno);
  auto discard = [&](const char* what, int error) {
    ::close(fd);
    ::unlink(temp.c_str());
    fail(what, error);
  };
  if (const int error = write_all(fd, text)) discard("write", error);
  if (::fchmod(fd, 0644) != 0) discard("chmod", errno);  // mkstemp makes it 0600
  if (::fsync(fd) != 0) discard("fsync", errno);
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    fail("close", error);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    fail("rename", error);
  }
}

}  // namespace sao
