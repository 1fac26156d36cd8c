// The sao workbench: a client of the service's JSON API (docs/service.md), plain JavaScript; its
// charts are the report's (GET .../charts), drawn by charts.js with Chart.js. Nothing is fetched
// from beyond the service itself.
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
      li.textContent = (s.name || s.id) + " — " + (s.state || "") + ", " + runWord(s, s.status || "") +
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
  for (const select of [$("sc-x"), $("sc-y")]) select.replaceChildren();  // another study's keys
  $("ch-analysis").value = "";
  // The previous study's scatter and histories go at once: a click on its points would pick an
  // analysis of this study by the other's number. Its status goes too, so that a chart of it
  // still on its way (each drawing checks that its status is still the shown one) is dropped.
  state.status = null;
  sao_charts.replace($("scatter-plot"));
  sao_charts.replace($("constraint-plot"));
  delete $("sc-x").dataset.keys;
  delete $("ch-cycle").dataset.picked;
  clearMetamodels();
  clearFront();
  $("study").hidden = false;
  await refresh();
  loadFront();
  loadRobust();
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
  $("study-status").textContent = "branch " + s.branch + "; " + s.state + "; run " + runWord(s, s.status) +
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
  // A study of several objectives has no run: its front instead of the cycles' charts.
  const several = (s.objectives || []).length > 1;
  $("front-panel").hidden = !several;
  $("robust-panel").hidden = !s.random_variables;
  if (!several) {
    renderPlots(s);
    renderHistories(s);
    renderScatter(s);
    renderBranches(s);
  }
  const ul = $("branches");
  ul.replaceChildren();
  for (const b of s.branches) {
    const li = document.createElement("li");
    li.textContent = (b.id === s.branch ? "* " : "") + "branch " + b.id +
      (b.parent ? " (from branch " + b.parent + " after cycle " + b.from_cycle + ")" : "") +
      ": " + (b.id === s.branch ? runWord(s, b.status) : b.status) + (b.message ? ": " + b.message : "");
    ul.append(li);
  }
}

// A number as the tables show it: six significant digits, "inf" as the API writes it.
function fmt(v, digits = 6) {
  return typeof v === "number" && Number.isFinite(v) ? Number(v.toPrecision(digits)).toString() : String(v);
}

// "label [unit]" of a study element, else its name.
function displayName(element, fallback) {
  const e = element || {};
  const name = e.label || e.name || fallback || "";
  return e.unit ? name + " [" + e.unit + "]" : name;
}

function variableElement(study, name) {
  const all = [].concat((study && study.design_variables) || [], (study && study.auxiliary_variables) || []);
  return all.find((v) => v.name === name) || { name };
}

// The cycle table: outcome, the design the cycle ends at (its proposal when accepted), the
// objective, errors, violation, move-limit factors and what the subproblem said.
// A run status as it is: a run that has not ended is "running" only while cycles are computed.
function runWord(s, status) {
  return status === "running" && s.state !== "running" ? "not ended (" + s.state + ")" : status;
}

// The constraint parts active at the cycle's proposal (g^ within the active tolerance of the
// bound, or beyond): every active part is retained, and a record's predictions hold each
// retained part's largest computed g^ (percent).
function active(s, r) {
  return (r.predictions || []).filter((p) => p.computed >= -s.active_tolerance)
    .map((p) => s.constraint_titles[p.constraint] || p.constraint).join("; ");
}

function renderTable(s) {
  const head = ["cycle", "outcome", "mvl", "kept"]
    .concat(s.variables.map((v) => displayName(variableElement(s.study, v.name))))
    .concat(["F: " + displayName(s.study.objective, "objective"), "Ef [%]", "Eg [%]", "V [%]",
             "active at b*", "factors", "subproblem"]);
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
    const design = r.accepted ? r.b_opt : r.b0;
    const cells = [r.cycle, outcome, r.active_move_limits, r.retained_constraints]
      .concat(s.variables.map((v) => fmt(design[v.name])))
      .concat([fmt(r.F_opt), fmt(r.Ef, 3), fmt(r.Eg, 3), fmt(r.V, 3), active(s, r),
               r.move_factors.map((f) => fmt(f, 3)).join(" "),
               [r.subproblem, r.message].filter((t) => t).join(": ")]);
    for (const c of cells) tr.insertCell().textContent = c;
  }
}

