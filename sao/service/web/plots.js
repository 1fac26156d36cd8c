// The workbench's plots: one SVG chart function (linear or logarithmic y, lines and markers,
// horizontal reference lines), and the names shown on them (displayName). Plain JavaScript.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#17becf"];

function el(name, attrs, text) {
  const e = document.createElementNS(SVG, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
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

// The one place a name is shown: "label [unit]" of a study JSON element (a design variable,
// response, relation, constraint or the objective), its "label" or else its "name" (else
// `fallback`), with its "unit" in brackets when it gives one. (The keys "label" and "unit" come
// with the study format's units and labels; without them this is the name.)
function displayName(element, fallback) {
  const e = element || {};
  const name = e.label || e.name || fallback || "";
  return e.unit ? name + " [" + e.unit + "]" : name;
}

// The element of a study document at a JSON path as the loader names it ("constraints[0]",
// "objective", "objective.minimize_max"): the first part (with its index) only.
function studyElement(study, path) {
  const m = /^([A-Za-z_]+)(?:\[(\d+)\])?/.exec(path || "");
  if (!m || !study) return null;
  const top = study[m[1]];
  return m[2] === undefined ? top : Array.isArray(top) ? top[Number(m[2])] : null;
}

// A design or auxiliary variable's element by name.
function variableElement(study, name) {
  const all = [].concat((study && study.design_variables) || [], (study && study.auxiliary_variables) || []);
  return all.find((v) => v.name === name) || { name };
}

// One chart. spec: {id, title, xlabel, ylabel, log, width, height,
//   series: [{name, colour, dashed, line (default true), points: [{x, y, hollow, cls, title}],
//             marker: "circle" | "dot" | null, cls}],
//   references: [{y, label, colour, cls}], marks: [{x, y, label, cls}]}.
// Points with a non-finite y (or y <= 0 on a log axis) are left out, except where a series
// says floor: true (drawn on the axis' floor, hollow, as "0 or below").
function chart(spec) {
  const W = spec.width || 340, H = spec.height || 210, L = 50, R = 10, T = 22, B = 30;
  const svg = el("svg", { width: W, height: H, class: "plot", role: "img" });
  if (spec.id) svg.id = spec.id;
  svg.append(el("text", { x: L, y: 14, class: "title" }, spec.title));
  const log = !!spec.log;
  const ok = (v) => Number.isFinite(v) && (!log || v > 0);
  const xs = [], ys = [];
  for (const s of spec.series) for (const p of s.points) { xs.push(p.x); if (ok(p.y)) ys.push(p.y); }
  for (const r of spec.references || []) if (ok(r.y)) ys.push(r.y);
  if (!xs.length || !ys.length) {
    svg.append(el("text", { x: L, y: H / 2, class: "empty" }, "no data yet"));
    return svg;
  }
  let lo = Math.min(...ys), hi = Math.max(...ys);
  if (log) { lo = lo / 2; hi = hi * 2; } else if (lo === hi) { lo -= 1; hi += 1; }
  const x0 = Math.min(...xs), x1 = Math.max(...xs, x0 + 1);
  const f = log ? Math.log10 : (v) => v;
  const px = (x) => L + ((x - x0) / (x1 - x0)) * (W - L - R);
  const py = (v) => T + (1 - (f(v) - f(lo)) / (f(hi) - f(lo))) * (H - T - B);
  svg.append(el("rect", { x: L, y: T, width: W - L - R, height: H - T - B, fill: "none", stroke: "#999" }));
  svg.append(el("text", { x: L - 3, y: T + 8, "text-anchor": "end" }, fmt(hi, 3)));
  svg.append(el("text", { x: L - 3, y: H - B, "text-anchor": "end" }, fmt(lo, 3)));
  if (spec.ylabel) {
    const cy = T + (H - T - B) / 2;
    svg.append(el("text", { x: 10, y: cy, class: "axis", "text-anchor": "middle",
      transform: "rotate(-90 10 " + cy + ")" }, spec.ylabel));
  }
  svg.append(el("text", { x: L, y: H - 16 }, fmt(x0, 3)));
  svg.append(el("text", { x: W - R - 40, y: H - 16 }, fmt(x1, 3)));
  svg.append(el("text", { x: L + (W - L - R) / 2 - 20, y: H - 4, class: "axis" }, spec.xlabel || ""));
  (spec.references || []).forEach((r, k) => {
    if (!ok(r.y)) return;
    svg.append(el("line", { x1: L, x2: W - R, y1: py(r.y), y2: py(r.y), stroke: r.colour || "#000",
      "stroke-dasharray": "4 3", class: r.cls || "reference" }));
    // Labels side by side from the right: two references at one value stay readable.
    svg.append(el("text", { x: W - R - 75 * (k + 1), y: py(r.y) - 3, fill: r.colour || "#000" }, r.label || ""));
  });
  spec.series.forEach((s, k) => {
    const colour = s.colour || COLOURS[k % COLOURS.length];
    const shown = s.points.filter((p) => ok(p.y) || s.floor);
    const y = (p) => (ok(p.y) ? p.y : lo);
    if (s.line !== false && shown.length) {
      svg.append(el("polyline", {
        points: shown.map((p) => px(p.x) + "," + py(y(p))).join(" "),
        fill: "none", stroke: colour, class: s.cls || "series",
        "stroke-dasharray": s.dashed ? "5 3" : "none", "data-series": s.name,
      }));
    }
    if (s.marker === null) return;
    for (const p of shown) {
      const hollow = p.hollow || !ok(p.y);
      const c = el("circle", {
        cx: px(p.x), cy: py(y(p)), r: s.marker === "dot" ? 4 : 3,
        fill: hollow ? "white" : colour, stroke: p.hollow ? "#c00" : colour,
        class: p.cls || "point", "data-series": s.name,
      });
      c.append(el("title", {}, (p.title || s.name) + ": " + fmt(p.y, 4)));
      svg.append(c);
    }
  });
  for (const m of spec.marks || []) {
    svg.append(el("circle", { cx: px(m.x), cy: py(m.y), r: 6, fill: "none", stroke: "#000",
      "stroke-width": 2, class: m.cls || "mark" }));
    svg.append(el("text", { x: px(m.x) + 8, y: py(m.y) + 14 }, m.label || ""));
  }
  spec.series.forEach((s, k) => {
    if (spec.series.length > 1 && !s.nolegend) {
      svg.append(el("text", { x: L + 4 + 62 * (k % 4), y: T + 12 + 12 * Math.floor(k / 4),
        fill: s.colour || COLOURS[k % COLOURS.length] }, s.name));
    }
  });
  return svg;
}
