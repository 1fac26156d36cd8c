"""The text boxes of the Chart.js charts of a page (sao/web/charts.js), measured in the browser,
and the checks on them: no two text items of a chart overlap, none is clipped or squeezed, every
axis shows enough ticks. Used by charts_browser_test.py.

A chart is a <figure class="chart"> with a <figcaption> (its title) and a canvas holding a
Chart.js instance, or a <p class="empty"> saying why there is nothing to draw. measure(driver)
returns, per figure, the boxes in page coordinates (CSS pixels) of:
  - "title": the figcaption (HTML, outside the canvas);
  - "axis-title <id>": each scale's title, placed as Chart.js 3.9's Scale.drawTitle places it;
  - "tick <id>": each tick label Chart.js draws (the scale's label items after autoSkip; a log
    axis' unlabelled ticks have "" and are not drawn, so not counted);
  - "legend": each legend item (chart.legend.legendHitBoxes: its point style and text).
Text items are quadrilaterals (rotated tick labels and the y title are not axis-aligned); the
glyphs' extent is the canvas' measureText (actualBoundingBox*), with Chart.js' own font, align
and baseline, so a box is what the eye reads as the text."""
import re

MEASURE_JS = r"""
const root = arguments[0] ? document.querySelector(arguments[0]) : document;
const sx = window.scrollX, sy = window.scrollY;
const out = [];
const rect = (r) => ({left: r.left + sx, top: r.top + sy, right: r.right + sx, bottom: r.bottom + sy});
for (const fig of root.querySelectorAll('figure.chart')) {
  const caption = fig.querySelector('figcaption');
  const entry = {id: fig.id, title: caption ? caption.textContent : '', figure: rect(fig.getBoundingClientRect()),
                 items: [], scales: {}, empty: null, chart: false};
  if (caption) {
    entry.caption = rect(caption.getBoundingClientRect());
    entry.caption_overflow = caption.scrollWidth > caption.clientWidth + 1;
    entry.items.push({kind: 'title', text: entry.title,
                      poly: [[entry.caption.left, entry.caption.top], [entry.caption.right, entry.caption.top],
                             [entry.caption.right, entry.caption.bottom], [entry.caption.left, entry.caption.bottom]]});
  }
  const empty = fig.querySelector('p.empty');
  if (empty) entry.empty = empty.textContent;
  const canvas = fig.querySelector('canvas');
  const chart = canvas && Chart.getChart(canvas);
  out.push(entry);
  if (!chart) continue;
  entry.chart = true;
  const cr = rect(canvas.getBoundingClientRect());
  entry.canvas = cr;
  entry.canvas_size = [chart.width, chart.height];
  const ox = cr.left, oy = cr.top;
  const a = chart.chartArea;
  entry.chart_area = {left: ox + a.left, top: oy + a.top, right: ox + a.right, bottom: oy + a.bottom};
  const ctx = chart.ctx;
  const H = Chart.helpers;
  // The glyph box of one line of text drawn at (0, y) after translate(tx, ty), rotate(rot).
  function text_poly(text, font, align, baseline, tx, ty, rot, y, max_width) {
    ctx.save();
    ctx.font = font.string;
    ctx.textAlign = align;
    ctx.textBaseline = baseline;
    const m = ctx.measureText(text);
    ctx.restore();
    // fillText(text, x, y, maxWidth) condenses a wider text to maxWidth
    const squeeze = max_width !== undefined && m.width > max_width ? max_width / m.width : 1;
    const x0 = -m.actualBoundingBoxLeft * squeeze, x1 = m.actualBoundingBoxRight * squeeze;
    const y0 = y - m.actualBoundingBoxAscent, y1 = y + m.actualBoundingBoxDescent;
    const c = Math.cos(rot || 0), s = Math.sin(rot || 0);
    const poly = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]].map(
        ([x, yy]) => [ox + tx + x * c - yy * s, oy + ty + x * s + yy * c]);
    return {poly, squeezed: squeeze < 1 ? squeeze : null, width: m.width};
  }
  for (const [id, scale] of Object.entries(chart.scales)) {
    const info = {type: scale.type, ticks: 0, labels: [], values: [], axis: scale.axis};
    entry.scales[id] = info;
    if (!scale.options.display) continue;
    if (scale.options.ticks.display) {
      const items = scale._labelItems || scale._computeLabelItems(chart.chartArea);
      items.forEach((item, index) => {
        const lines = Array.isArray(item.label) ? item.label : [item.label];
        let drawn = false;
        lines.forEach((line, k) => {
          const text = line === null || line === undefined ? '' : String(line);
          if (!text.trim()) return;
          drawn = true;
          const p = text_poly(text, item.font, item.textAlign, item.textBaseline, item.translation[0],
                              item.translation[1], item.rotation, item.textOffset + k * item.font.lineHeight);
          entry.items.push({kind: 'tick ' + id, text, poly: p.poly});
        });
        if (drawn) {
          info.ticks += 1;
          info.labels.push(lines.join(' '));
          info.values.push(scale.ticks[index] ? scale.ticks[index].value : null);
        }
      });
    }
    const title = scale.options.title;
    if (title && title.display && title.text) {
      // Chart.js 3.9 Scale.drawTitle and titleArgs, for the positions charts.js uses
      const font = H.toFont(title.font), padding = H.toPadding(title.padding);
      const position = scale.options.position;
      const texts = Array.isArray(title.text) ? title.text : [title.text];
      let offset = font.lineHeight / 2;
      if (position === 'bottom') offset += padding.bottom + font.lineHeight * (texts.length - 1);
      else offset += padding.top;
      let tx, ty, rot = 0, max_width;
      const align = title.align === 'start' ? 'left' : title.align === 'end' ? 'right' : 'center';
      if (scale.isHorizontal()) {
        tx = title.align === 'start' ? scale.left : title.align === 'end' ? scale.right : (scale.left + scale.right) / 2;
        ty = position === 'top' ? scale.top + offset : scale.bottom - offset;
        max_width = scale.right - scale.left;
      } else {
        tx = position === 'left' ? scale.left + offset : scale.right - offset;
        ty = title.align === 'start' ? scale.bottom : title.align === 'end' ? scale.top : (scale.top + scale.bottom) / 2;
        rot = position === 'left' ? -Math.PI / 2 : Math.PI / 2;
      }
      texts.forEach((t, k) => {
        const p = text_poly(String(t), font, align, 'middle', tx, ty, rot, k * font.lineHeight, max_width);
        entry.items.push({kind: 'axis-title ' + id, text: String(t), poly: p.poly, squeezed: p.squeezed,
                          natural_width: p.width, max_width});
      });
      info.title = texts.join(' ');
    }
  }
  const legend = chart.legend;
  if (legend && legend.options.display) {
    entry.legend_box = {left: ox + legend.left, top: oy + legend.top, right: ox + legend.right,
                        bottom: oy + legend.bottom};
    (legend.legendHitBoxes || []).forEach((b, i) => {
      const li = legend.legendItems[i] || {};
      const text = li.text || '';
      const data = (chart.data.datasets[li.datasetIndex] || {}).data || [];
      const nothing = !data.some((p) => Number.isFinite(p.x) && p.y !== null && Number.isFinite(p.y));
      const l = ox + b.left, t = oy + b.top;
      entry.items.push({kind: 'legend', text, nothing,
                        poly: [[l, t], [l + b.width, t], [l + b.width, t + b.height], [l, t + b.height]]});
    });
  }
}
return out;
"""

