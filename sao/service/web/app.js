// The sao workbench: a client of the service's JSON API (docs/service.md), plain JavaScript
// and SVG, no library and no network access beyond the service itself.
"use strict";

const state = { id: null, status: null, stream: null, histories: null, asked: 0, shown: 0 };
const $ = (id) => document.getElementById(id);

function headers(json) {
  const h = {};
  const token = $("token").value;
  if (token) h["Authorization"] = "Bearer " + token;
  if (json) h["Content-Type"] = "application/json";
  return h;
}

async function api(method, path, body) {
  const r = await fetch(path, {
    method,
    headers: headers(body !== undefined),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  let data = null;
  try { data = JSON.parse(text); } catch (e) { data = { message: text }; }
  if (!r.ok) {
    const lines = [r.status + ": " + (data.message || "")];
    for (const e of data.errors || []) lines.push("  " + e.path + ": " + e.message);
    throw new Error(lines.join("\n"));
  }
  return data;
}

async function loadStudies() {
  const list = $("study-list");
  try {
    const data = await api("GET", "/api/studies");
    $("connection").textContent = "connected";
    list.replaceChildren();
    for (const s of data.studies) {
      const li = document.createElement("li");
      li.textContent = (s.name || s.id) + " — " + (s.state || "") + ", " + (s.status || "") +
        ", " + (s.cycles || 0) + " cycles";
      li.dataset.id = s.id;
      if (s.id === state.id) li.className = "current";
      li.onclick = () => pick(s.id);
      list.append(li);
    }
  } catch (e) {
    $("connection").textContent = e.message;
  }
}

async function pick(id) {
  state.id = id;
  state.histories = null;
  delete $("ch-cycle").dataset.picked;
  $("study").hidden = false;
  await refresh();
  listen();
  loadStudies();
}

// The status, drawn unless the answer is stale: another study picked meanwhile, or a later
// request answered first (requests overlap: every event asks for one).
async function refresh() {
  const id = state.id;
  if (!id) return;
  const asked = ++state.asked;
  try {
    const s = await api("GET", "/api/studies/" + id);
    if (id !== state.id || asked < state.shown) return;
    state.shown = asked;
    state.status = s;
    render(s);
  } catch (e) {
    if (id === state.id) $("action-errors").textContent = e.message;
  }
}

function render(s) {
  $("study-title").textContent = s.name;
  $("study-status").textContent = "branch " + s.branch + "; " + s.state + "; run " + s.status +
    (s.message ? ": " + s.message : "") + "; next cycle " + s.next_cycle +
    (s.pending_settings.length ? "; set for it: " + s.pending_settings.join(", ") : "") +
    "; store: " + s.store.analyses + " analyses, " + s.store.simulator_runs + " simulator runs";
  $("report-link").href = "/api/studies/" + s.id + "/report";
  const select = $("ml-variable");
  if (select.options.length !== s.variables.length + 1) {
    select.replaceChildren(new Option("all", ""));
    for (const v of s.variables) select.append(new Option(v.name, v.name));
  }
  if (!$("restart-study").dataset.edited) {
    $("restart-study").value = JSON.stringify(s.study, null, 2);
  }
  renderTable(s);
  renderPlots(s);
  renderHistories(s);
  renderBranches(s);
  const ul = $("branches");
  ul.replaceChildren();
  for (const b of s.branches) {
    const li = document.createElement("li");
    li.textContent = (b.id === s.branch ? "* " : "") + "branch " + b.id +
      (b.parent ? " (from branch " + b.parent + " after cycle " + b.from_cycle + ")" : "") +
      ": " + b.status + (b.message ? ": " + b.message : "");
    ul.append(li);
  }
}

function renderTable(s) {
  const head = ["cycle", "acc", "mvl", "kept", "F: " + displayName(s.study.objective, "objective"),
    "Ef", "Eg", "V", "factors", "status"];
  const thead = $("cycles").tHead;
  thead.replaceChildren();
  const hr = thead.insertRow();
  for (const h of head) hr.append(Object.assign(document.createElement("th"), { textContent: h }));
  const body = $("cycles").tBodies[0];
  body.replaceChildren();
  for (const r of s.history) {
    const tr = body.insertRow();
    const outcome = r.converged ? "converged" : r.accepted ? "accepted" : "rejected";
    tr.className = outcome;
    const cells = [r.cycle, { converged: "c", accepted: "y", rejected: "n" }[outcome], r.active_move_limits, r.retained_constraints,
      fmt(r.F_opt, 6), fmt(r.Ef, 3), fmt(r.Eg, 3), fmt(r.V, 3),
      r.move_factors.map((f) => fmt(f, 3)).join(" "),
      (r.converged ? "converged " : "") + r.subproblem + (r.message ? ": " + r.message : "")];
    for (const c of cells) tr.insertCell().textContent = c;
  }
}

// One point per cycle of the history: its value, hollow and red when the cycle was rejected.
function perCycle(history, value) {
  return history.map((r) => ({
    x: r.cycle, y: value(r), hollow: !r.accepted, cls: r.accepted ? "point accepted" : "point rejected",
    title: "cycle " + r.cycle,
  }));
}

function renderPlots(s) {
  const h = s.history;
  const study = s.study;
  const objective = displayName(study.objective, "F");
  const scaled = s.variables.map((v, k) => ({
    name: displayName(variableElement(study, v.name)), colour: COLOURS[k % COLOURS.length],
    points: perCycle(h, (r) => (number(r.accepted ? r.b_opt[v.name] : r.b0[v.name]) - v.lower) / (v.upper - v.lower)),
  }));
  const acc = s.accuracies || {};
  $("plots").replaceChildren(
    chart({ id: "plot-objective", title: "objective F(b*)", xlabel: "cycle", ylabel: objective,
      series: [{ name: "F", points: perCycle(h, (r) => number(r.F_opt)) }] }),
    chart({ id: "plot-violation", title: "violation V [%]", xlabel: "cycle",
      series: [{ name: "V", points: perCycle(h, (r) => number(r.V)) }],
      references: [{ y: 0, label: "V = 0", colour: "#888" }] }),
    chart({ id: "plot-errors", title: "approximation errors Ef, Eg [%] (log; 0 on the floor)",
      xlabel: "cycle", log: true,
      series: [
        { name: "Ef", floor: true, colour: COLOURS[2], points: perCycle(h, (r) => number(r.Ef)) },
        { name: "Eg", floor: true, colour: COLOURS[3], dashed: true, points: perCycle(h, (r) => number(r.Eg)) },
      ],
      references: [
        { y: acc.objacc, label: "objacc " + fmt(acc.objacc, 2), colour: COLOURS[2], cls: "reference objacc" },
        { y: acc.vioacc, label: "vioacc " + fmt(acc.vioacc, 2), colour: COLOURS[3], cls: "reference vioacc" },
      ] }),
    chart({ id: "plot-move-limits", title: "move limits", xlabel: "cycle",
      series: s.variables.map((v, i) => ({ name: displayName(variableElement(study, v.name)),
        points: perCycle(h, (r) => number(r.move_factors[i])) })) }),
    chart({ id: "plot-design", title: "design variables (scaled to bounds)", xlabel: "cycle", series: scaled }));
}

// The branch view: objective and violation per cycle of every branch (its lineage: the cycles
// of its parents up to where it branched off, then its own), the branch points ringed.
async function renderBranches(s) {
  let data;
  try {
    data = await api("GET", "/api/studies/" + s.id + "/branches");
  } catch (e) {
    if (state.status === s) $("action-errors").textContent = e.message;
    return;
  }
  if (state.status !== s) return;  // a newer status draws its own
  const byId = new Map(data.branches.map((b) => [b.id, b]));
  const view = (id, title, key, ylabel) => {
    const series = data.branches.map((b, k) => ({
      name: "branch " + b.id + (b.id === data.current ? " *" : ""), colour: COLOURS[k % COLOURS.length],
      cls: "branch-line", dashed: b.id !== data.current,
      points: b.history.map((r) => ({ x: r.cycle, y: number(r[key]), hollow: !r.accepted,
        cls: r.accepted ? "point accepted" : "point rejected", title: "branch " + b.id + ", cycle " + r.cycle })),
    }));
    const marks = [];
    for (const b of data.branches) {
      const parent = byId.get(b.parent);
      const at = parent && parent.history.find((r) => r.cycle === b.from_cycle);
      if (at) marks.push({ x: at.cycle, y: number(at[key]), label: "→ " + b.id, cls: "branch-point" });
    }
    return chart({ id, title, xlabel: "cycle", ylabel, series, marks, width: 420, height: 240 });
  };
  $("branch-plots").replaceChildren(
    view("branches-objective", "objective per cycle, every branch", "F", displayName(s.study.objective, "F")),
    view("branches-violation", "violation V [%] per cycle, every branch", "V", "V [%]"));
}

// The constraint histories of one cycle: g(t) at its start design and at its proposal, the
// bound, and the time points the screening retains at each (GET .../histories?cycle=K).
async function renderHistories(s) {
  const cycles = s.history.map((r) => r.cycle);
  const select = $("ch-cycle");
  const wanted = select.dataset.picked ? Number(select.value) : cycles[cycles.length - 1];
  if (select.options.length !== cycles.length || select.dataset.branch !== String(s.branch)) {
    select.replaceChildren(...cycles.map((c) => new Option("cycle " + c, c)));
    select.dataset.branch = s.branch;
  }
  if (!cycles.length) { $("constraint-plot").replaceChildren(); return; }
  const cycle = cycles.includes(wanted) ? wanted : cycles[cycles.length - 1];
  select.value = cycle;
  const key = s.id + "/" + s.branch + "/" + cycle;
  if (state.histories && state.histories.key === key) { drawHistory(s); return; }
  try {
    const data = await api("GET", "/api/studies/" + s.id + "/histories?cycle=" + cycle);
    if (state.status !== s) return;  // a newer status draws its own
    state.histories = { key, data };
  } catch (e) {
    if (state.status === s) $("action-errors").textContent = e.message;
    return;
  }
  const names = state.histories.data.constraints.map((c) => c.name);
  const constraint = $("ch-constraint");
  const previous = constraint.value;
  constraint.replaceChildren(...names.map((n, i) => new Option(constraintTitle(s.study, state.histories.data.constraints[i]), n)));
  // Kept when the next cycle has it; else the first of the study's own constraints (not the
  // parts of a bound-formulation objective).
  const own = state.histories.data.constraints.find((c) => c.path.startsWith("constraints"));
  if (names.includes(previous)) constraint.value = previous;
  else if (own) constraint.value = own.name;
  drawHistory(s);
}

// "label [unit]" of the constraint's study element, with the part the loader made of it.
function constraintTitle(study, c) {
  const part = /(\[[+-]\])$/.exec(c.name);
  const base = c.name.replace(/\[[+-]\]$/, "");
  return displayName(studyElement(study, c.path), base) + (part ? " " + part[1] : "");
}

function drawHistory(s) {
  const data = state.histories && state.histories.data;
  const c = data && data.constraints.find((k) => k.name === $("ch-constraint").value);
  if (!c) {
    $("constraint-plot").replaceChildren(Object.assign(document.createElement("p"), {
      className: "muted", textContent: "no time-dependent constraint in this study" }));
    return;
  }
  const series = [], references = [];
  c.designs.forEach((d, k) => {
    const colour = COLOURS[k];
    const g = (d.g || []).map(number);
    series.push({ name: d.label + " g(t)", colour, dashed: k === 0, marker: null, cls: "history",
      points: g.map((v, p) => ({ x: number(c.t[p]), y: v })) });
    series.push({ name: d.label + ": retained", colour, line: false, marker: "dot", nolegend: true,
      points: (d.retained || []).map((p) => ({ x: number(c.t[p]), y: g[p], cls: "retained", title: "retained t = " + fmt(c.t[p], 4) })) });
    if (!references.some((r) => r.y === number(d.bound))) {
      references.push({ y: number(d.bound), label: "bound " + fmt(d.bound, 4), colour: "#000", cls: "bound" });
    }
  });
  $("constraint-plot").replaceChildren(chart({
    id: "constraint-history", width: 700, height: 280, xlabel: "t",
    title: constraintTitle(s.study, c) + ": " + c.expression + " " + c.sense + " bound, cycle " + data.cycle +
      " (dashed: start design, solid: proposal; dots: retained time points)",
    ylabel: "g", series, references }));
}

// The event stream, read with fetch so that the token goes in a header.
async function listen() {
  if (state.stream) state.stream.abort();
  const controller = new AbortController();
  state.stream = controller;
  const id = state.id;
  try {
    const r = await fetch("/api/studies/" + id + "/events", { headers: headers(false), signal: controller.signal });
    const reader = r.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        handle(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
    }
  } catch (e) {
    if (controller.signal.aborted) return;
  }
  if (state.id === id && !controller.signal.aborted) setTimeout(listen, 2000);
}

function handle(block) {
  let type = "message", data = "";
  for (const line of block.split("\n")) {
    if (line.startsWith("event: ")) type = line.slice(7);
    else if (line.startsWith("data: ")) data += line.slice(6);
  }
  if (!data) return;
  const d = JSON.parse(data);
  if (type === "analyses") {
    $("progress").textContent = "analyses: " + d.finished + " finished, " + d.running + " running, " +
      d.elapsed_seconds.toFixed(1) + " s";
  } else if (type === "error") {
    $("action-errors").textContent = d.message;
  } else {
    refresh();
    if (type === "state" || type === "run_end") loadStudies();
  }
}

async function act(promise) {
  $("action-errors").textContent = "";
  try {
    await promise;
  } catch (e) {
    $("action-errors").textContent = e.message;
  }
  refresh();
}

function base() { return "/api/studies/" + state.id; }

$("step").onclick = () => act(api("POST", base() + "/step", {}));
$("run").onclick = () => act(api("POST", base() + "/run", {}));
$("stop").onclick = () => act(api("POST", base() + "/stop", {}));
$("ml-set").onclick = () => {
  const name = $("ml-variable").value;
  const body = {};
  body[name ? "move_limit." + name : "move_limit"] = Number($("ml-value").value);
  act(api("PATCH", base() + "/settings", body));
};
$("setting-set").onclick = () =>
  act(api("PATCH", base() + "/settings", { assignments: [$("setting").value] }));
$("ch-cycle").onchange = () => { $("ch-cycle").dataset.picked = "1"; if (state.status) renderHistories(state.status); };
$("ch-constraint").onchange = () => { if (state.status) drawHistory(state.status); };
$("restart-study").oninput = () => { $("restart-study").dataset.edited = "1"; };
$("restart").onclick = () => {
  let study;
  try {
    study = JSON.parse($("restart-study").value);
  } catch (e) {
    $("action-errors").textContent = "the study is not valid JSON: " + e.message;
    return;
  }
  delete $("restart-study").dataset.edited;
  const body = { from_cycle: Number($("restart-cycle").value), study };
  if ($("restart-branch").value) body.branch = Number($("restart-branch").value);
  act(api("POST", base() + "/restart", body));
};
$("upload-file").onchange = async () => {
  const f = $("upload-file").files[0];
  if (f) $("upload-text").value = await f.text();
};
$("upload").onclick = async () => {
  $("upload-errors").textContent = "";
  let study;
  try {
    study = JSON.parse($("upload-text").value);
  } catch (e) {
    $("upload-errors").textContent = "not valid JSON: " + e.message;
    return;
  }
  try {
    const created = await api("POST", "/api/studies", study);
    await pick(created.id);
  } catch (e) {
    $("upload-errors").textContent = e.message;
  }
};
$("token").value = sessionStorage.getItem("sao-token") || "";
$("token").onchange = () => { sessionStorage.setItem("sao-token", $("token").value); loadStudies(); };

loadStudies();