// GET .../charts?view=...: the report's charts of this study, unless the answer is stale.
async function charts(s, query) {
  try {
    const data = await api("GET", "/api/studies/" + s.id + "/charts?" + query);
    return state.status === s ? data.charts : null;  // a newer status draws its own
  } catch (e) {
    if (state.status === s) $("action-errors").textContent = e.message;
    return null;
  }
}

async function renderPlots(s) {
  const list = await charts(s, "view=cycles");
  if (list) sao_charts.replace($("plots"), ...list.map(sao_charts.figure));
}

async function renderBranches(s) {
  const list = await charts(s, "view=branches");
  if (list) sao_charts.replace($("branch-plots"), ...list.map(sao_charts.figure));
}

// Every stored analysis: y against x (any variable, the objective, any constraint part's worst
// value), by cycle or branch; the pickers list what the store offers (empty: the service's
// default, the objective against the first variable).
async function renderScatter(s) {
  const xs = $("sc-x"), ys = $("sc-y");
  const data = await api("GET", "/api/studies/" + s.id + "/charts?view=analyses&by=" + $("sc-by").value +
    "&x=" + encodeURIComponent(xs.value) + "&y=" + encodeURIComponent(ys.value))
    .catch((e) => { if (state.status === s) $("action-errors").textContent = e.message; return null; });
  if (!data || state.status !== s) return;
  const keys = data.quantities.map((q) => q.key).join("\n");
  if (xs.dataset.keys !== keys) {
    for (const select of [xs, ys]) select.replaceChildren(...data.quantities.map((q) => new Option(q.title, q.key)));
    xs.dataset.keys = keys;
  }
  xs.value = data.x;
  ys.value = data.y;
  sao_charts.replace($("scatter-plot"), ...data.charts.map(sao_charts.figure));
}

// The histories of one cycle: each time-dependent constraint (and response no constraint reads)
// at its start design and its proposal, with the bounds and the retained time points.
async function renderHistories(s) {
  const cycles = s.history.map((r) => r.cycle);
  const select = $("ch-cycle");
  const wanted = select.dataset.picked ? Number(select.value) : cycles[cycles.length - 1];
  if (select.options.length !== cycles.length || select.dataset.branch !== String(s.branch)) {
    select.replaceChildren(...cycles.map((c) => new Option("cycle " + c, c)));
    select.dataset.branch = s.branch;
  }
  if (!cycles.length) { sao_charts.replace($("constraint-plot")); return; }
  const cycle = cycles.includes(wanted) ? wanted : cycles[cycles.length - 1];
  select.value = cycle;
  // A stored analysis picked (by number, or by a click in the scatter) instead of a cycle.
  const analysis = $("ch-analysis").value;
  const query = analysis !== "" ? "analysis=" + Number(analysis) : "cycle=" + cycle;
  const key = s.id + "/" + s.branch + "/" + query;
  if (!(state.histories && state.histories.key === key)) {
    const list = await charts(s, "view=histories&" + query);
    if (!list) return;
    state.histories = { key, list };
  }
  const picker = $("ch-constraint");
  const previous = picker.value;
  const titles = state.histories.list.map((c) => c.title);
  if ([...picker.options].map((o) => o.text).join("\n") !== titles.join("\n")) {
    picker.replaceChildren(...state.histories.list.map((c, i) => new Option(c.title, String(i))));
  }
  picker.value = previous && Number(previous) < titles.length ? previous : "0";
  drawHistory();
}

