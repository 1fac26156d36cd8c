#include "sao/service/service.hpp"

// httplib.h comes through it (with the macro _res of <resolv.h>, a name in Eigen, undone).
#include <arpa/inet.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <type_traits>

#include "sao/report/chart.hpp"
#include "sao/report/metamodel_report.hpp"
#include "sao/service/api_error.hpp"
#include "sao/service/exact_header_server.hpp"
#include "sao/service/study_registry.hpp"

namespace sao::service {

bool is_loopback(const std::string& address) {
  if (address == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, address.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, address.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

std::string check_options(const ServiceOptions& options) {
  if (options.token.empty() && !is_loopback(options.bind)) {
    return "--bind " + options.bind +
           " is reachable from other machines: give --token TOKEN (every API request then "
           "needs \"Authorization: Bearer TOKEN\"), or bind 127.0.0.1";
  }
  for (const char c : options.token) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return "--token: a control character is not allowed in a token";
  }
  if (options.port < 0 || options.port > 65535) {
    return "--port " + std::to_string(options.port) + ": expected 0..65535";
  }
  return {};
}

namespace {

using httplib::Request;
using httplib::Response;
using Handler = std::function<void(const Request&, Response&)>;

void reply(Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  // Invalid UTF-8 (a request's bytes quoted in a message) replaced, not a throw.
  res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                  "application/json");
}

// An ordered answer (a study's status, a step: designs in study order) keeps its key order.
// (A template, so that a braced list still makes the plain answer above.)
template <class Ordered, std::enable_if_t<std::is_same_v<Ordered, nlohmann::ordered_json>, int> = 0>
void reply(Response& res, int status, const Ordered& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace),
                  "application/json");
}

// Equal tokens, byte for byte and length for length (a NUL and what follows it, or any other
// trailing byte, makes another token), in time that does not depend on where they differ nor
// on their lengths: the digests of both are compared, and so are the lengths, without a branch
// on either before the end. A token holding a control character is never equal (--token takes
// printable ones only: check_options).
bool same_token(const std::string& given, const std::string& expected) {
  unsigned char a[SHA256_DIGEST_LENGTH], b[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(given.data()), given.size(), a);
  SHA256(reinterpret_cast<const unsigned char*>(expected.data()), expected.size(), b);
  unsigned control = 0;
  for (const char c : given) {
    const auto u = static_cast<unsigned char>(c);
    control |= static_cast<unsigned>(u < 0x20 || u == 0x7f);
  }
  const unsigned same_length = static_cast<unsigned>(given.size() == expected.size());
  const unsigned same_digest = static_cast<unsigned>(CRYPTO_memcmp(a, b, sizeof a) == 0);
  return (same_digest & same_length & (control ^ 1u)) == 1u;
}

// The message of an error the server found before any handler (unknown path, body too large).
std::string status_text(int status) {
  switch (status) {
    case 400:
      return "bad request";
    case 404:
      return "not found: the API is under /api/studies (docs/service.md)";
    case 413:
      return "request body too large (more than the service's limit)";
    case 414:
      return "request URI too long";
    default:
      return "HTTP status " + std::to_string(status);
  }
}

