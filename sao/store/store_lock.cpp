#include "sao/store/store_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "sao/store/store.hpp"

namespace sao {

int store_owner(const std::string& store_path) {
  const std::string lock = store_path + ".lock";
  const int fd = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;  // no lock file: no process has worked on it here
  int owner = 0;
  if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
    flock(fd, LOCK_UN);  // nobody holds it: no live process works on the store
  } else {
    owner = -1;
    char text[32] = {};
    if (::pread(fd, text, sizeof text - 1, 0) > 0) owner = std::max(-1, std::atoi(text));
    if (owner == 0) owner = -1;
  }
  ::close(fd);
  return owner;
}

StoreLock::StoreLock(const std::string& store_path) {
  const std::string lock = store_path + ".lock";
  fd_ = ::open(lock.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  int error = errno;  // the reason it cannot be made, not that of the read-only retry
  // A lock file this user may only read (another user's) still locks: flock needs no write.
  if (fd_ < 0 && error == EACCES) {
    fd_ = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0 && errno != ENOENT) error = errno;
  }
  if (fd_ < 0) {
    throw StoreIoError(lock + ": cannot create the lock file: " + std::strerror(error) +
                       " (a read-only folder? `sao status` and `sao report` can read the " +
                       "store, this command needs to write it)");
  }
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    fd_ = -1;
    const int owner = store_owner(store_path);
    if (owner == ::getpid()) {  // flock locks per open file: this process opened it before
      throw StoreBusyError(store_path +
                           ": busy, in use by this process (a session still open on it: close "
                           "it first, e.g. sao.Session.close() in Python)");
    }
    throw StoreBusyError(store_path + ": busy, in use by another sao process" +
                         (owner > 0 ? " (pid " + std::to_string(owner) + ")" : std::string()) +
                         "; try again when it has ended");
  }
  // The owner's pid in the lock file, for `sao status` (the lock itself says it is alive).
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, pid.data(), pid.size(), 0);
}

StoreLock::~StoreLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace sao
