// The rules of `sao serve` that keep it safe to run: the token, the refusal of a public
// address without one, the refusal of external-command studies, the body limit, and a clear
// JSON message with the right status for every malformed request.
#include <gtest/gtest.h>

#include <boost/asio.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "tests/service/service_support.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace sao::testing;

// A 4xx status with a JSON body holding a non-empty message.
void expect_error(const httplib::Result& r, int status, const std::string& words = {}) {
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, status) << r->body;
  const json body = json_of(r);
  ASSERT_TRUE(body.is_object()) << r->body;
  const std::string message = body.value("message", "");
  EXPECT_FALSE(message.empty()) << r->body;
  if (!words.empty()) {
    EXPECT_NE(message.find(words), std::string::npos) << message;
  }
}

TEST(ServiceSecurity, TokenIsRequiredOnTheApi) {
  const fs::path root = scratch_directory("test-service");
  ServerProcess server(root / "data", {"--token", "s3cret-token"});
  ASSERT_GT(server.port(), 0) << server.line();
  expect_error(server.client().Get("/api/studies"), 401, "token");
  expect_error(server.client("s3cret-tokem").Get("/api/studies"), 401, "token");
  expect_error(server.client("s3cret-token-longer").Get("/api/studies"), 401);
  expect_error(server.client().Post("/api/studies", "{}", "application/json"), 401);
  const auto ok = server.client("s3cret-token").Get("/api/studies");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(json_of(ok)["studies"], json::array());
  // The page holds no data: it is served without the token (it asks for it).
  const auto page = server.client().Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("<html"), std::string::npos);
}

TEST(ServiceSecurity, PublicAddressNeedsAToken) {
  const fs::path root = scratch_directory("test-service");
  const CommandOutput out = run_command(std::string(SAO_COMMAND) + " serve --bind 0.0.0.0 " +
                                        "--port 0 --data " + (root / "data").string() + " 2>&1");
  EXPECT_EQ(out.code, 2) << out.text;
  EXPECT_NE(out.text.find("--token"), std::string::npos) << out.text;
  EXPECT_FALSE(fs::exists(root / "data"));  // refused before anything was made
  // With a token it serves.
  ServerProcess server(root / "data", {"--bind", "0.0.0.0", "--token", "t"});
  EXPECT_GT(server.port(), 0) << server.line();
}

json external_study() {
  json study = json::parse(read_file(problem_file("slider-crank/path.json")));
  study["simulator"] = {{"type", "external"}, {"command", {"/bin/true"}}};
  return study;
}

// A plug-in loads a library of the study's choosing into the server: refused without
// --allow-external, before the library is looked up (docs/python.md).
TEST(ServiceSecurity, PluginStudiesAreRefusedUnlessAllowed) {
  const fs::path root = scratch_directory("test-service");
  ServerProcess server(root / "data");
  json study = json::parse(read_file(problem_file("plugin-absorber/max-acceleration.json")));
  study["simulator"]["library"] = "/tmp/anything.so";
  const auto r = server.client().Post("/api/studies", study.dump(), "application/json");
  expect_error(r, 403, "--allow-external");
  EXPECT_EQ(json_of(r)["errors"][0]["path"], "simulator.type");
  EXPECT_TRUE(fs::is_empty(root / "data"));
}

// A Python simulator runs Python code of the study's choosing in the server: refused without
// --allow-external, before anything is imported (docs/python.md).
TEST(ServiceSecurity, PythonStudiesAreRefusedUnlessAllowed) {
  const fs::path root = scratch_directory("test-service");
  ServerProcess server(root / "data");
  json study = json::parse(read_file(problem_file("python-absorber/max-acceleration.json")));
  study["files"] = {{"absorber.py", "raise SystemExit('imported')\n"}};
  const auto r = server.client().Post("/api/studies", study.dump(), "application/json");
  expect_error(r, 403, "--allow-external");
  EXPECT_EQ(json_of(r)["errors"][0]["path"], "simulator.type");
  EXPECT_TRUE(fs::is_empty(root / "data"));
}