function drawHistory() {
  const list = state.histories ? state.histories.list : [];
  const spec = list[Number($("ch-constraint").value)];
  if (!spec) {
    sao_charts.replace($("constraint-plot"), Object.assign(document.createElement("p"), {
      className: "muted", textContent: "no time-dependent constraint or history in this study" }));
    return;
  }
  // Beneath it, what the simulator delivers beside the responses in the same load case (the
  // road under the vehicle), when it is not the picked chart itself.
  const where = / @(\S+)/.exec(spec.title);
  const beneath = list.filter((c) => c !== spec && where && c.id.startsWith("output-" + where[1] + "-"));
  sao_charts.replace($("constraint-plot"), sao_charts.figure(Object.assign({}, spec, { id: "constraint-history" })),
    ...beneath.map(sao_charts.figure));
}

// Metamodels (GET .../metamodels, `sao metamodel DIR --json`'s document): fitted when asked
// (kriging of every value takes a moment), from the store's analyses; per value picked its
// accuracy table, predicted (leave-one-out, of the best model) against computed with the line
// y = x, and its Sobol indices as bars (their intervals in the read-out and the table).
async function fitMetamodels() {
  const id = state.id;
  if (!id) return;
  $("mm-errors").textContent = "";
  $("mm-summary").textContent = "fitting the metamodels ...";
  const models = $("mm-models").value.trim();
  let report;
  try {
    report = await api("GET", base() + "/metamodels" + (models ? "?models=" + encodeURIComponent(models) : ""));
  } catch (e) {
    if (id === state.id) { $("mm-errors").textContent = e.message; $("mm-summary").textContent = ""; }
    return;
  }
  if (id !== state.id) return;
  state.metamodels = report;
  $("mm-summary").textContent = report.points + " distinct designs of " + report.analyses + " successful analyses" +
    (report.other_inputs ? " (" + report.other_inputs + " under other simulator inputs not used)" : "") +
    "; models " + report.models.join(", ") + "; accuracy by leave-one-out, * the least LOO RMS";
  const select = $("mm-value");
  const previous = select.value;
  select.replaceChildren(...report.values.map((v) => new Option(valueTitle(v), v.name)));
  if (report.values.some((v) => v.name === previous)) select.value = previous;
  drawMetamodel();
}

function valueTitle(v) {
  return v.name + (v.unit ? " [" + v.unit + "]" : "");
}

function fillTable(table, head, rows) {
  const thead = table.tHead;
  thead.replaceChildren();
  const hr = thead.insertRow();
  for (const h of head) hr.append(Object.assign(document.createElement("th"), { textContent: h }));
  const body = table.tBodies[0];
  body.replaceChildren();
  for (const { cells, className } of rows) {
    const tr = body.insertRow();
    if (className) tr.className = className;
    cells.forEach((c, i) => {
      const td = Object.assign(tr.insertCell(), { className: i === 0 ? "name" : "" });
      if (c instanceof Node) td.append(c); else td.textContent = c;
    });
  }
}

