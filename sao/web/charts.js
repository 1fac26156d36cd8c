// The one renderer of sao's charts: a chart spec (sao/report/chart.hpp: chart_spec) drawn with
// Chart.js (Debian's libjs-chart.js), which lays out the ticks, the axes, the legend and the
// hover read-outs. Used by the workbench (sao/web/app.js) and by every page sao writes (the
// report, the sweep's compromise page, `sao evaluate`'s histories), which inline this file.
// Each chart: its title above (HTML, wrapped), the legend below the data, drag across the
// plot to zoom its x range (double-click: back), PNG and CSV of what it shows.
"use strict";

const sao_charts = (() => {
  const finite = (v) => typeof v === "number" && Number.isFinite(v);

  function fmt(v) {
    return finite(v) ? Number(v.toPrecision(6)).toString() : String(v);
  }

  // The x range of the series' finite points.
  function x_range(spec) {
    let lo = Infinity, hi = -Infinity;
    for (const s of spec.series) {
      s.x.forEach((x, i) => {
        if (finite(x) && finite(s.y[i])) lo = Math.min(lo, x), hi = Math.max(hi, x);
      });
    }
    if (lo > hi) return null;
    if (lo === hi) return [lo - 0.5, hi + 0.5];
    return [lo, hi];
  }

  // A shade in [0, 1] of a "#rrggbb" colour: from a light tint (0) to the colour itself (1).
  function shaded(colour, t) {
    const c = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16));
    const w = 0.85 * (1 - Math.min(1, Math.max(0, t)));
    return "rgb(" + c.map((v) => Math.round(v + (255 - v) * w)).join(",") + ")";
  }

  function point_style(s) {
    if (s.marker === "ring") return { pointStyle: "circle", pointRadius: 8, pointBorderWidth: 2,
                                      pointBackgroundColor: "rgba(0,0,0,0)" };
    const style = { pointStyle: s.marker === "triangle-down" ? "triangle" : s.marker,
                    pointRotation: s.marker === "triangle-down" ? 180 : 0,
                    pointRadius: s.markers ? 3.5 : 0, pointBackgroundColor: s.color };
    if (!s.markers) style.pointStyle = "line";
    if (s.shade && s.shade.length && /^#[0-9a-f]{6}$/i.test(s.color)) {
      style.pointBackgroundColor = s.shade.map((t) => shaded(s.color, t));
      style.pointBorderColor = style.pointBackgroundColor;
    }
    return style;
  }

  // One Chart.js dataset per series, then one per reference line (two points across the data).
  function datasets(spec, range) {
    const ok = (y) => finite(y) && !(spec.log_y && y <= 0);
    const out = spec.series.map((s) => Object.assign({
      label: s.name,
      data: s.x.map((x, i) => ({ x: finite(x) ? x : NaN, y: ok(s.y[i]) ? s.y[i] : null })),
      borderColor: s.color, backgroundColor: s.color, borderDash: s.dash, borderWidth: 1.6,
      showLine: s.line, spanGaps: false, pointHoverRadius: 5,
    }, point_style(s)));
    for (const l of spec.lines) {
      if (!ok(l.y) || !range) continue;
      out.push({ label: l.label, data: [{ x: range[0], y: l.y }, { x: range[1], y: l.y }],
                 borderColor: l.color, backgroundColor: l.color, borderDash: l.dash, borderWidth: 1.2,
                 showLine: true, pointRadius: 0, pointHoverRadius: 0, pointStyle: "line",
                 reference: true });
    }
    return out;
  }

  // An axis title longer than `room` characters as lines of at most `room` (Chart.js draws
  // one line as given, rotated along the y axis: a long one would run past the chart's height).
  function wrap(text, room) {
    if (!text || text.length <= room) return text;
    const lines = [];
    let line = "";
    for (const word of text.split(" ")) {
      if (line && (line + " " + word).length > room) {
        lines.push(line);
        line = word;
      } else {
        line = line ? line + " " + word : word;
      }
    }
    return lines.concat([line]);
  }

  function config(spec, range) {
    const x = { type: "linear", title: { display: !!spec.x_label, text: wrap(spec.x_label, 70) },
                ticks: {} };
    if (spec.x_integer) {
      x.ticks.precision = 0;
      // Whole numbers over a short range give few ticks: at least four units shown.
      x.suggestedMin = range[0];
      x.suggestedMax = Math.max(range[1], range[0] + 4);
    }
    return {
      type: "scatter",
      data: { datasets: datasets(spec, range) },
      options: {
        animation: false, responsive: true, maintainAspectRatio: false,
        interaction: { mode: "nearest", intersect: false },
        scales: {
          x,
          y: { type: spec.log_y ? "logarithmic" : "linear",
               title: { display: !!spec.y_label, text: wrap(spec.y_label, 32) } },
        },
        plugins: {
          legend: { position: "bottom", labels: { usePointStyle: true, boxHeight: 8,
                    filter: (item) => !!item.text } },
          tooltip: { filter: (item) => !item.dataset.reference,
                     callbacks: { label: (c) => (c.dataset.label || "") + ": " + fmt(c.parsed.x) +
                                                 ", " + fmt(c.parsed.y) } },
        },
      },
    };
  }

  function csv(spec) {
    const quote = (t) => '"' + String(t).replace(/"/g, '""') + '"';
    const rows = ["series," + quote(spec.x_label || "x") + "," + quote(spec.y_label || "y")];
    for (const s of spec.series) {
      s.x.forEach((x, i) => rows.push([quote(s.name), x === null ? "" : x,
                                       s.y[i] === null ? "" : s.y[i]].join(",")));
    }
    for (const l of spec.lines) rows.push([quote(l.label), "", l.y === null ? "" : l.y].join(","));
    return rows.join("\n") + "\n";
  }

  function download(name, href) {
    const a = document.createElement("a");
    a.href = href;
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
  }

  // Drag across the plot: its x range zoomed to the dragged span; double-click: all of it.
  function zoomable(chart, canvas, range) {
    let from = null;
    canvas.addEventListener("mousedown", (e) => { from = e.offsetX; });
    canvas.addEventListener("mouseup", (e) => {
      if (from === null) return;
      const a = Math.min(from, e.offsetX), b = Math.max(from, e.offsetX);
      from = null;
      if (b - a < 6) return;
      const scale = chart.scales.x;
      chart.options.scales.x.min = scale.getValueForPixel(a);
      chart.options.scales.x.max = scale.getValueForPixel(b);
      chart.update();
    });
    canvas.addEventListener("dblclick", () => {
      delete chart.options.scales.x.min;
      delete chart.options.scales.x.max;
      chart.update();
    });
    canvas.title = "drag across to zoom, double-click for all of it (" + fmt(range[0]) + " to " +
                   fmt(range[1]) + ")";
  }

  function tool(text, action) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    b.onclick = action;
    return b;
  }

  // Draws `spec` into `figure` (a <figure>), replacing what it held.
  function draw(figure, spec) {
    const old = figure.querySelector("canvas");
    if (old && Chart.getChart(old)) Chart.getChart(old).destroy();
    figure.classList.add("chart");
    if (spec.id) figure.id = spec.id;
    const caption = document.createElement("figcaption");
    caption.textContent = spec.title;
    const range = x_range(spec);
    if (!range) {
      const empty = document.createElement("p");
      empty.className = "empty";
      empty.textContent = spec.empty || "nothing to draw yet";
      figure.replaceChildren(caption, empty);
      return null;
    }
    const box = document.createElement("div");
    box.className = "chart-box";
    // Room for the legend's rows under the data (about three entries a row).
    const entries = spec.series.filter((s) => s.name).length + spec.lines.filter((l) => l.label).length;
    box.style.height = 300 + 22 * Math.ceil(entries / 3) + "px";
    const canvas = document.createElement("canvas");
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", spec.title);
    box.append(canvas);
    const tools = document.createElement("div");
    tools.className = "chart-tools";
    const name = spec.id || "chart";
    figure.replaceChildren(caption, box, tools);
    const chart = new Chart(canvas, config(spec, range));
    chart.sao_spec = spec;
    tools.append(
      tool("PNG", () => download(name + ".png", chart.toBase64Image())),
      tool("CSV", () => download(name + ".csv",
                                 URL.createObjectURL(new Blob([csv(spec)], { type: "text/csv" })))));
    zoomable(chart, canvas, range);
    return chart;
  }

  // A new <figure> with the chart of `spec` (the workbench).
  function figure(spec) {
    const f = document.createElement("figure");
    draw(f, spec);
    return f;
  }

  // Every figure of a page that holds its spec (chart_html): drawn.
  function draw_all(root) {
    for (const f of root.querySelectorAll("figure.chart")) {
      const holder = f.querySelector("script.chart-spec");
      if (holder) draw(f, JSON.parse(holder.textContent));
    }
  }

  return { draw, figure, draw_all, csv };
})();
