// The events of one study as the service streams them (server-sent events): analyses started
// and finished (BatchProgress), cycle records as they are stored, and changes of state
// (stepping, running, idle, settings, restart). Any number of listeners wait on one hub; the
// hub keeps the latest events so that a listener that reconnects with Last-Event-ID misses
// none of them (as long as they are still held).
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <vector>

namespace sao::service {

struct Event {
  long long id = 0;  // 1, 2, ... in the order published
  std::string type;  // "analyses", "cycle", "state", ...
  std::string data;  // one line of JSON
};

class EventHub {
 public:
  explicit EventHub(size_t kept = 1024) : kept_(kept) {}

  void publish(const std::string& type, const nlohmann::json& data);
  // An ordered document (a cycle record: its designs in study order) keeps its key order. (A
  // template, so that a braced list still makes the plain document above.)
  template <class Ordered,
            std::enable_if_t<std::is_same_v<Ordered, nlohmann::ordered_json>, int> = 0>
  void publish(const std::string& type, const Ordered& data) {
    publish_text(type, data.dump(-1, ' ', false, Ordered::error_handler_t::replace));
  }
  // The events after `after` (waiting up to `timeout` for one when there is none yet); empty on
  // timeout or once the hub is closed.
  std::vector<Event> wait_after(long long after, std::chrono::milliseconds timeout);
  long long last_id() const;
  // Wakes every listener and ends their streams (the server is stopping).
  void close();
  bool closed() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Event> events_;
  size_t kept_;
  void publish_text(const std::string& type, std::string data);
  long long last_ = 0;
  bool closed_ = false;
};

// An event in the text form of the event-stream format: "id: N\nevent: TYPE\ndata: JSON\n\n".
std::string sse_text(const Event& event);

}  // namespace sao::service