TEST(ServiceSecurity, ExternalStudiesAreRefusedUnlessAllowed) {
  const fs::path root = scratch_directory("test-service");
  {
    ServerProcess server(root / "data");
    const auto r =
        server.client().Post("/api/studies", external_study().dump(), "application/json");
    expect_error(r, 403, "--allow-external");
    EXPECT_EQ(json_of(r)["errors"][0]["path"], "simulator.type");
    EXPECT_TRUE(fs::is_empty(root / "data"));  // nothing left behind
  }
  ServerProcess server(root / "data", {"--allow-external"});
  json outside = external_study();
  outside["simulator"]["allow_outside_input_files"] = true;
  const auto r1 = server.client().Post("/api/studies", outside.dump(), "application/json");
  expect_error(r1, 403);
  EXPECT_EQ(json_of(r1)["errors"][0]["path"], "simulator.allow_outside_input_files");
  json climbing = external_study();
  climbing["simulator"]["run_directory"] = "../../elsewhere";
  const auto r2 = server.client().Post("/api/studies", climbing.dump(), "application/json");
  expect_error(r2, 403);
  EXPECT_EQ(json_of(r2)["errors"][0]["path"], "simulator.run_directory");
  // Allowed, it reaches the loader (which finds the section incomplete: no responses).
  const auto r3 = server.client().Post("/api/studies", external_study().dump(), "application/json");
  expect_error(r3, 400);
  EXPECT_FALSE(json_of(r3)["errors"].empty()) << r3->body;
  EXPECT_TRUE(fs::is_empty(root / "data"));
}

// The reply to a request written as it is, on a connection of its own (the client library
// always adds a Content-Length; curl -X POST without -d does not).
std::string raw_request(int port, const std::string& text) {
  namespace asio = boost::asio;
  asio::io_context io;
  asio::ip::tcp::socket socket(io);
  socket.connect({asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)});
  asio::write(socket, asio::buffer(text));
  std::string reply;
  boost::system::error_code ec;  // end of file when the server closes: the whole reply read
  asio::read(socket, asio::dynamic_buffer(reply), ec);
  return reply;
}

// The status line of the answer to GET /api/studies with "Authorization: Bearer VALUE", the
// value written byte for byte (a NUL included).
std::string status_with_token(int port, const std::string& value) {
  const std::string reply = raw_request(port,
                                        "GET /api/studies HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                        "Authorization: Bearer " +
                                            value + "\r\nConnection: close\r\n\r\n");
  return reply.substr(0, reply.find("\r\n"));
}

// Only the token itself: with a NUL and bytes after it (accepted before), a byte more or less,
// another case, a control character: each 401.
TEST(ServiceSecurity, OnlyTheExactTokenIsAccepted) {
  const fs::path root = scratch_directory("test-service");
  ServerProcess server(root / "data", {"--token", "s3cret-token"});
  ASSERT_GT(server.port(), 0) << server.line();
  EXPECT_EQ(status_with_token(server.port(), "s3cret-token"), "HTTP/1.1 200 OK");
  using namespace std::string_literals;
  for (const std::string& near : {"s3cret-token\0garbage"s, "s3cret-token\0"s, "s3cret-token\x01"s,
                                  "s3cret-toke"s, "s3cret-tokenn"s, "3cret-token"s, "S3CRET-TOKEN"s,
                                  "s3cret-tokeN"s, "s3cret-token%00"s, "s3cret\0-token"s}) {
    std::string shown;
    for (const char c : near) shown += c == '\0' ? std::string("\\0") : std::string(1, c);
    EXPECT_EQ(status_with_token(server.port(), near), "HTTP/1.1 401 Unauthorized") << shown;
  }
}

