// The polyregions explorer: plain JavaScript and SVG. Every count and every polygon comes from the server, which
// computes them exactly; this file only draws, and sends what the student moved as exact rationals ("3/4").
(function () {
  "use strict";

  const SVG = "http://www.w3.org/2000/svg";
  const SIZE = 600;            // the planes are drawn in a 600 x 600 viewBox
  const GOLDEN = 137.50776;    // degrees between the hues of consecutive regions
  const SLIDER_RANGE = 300;    // sliders run over [-3, 3] in hundredths, wider when a weight is

  const $ = (id) => document.getElementById(id);

  // ------------------------------------------------------------------------------------------- helpers
  function svg(tag, attributes, parent) {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
    if (parent) parent.appendChild(node);
    return node;
  }

  function title(node, text) {
    svg("title", {}, node).textContent = text;
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  // An exact number as the server writes it ("-7/12", "3", "0.25"), as a float for drawing only.
  function toFloat(text) {
    const s = String(text);
    const slash = s.indexOf("/");
    return slash < 0 ? Number(s) : Number(s.slice(0, slash)) / Number(s.slice(slash + 1));
  }

  function gcd(a, b) {
    a = Math.abs(a); b = Math.abs(b);
    while (b) [a, b] = [b, a % b];
    return a || 1;
  }

  // k / q in lowest terms, as text the server reads exactly.
  function fraction(k, q) {
    const g = gcd(k, q);
    return q / g === 1 ? String(k / g) : `${k / g}/${q / g}`;
  }

  function decimal(text) {
    const value = toFloat(text);
    return Number.isInteger(value) ? String(value) : String(Math.round(value * 1e4) / 1e4);
  }

  function polynomialText(coefficients) {
    const degree = coefficients.length - 1;
    const terms = [];
    coefficients.forEach((c, k) => {
      if (c === 0) return;
      const power = degree - k;
      const body = power === 0 ? "" : power === 1 ? "t" : `t${String(power).replace(/\d/g, (d) => "⁰¹²³⁴⁵⁶⁷⁸⁹"[d])}`;
      const magnitude = Math.abs(c);
      terms.push([c < 0 ? "−" : "+", body === "" ? String(magnitude) : (magnitude === 1 ? body : magnitude + body)]);
    });
    if (!terms.length) return "0";
    return (terms[0][0] === "−" ? "−" : "") + terms[0][1] + terms.slice(1).map(([s, t]) => ` ${s} ${t}`).join("");
  }

  function hue(k) {
    return (k * GOLDEN) % 360;
  }

  function centroid(points) {
    let area = 0, cx = 0, cy = 0;
    for (let i = 0; i < points.length; i++) {
      const [x0, y0] = points[i], [x1, y1] = points[(i + 1) % points.length];
      const cross = x0 * y1 - x1 * y0;
      area += cross; cx += (x0 + x1) * cross; cy += (y0 + y1) * cross;
    }
    if (Math.abs(area) < 1e-12) return null;
    return [cx / (3 * area), cy / (3 * area), Math.abs(area) / 2];
  }

  // ------------------------------------------------------------------------------ requests and status
  let busy = 0;
  let responses = 0;

  function setStatus(text) {
    document.body.dataset.state = busy ? "busy" : "idle";
    document.body.dataset.responses = String(responses);
    if (text !== undefined) $("status").textContent = text;
  }

  function showError(message) {
    $("error").textContent = message;
    $("error").hidden = false;
  }

  function hideError() {
    $("error").hidden = true;
  }

  // A sender that keeps at most one request in flight: while one is computed, only the newest request waits,
  // so a fast drag never builds up a queue.
  function sender(url, onAnswer) {
    let inFlight = false;
    let waiting = null;
    async function pump() {
      const body = waiting;
      waiting = null;
      inFlight = true;
      busy++;
      setStatus("computing…");
      let text;
      try {
        const reply = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json"},
                                        body: JSON.stringify(body)});
        const answer = await reply.json();
        if (reply.ok) {
          hideError();
          onAnswer(answer, body);
          const timing = /dur=([\d.]+)/.exec(reply.headers.get("Server-Timing") || "");
          text = timing ? `exact · computed in ${timing[1]} ms` : "exact";
        } else {
          showError(answer.error || reply.statusText);
          text = "error";
        }
      } catch (error) {
        showError(String(error));
        text = "error";
      }
      inFlight = false;
      busy--;
      responses++;
      if (waiting) pump(); else setStatus(text);
    }
    return function send(body) {
      waiting = body;
      if (!inFlight) pump();
    };
  }

  // ===================================================================================== arrangements
  const A = {
    lines: [],        // [{p: [x, y], q: [x, y]}], coordinates as exact text
    window: null,     // [[x_min, y_min], [x_max, y_max]] as exact text
    selected: null,   // index into lines
    answer: null,
    hovered: null,    // the sign vector pointed at, whose description the hover line shows
    drag: null,       // {kind: "handle", line, end} or {kind: "new", line}
    flat: null,       // the poset flat pointed at
  };

  const plane = $("plane");
  const layers = {};
  for (const name of ["grid", "regions", "labels", "lines", "marks", "handles"]) {
    layers[name] = svg("g", {class: `layer-${name}`}, plane);
  }

  function bounds() {
    const w = A.window || [["-2", "-2"], ["2", "2"]];
    return w.map((point) => point.map(toFloat));
  }

  function toScreen(x, y) {
    const [[x0, y0], [x1, y1]] = bounds();
    return [(x - x0) / (x1 - x0) * SIZE, (y1 - y) / (y1 - y0) * SIZE];
  }

  function toWorld(event) {
    const point = plane.createSVGPoint();
    point.x = event.clientX; point.y = event.clientY;
    const local = point.matrixTransform(plane.getScreenCTM().inverse());
    const [[x0, y0], [x1, y1]] = bounds();
    return [x0 + local.x / SIZE * (x1 - x0), y1 - local.y / SIZE * (y1 - y0)];
  }

  function snap(x) {
    const q = Number($("snap").value);
    return fraction(Math.round(x * q), q);
  }

  function snapPoint([x, y]) {
    const [[x0, y0], [x1, y1]] = bounds();
    const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
    return [snap(clamp(x, x0, x1)), snap(clamp(y, y0, y1))];
  }

  // The visible part of the line through p and q (floats, for drawing), or null.
  function visibleSegment(p, q) {
    const [[x0, y0], [x1, y1]] = bounds();
    const [px, py] = p.map(toFloat), [qx, qy] = q.map(toFloat);
    const dx = qx - px, dy = qy - py;
    if (dx === 0 && dy === 0) return null;  // a line being drawn, still a point
    let lo = -Infinity, hi = Infinity;
    for (const [start, d, min, max] of [[px, dx, x0, x1], [py, dy, y0, y1]]) {
      if (Math.abs(d) < 1e-300) {
        if (start < min || start > max) return null;
      } else {
        const a = (min - start) / d, b = (max - start) / d;
        lo = Math.max(lo, Math.min(a, b)); hi = Math.min(hi, Math.max(a, b));
      }
    }
    if (!(lo < hi)) return null;
    return [[px + lo * dx, py + lo * dy], [px + hi * dx, py + hi * dy]];
  }

  function drawGrid() {
    clear(layers.grid);
    const [[x0, y0], [x1, y1]] = bounds();
    const span = x1 - x0;
    const step = Math.pow(10, Math.floor(Math.log10(span / 2)));
    for (let x = Math.ceil(x0 / step) * step; x <= x1; x += step) {
      const [sx] = toScreen(x, 0);
      svg("line", {class: Math.abs(x) < step / 2 ? "axis" : "grid", x1: sx, y1: 0, x2: sx, y2: SIZE}, layers.grid);
    }
    for (let y = Math.ceil(y0 / step) * step; y <= y1; y += step) {
      const [, sy] = toScreen(0, y);
      svg("line", {class: Math.abs(y) < step / 2 ? "axis" : "grid", x1: 0, y1: sy, x2: SIZE, y2: sy}, layers.grid);
    }
  }

  function hyperplaneOf(i) {
    const answer = A.answer;
    return answer && answer.lines[i] && sameLine(answer.lines[i].points, A.lines[i]) ? answer.lines[i].hyperplane
      : null;
  }

  function sameLine(points, line) {
    return points[0][0] === line.p[0] && points[0][1] === line.p[1] && points[1][0] === line.q[0]
      && points[1][1] === line.q[1];
  }

  function drawLines() {
    clear(layers.lines);
    clear(layers.handles);
    const flat = A.flat;
    A.lines.forEach((line, i) => {
      const segment = visibleSegment(line.p, line.q);
      if (!segment) return;
      const [[ax, ay], [bx, by]] = segment.map(([x, y]) => toScreen(x, y));
      const h = hyperplaneOf(i);
      let cls = "line";
      if (i === A.selected) cls += " selected-line";
      if (A.drag && A.drag.kind === "new" && A.drag.line === i) cls += " drawing";
      if (flat && h !== null && flat.hyperplanes.includes(h)) cls += " through-flat";
      svg("line", {class: cls, x1: ax, y1: ay, x2: bx, y2: by}, layers.lines);
      const hit = svg("line", {class: "line-hit", x1: ax, y1: ay, x2: bx, y2: by, "data-line": i}, layers.lines);
      title(hit, h === null ? `line ${i}` : `H${h}`);
      if (h !== null) {
        const t = 0.06;
        svg("text", {class: "line-name", x: ax + t * (bx - ax) + 4, y: ay + t * (by - ay) - 4}, layers.lines)
          .textContent = `H${h}`;
      }
      for (const [end, point] of [["p", line.p], ["q", line.q]]) {
        const [sx, sy] = toScreen(...point.map(toFloat));
        const dragging = A.drag && A.drag.line === i && A.drag.end === end;
        const handle = svg("circle", {class: "handle" + (dragging ? " dragging" : ""), cx: sx, cy: sy, r: 6,
                                      "data-line": i, "data-end": end}, layers.handles);
        title(handle, `(${decimal(point[0])}, ${decimal(point[1])})`);
      }
    });
  }

  function drawMarks() {
    clear(layers.marks);
    const answer = A.answer;
    if (!answer) return;
    if (answer.selected) {
      for (const [x, y] of answer.selected.restriction.points) {
        const [sx, sy] = toScreen(x, y);
        svg("circle", {class: "restriction-point", cx: sx, cy: sy, r: 5}, layers.marks);
      }
    }
    if (A.flat && A.flat.point) {
      const [sx, sy] = toScreen(...A.flat.point);
      svg("circle", {class: "flat-ring", cx: sx, cy: sy, r: 11}, layers.marks);
    }
  }

  const A_PROMPT = "Point at a region for its sign vector.";

  function regionText(region) {
    return `${region.signs} · ${region.bounded ? "bounded" : "unbounded"} · interior point ` +
      `(${region.interior_point.join(", ")})`;
  }

  // The hover line always describes what is drawn: after every answer it is written again from the new regions
  // (the region with the sign vector pointed at, if there still is one), or goes back to the prompt.
  function refreshHover() {
    const answer = A.answer;
    const region = answer && A.hovered !== null ? answer.regions.find((r) => r.signs === A.hovered) : null;
    $("a-hover").textContent = region ? regionText(region) : A_PROMPT;
    if (!region) A.hovered = null;
  }

  // A label's font size in viewBox units: as large as fits the region's bounding box (up to 18), or none below
  // 10; labels are placed largest region first and never overlap one already placed.
  function labelSize(points, text) {
    const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
    const width = Math.max(...xs) - Math.min(...xs), height = Math.max(...ys) - Math.min(...ys);
    const size = Math.min(18, 0.55 * width / (0.62 * text.length), 0.45 * height);
    return size >= 10 ? size : null;
  }

  function overlaps(a, b) {
    return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
  }

  function drawRegions() {
    clear(layers.regions);
    clear(layers.labels);
    const answer = A.answer;
    if (!answer) return;
    const label = answer.regions.length <= 60;
    const candidates = [];
    answer.regions.forEach((region, k) => {
      if (region.polygon.length < 3) return;
      const points = region.polygon.map(([x, y]) => toScreen(x, y));
      const colour = region.bounded ? `hsl(${hue(k)}, 62%, 66%)` : `hsl(${hue(k)}, 55%, 90%)`;
      const polygon = svg("polygon", {class: "region", points: points.map((p) => p.join(",")).join(" "),
                                      fill: colour, "data-signs": region.signs,
                                      "data-bounded": region.bounded}, layers.regions);
      title(polygon, regionText(region));
      polygon.addEventListener("pointerenter", () => { A.hovered = region.signs; refreshHover(); });
      const middle = label && centroid(points);
      if (middle) candidates.push([middle, points, region.signs.replace(/-/g, "−")]);
    });
    candidates.sort((a, b) => b[0][2] - a[0][2]);
    const placed = [];
    for (const [[x, y], points, text] of candidates) {
      const size = labelSize(points, text);
      if (size === null) continue;
      const half = 0.62 * size * text.length / 2;
      const box = {x0: x - half, x1: x + half, y0: y - 0.6 * size, y1: y + 0.6 * size};
      if (placed.some((other) => overlaps(box, other))) continue;
      placed.push(box);
      const node = svg("text", {class: "region-label", x: x, y: y}, layers.labels);
      node.style.fontSize = `${size.toFixed(1)}px`;
      node.textContent = text;
    }
    refreshHover();
  }

  function drawPoset() {
    const poset = $("poset");
    clear(poset);
    const answer = A.answer;
    if (!answer) return;
    const flats = answer.poset.flats;
    const top = Math.max(...flats.map((f) => f.rank));
    const width = 400, rowHeight = 70, height = rowHeight * (top + 1) + 20;
    poset.setAttribute("viewBox", `0 0 ${width} ${height}`);
    const perRow = {};
    for (const f of flats) perRow[f.rank] = (perRow[f.rank] || 0) + 1;
    const widest = Math.max(...Object.values(perRow));
    const left = 62, right = 18;  // room for the rank labels, and for a node's radius
    const spacing = Math.min(70, (width - left - right) / Math.max(widest - 1, 1));
    const radius = Math.max(4, Math.min(14, spacing * 0.42));
    const at = (f) => [left + (width - left - right) / 2 + f.x * spacing, height - 25 - f.rank * rowHeight];
    for (const [lower, upper] of answer.poset.covers) {
      const [ax, ay] = at(flats[lower]), [bx, by] = at(flats[upper]);
      svg("line", {class: "cover", x1: ax, y1: ay, x2: bx, y2: by}, poset);
    }
    for (let r = 0; r <= top; r++) {
      svg("text", {class: "rank-label", x: 2, y: height - 21 - r * rowHeight}, poset).textContent = `rank ${r}`;
    }
    flats.forEach((f, index) => {
      const [x, y] = at(f);
      const name = f.rank === 0 ? "ℝ²" : f.hyperplanes.map((h) => `H${h}`).join(",");
      const node = svg("circle", {class: `flat rank-${f.rank}`, cx: x, cy: y, r: radius, "data-flat": index,
                                  "data-mobius": f.mobius}, poset);
      title(node, `${name} · μ = ${f.mobius}`);
      if (radius >= 8) {
        svg("text", {class: "mobius", x: x, y: y}, poset).textContent = String(f.mobius).replace("-", "−");
      }
      node.addEventListener("pointerenter", () => {
        A.flat = f;
        $("poset-hover").textContent = `${name}: μ = ${f.mobius}` + (f.point ? ` · the point ` +
          `(${f.point.map((v) => Math.round(v * 1e4) / 1e4).join(", ")})` : "");
        drawLines(); drawMarks();
      });
      node.addEventListener("pointerleave", () => { A.flat = null; drawLines(); drawMarks(); });
      if (f.rank === 1) {
        node.addEventListener("click", () => {
          const i = A.lines.findIndex((_, k) => hyperplaneOf(k) === f.hyperplanes[0]);
          if (i >= 0) select(i);
        });
      }
    });
  }

  function showCounts() {
    const answer = A.answer;
    const s = answer.summary;
    $("a-lines").textContent = `${A.lines.length} (${s.hyperplanes})`;
    $("a-regions").textContent = s.regions;
    $("a-bounded").textContent = s.bounded_regions;
    $("a-chi").textContent = answer.characteristic_polynomial_text;
    $("a-zaslavsky-regions").textContent = answer.zaslavsky.regions;
    $("a-zaslavsky-bounded").textContent = answer.zaslavsky.bounded_regions;
    const agree = s.zaslavsky.agrees;
    $("a-agree").className = agree ? "agree" : "disagree";
    $("a-agree").textContent = agree ? "Zaslavsky's counts agree with the enumeration (exact)."
      : "Zaslavsky's counts DISAGREE with the enumeration.";
    const box = $("a-selected");
    clear(box);
    const sel = answer.selected;
    if (!sel) return;
    const h = `H${sel.hyperplane}`;
    const rows = [
      ["b", `Line ${h}: deletion and restriction`],
      ["", `deletion A∖${h}: ${sel.deletion.regions} regions (${sel.deletion.bounded_regions} bounded), ` +
        `χ = ${sel.deletion.text}`],
      ["", `restriction A/${h}: ${sel.restriction.regions} regions (the other lines cross ${h} at ` +
        `${sel.restriction.points.length} points, in red), χ = ${sel.restriction.text}`],
      [sel.regions_add_up ? "agree" : "disagree",
       `r(A) = r(A∖${h}) + r(A/${h}): ${s.regions} = ${sel.deletion.regions} + ${sel.restriction.regions}`],
      [sel.polynomials_agree ? "agree" : "disagree", `χ(A) = χ(A∖${h}) − χ(A/${h}): ` +
        `${answer.characteristic_polynomial_text} = (${sel.deletion.text}) − (${sel.restriction.text})`],
    ];
    for (const [cls, text] of rows) {
      const p = document.createElement("p");
      if (cls === "b") p.style.fontWeight = "600"; else if (cls) p.className = cls;
      p.textContent = text;
      box.appendChild(p);
    }
  }

  // The "Lines" box names what the canvas shows: the course's four lines, a named arrangement once it is
  // loaded, or "your lines" as soon as a line is moved, drawn or deleted.
  function showSource(value) {
    $("named-edited").hidden = value !== "";
    $("named").value = value;
  }

  const sendArrangement = sender("api/arrangement", (answer, body) => {
    if (answer.source !== "lines") {  // a named arrangement: its lines become draggable ones
      A.lines = answer.lines.map((line) => ({p: line.points[0], q: line.points[1]}));
      showSource(body.name);
    }
    if (!body.window) A.window = answer.window;
    A.answer = answer;
    drawAll();
  });

  function drawAll() {
    drawGrid();
    drawRegions();
    drawLines();
    drawMarks();
    if (A.answer) {
      showCounts();
      drawPoset();
    }
    $("delete-line").disabled = A.selected === null;
  }

  function request({fit = false} = {}) {
    const body = {lines: A.lines.map((line) => [line.p, line.q])};
    if (A.window && !fit) body.window = A.window;
    if (A.selected !== null) body.selected = A.selected;
    sendArrangement(body);
  }

  function select(i) {
    A.selected = i;
    request();
  }

  const COURSE = [{p: ["0", "-3/2"], q: ["0", "3/2"]}, {p: ["-3/2", "0"], q: ["3/2", "0"]},
                  {p: ["-1/2", "3/2"], q: ["3/2", "-1/2"]}, {p: ["-1/2", "-1"], q: ["3/2", "1"]}];

  function loadCourse() {
    A.lines = COURSE.map((line) => ({p: line.p.slice(), q: line.q.slice()}));
    A.window = [["-2", "-2"], ["2", "2"]];
    A.selected = null;
    A.hovered = null;
    showSource("course");
    drawAll();
    request();
  }

  function loadNamed(name) {
    if (name === "course" || name === "") {
      if (name === "course") loadCourse();
      return;
    }
    A.selected = null;
    A.window = null;
    A.hovered = null;
    refreshHover();
    sendArrangement({name: name});
  }

  function edited() {
    showSource("");
  }

  plane.addEventListener("pointerdown", (event) => {
    const target = event.target;
    if (target.classList.contains("handle")) {
      A.drag = {kind: "handle", line: Number(target.dataset.line), end: target.dataset.end};
    } else if (target.classList.contains("line-hit")) {
      select(Number(target.dataset.line));
      return;
    } else {
      if (A.lines.length >= LIMITS.max_lines) {
        showError(`lines: at most ${LIMITS.max_lines} lines; delete one first`);
        return;
      }
      const point = snapPoint(toWorld(event));
      edited();
      A.lines.push({p: point, q: point});
      A.drag = {kind: "new", line: A.lines.length - 1, end: "q"};
    }
    plane.setPointerCapture(event.pointerId);
    event.preventDefault();
    drawLines();
  });

  plane.addEventListener("pointermove", (event) => {
    if (!A.drag) return;
    const line = A.lines[A.drag.line];
    const point = snapPoint(toWorld(event));
    const other = A.drag.end === "p" ? line.q : line.p;
    if (point[0] === line[A.drag.end][0] && point[1] === line[A.drag.end][1]) return;
    if (point[0] === other[0] && point[1] === other[1]) return;  // a line needs two different points
    line[A.drag.end] = point;
    if (A.drag.kind === "handle") edited();
    drawLines();
    if (A.drag.kind === "handle") request();
  });

  function endDrag() {
    if (!A.drag) return;
    const drag = A.drag;
    A.drag = null;
    const line = A.lines[drag.line];
    if (drag.kind === "new" && line.p[0] === line.q[0] && line.p[1] === line.q[1]) {
      A.lines.pop();  // a click, not a drag: no line
      drawLines();
      return;
    }
    request();
  }

  plane.addEventListener("pointerleave", () => { if (!A.drag) { A.hovered = null; refreshHover(); } });
  plane.addEventListener("pointerup", endDrag);
  plane.addEventListener("pointercancel", endDrag);

  document.addEventListener("keydown", (event) => {
    if ($("view-arrangement").hidden || event.target.tagName === "INPUT") return;
    if ((event.key === "Delete" || event.key === "Backspace") && A.selected !== null) deleteSelected();
    if (event.key === "Escape" && A.selected !== null) select(null);
  });

  function deleteSelected() {
    edited();
    A.lines.splice(A.selected, 1);
    A.selected = null;
    request();
  }

  $("delete-line").addEventListener("click", () => { if (A.selected !== null) deleteSelected(); });
  $("clear-lines").addEventListener("click", () => { edited(); A.lines = []; A.selected = null; request(); });
  $("fit").addEventListener("click", () => { A.window = null; request({fit: true}); });
  $("load-named").addEventListener("click", () => loadNamed($("named").value));

  // ========================================================================================== networks
  const N = {layers: null, box: [["-1", "-1"], ["1", "1"]], answer: null, started: false, hovered: null};
  const netPlane = $("net-plane");

  function netToScreen(x, y) {
    const [[x0, y0], [x1, y1]] = N.box.map((p) => p.map(toFloat));
    return [(x - x0) / (x1 - x0) * SIZE, (y1 - y) / (y1 - y0) * SIZE];
  }

  function colourBy() {
    return document.querySelector("input[name=colour]:checked").value;
  }

  // Ticks every 1/2 on both sides of the box, and the names of the coordinates, outside the 600-unit square.
  function drawNetAxes() {
    const [[x0, y0], [x1, y1]] = N.box.map((p) => p.map(toFloat));
    const step = (x1 - x0) / 4;
    for (let k = 0; k <= 4; k++) {
      const x = x0 + k * step, y = y0 + k * (y1 - y0) / 4;
      const [sx] = netToScreen(x, y0), [, sy] = netToScreen(x0, y);
      svg("line", {class: "tick", x1: sx, y1: SIZE, x2: sx, y2: SIZE + 7}, netPlane);
      svg("text", {class: "tick-label", x: sx, y: SIZE + 24, "text-anchor": "middle"}, netPlane).textContent =
        decimal(String(x)).replace("-", "−");
      svg("line", {class: "tick", x1: -7, y1: sy, x2: 0, y2: sy}, netPlane);
      svg("text", {class: "tick-label", x: -10, y: sy + 5, "text-anchor": "end"}, netPlane).textContent =
        decimal(String(y)).replace("-", "−");
    }
    svg("text", {class: "axis-name", x: SIZE / 2, y: SIZE + 46, "text-anchor": "middle"}, netPlane).textContent =
      "x₁";
    svg("text", {class: "axis-name", x: -40, y: SIZE / 2, "text-anchor": "middle"}, netPlane).textContent = "x₂";
  }

  const N_PROMPT = "Point at a region for its activation pattern.";

  function netRegionText(region) {
    return `pattern ${region.pattern} · linear region ${region.linear_region}`;
  }

  function drawNetwork() {
    clear(netPlane);
    drawNetAxes();
    const answer = N.answer;
    if (!answer) return;
    const byLinear = colourBy() === "linear";
    answer.regions.forEach((region, k) => {
      if (region.polygon.length < 3) return;
      const key = byLinear ? region.linear_region : k;
      const points = region.polygon.map(([x, y]) => netToScreen(x, y).join(",")).join(" ");
      const polygon = svg("polygon", {class: "region", points: points, fill: `hsl(${hue(key)}, 58%, 72%)`,
                                      "data-pattern": region.pattern}, netPlane);
      polygon.style.strokeWidth = byLinear ? "0.3" : "0.6";
      title(polygon, netRegionText(region));
      polygon.addEventListener("pointerenter", () => { N.hovered = region.pattern; refreshNetHover(); });
    });
    refreshNetHover();
    const s = answer.summary;
    $("n-neurons").textContent = s.neurons;
    $("n-activation").textContent = s.activation_regions;
    $("n-linear").textContent = s.linear_regions;
    $("n-adjacencies").textContent = s.adjacencies;
    $("n-exact").textContent = s.exact ? "yes" : "no";
  }

  // As for the arrangement: the hover line describes a region of the network drawn now, or prompts.
  function refreshNetHover() {
    const answer = N.answer;
    const region = answer && N.hovered !== null ? answer.regions.find((r) => r.pattern === N.hovered) : null;
    $("n-hover").textContent = region ? netRegionText(region) : N_PROMPT;
    if (!region) N.hovered = null;
  }

  netPlane.addEventListener("pointerleave", () => { N.hovered = null; refreshNetHover(); });

  const sendNetwork = sender("api/network", (answer, body) => {
    if (body.widths) {  // a new network: its weights, as drawn by the server, go onto the sliders
      N.layers = answer.layers.map((layer) => ({weight: layer.weight.map((row) => row.slice()),
                                                bias: layer.bias.slice(), activation: layer.activation}));
      buildSliders();
    }
    N.answer = answer;
    drawNetwork();
  });

  function sendLayers() {
    sendNetwork({layers: N.layers.map((layer) => ({weight: layer.weight, bias: layer.bias})), box: N.box});
  }

  function slider(id, value, onChange) {
    const hundredths = Math.round(toFloat(value) * 100);
    const wrap = document.createElement("label");
    wrap.className = "weight";
    const input = document.createElement("input");
    input.type = "range";
    input.id = id;
    input.min = String(Math.min(-SLIDER_RANGE, hundredths));
    input.max = String(Math.max(SLIDER_RANGE, hundredths));
    input.step = "1";
    input.value = String(hundredths);
    const output = document.createElement("output");
    output.textContent = (hundredths / 100).toFixed(2);
    input.addEventListener("input", () => {
      const n = Number(input.value);
      output.textContent = (n / 100).toFixed(2);
      onChange(fraction(n, 100));
    });
    wrap.appendChild(input);
    wrap.appendChild(output);
    return wrap;
  }

  function buildSliders() {
    const box = $("sliders");
    clear(box);
    const many = N.layers.reduce((n, layer) => n + layer.weight.length * (layer.weight[0].length + 1), 0) > 200;
    N.layers.forEach((layer, l) => {
      const details = document.createElement("details");
      details.open = !many || l === 0;
      const summary = document.createElement("summary");
      const units = layer.weight.length, inputs = layer.weight[0].length;
      const kind = layer.activation === "relu" ? "ReLU unit" : "linear output";
      summary.textContent = `Layer ${l + 1}: ${units} ${kind}${units === 1 ? "" : "s"}, ` +
        `${inputs} input${inputs === 1 ? "" : "s"} ${units === 1 ? "" : "each"}`.trim();
      details.appendChild(summary);
      layer.weight.forEach((row, i) => {
        const unit = document.createElement("div");
        unit.className = "unit";
        const name = document.createElement("span");
        name.textContent = `unit ${i}`;
        unit.appendChild(name);
        const weights = document.createElement("div");
        weights.className = "weights";
        row.forEach((value, j) => {
          const w = slider(`w-${l}-${i}-${j}`, value, (text) => { layer.weight[i][j] = text; sendLayers(); });
          w.title = `weight from input ${j}`;
          weights.appendChild(w);
        });
        const b = slider(`b-${l}-${i}`, layer.bias[i], (text) => { layer.bias[i] = text; sendLayers(); });
        b.title = "bias";
        b.classList.add("bias");
        weights.appendChild(b);
        unit.appendChild(weights);
        details.appendChild(unit);
      });
      box.appendChild(details);
    });
  }

  function newNetwork() {
    const widths = $("widths").value.split(",").map((v) => Number(v.trim()));
    sendNetwork({widths: widths, seed: Number($("seed").value), box: N.box});
  }

  $("new-network").addEventListener("click", newNetwork);
  for (const radio of document.querySelectorAll("input[name=colour]")) radio.addEventListener("change", drawNetwork);

  // ============================================================================================= tabs
  function show(view) {
    for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.view === view);
    $("view-arrangement").hidden = view !== "arrangement";
    $("view-network").hidden = view !== "network";
    if (view === "network" && !N.started) {
      N.started = true;
      newNetwork();
    }
  }

  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => show(tab.dataset.view));

  // ============================================================================================ start
  let LIMITS = {max_lines: 12};

  async function start() {
    try {
      const config = await (await fetch("api/config")).json();
      LIMITS = config.limits;
      for (const name of config.arrangements) {
        const option = document.createElement("option");
        option.value = option.textContent = name;
        $("named").appendChild(option);
      }
    } catch (error) {
      showError(String(error));
    }
    // the four lines of the course's first page: x = 0, y = 0, x + y = 1, x - y = 1/2
    loadCourse();
    if (location.hash === "#network") show("network");
  }

  window.addEventListener("hashchange", () => show(location.hash === "#network" ? "network" : "arrangement"));

  // What the tests and the curious read: the exact state of the page.
  window.explorer = {
    lines: () => A.lines.map((line) => [line.p.slice(), line.q.slice()]),
    window: () => A.window && A.window.map((p) => p.slice()),
    selected: () => A.selected,
    source: () => $("named").value,
    layers: () => N.layers && N.layers.map((layer) => ({weight: layer.weight.map((r) => r.slice()),
                                                        bias: layer.bias.slice()})),
    show: show,
    loadNamed: loadNamed,
  };

  start();
})();