const char* content_type(const std::string& path) {
  if (path.ends_with(".html")) return "text/html; charset=utf-8";
  if (path.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (path.ends_with(".css")) return "text/css; charset=utf-8";
  if (path.ends_with(".svg")) return "image/svg+xml";
  return "application/octet-stream";
}

long query_number(const Request& req, const char* key, long fallback, long lo, long hi) {
  if (!req.has_param(key)) return fallback;
  const std::string text = req.get_param_value(key);
  long value = 0;
  size_t used = 0;
  try {
    value = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || value < lo || value > hi) {
    throw ApiError(400, std::string(key) + ": expected an integer in " + std::to_string(lo) + ".." +
                            std::to_string(hi));
  }
  return value;
}

// Every value of a query key, each split at commas: ?models=linear,kriging or
// ?response=a&response=b (empty parts dropped).
std::vector<std::string> query_list(const Request& req, const char* key) {
  std::vector<std::string> out;
  for (size_t k = 0; k < req.get_param_value_count(key); ++k) {
    const std::string text = req.get_param_value(key, k);
    size_t start = 0;
    while (start <= text.size()) {
      const size_t comma = std::min(text.find(',', start), text.size());
      if (comma > start) out.push_back(text.substr(start, comma - start));
      start = comma + 1;
    }
  }
  return out;
}

// `sao metamodel DIR`'s options as query parameters: models, response, sobol_model,
// sobol_samples, seed.
report::MetamodelRequest metamodel_request(const Request& req) {
  report::MetamodelRequest request;
  request.models = query_list(req, "models");
  request.responses = query_list(req, "response");
  if (req.has_param("sobol_model")) request.sobol_model = req.get_param_value("sobol_model");
  request.sobol_samples =
      static_cast<int>(query_number(req, "sobol_samples", request.sobol_samples, 64, 1L << 22));
  request.seed =
      static_cast<std::uint32_t>(query_number(req, "seed", request.seed, 0, 4294967295L));
  return request;
}

}  // namespace

class Service::Impl {
 public:
  explicit Impl(const ServiceOptions& options)
      : options_(options), registry_(options.data, options.allow_external) {
    const int threads = options.threads;
    server_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    server_.set_payload_max_length(options.max_body);
    // Pollers keep their connection: a new one per few requests overflows the listen queue
    // (its SYN then waits a second for the retry) when many clients reconnect at once.
    server_.set_keep_alive_max_count(1000);
    // A response is written in parts (headers, body): without TCP_NODELAY the second waits for
    // the client's delayed ACK (some 40 ms) on a kept-alive connection.
    server_.set_tcp_nodelay(true);
    // The listening socket, to raise its backlog after binding (bind()); the library's own
    // options (address reuse) are kept.
    server_.set_socket_options([this](socket_t sock) {
      httplib::default_socket_options(sock);
      listening_socket_ = sock;
    });
    server_.set_error_handler([](const Request& req, Response& res) {
      if (!res.body.empty()) return;
      // cpp-httplib refuses a body-carrying method without a length (curl -X POST without -d
      // sends none) before any handler: say so rather than "bad request".
      if (res.status == 400 && (req.method == "POST" || req.method == "PATCH") &&
          !req.has_header("Content-Length") && !req.has_header("Transfer-Encoding")) {
        reply(res, 400,
              {{"message", req.method + " needs a Content-Length header, even for an empty body "
                                        "(curl: -d '' or -d '{}')"}});
        return;
      }
      reply(res, res.status, {{"message", status_text(res.status)}});
    });
    server_.set_exception_handler([](const Request&, Response& res, std::exception_ptr error) {
      try {
        std::rethrow_exception(error);
      } catch (...) {
        const auto [status, body] = current_error();
        reply(res, status, body);
      }
    });
    server_.set_pre_routing_handler(
        [this](const Request& req, Response& res) { return authorise(req, res); });
    add_pages();
    add_collection();
    add_study_routes();
    add_actions();
  }

  int bind() {
    port_ = options_.port == 0
                ? server_.bind_to_any_port(options_.bind)
                : (server_.bind_to_port(options_.bind, options_.port) ? options_.port : -1);
    if (port_ < 0) {
      throw std::runtime_error("cannot listen on " + options_.bind + " port " +
                               std::to_string(options_.port) +
                               " (in use, or not an address of this machine)");
    }
    // cpp-httplib listens with a backlog of 5 (CPPHTTPLIB_LISTEN_BACKLOG, compiled into Debian's
    // libcpp-httplib, so defining the macro here would change nothing): a burst of connects
    // overflowed it (3 % of 200 simultaneous ones were reset). Listening again on the bound
    // socket sets the backlog to the system's maximum (net.core.somaxconn).
    if (listening_socket_ == INVALID_SOCKET || ::listen(listening_socket_, SOMAXCONN) != 0) {
      throw std::runtime_error("cannot set the listen backlog on " + options_.bind + " port " +
                               std::to_string(port_) + ": " + std::strerror(errno));
    }
    return port_;
  }
  void listen() { server_.listen_after_bind(); }
  void stop() {
    registry_.shutdown();
    server_.stop();
  }
  std::string url() const {
    const bool v6 = options_.bind.find(':') != std::string::npos;
    return "http://" + (v6 ? "[" + options_.bind + "]" : options_.bind) + ":" +
           std::to_string(port_) + "/";
  }

