// restraint-sled DECK [-o HISTORIES] [-l LOG]: runs the sled test of the deck, writes the
// filtered histories (default restraint.out) and the log (default restraint.log).
// Exit status: 0 normal termination, 2 bad input or usage, 3 the solution failed or a file
// could not be written.
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include "restraint.hpp"

int main(int argc, char** argv) {
  std::string deck_file, out_file = "restraint.out", log_file = "restraint.log";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "-o" || arg == "-l") && i + 1 < argc) {
      (arg == "-o" ? out_file : log_file) = argv[++i];
    } else if (!arg.empty() && arg[0] != '-' && deck_file.empty()) {
      deck_file = arg;
    } else {
      std::cerr << "usage: restraint-sled DECK [-o HISTORIES] [-l LOG]\n";
      return 2;
    }
  }
  if (deck_file.empty()) {
    std::cerr << "usage: restraint-sled DECK [-o HISTORIES] [-l LOG]\n";
    return 2;
  }
  std::ifstream in(deck_file);
  if (!in) {
    std::cerr << "restraint-sled: cannot read " << deck_file << ": " << std::strerror(errno)
              << "\n";
    return 2;
  }
  restraint::Deck deck;
  try {
    deck = restraint::read_deck(in);
  } catch (const restraint::DeckError& e) {
    std::cerr << "restraint-sled: error in " << deck_file << ": " << e.what() << "\n";
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  restraint::Histories h;
  try {
    h = restraint::simulate(deck);
  } catch (const std::exception& e) {
    std::cerr << "restraint-sled: error termination: " << e.what() << "\n";
    return 3;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::ofstream out(out_file), log(log_file);
  if (out) restraint::write_histories(out, h);
  if (log) restraint::write_log(log, deck, h, seconds);
  if (!out || !log) {
    std::cerr << "restraint-sled: cannot write " << (!out ? out_file : log_file) << "\n";
    return 3;
  }
  return 0;
}
