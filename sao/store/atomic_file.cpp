#include "sao/store/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace sao {

void write_file_atomically(const std::filesystem::path& path, std::string_view text) {
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : ".";
  std::string name(1, '.');  // a hidden temporary file beside the target
  name.append(path.filename().string()).append(".XXXXXX");
  std::string temp = (folder / name).string();
  auto fail = [&](const char* what, int error) {
    throw FileWriteError(
        "cannot write " + path.string() + ": " + what + ": " + std::strerror(error) +
        (error == ENOSPC || error == EFBIG ? " (disk full or file size limit)" : "") +
        "; the previous file, if any, is unchanged");
  };
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) fail("cannot create a temporary file in its folder", errno);
  auto discard = [&](const char* what) {
    const int error = errno;
    ::close(fd);
    ::unlink(temp.c_str());
    fail(what, error);
  };
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) discard("write");
    done += static_cast<size_t>(n);
  }
  if (::fchmod(fd, 0644) != 0) discard("chmod");  // mkstemp makes it 0600
  if (::fsync(fd) != 0) discard("fsync");
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
