// The HTTP server of `sao serve`, with the Authorization header as the client sent it.
//
// cpp-httplib 0.11 (Debian's libcpp-httplib) percent-decodes the value of every request header
// while it parses the request head (detail::parse_header calls decode_url), and keeps no copy
// of the bytes received: "Authorization: Bearer s3cr%65t" reaches every handler as
// "Bearer s3cret", and a token holding "%41" could not be sent as it is. The decoded value does
// not tell which form was sent, so no check after parsing can refuse the encoded one.
//
// ExactHeaderServer serves each connection itself, through the one hook the library offers for
// it: Server::process_and_close_socket is virtual (its SSL server replaces it the same way) and
// Server::process_request, which parses and routes one request, is protected and takes a
// callback that runs between parsing and routing. The connection is read through a stream of
// this file that keeps the bytes of each request's head; the callback puts every
// Authorization header back as it was received (restore_exact_authorization). The rest is the
// library's: parsing, routing, keep-alive, time-outs, responses.
#pragma once

// httplib.h includes <resolv.h>, whose macro _res is a parameter name in Eigen's headers.
#include <httplib.h>
#undef _res

#include <string>
#include <vector>

namespace sao::service {

class ExactHeaderServer : public httplib::Server {
 private:
  bool process_and_close_socket(socket_t sock) override;
};

// The values of the header `name` (compared without case, as the library does) in a request
// head as received (its request line first, then lines "Key: value" ending in "\r\n" or "\n"),
// with the white space the library trims trimmed, and no other change; in order.
std::vector<std::string> raw_header_values(const std::string& head, const std::string& name);

// The Authorization headers of `request` (as the library decoded them) replaced by those of
// `head`, the bytes its head was read from. When the two do not pair up (another count, or a
// raw value that does not decode to the parsed one), every Authorization header is removed:
// the request is then unauthorised, never authorised on a guess.
void restore_exact_authorization(httplib::Request& request, const std::string& head);

}  // namespace sao::service
