#include "sao/service/event_hub.hpp"

namespace sao::service {

void EventHub::publish(const std::string& type, const nlohmann::json& data) {
  publish_text(type, data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void EventHub::publish_text(const std::string& type, std::string data) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    events_.push_back({++last_, type, std::move(data)});
    while (events_.size() > kept_) events_.pop_front();
  }
  changed_.notify_all();
}

std::vector<Event> EventHub::wait_after(long long after, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait_for(lock, timeout, [&] { return closed_ || last_ > after; });
  std::vector<Event> out;
  if (closed_) return out;
  for (const Event& e : events_) {
    if (e.id > after) out.push_back(e);
  }
  return out;
}

long long EventHub::last_id() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_;
}

void EventHub::close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }
  changed_.notify_all();
}

bool EventHub::closed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return closed_;
}

std::string sse_text(const Event& event) {
  // The data is one line of JSON (dump() escapes newlines inside strings).
  return "id: " + std::to_string(event.id) + "\nevent: " + event.type + "\ndata: " + event.data +
         "\n\n";
}

}  // namespace sao::service
