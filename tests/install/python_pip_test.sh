#!/usr/bin/env bash
# The Python package installed as a Python package (docs/python.md, "Building and importing"),
# offline as on this machine and in CI: pip's isolated build gets setuptools and wheel from
# Debian's /usr/share/python-wheels, NumPy and pandas are Debian's. Every study runs in a fresh
# venv, from a scratch folder outside the repository, with the checks of python_pip_study.py.
#   1. Debian's python3: a venv with --system-site-packages, `pip install ./sao/python` from the
#      repository's root; the module is BUILD_DIR's (reused: no CMake tree configured here).
#   2. Another interpreter of Debian's ABI (pyenv's 3.11, ...) when there is one: its venv cannot
#      see Debian's NumPy and pandas, and this machine cannot fetch them from PyPI, so a .pth
#      file in the venv's site-packages adds /usr/lib/python3/dist-packages to its path.
#   3. `pip wheel --no-deps -w DIR ./sao/python`, the wheel installed into a third venv (no source
#      tree involved) and the internal simulator's study run from it.
# The source tree is as git had it before (no byproduct outside build/). Skipped (exit 77) only
# when the build has no Python module (SAO_PYTHON OFF) or Debian's python3 cannot make venvs.
# Usage: python_pip_test.sh BUILD_DIR SOURCE_DIR SAO_PYTHON
set -euo pipefail
build=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
sao_python=$3
debian=/usr/bin/python3
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

case "${sao_python^^}" in
  ON | 1 | YES | TRUE) ;;
  *) if [ -f /usr/lib/cmake/pybind11/pybind11Config.cmake ]; then
       skip "$build was configured with -DSAO_PYTHON=OFF: no Python module to install"
     fi
     skip "no pybind11 (pybind11-dev is not installed: scripts/bootstrap): no Python module" ;;
esac
"$debian" -c 'import ensurepip, venv; ensurepip.version()' 2> /dev/null ||
  skip "$debian cannot make venvs: python3-venv is not installed (scripts/bootstrap)"
for wheel in setuptools wheel; do
  compgen -G "/usr/share/python-wheels/$wheel-*.whl" > /dev/null ||
    fail "no $wheel wheel in /usr/share/python-wheels: python3-$wheel-whl is missing (scripts/bootstrap)"
done
"$debian" -c 'import numpy, pandas' 2> /dev/null ||
  fail "$debian lacks numpy or pandas: python3-numpy, python3-pandas (scripts/bootstrap)"

