#!/usr/bin/env bash
# scripts/bootstrap's parts (issue 26, item 8), read with --list (nothing installed): the core
# holds no browser, CalculiX or SLURM package; --with NAME adds exactly that part's; every part
# is in --with-optional, which scripts/test passes (scripts/run-default passes no part, only
# --target sao: it builds the sao program alone); an
# unknown part is a usage error (exit 2). Usage: bootstrap_test.sh SOURCE_DIR
set -u
root=$1
bootstrap=$root/scripts/bootstrap
failed=0
fail() { echo "FAIL: $*"; failed=1; }
core=$("$bootstrap" --list) || fail "--list exit $?"
all=$("$bootstrap" --list --with-optional) || fail "--list --with-optional exit $?"
declare -A parts=([browser]="chromium chromium-driver python3-selenium" [calculix]="calculix-ccx"
                  [slurm]="slurm-wlm munge slurmdbd mariadb-server" [simbody]="libsimbody-dev")
for part in "${!parts[@]}"; do
  with=$("$bootstrap" --list --with "$part") || fail "--with $part exit $?"
  added=$(comm -13 <(echo "$core" | sort) <(echo "$with" | sort) | tr '\n' ' ')
  for p in ${parts[$part]}; do
    grep -qx "$p" <<< "$core" && fail "the core installs $p (part $part)"
    grep -qx "$p" <<< "$with" || fail "--with $part does not install $p"
    grep -qx "$p" <<< "$all" || fail "--with-optional does not install $p"
  done
  echo "$part: $added"
done
for p in cmake libsundials-dev libglpk-dev python3-jsonschema; do
  grep -qx "$p" <<< "$core" || fail "the core lacks $p"
done
"$bootstrap" --list --with nosuchpart > /dev/null 2>&1
[ $? -eq 2 ] || fail "--with nosuchpart is not a usage error"
grep -q 'scripts/bootstrap" --with-optional' "$root/scripts/test" || fail "scripts/test does not pass --with-optional"
grep -q 'scripts/bootstrap" --target sao  *#\|scripts/bootstrap" --target sao$' "$root/scripts/run-default" ||
  fail "scripts/run-default passes other options than --target sao to bootstrap"
"$bootstrap" --list --target > /dev/null 2>&1
[ $? -eq 2 ] || fail "--target without a name is not a usage error"
[ $failed -eq 0 ] && echo "core: $(echo "$core" | wc -l) packages, every optional part outside it"
exit $failed
