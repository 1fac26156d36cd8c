#!/usr/bin/env bash
# The kill test of issue 18: `sao` runs an external code whose every run starts a child that
# calls setsid() (leaving the process group) and sleeps; `sao` is killed while runs are in
# flight, and no process of the runs may survive:
#   kill  SIGKILL (cannot be caught): the code's own children survive it; the next
#         `sao run DIR` must report them ("left over") and kill them before its runs;
#   int, term, hup   SIGINT, SIGTERM, SIGHUP: `sao` kills every run's tree itself and exits 3,
#         at once, saying that the analyses are stored;
#   nostore  SIGTERM to a run with --no-store, in its second cycle: the same, saying that
#         nothing is stored; its result.json (cycle 1) says "interrupted".
# The processes of the runs are those whose environment has SAO_RUN_ID under the run directory.
#   kill_test.sh SAO FAKE_CODE SCRATCH kill|int|term|hup|nostore
set -u
sao=$1 fake=$2 work=$3 mode=$4
set -m  # background jobs in their own process group, SIGINT not ignored
rm -rf "$work" && mkdir -p "$work"
runs="$work/runs"
printf 'x {{x}}\ny {{y}}\n' >"$work/input.tpl"
cat >"$work/study.json" <<EOF
{
  "name": "kill test",
  "design_variables": [
    {"name": "x", "lower": 0.2, "upper": 3.0, "initial": 2.0},
    {"name": "y", "lower": 0.2, "upper": 3.0, "initial": 2.0}
  ],
  "load_cases": [{"name": "static"}],
  "responses": [{"name": "f", "kind": "scalar"}, {"name": "g", "kind": "scalar"}],
  "objective": {"minimize": "f"},
  "constraints": [{"name": "product", "of": "g", "lower": 1.0}],
  "settings": {"max_cycles": 3},
  "simulator": {
    "type": "external",
    "command": ["$fake", "setsid"],
    "workers": 2,
    "run_directory": "$runs",
    "templates": [{"file": "input.tpl", "target": "input.txt"}],
    "responses": [
      {"name": "f", "kind": "scalar", "file": "result.txt", "parser": "regex", "pattern": "f = (\\\\S+)"},
      {"name": "g", "kind": "scalar", "file": "result.txt", "parser": "regex", "pattern": "g = (\\\\S+)"}
    ]
  }
}
EOF
sao_pid=
fail() {  # nothing of the test is left running
  echo "kill_test ($mode): FAIL: $*" >&2
  [ -n "$sao_pid" ] && kill -KILL "$sao_pid" 2>/dev/null
  for pid in $(run_pids); do kill -KILL "$pid" 2>/dev/null; done
  exit 1
}
run_pids() {  # pids of processes of the runs
  grep -lzF "SAO_RUN_ID=$runs/" /proc/[0-9]*/environ 2>/dev/null | sed 's|/proc/\([0-9]*\)/environ|\1|' | sort -n | tr '\n' ' '
}

# The start design's three runs (nominal and two finite differences) are fast and stored; the
# runs after them sleep 30 s, and are in flight when the signal comes.
# With --no-store, six fast runs: cycle 1 (start, two differences, its proposal) and cycle 2's
# two differences, so that cycle 1 is finished and in result.json when the signal comes.
store=() fast=3
[ "$mode" = nostore ] && store=(--no-store) fast=6
SAO_FAKE_SLEEP=30 SAO_FAKE_COUNT="$work/count" SAO_FAKE_FAST=$fast \
  "$sao" run "$work/study.json" --out "$work/out" "${store[@]}" >"$work/first.out" 2>"$work/first.err" &
sao_pid=$!
slow_started() {  # a run past the fast ones has counted itself (its setsid child is running)
  [ "$(stat -c %s "$work/count" 2>/dev/null || echo 0)" -gt "$fast" ]
}
for _ in $(seq 200); do
  slow_started && break
  sleep 0.05
done
slow_started || fail "no slow run in flight after 10 s"
before=$(run_pids)
echo "kill_test ($mode): processes of the runs in flight: $before"
[ -n "$before" ] || fail "no process of the runs found"

if [ "$mode" != kill ]; then
  signal=$(echo "$mode" | tr a-z A-Z)
  [ "$mode" = nostore ] && signal=TERM
  kill -"$signal" "$sao_pid"
  wait "$sao_pid"
  code=$?
  left=$(run_pids)
  cat "$work/first.err" >&2
  [ "$code" -eq 3 ] || fail "exit code $code after SIG$signal, expected 3"
  grep -q "interrupted by SIG$signal: killed [1-9][0-9]* process(es)" "$work/first.err" ||
    fail "no message about the interruption"
  [ -z "$left" ] || fail "processes of the runs survived SIG$signal: $left"
  if [ "$mode" = nostore ]; then
    grep -q "no study store, so nothing to resume from" "$work/first.err" ||
      fail "the message does not say that --no-store kept nothing"
    grep -q "are stored" "$work/first.err" && fail "the message claims a store that --no-store has not"
    [ ! -e "$work/out/study.sqlite" ] || fail "--no-store left a study store"
    # result.json no longer claims a run that goes on.
    grep -q '"status": "interrupted"' "$work/out/result.json" ||
      fail "result.json does not say the run was interrupted: $(grep '"status"' "$work/out/result.json")"
    grep -q "result.json: status \"interrupted\"" "$work/first.err" ||
      fail "the message does not name the result.json it marked"
    echo "kill_test (nostore): sao exited 3, no process of the runs left, no store claimed"
    exit 0
  fi
  grep -q 'the analyses finished so far are stored (resume with `sao run DIR`)' "$work/first.err" ||
    fail "the message does not say that the analyses are stored"
  # The study and its store are kept: the run resumes with the analysis finished before the
  # signal, and ends.
  SAO_FAKE_SLEEP=0 "$sao" run "$work/out" >"$work/resume.out" 2>"$work/resume.err"
  code=$?
  [ "$code" -le 1 ] || fail "the resumed run exited $code: $(cat "$work/resume.err")"
  reused=$(sed -n 's/.* \([0-9][0-9]*\) analyses re-used from the store.*/\1/p' "$work/resume.out")
  [ "${reused:-0}" -ge 1 ] || fail "the resumed run re-used no stored analysis: $(tail -3 "$work/resume.out")"
  echo "kill_test ($mode): sao exited 3, no process of the runs left; the resumed run re-used" \
    "$reused stored analysis(es) and exited $code"
  exit 0
fi

kill -KILL "$sao_pid"
wait "$sao_pid" 2>/dev/null
sleep 0.3
left=$(run_pids)
echo "kill_test (kill): left after SIGKILL (the code's setsid children): $left"
[ -n "$left" ] || fail "nothing survived SIGKILL: the test shows nothing"
SAO_FAKE_SLEEP=0 "$sao" run "$work/out" >"$work/resume.out" 2>"$work/resume.err"
code=$?
cat "$work/resume.err" >&2
[ "$code" -le 1 ] || fail "the resumed run exited $code"
grep -q "left over from an earlier sao that was killed" "$work/resume.err" ||
  fail "the resumed run did not report the leftovers"
for pid in $left; do
  grep -q " $pid" "$work/resume.err" || fail "pid $pid not named in the report"
done
after=$(run_pids)
[ -z "$after" ] || fail "processes of the runs survived the resumed run: $after"
echo "kill_test (kill): the resumed run reported and killed $left; no process of the runs left"