TOLERANCE = 0.5  # px: Chart.js rounds some positions to whole or half pixels


def _axes(poly):
    out = []
    for i in range(len(poly)):
        (x0, y0), (x1, y1) = poly[i], poly[(i + 1) % len(poly)]
        out.append((y0 - y1, x1 - x0))
    return out


def overlap(a, b):
    """How far two convex polygons overlap (px, along the axis that separates them least),
    by the separating-axis theorem: <= 0 when they do not."""
    depth = float("inf")
    for ax, ay in _axes(a) + _axes(b):
        norm = (ax * ax + ay * ay) ** 0.5
        if norm == 0:
            continue
        pa = [(x * ax + y * ay) / norm for x, y in a]
        pb = [(x * ax + y * ay) / norm for x, y in b]
        depth = min(depth, min(max(pa), max(pb)) - max(min(pa), min(pb)))
        if depth <= 0:
            return depth
    return depth


def outside(poly, box):
    """How far (px) a polygon reaches beyond an axis-aligned box (0 when inside)."""
    xs, ys = [p[0] for p in poly], [p[1] for p in poly]
    return max(0.0, box["left"] - min(xs), max(xs) - box["right"], box["top"] - min(ys),
               max(ys) - box["bottom"])


def box_poly(box):
    return [[box["left"], box["top"]], [box["right"], box["top"]], [box["right"], box["bottom"]],
            [box["left"], box["bottom"]]]


