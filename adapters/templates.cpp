#include "adapters/templates.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace sao::adapters {
namespace {

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

}  // namespace

bool is_identifier(const std::string& name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) {
    return false;
  }
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

FieldFormat parse_format(const std::string& spec) {
  FieldFormat f;
  if (spec.empty()) return f;
  size_t i = 0;
  auto digits = [&](int& value) {
    const size_t start = i;
    value = 0;
    while (i < spec.size() && std::isdigit(static_cast<unsigned char>(spec[i]))) {
      value = value * 10 + (spec[i] - '0');
      if (value > 99) throw std::invalid_argument("format \"" + spec + "\": number above 99");
      ++i;
    }
    return i > start;
  };
  if (spec[i] == '-') {
    f.left = true;
    ++i;
  }
  digits(f.width);
  bool precision = false;
  if (i < spec.size() && spec[i] == '.') {
    ++i;
    if (!digits(f.precision)) {
      throw std::invalid_argument("format \"" + spec + "\": expected digits after '.'");
    }
    precision = true;
  }
  if (i + 1 != spec.size() || std::string("feEgGd").find(spec[i]) == std::string::npos) {
    throw std::invalid_argument("format \"" + spec +
                                "\": expected [-][width][.precision] and one of f, e, E, g, G, "
                                "d (e.g. 10.4e, .6f, 8d)");
  }
  f.conversion = spec[i];
  if (!precision) f.precision = f.conversion == 'd' ? 0 : 6;
  if (f.conversion == 'd' && precision) {
    throw std::invalid_argument("format \"" + spec + "\": d takes no precision");
  }
  return f;
}

bool format_value(double value, const FieldFormat& format, std::string& out, std::string& error) {
  if (!std::isfinite(value)) {
    error = "value is not finite";
    return false;
  }
  // The format string is assembled from validated numbers only.
  char spec[32];
  char buffer[512];
  int n = 0;
  if (format.conversion == 'd') {
    const double r = std::round(value);
    if (std::abs(r) > 9e15) {
      error = "value " + std::to_string(value) + " is too large for an integer field";
      return false;
    }
    std::snprintf(spec, sizeof spec, "%%%s%d.0f", format.left ? "-" : "", format.width);
    n = std::snprintf(buffer, sizeof buffer, spec, r == 0.0 ? 0.0 : r);
  } else {
    std::snprintf(spec, sizeof spec, "%%%s%d.%d%c", format.left ? "-" : "", format.width,
                  format.precision, format.conversion);
    n = std::snprintf(buffer, sizeof buffer, spec, value);
  }
  if (n < 0 || n >= static_cast<int>(sizeof buffer)) {
    error = "value cannot be formatted";
    return false;
  }
  if (format.width > 0 && n > format.width) {
    error = "value " + std::string(buffer) + " is wider than its field of " +
            std::to_string(format.width) + " characters";
    return false;
  }
  out.append(buffer, static_cast<size_t>(n));
  return true;
}

Template Template::parse(const std::string& text, const Delimiters& delimiters,
                         const std::string& origin) {
  if (delimiters.open.empty() || delimiters.close.empty()) {
    throw std::invalid_argument(origin + ": empty placeholder delimiter");
  }
  Template t;
  t.text_ = text;
  t.origin_ = origin;
  int line = 1;
  size_t line_start = 0, scanned = 0;
  auto locate = [&](size_t pos) {  // line and column of pos (pos only grows)
    for (; scanned < pos; ++scanned) {
      if (text[scanned] == '\n') {
        ++line;
        line_start = scanned + 1;
      }
    }
    return std::make_pair(line, static_cast<int>(pos - line_start) + 1);
  };
  size_t pos = 0;
  while ((pos = text.find(delimiters.open, pos)) != std::string::npos) {
    const auto [l, c] = locate(pos);
    const std::string where = origin + ":" + std::to_string(l) + ":" + std::to_string(c) + ": ";
    const size_t inner = pos + delimiters.open.size();
    const size_t close = text.find(delimiters.close, inner);
    const size_t newline = text.find('\n', inner);
    if (close == std::string::npos || (newline != std::string::npos && newline < close)) {
      throw std::invalid_argument(where + "placeholder opened by \"" + delimiters.open +
                                  "\" is not closed by \"" + delimiters.close +
                                  "\" on the same line (choose other delimiters if the code's "
                                  "input uses \"" +
                                  delimiters.open + "\")");
    }
    const std::string body = text.substr(inner, close - inner);
    const size_t colon = body.find(':');
    Placeholder p;
    p.name = trim(body.substr(0, colon));
    if (!is_identifier(p.name)) {
      throw std::invalid_argument(where + "placeholder \"" + body +
                                  "\": expected a name [A-Za-z_][A-Za-z0-9_]*, optionally "
                                  "followed by :format");
    }
    if (colon != std::string::npos) {
      try {
        p.format = parse_format(trim(body.substr(colon + 1)));
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(where + "placeholder \"" + p.name + "\": " + e.what());
      }
    }
    p.begin = pos;
    p.end = close + delimiters.close.size();
    p.line = l;
    p.column = c;
    t.placeholders_.push_back(p);
    pos = p.end;
  }
  return t;
}

bool Template::render(const std::vector<int>& slots, const std::vector<double>& values,
                      std::string& out, std::string& error) const {
  out.clear();
  out.reserve(text_.size() + 16 * placeholders_.size());
  size_t copied = 0;
  for (size_t k = 0; k < placeholders_.size(); ++k) {
    const Placeholder& p = placeholders_[k];
    out.append(text_, copied, p.begin - copied);
    std::string why;
    if (!format_value(values[static_cast<size_t>(slots[k])], p.format, out, why)) {
      error = origin_ + ":" + std::to_string(p.line) + ":" + std::to_string(p.column) +
              ": placeholder \"" + p.name + "\": " + why;
      return false;
    }
    copied = p.end;
  }
  out.append(text_, copied, std::string::npos);
  return true;
}

}  // namespace sao::adapters