// The token as it is sent, byte for byte: cpp-httplib percent-decodes header values, which let
// "s3cr%65t-token" in for "s3cret-token" and kept a token holding "%41" from being sent as it is.
TEST(ServiceSecurity, APercentEncodedTokenIsNotTheToken) {
  const fs::path root = scratch_directory("test-service");
  {
    ServerProcess server(root / "data", {"--token", "s3cret-token"});
    ASSERT_GT(server.port(), 0) << server.line();
    for (const std::string encoded : {"s3cr%65t-token", "%73%33%63%72%65%74%2d%74%6f%6b%65%6e",
                                      "s3cret%2Dtoken", "s3cret-toke%6E", "s3cret-tok%65n"}) {
      EXPECT_EQ(status_with_token(server.port(), encoded), "HTTP/1.1 401 Unauthorized") << encoded;
    }
    EXPECT_EQ(status_with_token(server.port(), "s3cret-token"), "HTTP/1.1 200 OK");
    // Header names without case, as HTTP has them; two headers are refused as before.
    const auto reply = [&](const std::string& headers) {
      const std::string r =
          raw_request(server.port(), "GET /api/studies HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers +
                                         "Connection: close\r\n\r\n");
      return r.substr(0, r.find("\r\n"));
    };
    EXPECT_EQ(reply("authorization: Bearer s3cret-token\r\n"), "HTTP/1.1 200 OK");
    EXPECT_EQ(reply("AUTHORIZATION:\tBearer s3cret-token \r\n"), "HTTP/1.1 200 OK");
    EXPECT_EQ(reply("Authorization: Bearer s3cret-token\r\nAuthorization: Bearer s3cret-token\r\n"),
              "HTTP/1.1 401 Unauthorized");
    EXPECT_EQ(reply("Authorization: Bearer s3cret%2dtoken\r\nX-A: %41\r\n"),
              "HTTP/1.1 401 Unauthorized");
  }
  // A token holding a percent sign is sent as it is (it was decoded into another before).
  ServerProcess server(root / "data", {"--token", "a%41b-token"});
  ASSERT_GT(server.port(), 0) << server.line();
  EXPECT_EQ(status_with_token(server.port(), "a%41b-token"), "HTTP/1.1 200 OK");
  EXPECT_EQ(status_with_token(server.port(), "aAb-token"), "HTTP/1.1 401 Unauthorized");
  EXPECT_EQ(status_with_token(server.port(), "a%2541b-token"), "HTTP/1.1 401 Unauthorized");
}

// 200 connections opened at once to the service, each then asking for the study list: every
// one connects at once and is answered, none reset. The listen backlog was cpp-httplib's 5:
// the connects beyond it waited for a SYN retransmission (a second or more) or were reset.
TEST(ServiceSecurity, ABurstOf200ConnectsIsAbsorbed) {
  namespace asio = boost::asio;
  using Clock = std::chrono::steady_clock;
  const fs::path root = scratch_directory("test-service");
  ServerProcess server(root / "data");
  ASSERT_GT(server.port(), 0) << server.line();
  constexpr int kConnections = 200;
  struct Connection {
    explicit Connection(asio::io_context& io) : socket(io) {}
    asio::ip::tcp::socket socket;
    std::string reply;
    double connect_seconds = -1.0;
  };
  asio::io_context io;
  const asio::ip::tcp::endpoint at(asio::ip::make_address("127.0.0.1"),
                                   static_cast<unsigned short>(server.port()));
  const std::string request =
      "GET /api/studies HTTP/1.1\r\nHost: 127.0.0.1\r\n"
      "Connection: close\r\n\r\n";
  std::vector<std::unique_ptr<Connection>> connections;
  std::vector<std::string> errors;
  int answered = 0;
  const auto start = Clock::now();
  for (int i = 0; i < kConnections; ++i) {  // every connect is started before any completes
    connections.push_back(std::make_unique<Connection>(io));
    Connection& c = *connections.back();
    c.socket.async_connect(at, [&, i](const boost::system::error_code& ec) {
      c.connect_seconds = std::chrono::duration<double>(Clock::now() - start).count();
      if (ec) {
        errors.push_back("connect " + std::to_string(i) + ": " + ec.message());
        return;
      }
      asio::async_write(
          c.socket, asio::buffer(request), [&, i](boost::system::error_code w, size_t) {
            if (w) {
              errors.push_back("write " + std::to_string(i) + ": " + w.message());
              return;
            }
            asio::async_read(
                c.socket, asio::dynamic_buffer(c.reply),
                [&, i](boost::system::error_code r, size_t) {
                  if (r && r != asio::error::eof) {
                    errors.push_back("read " + std::to_string(i) + ": " + r.message());
                  } else if (c.reply.rfind("HTTP/1.1 200", 0) == 0) {
                    ++answered;
                  } else {
                    errors.push_back("answer " + std::to_string(i) + ": " + c.reply.substr(0, 40));
                  }
                });
          });
    });
  }
  io.run_for(std::chrono::seconds(60));  // bounded: a stalled connection fails the test
  EXPECT_EQ(answered, kConnections);
  EXPECT_TRUE(errors.empty()) << errors.size() << " errors, the first: " << errors.front();
  double slowest = 0.0;
  for (const auto& c : connections) slowest = std::max(slowest, c->connect_seconds);
  // A refused SYN is retried after 1 s: a connect that slow did not fit in the backlog.
  EXPECT_LT(slowest, 0.9) << "the slowest of " << kConnections << " connects";
}