def clip(poly, box):
    """The part of a convex polygon inside an axis-aligned box (Sutherland-Hodgman): what a
    canvas shows of a text that reaches beyond it."""
    def cut(points, inside, cross):
        out = []
        for k in range(len(points)):
            p, q = points[k - 1], points[k]
            if inside(q):
                if not inside(p):
                    out.append(cross(p, q))
                out.append(q)
            elif inside(p):
                out.append(cross(p, q))
        return out

    def at_x(x):
        return lambda p, q: [x, p[1] + (q[1] - p[1]) * (x - p[0]) / (q[0] - p[0])]

    def at_y(y):
        return lambda p, q: [p[0] + (q[0] - p[0]) * (y - p[1]) / (q[1] - p[1]), y]

    points = poly
    for inside, cross in ((lambda p: p[0] >= box["left"], at_x(box["left"])),
                          (lambda p: p[0] <= box["right"], at_x(box["right"])),
                          (lambda p: p[1] >= box["top"], at_y(box["top"])),
                          (lambda p: p[1] <= box["bottom"], at_y(box["bottom"]))):
        points = cut(points, inside, cross)
        if not points:
            return []
    return points


def problems(chart, min_ticks=4):
    """What is wrong with one measured chart, as sentences (empty when nothing)."""
    name = chart["id"] or chart["title"]
    if not chart["chart"]:
        return [] if chart["empty"] else ["%s: neither a chart nor an empty message" % name]
    out = []
    items = chart["items"]
    # What is seen of each: a canvas item within its canvas (the rest is reported as clipped)
    seen = [it["poly"] if it["kind"] == "title" else clip(it["poly"], chart["canvas"])
            for it in items]
    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            a, b = items[i], items[j]
            if not seen[i] or not seen[j]:
                continue
            depth = overlap(seen[i], seen[j])
            if depth > TOLERANCE:
                out.append("%s: %s %r overlaps %s %r by %.1f px" %
                           (name, a["kind"], a["text"], b["kind"], b["text"], depth))
    for it in items:
        container = chart["figure"] if it["kind"] == "title" else chart["canvas"]
        beyond = outside(it["poly"], container)
        if beyond > TOLERANCE:
            out.append("%s: %s %r clipped: %.1f px beyond its %s" %
                       (name, it["kind"], it["text"], beyond,
                        "figure" if it["kind"] == "title" else "canvas"))
        if it["kind"] == "legend" and chart.get("legend_box"):
            beyond = outside(it["poly"], chart["legend_box"])
            if beyond > TOLERANCE:  # the legend draws clipped to its box
                out.append("%s: legend %r clipped: %.1f px beyond the legend's box" %
                           (name, it["text"], beyond))
        if it["kind"] == "legend" or it["kind"].startswith("axis-title"):
            depth = overlap(it["poly"], box_poly(chart["chart_area"]))
            if depth > TOLERANCE:
                out.append("%s: %s %r over the plot area by %.1f px" %
                           (name, it["kind"], it["text"], depth))
        if it.get("squeezed"):
            out.append("%s: %s %r squeezed to %.0f%% of its width (%.0f px into %.0f px)" %
                       (name, it["kind"], it["text"], 100 * it["squeezed"], it["natural_width"],
                        it["max_width"]))
    if chart.get("caption_overflow"):
        out.append("%s: the title overflows its figcaption" % name)
    for sid, s in chart["scales"].items():
        if s.get("title") == "cycle" and any(v is not None and v != int(v) for v in s["values"]):
            out.append("%s: axis %s (cycle) has fractional ticks: %s" %
                       (name, sid, ", ".join(s["labels"])))
        if s["ticks"] < min_ticks:
            out.append("%s: axis %s (%s) has %d drawn ticks (%s), fewer than %d" %
                       (name, sid, s.get("title", "no title"), s["ticks"], ", ".join(s["labels"]),
                        min_ticks))
    return out