function drawMetamodel() {
  const report = state.metamodels;
  const v = report && report.values.find((x) => x.name === $("mm-value").value);
  if (!v) return;
  $("mm-errors").textContent = "";
  fillTable($("mm-accuracy"), ["model", "points", "LOO RMS", "R²_pred", "R²", "adj R²", "best"],
    v.models.map((m) => ({
      className: m.model === v.best ? "best" : "",
      cells: m.fitted ? [m.model, v.points, fmt(m.loo_rms, 4), fmt(m.r2_pred, 4), fmt(m.r2, 4), fmt(m.r2_adjusted, 4),
                         m.model === v.best ? "*" : ""]
                      : [m.model, v.points, "skipped: " + m.skipped, "", "", "", ""],
    })));
  const unit = v.unit ? " [" + v.unit + "]" : "";
  const computed = v.loo_points.map((p) => p.computed), predicted = v.loo_points.map((p) => p.predicted_loo);
  const both = computed.concat(predicted).filter((y) => typeof y === "number" && Number.isFinite(y));
  const lo = Math.min(...both), hi = Math.max(...both);
  const scatter = {
    id: "metamodel-loo", title: valueTitle(v) + ": predicted by " + (v.best || "no model") +
      " (leave-one-out) against computed", x_label: "computed" + unit, y_label: "predicted" + unit,
    empty: v.note || "no model fitted", lines: [],
    series: [
      { name: "designs (" + computed.length + ")", x: computed, y: predicted, color: "#1f77b4",
        line: false, markers: true, marker: "circle" },
      { name: "y = x", x: both.length ? [lo, hi] : [], y: both.length ? [lo, hi] : [], color: "#888888",
        dash: [5, 4], line: true, markers: false },
    ],
  };
  const figures = [sao_charts.figure(scatter)];
  const sobol = v.sobol;
  if (sobol) {
    const names = sobol.variables.map((x) => x.name), index = names.map((_, i) => i);
    const pick = (key) => sobol.variables.map((x) => x[key]);
    figures.push(sao_charts.figure({
      id: "metamodel-sobol", bars: true, categories: names, y_max: 1, lines: [],
      title: valueTitle(v) + ": Sobol indices of " + sobol.model + " (" +
        Math.round(100 * report.sobol_settings.confidence) + " % intervals)",
      x_label: "design variable", y_label: "Sobol index",
      series: [
        { name: "first order S_i", x: index, y: pick("S"), low: pick("S_low"), high: pick("S_high"), color: "#1f77b4" },
        { name: "total S_Ti", x: index, y: pick("ST"), low: pick("ST_low"), high: pick("ST_high"), color: "#ff7f0e" },
      ],
    }));
  }
  sao_charts.replace($("mm-plots"), ...figures);
  const interval = (x, key) => fmt(x[key], 3) + " [" + fmt(x[key + "_low"], 3) + ", " + fmt(x[key + "_high"], 3) + "]";
  fillTable($("mm-sobol"), sobol ? ["variable", "S_i [interval]", "S_Ti [interval]"] : [],
    sobol ? sobol.variables.map((x) => ({ cells: [x.name, interval(x, "S"), interval(x, "ST")] })) : []);
  if (!sobol && v.note) $("mm-errors").textContent = v.note;
}

function clearMetamodels() {
  state.metamodels = null;
  $("mm-value").replaceChildren();
  $("mm-errors").textContent = "";
  for (const t of [$("mm-accuracy"), $("mm-sobol")]) fillTable(t, [], []);
  sao_charts.replace($("mm-plots"));
}

// "key=value key=value" as a request body: numbers as numbers, "a,b" as a list of numbers,
// "design.x1=1.2" as {"design": {"x1": 1.2}}.
function settingsOf(text) {
  const body = {};
  for (const pair of text.split(/\s+/).filter((p) => p)) {
    const eq = pair.indexOf("=");
    if (eq < 0) throw new Error(pair + ": expected key=value");
    const key = pair.slice(0, eq), raw = pair.slice(eq + 1);
    const number = (t) => (t !== "" && Number.isFinite(Number(t)) ? Number(t) : t);
    const value = raw.includes(",") ? raw.split(",").map(number) : number(raw);
    const dot = key.indexOf(".");
    if (dot < 0) body[key] = value;
    else (body[key.slice(0, dot)] = body[key.slice(0, dot)] || {})[key.slice(dot + 1)] = value;
  }
  return body;
}

function startJob(kind) {
  let body;
  try {
    body = settingsOf($(kind + "-settings").value);
  } catch (e) {
    $("action-errors").textContent = e.message;
    return;
  }
  act(api("POST", base() + (kind === "front" ? "/pareto" : "/robust"), body));
}

function clearFront() {
  sao_charts.replace($("front-plots"));
  fillTable($("front-table"), [], []);
  fillTable($("robust-table"), [], []);
  $("front-summary").textContent = "";
  $("robust-summary").textContent = "";
}

