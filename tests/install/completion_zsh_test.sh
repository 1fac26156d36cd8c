#!/usr/bin/env bash
# The zsh completion of `sao completion zsh` loads in zsh (zsh -f: no user configuration, with
# compinit) and completes: the script registers a completion for `sao`, and its function, run
# as zsh's bashcompinit runs it, offers after `sao` the subcommands `sao --help` lists and after
# `sao run --log` the levels. zsh comes from scripts/bootstrap. Usage: completion_zsh_test.sh SAO
set -euo pipefail
sao=$1
if ! command -v zsh > /dev/null; then
  echo "zsh is not installed (scripts/bootstrap installs it)"
  exit 1
fi
script=$(mktemp)
trap 'rm -f "$script"' EXIT
"$sao" completion zsh > "$script"
expected=$("$sao" --help | awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1}' | sort -u)
# In zsh: load compinit and the script, check the registration, then call the function the way
# bashcompinit's _bash_complete does (sh emulation: arrays from 0) for two command lines.
got=$(SCRIPT=$script zsh -f -c '
  autoload -U compinit && compinit -u -D
  source "$SCRIPT" || { echo "LOAD FAILED"; exit 1; }
  [[ -n ${_comps[sao]:-} ]] || { echo "NOT REGISTERED"; exit 1; }
  (( ${+functions[_sao]} )) || { echo "NO FUNCTION _sao"; exit 1; }
  offer() {
    emulate -L sh
    setopt kshglob noshglob braceexpand
    local -a COMP_WORDS COMPREPLY
    local COMP_CWORD COMP_LINE COMP_POINT
    COMP_WORDS=("$@")
    COMP_CWORD=$(( $# - 1 ))
    COMP_LINE="$*"
    COMP_POINT=${#COMP_LINE}
    _sao
    printf "%s\n" "${COMPREPLY[@]}"
  }
  echo "== subcommands"
  offer sao "" | sort -u
  echo "== levels"
  offer sao run --log "" | sort -u | tr "\n" " "
  echo
')
failed=0
subcommands=$(awk '/^== subcommands/ {on = 1; next} /^==/ {on = 0} on' <<< "$got")
levels=$(awk '/^== levels/ {getline; print}' <<< "$got")
if [ -z "$expected" ] || [ "$subcommands" != "$expected" ]; then
  echo "FAIL: in zsh, after 'sao' the completion offers"; echo "$got"; echo "but --help lists"; echo "$expected"
  failed=1
fi
if [ "$levels" != "debug error info trace warn " ]; then
  echo "FAIL: in zsh, sao run --log <TAB> offers '$levels'"
  failed=1
fi
[ "$failed" -eq 0 ] && echo "zsh completion: loads, registers _sao, $(echo "$expected" | wc -l) subcommands and the log levels"
exit "$failed"
