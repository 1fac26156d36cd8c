// The one renderer of sao's charts: a chart spec (sao/report/chart.hpp: chart_spec) drawn with
// Chart.js (Debian's libjs-chart.js), which lays out the ticks, the axes, the legend and the
// hover read-outs. Used by the workbench (sao/web/app.js) and by every page sao writes (the
// report, the sweep's compromise page, `sao evaluate`'s histories), which inline this file.
// Each chart: its title above (HTML, wrapped), the legend below the data, drag across the
// plot to zoom its x range (double-click: back), PNG and CSV of what it shows. A spec with
// "bars" is a bar chart of categories (the workbench's Sobol indices).
"use strict";

const sao_charts = (() => {
  const PLOT_HEIGHT = 240;  // px of the plot area (between the axes), whatever the legend takes
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
    // Whole numbers (cycles) over a short range give few ticks: at least four units shown.
    if (spec.x_integer) return [lo, Math.max(hi, lo + 4)];
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
    // Chart.js draws the lowest `order` last (on top): later series (markers of rejected
    // cycles, the current branch) over earlier ones; the legend keeps the series' order.
    const out = spec.series.map((s, k) => {
      const style = point_style(s);
      if (s.markers && s.marker !== "ring" && s.x.length > 60) style.pointRadius = 2;
      return Object.assign({
        label: s.name, order: -k, clip: 8,
        data: s.x.map((x, i) => ({ x: finite(x) ? x : NaN, y: ok(s.y[i]) ? s.y[i] : null })),
        borderColor: s.color, backgroundColor: s.color, borderDash: s.dash, borderWidth: 1.6,
        showLine: s.line, spanGaps: false, pointHoverRadius: 5,
      }, style);
    });
    for (const l of spec.lines) {
      if (!ok(l.y) || !range) continue;
      // Its two points put the value in the y range; the line itself goes across the whole
      // plot area (draw_references), not only over the data's x range.
      out.push({ label: l.label, order: 1, data: [{ x: range[0], y: l.y }, { x: range[1], y: l.y }],
                 borderColor: l.color, backgroundColor: l.color, borderDash: l.dash, borderWidth: 1.2,
                 showLine: false, pointRadius: 0, pointHoverRadius: 0, pointStyle: "line",
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

  // Tick labels of a log axis (Chart.js picks the ticks, 1 to 9 of each decade; its own label
  // rule compares the mantissa exactly, and 0.2 / 0.1 is not 2): within a decade every tick,
  // up to three decades 1, 2 and 5, beyond them the powers of ten (every k-th beyond ten
  // decades); the numbers written short ("1e-7", "0.5", "100"). Chart.js' autoSkip is off on
  // a log axis (it would keep every n-th tick, whichever are labelled).
  function log_label(value) {
    const exponent = Math.floor(Math.log10(value) + 1e-9);
    const mantissa = value / Math.pow(10, exponent);
    const decades = Math.log10(this.max / this.min);
    const whole = (m) => Math.abs(mantissa - m) < 1e-6;
    if (decades < 1) return [1, 2, 3, 4, 5, 6, 7, 8, 9].some(whole) ? fmt(value) : "";
    if (decades <= 3) return [1, 2, 5].some(whole) ? fmt(value) : "";
    const every = Math.max(1, Math.ceil(decades / 10));  // at most about ten decades labelled
    return whole(1) && exponent % every === 0 ? fmt(value) : "";
  }

  // The reference lines (bounds) across the plot area, in their dataset's style, under the data.
  const draw_references = {
    id: "sao_references",
    beforeDatasetsDraw(chart) {
      const { ctx, chartArea: area, scales } = chart;
      chart.data.datasets.forEach((d, i) => {
        if (!d.reference || !chart.isDatasetVisible(i)) return;
        const y = scales.y.getPixelForValue(d.data[0].y);
        if (!(y >= area.top && y <= area.bottom)) return;
        ctx.save();
        ctx.strokeStyle = d.borderColor;
        ctx.lineWidth = d.borderWidth;
        ctx.setLineDash(d.borderDash || []);
        ctx.beginPath();
        ctx.moveTo(area.left, y);
        ctx.lineTo(area.right, y);
        ctx.stroke();
        ctx.restore();
      });
    },
  };

  // What a point stands for, where its series says (a stored analysis: "analysis 12").
  function point_id(spec, c) {
    const s = spec.series[c.datasetIndex];
    return s && s.ids && s.ids.length > c.dataIndex ? " (analysis " + s.ids[c.dataIndex] + ")" : "";
  }

  function config(spec, range) {
    // Chart.js rounds the axis to its ticks (for whole numbers, at least four units: x_range).
    const x = { type: "linear", suggestedMin: range[0], suggestedMax: range[1],
                title: { display: !!spec.x_label, text: wrap(spec.x_label, 70) }, ticks: {} };
    if (spec.x_integer) x.ticks.precision = 0;
    return {
      type: "scatter",
      data: { datasets: datasets(spec, range) },
      options: {
        animation: false, responsive: true, maintainAspectRatio: false,
        interaction: { mode: "nearest", intersect: false },
        scales: {
          x,
          y: { type: spec.log_y ? "logarithmic" : "linear",
               ticks: spec.log_y ? { callback: log_label, autoSkip: false } : {},
               title: { display: !!spec.y_label, text: wrap(spec.y_label, 32) } },
        },
        plugins: {
          legend: { position: "bottom", labels: { usePointStyle: true, boxHeight: 8,
                    filter: (item) => !!item.text, sort: (a, b) => a.datasetIndex - b.datasetIndex } },
          tooltip: { filter: (item) => !item.dataset.reference,
                     callbacks: { label: (c) => (c.dataset.label || "") + ": " + fmt(c.parsed.x) +
                                                 ", " + fmt(c.parsed.y) + point_id(spec, c) } },
        },
      },
    };
  }

  // A bar chart (spec.bars): one bar per category (spec.categories; the series' x are their
  // indices) and series, e.g. Sobol indices per variable; a series' `low` and `high` are the
  // interval of each bar, shown in its read-out.
  function bar_config(spec) {
    const interval = (s, i) => s.low && s.high ? " [" + fmt(s.low[i]) + ", " + fmt(s.high[i]) + "]" : "";
    return {
      type: "bar",
      data: {
        labels: spec.categories,
        datasets: spec.series.map((s) => ({ label: s.name, data: s.y.map((y) => finite(y) ? y : null),
                                            backgroundColor: s.color, borderColor: s.color })),
      },
      options: {
        animation: false, responsive: true, maintainAspectRatio: false,
        scales: {
          x: { type: "category", title: { display: !!spec.x_label, text: wrap(spec.x_label, 70) } },
          y: { suggestedMin: 0, suggestedMax: spec.y_max,
               title: { display: !!spec.y_label, text: wrap(spec.y_label, 32) } },
        },
        plugins: {
          legend: { position: "bottom", labels: { boxHeight: 8 } },
          tooltip: { callbacks: { label: (c) => {
            const s = spec.series[c.datasetIndex];
            return s.name + ": " + fmt(s.y[c.dataIndex]) + interval(s, c.dataIndex);
          } } },
        },
      },
    };
  }

  function csv(spec) {
    const quote = (t) => '"' + String(t).replace(/"/g, '""') + '"';
    const rows = ["series," + quote(spec.x_label || "x") + "," + quote(spec.y_label || "y")];
    for (const s of spec.series) {
      s.x.forEach((x, i) => rows.push([quote(s.name), x === null ? "" : spec.bars ? quote(spec.categories[x]) : x,
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
    const settings = spec.bars ? bar_config(spec) : config(spec, range);
    // However many rows the legend takes, the plot keeps its height: after each layout the box
    // grows by what the plot area lacks (Chart.js lays the legend out; we only make room).
    settings.plugins = [draw_references, { id: "sao_room", afterLayout: (c) => {
      const lacking = PLOT_HEIGHT - (c.chartArea.bottom - c.chartArea.top);
      if (lacking > 1 && c.height > 0) box.style.height = box.clientHeight + Math.ceil(lacking) + "px";
    } }];
    // A click on a point that stands for something: a "sao-point" event on the figure.
    settings.options.onClick = (event, elements) => {
      const hit = elements.find((e) => (spec.series[e.datasetIndex] || {}).ids);
      const s = hit && spec.series[hit.datasetIndex];
      if (s && s.ids.length > hit.index) {
        figure.dispatchEvent(new CustomEvent("sao-point", { bubbles: true,
                                                            detail: { id: s.ids[hit.index] } }));
      }
    };
    const chart = new Chart(canvas, settings);
    chart.sao_spec = spec;
    tools.append(
      tool("PNG", () => download(name + ".png", chart.toBase64Image())),
      tool("CSV", () => download(name + ".csv",
                                 URL.createObjectURL(new Blob([csv(spec)], { type: "text/csv" })))));
    if (!spec.bars) zoomable(chart, canvas, range);
    return chart;
  }

  // A new <figure> with the chart of `spec` (the workbench).
  function figure(spec) {
    const f = document.createElement("figure");
    draw(f, spec);
    return f;
  }

  // `container`'s content replaced by `nodes` (the workbench redraws on every event): the
  // charts it held are destroyed first, else Chart.js keeps every one it ever drew.
  function replace(container, ...nodes) {
    for (const c of container.querySelectorAll("canvas")) {
      if (Chart.getChart(c)) Chart.getChart(c).destroy();
    }
    container.replaceChildren(...nodes);
  }

  // Every figure of a page that holds its spec (chart_html): drawn.
  function draw_all(root) {
    for (const f of root.querySelectorAll("figure.chart")) {
      const holder = f.querySelector("script.chart-spec");
      if (holder) draw(f, JSON.parse(holder.textContent));
    }
  }

  return { draw, figure, replace, draw_all, csv };
})();