// GET .../PATH of the study picked: a job's result, or null (the summary says why: `none` for
// 404, nothing computed yet) when there is none or another study was picked meanwhile.
async function result(path, summary, none) {
  const id = state.id;
  try {
    const data = await api("GET", base() + path);
    return id === state.id ? data : null;
  } catch (e) {
    if (id === state.id) $(summary).textContent = e.message.startsWith("404") ? none : e.message;
    return null;
  }
}

// GET .../pareto: the front's charts (two objectives: the predicted curve, the verified points'
// predictions and analyses as markers; more: one chart per pair, laid out as a scatter matrix)
// and a table of its points.
async function loadFront() {
  const s = state.status;
  if (!s || (s.objectives || []).length < 2) return;
  const data = await result("/pareto", "front-summary", "no front computed yet");
  if (!data) return;
  const p = data.pareto, m = p.objectives.length;
  const verified = p.front.filter((x) => x.verified);
  $("front-summary").textContent = p.front.length + " front points predicted by the metamodels, " + verified.length +
    " verified by analyses after " + p.rounds.length + " round(s); " +
    (p.agreed ? "every verified point agrees" : "the last round still disagrees") +
    "; best-balanced point " + p.balanced + "; " + p.analysed + " analyses run, " + p.reused + " re-used";
  const figures = data.charts.map(sao_charts.figure);
  if (m === 2) {
    sao_charts.replace($("front-plots"), ...figures);
  } else {
    const grid = Object.assign(document.createElement("div"), { className: "scatter-matrix" });
    grid.style.gridTemplateColumns = "repeat(" + (m - 1) + ", minmax(0, 1fr))";
    let k = 0;
    for (let b = 1; b < m; ++b) {
      for (let a = 0; a + 1 < m; ++a) grid.append(a < b ? figures[k++] : document.createElement("div"));
    }
    sao_charts.replace($("front-plots"), grid);
  }
  const names = p.objectives.map((o) => displayName(o));
  // The objective a study started at a point optimises (the others bounded at the point's
  // values): the first by default, as `sao pareto DIR --start-study K`.
  const chooser = $("front-objective");
  if ([...chooser.options].map((o) => o.value).join("\n") !== p.objectives.map((o) => o.name).join("\n")) {
    chooser.replaceChildren(...p.objectives.map((o, i) => new Option(names[i], o.name)));
  }
  const start = (x) => Object.assign(document.createElement("button"),
    { textContent: "Start a study", onclick: () => startFromPoint(x.point) });
  fillTable($("front-table"), ["point", "verified", "agrees"].concat(names.map((n) => n + " predicted"),
    names.map((n) => n + " analysed"), [""]),
    p.front.map((x) => ({
      className: x.verified ? (x.agrees ? "accepted" : "rejected") : "",
      cells: [x.point, x.verified ? "yes" : "no", x.verified ? (x.agrees ? "yes" : "no") : ""]
        .concat(p.objectives.map((o) => fmt(x.predicted.objectives[o.name])),
                p.objectives.map((o) => (x.verified ? fmt(x.computed.objectives[o.name]) : "")),
                [x.verified ? start(x) : ""]),
    })));
}

// POST .../front-study: a new study of one objective started at front point `point`, opened.
async function startFromPoint(point) {
  $("action-errors").textContent = "";
  try {
    const made = await api("POST", base() + "/front-study", { point, objective: $("front-objective").value });
    await pick(made.id);
  } catch (e) {
    $("action-errors").textContent = e.message;
  }
}