TEST(ServiceSecurity, APostWithoutALengthIsToldWhatIsMissing) {
  const fs::path root = scratch_directory("test-service");
  ServerProcess server(root / "data");
  ASSERT_GT(server.port(), 0) << server.line();
  const std::string reply =
      raw_request(server.port(),
                  "POST /api/studies/0123456789abcdef/step HTTP/1.1\r\nHost: localhost\r\n"
                  "Connection: close\r\n\r\n");
  EXPECT_NE(reply.find("HTTP/1.1 400"), std::string::npos) << reply;
  EXPECT_NE(reply.find("needs a Content-Length header"), std::string::npos) << reply;
  // With the header (curl -d ''), the request reaches the API.
  const std::string reached =
      raw_request(server.port(),
                  "POST /api/studies/0123456789abcdef/step HTTP/1.1\r\nHost: localhost\r\n"
                  "Content-Length: 0\r\nConnection: close\r\n\r\n");
  EXPECT_NE(reached.find("HTTP/1.1 404"), std::string::npos) << reached;
}

TEST(ServiceSecurity, BadRequestsGetAStatusAndAMessage) {
  const fs::path root = scratch_directory("test-service");
  ServerProcess server(root / "data", {"--max-body", "100000"});
  ASSERT_GT(server.port(), 0) << server.line();
  httplib::Client c = server.client();
  expect_error(c.Post("/api/studies", std::string(200000, ' '), "application/json"), 413);
  expect_error(c.Post("/api/studies", "{\"name\": ", "application/json"), 400, "not valid JSON");
  expect_error(c.Post("/api/studies", "[1, 2]", "application/json"), 400, "JSON object");
  // Bytes that are not UTF-8: the parser's message quotes them, and writing that message as
  // JSON threw (a 500, found by fuzzing); they are replaced in the answer.
  expect_error(c.Post("/api/studies", "\xff\xfe\xfd", "application/json"), 400, "not valid JSON");
  expect_error(c.Post("/api/studies", "{\"name\": \"\xff\"}", "application/json"), 400,
               "not valid JSON");
  expect_error(c.Get("/api/studies/0123456789abcdef"), 404, "no study");
  expect_error(c.Get("/api/studies/..%2F..%2Fetc"), 404);
  expect_error(c.Post("/api/studies/0123456789abcdef/step", "{}", "application/json"), 404);
  expect_error(c.Get("/api/nothing-here"), 404);
  const auto r = c.Delete("/api/studies");
  expect_error(r, 405, "not allowed");
  EXPECT_EQ(r->get_header_value("Allow"), "GET, POST");
}

// An invalid study: 400 with exactly the problems `sao check` names, each split into its JSON
// path and message.
TEST(ServiceSecurity, InvalidStudyGetsTheLoadersProblems) {
  const fs::path root = scratch_directory("test-service");
  ServerProcess server(root / "data");
  ASSERT_GT(server.port(), 0) << server.line();
  const std::string file = std::string(SAO_SOURCE_DIR) + "/tests/data/bad-study.json";
  const auto r = server.client().Post("/api/studies", read_file(file), "application/json");
  expect_error(r, 400);
  const CommandOutput check = run_command(std::string(SAO_COMMAND) + " check " + file + " 2>&1");
  EXPECT_EQ(check.code, 2);
  std::vector<std::string> expected;
  std::istringstream lines(check.text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  ", 0) == 0) expected.push_back(line.substr(2));
  }
  std::vector<std::string> got;
  const json body = json_of(r);
  for (const json& e : body["errors"]) {
    got.push_back(e["path"].get<std::string>() + ": " + e["message"].get<std::string>());
  }
  EXPECT_EQ(got, expected);
  EXPECT_EQ(got.size(), 3u);
  // A document nested a million levels deep (2 MB): refused with the study file's limit, and
  // the server lives on.
  const std::string deep = "{\"a\": " + std::string(1000000, '[') + std::string(1000000, ']') + "}";
  expect_error(server.client().Post("/api/studies", deep, "application/json"), 400,
               "nested more than 64 levels deep");
  EXPECT_EQ(server.client().Get("/api/studies")->status, 200);
  EXPECT_TRUE(fs::is_empty(root / "data"));
}

