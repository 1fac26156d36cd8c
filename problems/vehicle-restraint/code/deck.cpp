// The input deck of restraint-sled: keyword cards with `name value` lines.
#include <cmath>
#include <cstdlib>
#include <istream>
#include <map>
#include <set>
#include <sstream>

#include "restraint.hpp"

namespace restraint {

DeckError::DeckError(const std::string& message, int line)
    : std::runtime_error(line > 0 ? "line " + std::to_string(line) + ": " + message : message),
      line_(line) {}

namespace {

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

double number(const std::string& text, const std::string& name, int line) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v)) {
    throw DeckError(name + ": \"" + text + "\" is not a finite number", line);
  }
  return v;
}

// Where each `name` of each card goes.
std::map<std::string, std::map<std::string, double Deck::*>> fields() {
  return {{"CONTROL",
           {{"end_time", &Deck::end_time},
            {"time_step", &Deck::time_step},
            {"output_step", &Deck::output_step}}},
          {"PULSE", {{"delta_v", &Deck::delta_v}, {"duration", &Deck::duration}}},
          {"AIRBAG",
           {{"diameter", &Deck::diameter},
            {"vent_diameter", &Deck::vent_diameter},
            {"inflator_mass", &Deck::inflator_mass},
            {"fire_time", &Deck::fire_time}}},
          {"BELT",
           {{"webbing_strain", &Deck::webbing_strain},
            {"pretensioner", &Deck::pretensioner},
            {"load_limiter", &Deck::load_limiter},
            {"lock_stiffness", &Deck::lock_stiffness}}}};
}

void set_field(Deck& deck, const std::string& card, const std::string& line_text, int line,
               std::set<std::string>& given) {
  std::istringstream words(line_text);
  std::string name, value, extra;
  words >> name >> value;
  if (value.empty() || (words >> extra)) {
    throw DeckError("expected `name value` in *" + card + ", got \"" + line_text + "\"", line);
  }
  if (card == "AIRBAG" && name == "face_nodes") {
    const double v = number(value, name, line);
    if (v != std::floor(v) || v < 3 || v > 401) {
      throw DeckError("face_nodes: an integer in [3, 401], got " + value, line);
    }
    deck.face_nodes = static_cast<int>(v);
    return;
  }
  const auto all = fields();
  const auto& card_fields = all.at(card);
  const auto it = card_fields.find(name);
  if (it == card_fields.end()) {
    std::string known;
    for (const auto& [k, unused] : card_fields) known += (known.empty() ? "" : ", ") + k;
    if (card == "AIRBAG") known += ", face_nodes";
    throw DeckError("unknown parameter \"" + name + "\" in *" + card + " (known: " + known + ")",
                    line);
  }
  if (!given.insert(name).second) throw DeckError(name + " given twice", line);
  deck.*(it->second) = number(value, name, line);
}

}  // namespace

Deck read_deck(std::istream& in) {
  Deck deck;
  std::string card, text;
  std::set<std::string> given;
  bool ended = false, title_next = false;
  int line = 0;
  while (std::getline(in, text)) {
    ++line;
    text = trim(text);
    if (text.empty() || text[0] == '$') continue;
    if (ended) throw DeckError("text after *END", line);
    if (title_next) {
      deck.title = text;
      title_next = false;
      continue;
    }
    // `$` starts a comment, also after a card's name or a `name value` pair.
    text = trim(text.substr(0, text.find('$')));
    if (text[0] == '*') {
      card = trim(text.substr(1));
      if (card == "END") {
        ended = true;
      } else if (card == "TITLE") {
        title_next = true;
      } else if (!fields().count(card)) {
        throw DeckError(
            "unknown keyword *" + card + " (known: *TITLE, *CONTROL, *PULSE, *AIRBAG, *BELT, *END)",
            line);
      }
      continue;
    }
    if (card.empty()) throw DeckError("data before the first keyword: \"" + text + "\"", line);
    set_field(deck, card, text, line, given);
  }
  if (!ended) throw DeckError("the deck ends without *END (truncated?)", line);
  for (const char* required : {"diameter", "vent_diameter", "inflator_mass", "webbing_strain",
                               "pretensioner", "load_limiter"}) {
    if (!given.count(required)) throw DeckError(std::string("missing ") + required, 0);
  }
  check_deck(deck);
  return deck;
}

void check_deck(const Deck& d) {
  auto require = [](bool ok, const std::string& what) {
    if (!ok) throw DeckError(what, 0);
  };
  require(d.time_step > 0 && d.time_step <= 5e-5,
          "time_step must lie in (0, 5e-5] s (explicit stability)");
  require(d.end_time >= 0.05 && d.end_time <= 0.5, "end_time must lie in [0.05, 0.5] s");
  require(d.output_step >= d.time_step && d.output_step <= 1e-3,
          "output_step must lie in [time_step, 1e-3] s");
  require(std::abs(d.output_step / d.time_step - std::round(d.output_step / d.time_step)) < 1e-6,
          "output_step must be a whole multiple of time_step");
  require(d.delta_v > 0 && d.delta_v <= 40, "delta_v must lie in (0, 40] m/s");
  require(d.duration >= 0.02 && d.duration <= 0.3, "duration must lie in [0.02, 0.3] s");
  require(d.diameter >= 0.3 && d.diameter <= 1.2, "diameter must lie in [0.3, 1.2] m");
  require(d.vent_diameter >= 0 && d.vent_diameter <= 0.25 * d.diameter,
          "vent_diameter must lie in [0, diameter/4]");
  require(d.inflator_mass > 0 && d.inflator_mass <= 0.2, "inflator_mass must lie in (0, 0.2] kg");
  require(d.fire_time >= 0 && d.fire_time < d.end_time, "fire_time must lie in [0, end_time)");
  require(d.webbing_strain >= 0.01 && d.webbing_strain <= 0.5,
          "webbing_strain must lie in [0.01, 0.5]");
  require(d.pretensioner >= 0 && d.pretensioner <= 0.3, "pretensioner must lie in [0, 0.3] m");
  require(d.load_limiter >= 0.5 && d.load_limiter <= 20, "load_limiter must lie in [0.5, 20] kN");
  require(d.lock_stiffness >= 1e5 && d.lock_stiffness <= 1e8,
          "lock_stiffness must lie in [1e5, 1e8] N/m");
}

}  // namespace restraint