// GET .../robust: per value its mean, sd, quantiles (each with its interval) and, per
// constraint, the probability of violating it.
async function loadRobust() {
  const s = state.status;
  if (!s || !s.random_variables) return;
  const r = await result("/robust", "robust-summary", "no estimate made yet");
  if (!r) return;
  const design = Object.entries(r.design).map(([k, v]) => k + " = " + fmt(v)).join(", ");
  $("robust-summary").textContent = "method " + r.method + (r.model ? " on a " + r.model + " model" : "") + ", " +
    r.samples + " samples, " + Math.round(100 * r.confidence) + " % intervals; " + r.design_source + ": " + design;
  const interval = (i) => (i ? fmt(i.value, 5) + " [" + fmt(i.low, 4) + ", " + fmt(i.high, 4) + "]" : "");
  const first = r.values.find((v) => v.statistics);
  const quantiles = first ? first.statistics.quantiles.map((q) => q.p) : [];
  fillTable($("robust-table"), ["value", "mean", "sd"].concat(quantiles.map((p) => "q" + fmt(100 * p, 3) + "%"),
    ["P(violated)", "model LOO RMS", "verification RMS"]),
    r.values.map((v) => {
      const st = v.statistics;
      const violated = v.violation ? (v.violation.upper_bound_only ? "< " + fmt(v.violation.high, 4) : interval(v.violation)) : "";
      return { cells: [valueTitle(v) + (v.sense ? " (" + v.sense + " " + fmt(v.bound) + ")" : "")]
        .concat(st ? [interval(st.mean), interval(st.sd)].concat(st.quantiles.map(interval))
                   : [v.constant ? "constant " + fmt(v.constant_value) : v.note || ""].concat(quantiles.map(() => ""), [""]),
                [violated, fmt(v.loo_rms, 3), v.verification ? fmt(v.verification.rms, 3) : ""]) };
    }));
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
  } else if (type === "doe_batch" || type === "doe_end") {
    $("progress").textContent = "DOE: " + d.done + " of " + d.total + " points (" + d.reused + " re-used, " +
      d.failed + " failed), " + d.elapsed_seconds.toFixed(1) + " s" + (d.reason ? ", " + d.reason : "");
    if (type === "doe_end") refresh();
  } else if (/^(pareto|robust)_(batch|end)$/.test(type)) {  // a front's or an estimate's
    const what = (type.startsWith("pareto") ? "front" : "robustness") +
      (d.purpose ? " " + d.purpose + (d.round ? " (round " + d.round + ")" : "") : "");
    $("progress").textContent = what + ": " + (d.total !== undefined ? d.done + " of " + d.total +
      " points analysed (" + d.reused + " re-used, " + d.failed + " failed)" : "done") +
      (d.reason ? ", " + d.reason : "");
    if (type === "pareto_end") refresh().then(loadFront);
    if (type === "robust_end") refresh().then(loadRobust);
  } else if (type === "pareto_round") {
    $("progress").textContent = "front: round " + d.round + ", " + d.front_points + " points, " + d.verified +
      " verified, " + d.disagreeing + " disagree";
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
$("ch-cycle").onchange = () => {
  $("ch-cycle").dataset.picked = "1";
  $("ch-analysis").value = "";
  if (state.status) renderHistories(state.status);
};
$("ch-analysis").onchange = () => { if (state.status) renderHistories(state.status); };
$("scatter-plot").addEventListener("sao-point", (e) => {
  $("ch-analysis").value = e.detail.id;
  if (state.status) renderHistories(state.status);
});
$("ch-constraint").onchange = () => drawHistory();
$("mm-fit").onclick = () => fitMetamodels();
$("front-run").onclick = () => startJob("front");
$("robust-run").onclick = () => startJob("robust");
$("doe-run").onclick = () => {
  const assignments = $("doe-settings").value.split(/[\s,]+/).filter((a) => a)
    .map((a) => a.startsWith("doe.") ? a : "doe." + a);
  act(api("POST", base() + "/doe", assignments.length ? { assignments } : {}));
};
$("mm-value").onchange = () => drawMetamodel();
for (const id of ["sc-x", "sc-y", "sc-by"]) $(id).onchange = () => { if (state.status) renderScatter(state.status); };
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