work=$(mktemp -d /tmp/sao-pip-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/run"
export PIP_NO_INDEX=1 PIP_FIND_LINKS=/usr/share/python-wheels PIP_DISABLE_PIP_VERSION_CHECK=1
export PIP_NO_CACHE_DIR=1  # nothing written to the home folder
unset PYTHONPATH PYTHONHOME PIP_REQUIRE_VIRTUALENV
# The module is BUILD_DIR's: found by setup.py itself when it is the repository's build/ (the
# README's tree), named by SAO_BUILD_DIR otherwise (ctest of another tree).
if [ "$build" = "$source_dir/build" ]; then
  unset SAO_BUILD_DIR
  chosen="sao setup: CMake tree $build (reused"
else
  export SAO_BUILD_DIR=$build
  chosen="sao setup: CMake tree $build (SAO_BUILD_DIR)"
fi
git_status() { git -C "$source_dir" status --porcelain 2> /dev/null || true; }
status_before=$(git_status)
started=$EPOCHREALTIME
lap() {
  awk -v what="$1" -v t0="$started" -v t1="$EPOCHREALTIME" \
    'BEGIN { printf "time       %.1f s after %s\n", t1 - t0, what }'
}

# pip install ./sao/python from the repository's root with VENV's pip, its log in LOG.
pip_install() {
  local venv=$1 log=$2
  (cd "$source_dir" && "$venv/bin/pip" install -v ./sao/python) > "$log" 2>&1 ||
    { cat "$log"; fail "pip install ./sao/python with $venv/bin/pip"; }
  grep -qF "$chosen" "$log" ||
    { cat "$log"; fail "setup.py did not use $build (expected: $chosen)"; }
  ! grep -q "sao setup: configuring" "$log" ||
    { cat "$log"; fail "setup.py configured a CMake tree"; }
}
# STUDY run by VENV's python from the scratch folder (python_pip_study.py).
run_study() {
  (cd "$work/run" && "$1/bin/python" - "$1" "$source_dir/problems/$2" "$source_dir" \
    < "$source_dir/tests/install/python_pip_study.py") || fail "the study in $1"
}

# 1. Debian's python3.
"$debian" -m venv --system-site-packages "$work/debian"
pip_install "$work/debian" "$work/debian.log"
grep -F "sao setup: CMake tree" "$work/debian.log" | sed 's/^ */setup.py   /'
run_study "$work/debian" python-absorber/max-acceleration.json
lap "Debian's python3"

# 2. Another interpreter with Debian's extension suffix (the same CPython ABI): the user's
#    python3 on PATH first, then pyenv's versions. SAO_TEST_OTHER_PYTHON names one.
suffix() { "$1" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2> /dev/null; }
other=""
debian_real=$(readlink -f "$debian")
for candidate in "${SAO_TEST_OTHER_PYTHON:-}" \
    "$(python3 -c 'import sys; print(sys.executable)' 2> /dev/null || true)" \
    "${PYENV_ROOT:-${HOME:-/root}/.pyenv}"/versions/*/bin/python3; do
  [ -x "$candidate" ] && [ "$(readlink -f "$candidate")" != "$debian_real" ] || continue
  [ "$(suffix "$candidate")" = "$(suffix "$debian")" ] || continue
  "$candidate" -c 'import ensurepip, venv; ensurepip.version()' 2> /dev/null || continue
  other=$candidate
  break
done
if [ -n "$other" ]; then
  "$other" -m venv "$work/other"
  purelib=$("$work/other/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  echo /usr/lib/python3/dist-packages > "$purelib/debian-dist-packages.pth"
  pip_install "$work/other" "$work/other.log"
  run_study "$work/other" python-absorber/max-acceleration.json
  base=$("$work/other/bin/python" -c 'import sys; print(sys.base_prefix)')
  [ "$(readlink -f "$base")" = "$(readlink -f "$("$other" -c 'import sys; print(sys.prefix)')")" ] ||
    fail "the venv's base is $base, not $other's"
  lap "$other"
else
  echo "other      no interpreter but $debian with its extension suffix $(suffix "$debian"): not run"
fi

# 3. A wheel, installed elsewhere.
(cd "$source_dir" && "$work/debian/bin/pip" wheel --no-deps -w "$work/wheels" ./sao/python) \
  > "$work/wheel.log" 2>&1 || { cat "$work/wheel.log"; fail "pip wheel ./sao/python"; }
version=$(sed -n 's/^project(sao VERSION \([0-9.]*\).*/\1/p' "$source_dir/CMakeLists.txt")
wheel=$(compgen -G "$work/wheels/sao-$version-cp*-linux_*.whl") ||
  fail "no sao-$version-cp*-linux_*.whl in $work/wheels: $(ls "$work/wheels")"
contents=$("$debian" -m zipfile -l "$wheel")
for member in sao/__init__.py "sao/_sao$(suffix "$debian")" "sao-$version.dist-info/METADATA"; do
  grep -qF "$member" <<< "$contents" || fail "$member is not in $(basename "$wheel")"
done
echo "wheel      $(basename "$wheel"), $(stat -c %s "$wheel") bytes"
"$debian" -m venv --system-site-packages "$work/wheel"
(cd "$work/run" && "$work/wheel/bin/pip" install "$wheel") > "$work/wheel-install.log" 2>&1 ||
  { cat "$work/wheel-install.log"; fail "pip install $(basename "$wheel")"; }
run_study "$work/wheel" impact-absorber/max-acceleration.json
lap "the wheel"

[ "$(git_status)" = "$status_before" ] ||
  fail "pip changed the source tree: git status was
$status_before
and is
$(git_status)"
echo "pip test passed"
