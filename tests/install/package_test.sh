#!/usr/bin/env bash
# The Debian package as a user gets it (issue 26, item 7): cpack builds sao_<version>_<arch>.deb
# from BUILD_DIR, the package is unpacked into a fresh folder outside the source and build trees
# (dpkg -x: no root, no container) and its programs run from there, in a third folder, with a
# PATH holding only the unpacked usr/bin and the system's: the default study converges, a
# restraint study finds the installed crash code on PATH, every installed study passes
# `sao check` (CalculiX's only when ccx is installed), the completion and the schema are there.
# Usage: package_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
work=$(mktemp -d /tmp/sao-package-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

version=$("$build/sao" --version | awk '{print $2}')
(cd "$build" && cpack -G DEB -B "$work/deb" > "$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack"; }
deb=$(ls "$work"/deb/sao_"$version"_*.deb) || fail "no sao_${version}_*.deb in $(ls "$work/deb")"
echo "package    $(basename "$deb"), $(stat -c %s "$deb") bytes"

depends=$(dpkg-deb -f "$deb" Depends)
for lib in libglpk libnlopt libsundials-cvodes libsqlite3 libssl libcpp-httplib libre2 libcsv3 libhdf5-103-1; do
  [[ $depends == *"$lib"* ]] || fail "Depends lacks $lib: $depends"
done
echo "depends    $depends"

root="$work/root"
dpkg -x "$deb" "$root"
for f in usr/bin/sao usr/bin/restraint-sled usr/share/sao/study.schema.json \
         usr/share/bash-completion/completions/sao usr/share/doc/sao/README.md \
         usr/share/doc/sao/installation.md \
         usr/share/sao/problems/impact-absorber/max-acceleration.json; do
  [ -e "$root/$f" ] || fail "$f is not in the package"
done
if readelf -d "$root/usr/bin/sao" | grep -Eq 'RPATH|RUNPATH'; then
  fail "usr/bin/sao keeps a run path: $(readelf -d "$root/usr/bin/sao" | grep -E 'RPATH|RUNPATH')"
fi
if grep -q "complete -o default -F _sao sao" "$root/usr/share/bash-completion/completions/sao"; then
  echo "completion usr/share/bash-completion/completions/sao"
else
  fail "the installed completion script is not sao's"
fi

# Run from a third folder, with the unpacked programs first on PATH; no path into the
# source or build tree is given to them.
run="$work/run"
mkdir -p "$run"
cd "$run"
export PATH="$root/usr/bin:/usr/bin:/bin"
[ "$(command -v sao)" = "$root/usr/bin/sao" ] || fail "PATH finds $(command -v sao)"
[ "$(sao --version)" = "sao $version" ] || fail "sao --version says $(sao --version)"
share="$root/usr/share/sao/problems"
rc=0
sao run "$share/impact-absorber/max-acceleration.json" --out "$run/default" > "$work/run.log" 2>&1 || rc=$?
cat "$work/run.log"
[ "$rc" -eq 0 ] || fail "sao run of the default study: exit $rc"
grep -Eq "status +converged" "$work/run.log" || fail "the default study did not converge"
[ -s "$run/default/result.json" ] && [ -s "$run/default/study.sqlite" ] ||
  fail "no result.json or study.sqlite in $run/default"
sao evaluate "$share/vehicle-restraint/two-variables.json" > "$work/restraint.log" ||
  { cat "$work/restraint.log"; fail "the installed restraint study (restraint-sled on PATH)"; }
grep -q "objective" "$work/restraint.log" || fail "sao evaluate printed no objective"
echo "restraint  evaluated with $(command -v restraint-sled)"
checked=0
for study in "$share"/*/*.json; do
  case "$study" in
    */suite/optima.json) continue ;;  # the suite's manifest, not a study
    */python-absorber/*)  # the embedded Python (a build with SAO_PYTHON) and NumPy (docs/python.md)
      [[ $depends == *libpython3* ]] && /usr/bin/python3 -c 'import numpy' 2> /dev/null ||
        { echo "skipped    $study (this sao has no Python, or there is no NumPy)"; continue; } ;;
    */cantilever-calculix/*) command -v ccx > /dev/null || { echo "skipped    $study (no ccx)"; continue; } ;;
  esac
  sao check "$study" > /dev/null || fail "sao check $study"
  checked=$((checked + 1))
done
echo "checked    $checked installed studies"
# The runs above were given paths under $work only (mktemp in /tmp), never the trees the package
# came from.
[[ $run != "$source_dir"* && $run != "$build"* ]] || fail "the run folder lies in the source tree"
echo "package test passed"
