// The sao workbench: a client of the service's JSON API (docs/service.md), plain JavaScript
// and SVG, no library and no network access beyond the service itself.
"use strict";

const state = { id: null, status: null, stream: null };
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

function number(v) {
  if (typeof v === "number") return v;
  if (v === "inf") return Infinity;
  if (v === "-inf") return -Infinity;
  return NaN;
}

function fmt(v, digits = 4) {
  const x = number(v);
  return Number.isFinite(x) ? x.toPrecision(digits) : String(v);
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
  $("study").hidden = false;
  await refresh();
  listen();
  loadStudies();
}

async function refresh() {
  if (!state.id) return;
  try {
    state.status = await api("GET", "/api/studies/" + state.id);
    render(state.status);
  } catch (e) {
    $("action-errors").textContent = e.message;
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
  const head = ["cycle", "acc", "mvl", "kept", "F", "Ef", "Eg", "V", "factors", "status"];
  const thead = $("cycles").tHead;
  thead.replaceChildren();
  const hr = thead.insertRow();
  for (const h of head) hr.append(Object.assign(document.createElement("th"), { textContent: h }));
  const body = $("cycles").tBodies[0];
  body.replaceChildren();
  for (const r of s.history) {
    const tr = body.insertRow();
    tr.className = r.accepted ? "accepted" : "rejected";
    const cells = [r.cycle, r.accepted ? "y" : "n", r.active_move_limits, r.retained_constraints,
      fmt(r.F_opt, 6), fmt(r.Ef, 3), fmt(r.Eg, 3), fmt(r.V, 3),
      r.move_factors.map((f) => fmt(f, 3)).join(" "),
      (r.converged ? "converged " : "") + r.subproblem + (r.message ? ": " + r.message : "")];
    for (const c of cells) tr.insertCell().textContent = c;
  }
}

const SVG = "http://www.w3.org/2000/svg";
function el(name, attrs, text) {
  const e = document.createElementNS(SVG, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}

// One plot: series of [cycle, value] per cycle; rejected cycles drawn as hollow red markers.
function plot(title, series, history) {
  const W = 320, H = 200, L = 50, R = 10, T = 20, B = 25;
  const svg = el("svg", { width: W, height: H, class: "plot", role: "img" });
  svg.append(el("text", { x: L, y: 13 }, title));
  const xs = history.map((r) => r.cycle);
  const all = series.flatMap((s) => s.values).filter(Number.isFinite);
  if (!xs.length || !all.length) return svg;
  let lo = Math.min(...all), hi = Math.max(...all);
  if (lo === hi) { lo -= 1; hi += 1; }
  const x0 = Math.min(...xs), x1 = Math.max(...xs, x0 + 1);
  const px = (c) => L + ((c - x0) / (x1 - x0)) * (W - L - R);
  const py = (v) => T + (1 - (v - lo) / (hi - lo)) * (H - T - B);
  svg.append(el("rect", { x: L, y: T, width: W - L - R, height: H - T - B, fill: "none", stroke: "#999" }));
  svg.append(el("text", { x: 2, y: T + 8 }, fmt(hi, 3)));
  svg.append(el("text", { x: 2, y: H - B }, fmt(lo, 3)));
  svg.append(el("text", { x: L, y: H - 8 }, "cycle " + x0));
  svg.append(el("text", { x: W - R - 50, y: H - 8 }, "cycle " + x1));
  const colours = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#17becf"];
  series.forEach((s, k) => {
    const colour = colours[k % colours.length];
    const pts = history.map((r, i) => [r.cycle, s.values[i]]).filter((p) => Number.isFinite(p[1]));
    svg.append(el("polyline", {
      points: pts.map((p) => px(p[0]) + "," + py(p[1])).join(" "),
      fill: "none", stroke: colour,
    }));
    history.forEach((r, i) => {
      if (!Number.isFinite(s.values[i])) return;
      svg.append(el("circle", {
        cx: px(r.cycle), cy: py(s.values[i]), r: 3,
        fill: r.accepted ? colour : "white", stroke: r.accepted ? colour : "#c00",
        class: r.accepted ? "accepted" : "rejected",
      }));
    });
    if (series.length > 1) svg.append(el("text", { x: L + 4 + 30 * k, y: T + 12, fill: colour }, s.name));
  });
  return svg;
}

function renderPlots(s) {
  const h = s.history;
  const names = s.variables.map((v) => v.name);
  const scaled = s.variables.map((v) => ({
    name: v.name,
    values: h.map((r) => (number(r.accepted ? r.b_opt[v.name] : r.b0[v.name]) - v.lower) / (v.upper - v.lower)),
  }));
  $("plots").replaceChildren(
    plot("objective F(b*)", [{ name: "F", values: h.map((r) => number(r.F_opt)) }], h),
    plot("violation V [%]", [{ name: "V", values: h.map((r) => number(r.V)) }], h),
    plot("move limits", names.map((n, i) => ({ name: n, values: h.map((r) => number(r.move_factors[i])) })), h),
    plot("design variables (scaled to bounds)", scaled, h));
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
