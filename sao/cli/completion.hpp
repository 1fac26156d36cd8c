// `sao completion bash|zsh`: a shell completion script generated from the command line's own
// definition (the CLI11 app: its subcommands, their options and the values an option accepts),
// so that it cannot fall behind the commands. Installed as
// share/bash-completion/completions/sao (docs/installation.md).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace sao::cli {

// Adds the `completion` subcommand to `app`; it prints the script for the app as it stands
// when the command line is parsed (every subcommand added by then) and exits 0.
void add_completion_command(CLI::App& app);

// The bash completion script of `app` (function _sao, `complete -F _sao sao`). zsh reads the
// same script through bashcompinit.
std::string bash_completion(const CLI::App& app);

}  // namespace sao::cli