// An external study's template and support files, uploaded with it ("files"), are kept in its
// folder of the data directory; names that would climb out of it, or land on the service's
// own files or the run directory, are refused and nothing is left behind. The CalculiX
// cantilever (problems/cantilever-calculix, ccx from calculix-ccx) then runs from there.
TEST(ServiceSecurity, ExternalStudyFilesStayInItsFolder) {
  const fs::path root = scratch_directory("test-service");
  ServerProcess server(root / "data", {"--allow-external"});
  ASSERT_GT(server.port(), 0) << server.line();
  httplib::Client c = server.client();
  const std::string dir = std::string(SAO_SOURCE_DIR) + "/problems/cantilever-calculix/";
  json study = json::parse(read_file(dir + "mass.json"));
  // Creating a study checks that its program exists. Without ccx the files are still stored
  // and refused the same way, with a program every machine has in its place; only the run
  // at the end needs ccx.
  const bool have_ccx = run_command("command -v ccx >/dev/null").code == 0;
  if (!have_ccx) study["simulator"]["command"][0] = "true";
  const std::string tpl = read_file(dir + "beam.inp.tpl");
  auto with_files = [&](const json& files) {
    json s = study;
    s["files"] = files;
    return s.dump();
  };
  for (const std::string name :
       {"../beam.inp.tpl", "/tmp/beam.inp.tpl", "a/./b", "a//b", "", "study.sqlite",
        "study.sqlite.lock", "result.json", "sao-runs/beam.inp.tpl", "beam inp"}) {
    SCOPED_TRACE(name);
    const auto r = c.Post("/api/studies", with_files({{"beam.inp.tpl", tpl}, {name, "x"}}),
                          "application/json");
    expect_error(r, 400);
    EXPECT_EQ(json_of(r)["errors"][0]["path"], "files." + name) << r->body;
  }
  expect_error(c.Post("/api/studies", with_files({{"a", "x"}, {"a/b", "y"}}), "application/json"),
               400, "which is a file too");
  expect_error(
      c.Post("/api/studies", with_files({{"b.bin", {{"base64", "AB$="}}}}), "application/json"),
      400, "not valid base64");
  expect_error(c.Post("/api/studies", with_files({{"b.bin", 3}}), "application/json"), 400);
  json internal = json::parse(read_file(problem_file("slider-crank/path.json")));
  internal["files"] = {{"x.txt", "x"}};
  expect_error(c.Post("/api/studies", internal.dump(), "application/json"), 400,
               "only a study with an \"external\" or a \"python\" simulator");
  // Without its template the loader refuses the study (the template is read from the folder).
  expect_error(c.Post("/api/studies", study.dump(), "application/json"), 400);
  EXPECT_TRUE(fs::is_empty(root / "data"));

  // "AAH/YWJj" is the bytes 00 01 ff 61 62 63.
  const auto created =
      c.Post("/api/studies",
             with_files({{"beam.inp.tpl", tpl}, {"notes/raw.bin", {{"base64", "AAH/YWJj"}}}}),
             "application/json");
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 201) << created->body;
  const std::string id = json_of(created)["id"];
  const fs::path folder = root / "data" / id;
  EXPECT_EQ(read_file(folder / "beam.inp.tpl"), tpl);
  EXPECT_EQ(read_file(folder / "notes/raw.bin"), std::string("\x00\x01\xff"
                                                             "abc",
                                                             6));
  if (!have_ccx) {
    GTEST_SKIP() << "ccx (calculix-ccx, scripts/bootstrap) is not installed: the study is not run";
  }
  const auto step = c.Post("/api/studies/" + id + "/step", "{}", "application/json");
  ASSERT_TRUE(step);
  ASSERT_EQ(step->status, 200) << step->body;
  const json answer = json_of(step);
  EXPECT_EQ(answer["record"]["cycle"], 1);
  EXPECT_GT(answer["simulator_runs"].get<int>(), 0);
  EXPECT_EQ(answer["record"]["b0"], json({{"h", 40.0}, {"w", 20.0}}));
  // The analyses ran in the study's run directory, inside its folder.
  EXPECT_TRUE(fs::is_directory(folder / "sao-runs"));
  EXPECT_TRUE(fs::exists(folder / "result.json"));
}

}  // namespace
