#!/usr/bin/env bash
# The bash completion of `sao completion bash` against the command line itself: every
# subcommand `sao --help` lists is completed after `sao`, nothing else is, and every option
# `sao SUB --help` lists is completed after `sao SUB -`; an option with a fixed set of
# values (--log) completes to those values. Usage: completion_test.sh SAO
set -euo pipefail
sao=$1
script=$(mktemp)
trap 'rm -f "$script"' EXIT
"$sao" completion bash > "$script"
# shellcheck disable=SC1090
source "$script"

complete_words() {  # the words bash offers for the command line "$@" (the last one being typed)
  COMP_WORDS=("$@")
  COMP_CWORD=$(($# - 1))
  COMPREPLY=()
  _sao
  printf '%s\n' "${COMPREPLY[@]}" | sort -u
}
# The subcommands of a --help text: the lines under "Subcommands:".
help_subcommands() { awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1}' | sort -u; }
# The options of a --help text: -x and --long names of the lines under "Options:".
help_options() {
  awk '/^Options:/ {on = 1; next} /^[A-Z]/ {on = 0} on && /^  -/ {print $1}' |
    tr ',' '\n' | sed 's/\[.*//' | grep '^-' | sort -u
}

failed=0
expected=$("$sao" --help | help_subcommands)
got=$(complete_words sao "")
if [ -z "$expected" ] || [ "$expected" != "$got" ]; then
  echo "FAIL: after 'sao' the completion offers"; echo "$got"; echo "but --help lists"; echo "$expected"
  failed=1
fi
for sub in $expected; do
  options=$("$sao" "$sub" --help | help_options)
  offered=$(complete_words sao "$sub" -)
  missing=$(comm -23 <(echo "$options") <(echo "$offered"))
  if [ -z "$options" ] || [ -n "$missing" ]; then
    echo "FAIL: sao $sub -: not completed: $missing"
    failed=1
  else
    echo "sao $sub: the $(echo "$options" | wc -l) option(s) of its --help all completed"
  fi
done
levels=$(complete_words sao run --log "" | tr '\n' ' ')
if [ "$levels" != "debug error info trace warn " ]; then
  echo "FAIL: sao run --log <TAB> offers '$levels'"
  failed=1
fi
[ "$failed" -eq 0 ] && echo "completion: $(echo "$expected" | wc -l) subcommands, as --help lists them"
exit "$failed"