 private:
  httplib::Server::HandlerResponse authorise(const Request& req, Response& res) const {
    if (options_.token.empty() || !req.path.starts_with("/api/")) {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    // The header as received, byte for byte: not percent-decoded (ExactHeaderServer), and not
    // through Request::get_header_value, which goes through a C string and ends at a NUL
    // ("TOKEN\0garbage" read as "TOKEN"). Exactly one Authorization header.
    const auto [first, last] = req.headers.equal_range("Authorization");
    const bool one = first != last && std::next(first) == last;
    const std::string header = one ? first->second : std::string();
    const std::string prefix = "Bearer ";
    if (one && header.starts_with(prefix) &&
        same_token(header.substr(prefix.size()), options_.token)) {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    res.set_header("WWW-Authenticate", "Bearer");
    reply(res, 401, {{"message", "missing or wrong token: send \"Authorization: Bearer TOKEN\""}});
    return httplib::Server::HandlerResponse::Handled;
  }

  // Every method on `pattern`: those of `handlers`, the others 405 with the allowed ones.
  void route(const std::string& pattern, const std::map<std::string, Handler>& handlers) {
    std::string allowed;
    for (const auto& [method, handler] : handlers)
      allowed += (allowed.empty() ? "" : ", ") + method;
    auto make = [&](const std::string& method) -> Handler {
      const auto it = handlers.find(method);
      if (it == handlers.end()) {
        return [allowed, method](const Request&, Response& res) {
          res.set_header("Allow", allowed);
          reply(res, 405, {{"message", method + " is not allowed here; allowed: " + allowed}});
        };
      }
      const Handler handler = it->second;
      return [handler](const Request& req, Response& res) {
        try {
          handler(req, res);
        } catch (...) {
          const auto [status, body] = current_error();
          reply(res, status, body);
        }
      };
    };
    server_.Get(pattern, make("GET"));
    server_.Post(pattern, make("POST"));
    server_.Put(pattern, make("PUT"));
    server_.Patch(pattern, make("PATCH"));
    server_.Delete(pattern, make("DELETE"));
  }

  std::shared_ptr<StudyHost> host(const Request& req) const {
    const std::string id = req.matches[1];
    std::shared_ptr<StudyHost> found = registry_.find(id);
    if (!found) throw ApiError(404, "no study \"" + id.substr(0, 64) + "\"");
    return found;
  }

  void add_pages() {
    for (const char* path :
         {"/index.html", "/app.js", "/charts.js", "/style.css", "/chart.min.js"}) {
      const WebFile* asset = web_file(path);
      if (!asset) throw std::logic_error(std::string("the workbench lacks ") + path);
      const Handler page = [asset](const Request&, Response& res) {
        res.set_content(reinterpret_cast<const char*>(asset->data), asset->size,
                        content_type(asset->path));
        res.set_header(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'");
      };
      route(std::string(path) == "/index.html" ? "/" : path, {{"GET", page}});
    }
  }

  void add_collection() {
    route("/api/studies", {{"GET",
                            [this](const Request&, Response& res) {
                              nlohmann::json list = nlohmann::json::array();
                              for (const auto& h : registry_.all()) list.push_back(h->summary());
                              reply(res, 200, {{"studies", list}});
                            }},
                           {"POST", [this](const Request& req, Response& res) {
                              const std::shared_ptr<StudyHost> h =
                                  registry_.create(parse_body(req.body));
                              res.set_header("Location", "/api/studies/" + h->id());
                              reply(res, 201, {{"id", h->id()}});
                            }}});
  }

  void add_study_routes() {
    const std::string study = "/api/studies/([^/]+)";
    route(study, {{"GET", [this](const Request& req, Response& res) {
                     reply(res, 200, host(req)->status());
                   }}});
    route(study + "/analyses", {{"GET", [this](const Request& req, Response& res) {
                                   const long offset = query_number(req, "offset", 0, 0, 1L << 40);
                                   const long limit = query_number(req, "limit", 100, 1, 1000);
                                   reply(res, 200, host(req)->analyses(offset, limit));
                                 }}});
    route(study + "/branches", {{"GET", [this](const Request& req, Response& res) {
                                   reply(res, 200, host(req)->branches());
                                 }}});
    route(study + "/histories",
          {{"GET", [this](const Request& req, Response& res) {
              const long cycle = query_number(req, "cycle", 0, 1, 1L << 30);
              if (cycle == 0) throw ApiError(400, "cycle: required, e.g. ?cycle=1");
              const long branch = query_number(req, "branch", 0, 1, 1L << 30);
              reply(res, 200,
                    host(req)->histories(static_cast<int>(branch), static_cast<int>(cycle)));
            }}});
    route(study + "/charts",
          {{"GET", [this](const Request& req, Response& res) {
              const std::string view = req.has_param("view") ? req.get_param_value("view") : "";
              const long cycle = query_number(req, "cycle", 0, 1, 1L << 30);
              const long analysis = query_number(req, "analysis", -1, 0, 1L << 40);
              if (view == "histories" && cycle == 0 && analysis < 0) {
                throw ApiError(400,
                               "cycle: required with view=histories, e.g. ?cycle=1 (or "
                               "analysis=K, a stored analysis)");
              }
              const long branch = query_number(req, "branch", 0, 1, 1L << 30);
              StudyHost::ScatterChoice scatter;
              scatter.analysis = analysis;
              for (auto [key, to] :
                   {std::pair{"x", &scatter.x}, {"y", &scatter.y}, {"by", &scatter.by}}) {
                if (req.has_param(key)) *to = req.get_param_value(key);
              }
              reply(res, 200,
                    host(req)->charts(view, static_cast<int>(branch), static_cast<int>(cycle),
                                      scatter));
            }}});
    route(study + "/metamodels", {{"GET", [this](const Request& req, Response& res) {
                                     reply(res, 200, host(req)->metamodels(metamodel_request(req)));
                                   }}});
    route(study + "/pareto",
          {{"GET",
            [this](const Request& req, Response& res) { reply(res, 200, host(req)->pareto()); }},
           {"POST", [this](const Request& req, Response& res) {
              reply(res, 202, host(req)->start_pareto(parse_body(req.body)));
            }}});
    route(study + "/front-study",
          {{"POST", [this](const Request& req, Response& res) {
              const std::shared_ptr<StudyHost> h = host(req);
              nlohmann::json start = h->front_point_study(parse_body(req.body));
              const std::shared_ptr<StudyHost> made =
                  registry_.create_from(*h, std::move(start["study"]));
              res.set_header("Location", "/api/studies/" + made->id());
              reply(res, 201, {{"id", made->id()}, {"from", start["from"]}});
            }}});
    route(study + "/robust",
          {{"GET",
            [this](const Request& req, Response& res) { reply(res, 200, host(req)->robust()); }},
           {"POST", [this](const Request& req, Response& res) {
              reply(res, 202, host(req)->start_robust(parse_body(req.body)));
            }}});
    route(study + "/report", {{"GET", [this](const Request& req, Response& res) {
                                 res.set_content(host(req)->report(), "text/html; charset=utf-8");
                               }}});
    route(study + "/events",
          {{"GET", [this](const Request& req, Response& res) { events(req, res); }}});
  }

  void add_actions() {
    const std::string study = "/api/studies/([^/]+)";
    route(study + "/step", {{"POST", [this](const Request& req, Response& res) {
                               reply(res, 200, host(req)->step());
                             }}});
    route(study + "/run", {{"POST", [this](const Request& req, Response& res) {
                              host(req)->start_run();
                              reply(res, 202, {{"state", "running"}});
                            }}});
    route(study + "/doe", {{"POST", [this](const Request& req, Response& res) {
                              reply(res, 202, host(req)->start_doe(parse_body(req.body)));
                            }}});
    route(study + "/stop", {{"POST", [this](const Request& req, Response& res) {
                               if (!host(req)->stop())
                                 throw ApiError(
                                     409, "no run, DOE, front or robustness estimate under way");
                               reply(res, 202, {{"stopping", true}});
                             }}});
    route(study + "/settings", {{"PATCH", [this](const Request& req, Response& res) {
                                   reply(res, 200, host(req)->set(parse_body(req.body)));
                                 }}});
    route(study + "/restart", {{"POST", [this](const Request& req, Response& res) {
                                  const std::shared_ptr<StudyHost> h = host(req);
                                  const nlohmann::json body = parse_body(req.body);
                                  nlohmann::json admitted;
                                  if (body.contains("study") && !body["study"].is_null()) {
                                    admitted = registry_.admit(body["study"], *h);
                                  }
                                  reply(res, 201,
                                        h->restart(body, admitted, StudyRegistry::source_of(*h)));
                                }}});
  }

  // Server-sent events: every event after Last-Event-ID (or from now on), a comment every
  // half second when there is none: a closed connection is noticed then, and its thread freed.
  void events(const Request& req, Response& res) {
    const std::shared_ptr<StudyHost> h = host(req);
    long long after = h->events().last_id();
    if (req.has_header("Last-Event-ID")) {
      try {
        after = std::stoll(req.get_header_value("Last-Event-ID"));
      } catch (const std::exception&) {
        throw ApiError(400, "Last-Event-ID: expected an event id");
      }
    }
    // Each stream holds a thread of the server's pool: beyond half of it, refused, so that
    // the status and the actions stay served (kept-alive connections hold threads too).
    const auto slot = std::make_shared<StreamSlot>(open_streams_);
    if (slot->count > options_.threads / 2) {
      throw ApiError(503, "too many event streams open (" + std::to_string(slot->count - 1) +
                              "); poll GET /api/studies/ID instead, or try again later");
    }
    res.set_header("Cache-Control", "no-cache");
    res.set_header("X-Accel-Buffering", "no");
    bool first = true;
    res.set_chunked_content_provider(
        "text/event-stream", [h, after, first, slot](size_t, httplib::DataSink& sink) mutable {
          std::string text;
          if (first) {
            text = "retry: 2000\n: events of study " + h->id() + "\n\n";
            first = false;
          } else {
            const std::vector<Event> events =
                h->events().wait_after(after, std::chrono::milliseconds(500));
            if (h->events().closed()) {
              sink.done();
              return true;
            }
            for (const Event& e : events) {
              text += sse_text(e);
              after = e.id;
            }
            if (text.empty()) text = ": keep-alive\n\n";
          }
          return sink.write(text.data(), text.size());
        });
  }

  // One open event stream, counted while any copy of its provider lives.
  struct StreamSlot {
    std::atomic<int>& open;
    int count;
    explicit StreamSlot(std::atomic<int>& counter) : open(counter), count(++counter) {}
    ~StreamSlot() { --open; }
    StreamSlot(const StreamSlot&) = delete;
    StreamSlot& operator=(const StreamSlot&) = delete;
  };

  ServiceOptions options_;
  std::atomic<int> open_streams_{0};
  StudyRegistry registry_;
  ExactHeaderServer server_;  // Authorization headers as sent (exact_header_server.hpp)
  int port_ = -1;
  socket_t listening_socket_ = INVALID_SOCKET;  // set by the socket options, in bind()
};

Service::Service(const ServiceOptions& options) : impl_(std::make_unique<Impl>(options)) {}
Service::~Service() = default;
int Service::bind() {
  return impl_->bind();
}
void Service::listen() {
  impl_->listen();
}
void Service::stop() {
  impl_->stop();
}
std::string Service::url() const {
  return impl_->url();
}

}  // namespace sao::service