def notes(chart):
    """What reads badly without being wrong: tick labels with needless zeros ("10.0000000"),
    legend entries of series with no point drawn (all zero on a log axis)."""
    name = chart["id"] or chart["title"]
    out = []
    for sid, s in chart.get("scales", {}).items():
        padded = [l for l in s["labels"] if re.search(r"\.\d*00$|^-?[\d,]{2,}\.0+$", l)]
        if padded:
            out.append("%s: axis %s tick labels with trailing zeros: %s" %
                       (name, sid, ", ".join(s["labels"])))
    for it in chart.get("items", []):
        if it["kind"] == "legend" and it.get("nothing"):
            out.append("%s: legend entry %r: no point of it drawn" % (name, it["text"]))
    return out


def summary(charts):
    """One line per chart: canvas and plot area size, ticks per axis, legend items and rows,
    text boxes, axis titles."""
    lines = []
    for c in charts:
        if not c["chart"]:
            lines.append("  %-34s empty: %s" % (c["id"] or "-", c["empty"]))
            continue
        ticks = " ".join("%s:%d" % (sid, s["ticks"]) for sid, s in c["scales"].items())
        legend = [it for it in c["items"] if it["kind"] == "legend"]
        rows = len({round(it["poly"][0][1]) for it in legend})
        area = c["chart_area"]
        titles = " | ".join("%s: %s" % (sid, s.get("title", "-")) for sid, s in c["scales"].items())
        lines.append("  %-34s canvas %4dx%-4d plot %4.0fx%-4.0f ticks %s, legend %d in %d rows, "
                     "%d text boxes; %s" %
                     (c["id"] or "-", c["canvas_size"][0], c["canvas_size"][1],
                      area["right"] - area["left"], area["bottom"] - area["top"], ticks,
                      len(legend), rows, len(c["items"]), titles))
    return lines


def self_test():
    """The geometry on boxes whose answer is known."""
    sq = lambda x, y, w, h: [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]
    assert overlap(sq(0, 0, 10, 10), sq(5, 5, 10, 10)) == 5
    assert overlap(sq(0, 0, 10, 10), sq(10.5, 0, 10, 10)) < 0
    assert overlap(sq(0, 0, 10, 10), sq(0, 12, 10, 10)) < 0
    # two 45-degree labels side by side: their axis-aligned boxes overlap, the labels do not
    rot = lambda x: [[x, 0], [x + 30, -30], [x + 33, -27], [x + 3, 3]]
    assert overlap(rot(0), rot(8)) < 0, overlap(rot(0), rot(8))
    assert overlap(rot(0), rot(2)) > 0
    assert outside(sq(-2, 0, 10, 10), {"left": 0, "top": 0, "right": 100, "bottom": 100}) == 2
    assert sorted(map(tuple, clip(sq(-2, -2, 10, 10), {"left": 0, "top": 0, "right": 5, "bottom": 100}))) == \
        [(0, 0), (0, 8), (5, 0), (5, 8)]
    bad = {"id": "synthetic", "title": "t", "chart": True, "empty": None, "scales": {},
           "figure": {"left": 0, "top": 0, "right": 100, "bottom": 100},
           "canvas": {"left": 0, "top": 0, "right": 100, "bottom": 100},
           "chart_area": {"left": 50, "top": 0, "right": 100, "bottom": 50},
           "items": [{"kind": "tick x", "text": "1", "poly": sq(0, 60, 20, 10)},
                     {"kind": "tick x", "text": "2", "poly": sq(15, 60, 20, 10)},
                     {"kind": "legend", "text": "long", "poly": sq(80, 90, 40, 10)}]}
    found = problems(bad)
    assert any("tick x '1' overlaps tick x '2' by 5.0 px" in p for p in found), found
    assert any("legend 'long' clipped: 20.0 px beyond its canvas" in p for p in found), found
    return found
