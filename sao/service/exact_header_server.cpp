#include "sao/service/exact_header_server.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <iterator>

namespace sao::service {
namespace {

// Waits for `events` on `sock` for at most `milliseconds`: > 0 ready, 0 timed out, < 0 failed.
int wait_for(socket_t sock, short events, long long milliseconds) {
  pollfd p{sock, events, 0};
  const int timeout =
      static_cast<int>(std::clamp(milliseconds, 0LL, static_cast<long long>(INT_MAX)));
  int ready = 0;
  do {
    ready = ::poll(&p, 1, timeout);
  } while (ready < 0 && errno == EINTR);
  return ready;
}

long long milliseconds(time_t seconds, time_t microseconds) {
  return static_cast<long long>(seconds) * 1000 + static_cast<long long>(microseconds) / 1000;
}

// The peer has not closed the connection: nothing to read, or bytes still to read (an end of
// file reads as none).
bool peer_open(socket_t sock) {
  pollfd p{sock, POLLIN, 0};
  const int ready = ::poll(&p, 1, 0);
  if (ready == 0) return true;
  if (ready < 0 && errno == EBADF) return false;
  char byte = 0;
  return ::recv(sock, &byte, 1, MSG_PEEK) > 0;
}

// The numeric address and port of this end (`peer` false) or of the other end of `sock`.
void address_of(socket_t sock, bool peer, std::string& ip, int& port) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  auto* generic = reinterpret_cast<sockaddr*>(&address);
  if ((peer ? ::getpeername(sock, generic, &length) : ::getsockname(sock, generic, &length)) != 0) {
    return;
  }
  if (address.ss_family == AF_INET) {
    port = ntohs(reinterpret_cast<const sockaddr_in*>(&address)->sin_port);
  } else if (address.ss_family == AF_INET6) {
    port = ntohs(reinterpret_cast<const sockaddr_in6*>(&address)->sin6_port);
  } else {
    return;
  }
  std::array<char, NI_MAXHOST> host{};
  if (::getnameinfo(generic, length, host.data(), host.size(), nullptr, 0, NI_NUMERICHOST) == 0) {
    ip = host.data();
  }
}

// One request read from and answered on a connected socket, as the library's own stream does
// it (reads buffered, writes without SIGPIPE, the server's time-outs), keeping the bytes read
// until take_head(): the request line and the header lines, as they arrived.
class HeadKeepingStream final : public httplib::Stream {
 public:
  HeadKeepingStream(socket_t sock, long long read_ms, long long write_ms)
      : sock_(sock), read_ms_(read_ms), write_ms_(write_ms) {}

  bool is_readable() const override {
    return start_ < end_ || wait_for(sock_, POLLIN, read_ms_) > 0;
  }
  bool is_writable() const override {
    return wait_for(sock_, POLLOUT, write_ms_) > 0 && peer_open(sock_);
  }

  ssize_t read(char* ptr, size_t size) override {
    if (start_ == end_) {
      if (!is_readable()) return -1;
      // A large read (a body) goes straight to the caller; the head is read byte by byte.
      char* into = size >= buffer_.size() ? ptr : buffer_.data();
      const size_t room = size >= buffer_.size() ? size : buffer_.size();
      ssize_t n = 0;
      do {
        n = ::recv(sock_, into, room, 0);
      } while (n < 0 && errno == EINTR);
      if (n <= 0 || into == ptr) {
        if (n > 0) keep(ptr, static_cast<size_t>(n));
        return n;
      }
      start_ = 0;
      end_ = static_cast<size_t>(n);
    }
    const size_t n = std::min(size, end_ - start_);
    std::memcpy(ptr, buffer_.data() + start_, n);
    start_ += n;
    keep(ptr, n);
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    ssize_t n = 0;
    do {
      n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    address_of(sock_, true, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    address_of(sock_, false, ip, port);
  }
  socket_t socket() const override { return sock_; }

  // The bytes read so far (the request's head, when the library has just parsed it); nothing
  // more is kept. Empty when the head was larger than kept heads may be.
  std::string take_head() {
    keeping_ = false;
    return std::move(head_);
  }

 private:
  static constexpr size_t kMaxHead = 1 << 20;

  void keep(const char* ptr, size_t n) {
    if (!keeping_) return;
    if (head_.size() + n > kMaxHead) {  // unpaired headers then: none is trusted
      head_.clear();
      keeping_ = false;
      return;
    }
    head_.append(ptr, n);
  }

  socket_t sock_;
  long long read_ms_, write_ms_;
  std::array<char, 4096> buffer_{};
  size_t start_ = 0, end_ = 0;  // the unread part of buffer_
  std::string head_;
  bool keeping_ = true;
};

bool same_name(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

std::vector<std::string> raw_header_values(const std::string& head, const std::string& name) {
  std::vector<std::string> out;
  size_t newline = head.find('\n');  // the end of the request line
  while (newline != std::string::npos) {
    const size_t begin = newline + 1;
    newline = head.find('\n', begin);
    if (newline == std::string::npos) break;  // an unfinished line is no header
    size_t end = newline;
    if (end > begin && head[end - 1] == '\r') --end;
    if (end == begin) break;  // the blank line: the end of the head
    while (end > begin && (head[end - 1] == ' ' || head[end - 1] == '\t')) --end;
    const size_t colon = head.find(':', begin);
    if (colon == std::string::npos || colon >= end) continue;
    size_t value = colon + 1;
    while (value < end && (head[value] == ' ' || head[value] == '\t')) ++value;
    if (value == end) continue;  // an empty value: the library adds no header
    if (same_name(head.substr(begin, colon - begin), name)) {
      out.push_back(head.substr(value, end - value));
    }
  }
  return out;
}

void restore_exact_authorization(httplib::Request& request, const std::string& head) {
  const std::vector<std::string> raw = raw_header_values(head, "Authorization");
  const auto [first, last] = request.headers.equal_range("Authorization");
  bool paired = static_cast<size_t>(std::distance(first, last)) == raw.size();
  size_t i = 0;
  for (auto it = first; paired && it != last; ++it, ++i) {
    paired = httplib::detail::decode_url(raw[i], false) == it->second;
  }
  request.headers.erase("Authorization");
  if (!paired) return;
  for (const std::string& value : raw) request.headers.emplace("Authorization", value);
}

bool ExactHeaderServer::process_and_close_socket(socket_t sock) {
  // As the library serves a connection: requests while the server runs, each awaited for at
  // most the keep-alive time-out, at most keep_alive_max_count_ of them, the last one closing.
  const auto request_arrives = [&] {
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::seconds(keep_alive_timeout_sec_);
    while (svr_sock_ != INVALID_SOCKET) {
      const int ready = wait_for(sock, POLLIN, 50);  // slices: a stopped server is seen soon
      if (ready != 0) return ready > 0;
      if (std::chrono::steady_clock::now() > until) return false;
    }
    return false;
  };
  bool ok = false;
  for (size_t left = keep_alive_max_count_; left > 0 && request_arrives(); --left) {
    HeadKeepingStream stream(sock, milliseconds(read_timeout_sec_, read_timeout_usec_),
                             milliseconds(write_timeout_sec_, write_timeout_usec_));
    bool closed = false;
    ok = process_request(stream, left == 1, closed, [&stream](httplib::Request& request) {
      restore_exact_authorization(request, stream.take_head());
    });
    if (!ok || closed) break;
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return ok;
}

}  // namespace sao::service
