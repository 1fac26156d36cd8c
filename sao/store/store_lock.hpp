// The lock that lets one process at a time work on a study store (STORE.lock next to it): an
// flock held while the process lives, with its pid written into the file for `sao status`. The
// lock goes with the process, so a killed run leaves none behind and a reused pid cannot fool it.
#pragma once

#include <string>

namespace sao {

// The process working on the store now, as its lock says: its pid; -1 when the lock is held but
// the pid unknown; 0 when no process holds it (a branch whose status reads "running" then
// belongs to a run that was killed or stopped: `sao run DIR` resumes it).
int store_owner(const std::string& store_path);

class StoreLock {
 public:
  // Takes the lock of `store_path` (creating STORE.lock); StoreIoError when the lock file cannot
  // be made (a read-only folder), StoreBusyError when another process holds it (naming its pid).
  explicit StoreLock(const std::string& store_path);
  ~StoreLock();
  StoreLock(const StoreLock&) = delete;
  StoreLock& operator=(const StoreLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace sao
