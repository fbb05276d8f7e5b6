/* PacerCapacity: the page of a capacity search (issue 41: `pacer --capacity`, a series
 * of open-model steps at chosen rates, or a fixed sweep) and of the comparison of two,
 * drawn from the JSON embedded in the page with PacerCharts (web/charts.js) and uPlot.
 * Plain script: defines the global `PacerCapacity`; loaded after charts.js and before
 * report.js, whose boot() hands it the two schemas below. Nothing here fetches anything.
 *
 *   PacerCapacity.render(el, doc) -> Promise          doc: "pacer-capacity"
 *   PacerCapacity.renderCompare(el, cmp) -> Promise   cmp: "pacer-capacity-compare"
 *   PacerCapacity.curveChart(el, spec) -> handle      an x-y chart whose points join in
 *       the order given, not by x (past the server's limit the achieved rate can fall
 *       back while latency climbs). spec: {title, unit ("ms" | "%"), log, height?,
 *       series: [{label, color, dash?, width?, info?, points: [{x, y, mark, group,
 *       text?}]}], limits: [{y, label}], markers: [{x, label, color, dash?, align?,
 *       row?}]}. The line joins the median of each run of points with one `group`
 *       (the repeats of a rate); every point is marked ("holds"/"measured": a dot,
 *       "breaks": a red cross, "client": an amber square). An `info` series draws
 *       nothing: its legend row says which point the cursor is on (`text`). Hover
 *       picks the nearest point of each series by x. Registered as kind "curve".
 *   PacerCapacity.holdsChange(baseDoc, candDoc) -> fraction | null   the change of
 *       answer.holds_at_per_s, candidate against baseline.
 *   PacerCapacity.stepsTable(el, doc), rateText(perS): the steps' table (the live
 *       view's search panel draws it from its progress documents, web/search.js).
 *
 * "pacer-capacity" (version 1): {schema, version, mode ("search" | "sweep"), url,
 *   command_line, objective ("p99<=50ms,errors<=0.1%", "" for a sweep without one),
 *   terms: [{figure, limit, unit ("ns" | "fraction"), text}], settings: {step_duration_s,
 *   step_warmup_s, precision, budget_s, step_repeat, arrival, connections, threads,
 *   start_rate_per_s, start_from, server_sampled}, answer: {outcome ("found" | "client_limited" |
 *   "no_rate_held" | "never_broke" | "sweep"), holds_at_per_s, breaks_at_per_s (or
 *   null), broken_by, client_limit, sentence, cut_short, cut_reason, elapsed_s},
 *   steps: [{index (1-based, as run), kind ("probe" | "step"), target_rate_per_s (0 for
 *   the probe), achieved_rate_per_s, repeat, repeats, latency_ns: {p50, p90, p99, max},
 *   requests, errors, error_rate, server_cpu (a fraction of one CPU, or null), verdict
 *   ("holds" | "breaks" | "client" | "measured"), near, broken_by, client_limit, run
 *   (the step's "pacer-report" JSON)}]}
 * "pacer-capacity-compare" (version 1): {schema, version, baseline: {file, doc},
 *   candidate: {file, doc}}, each doc a "pacer-capacity" document as written.
 *
 * For tests: [data-field=sentence] is answer.sentence, [data-field=outcome] has the
 * outcome in data-value; [data-figure=holds_at|breaks_at|steps|holds_at_change] carry
 * the JSON's number in data-value; table.cap-steps has a row per step (its first cell:
 * the index); a compare page's sides are #side-baseline and #side-candidate (their
 * cards) and #run-baseline, #run-candidate (their full pages).
 */
(function (global) {
  'use strict';
  const C = global.PacerCharts;
  const LATENCY_COLORS = {p50: '#1f6fd1', p90: '#2a9d3a', p99: '#8a3fd1', 'p99.9': '#0a9aa8', max: '#8c8c8c'};
  const LATENCY_ORDER = ['p50', 'p90', 'p99', 'p99.9', 'max', 'mean'];
  const BROKE = '#d11f1f', CLIENT = '#c49a00', HELD = '#1e7b34';
  const SIDES = {baseline: '#1f6fd1', candidate: '#e07020'};
  const VERDICT_WORDS = {holds: 'holds', breaks: 'breaks', client: 'client-limited', measured: 'measured'};

  const {h, figure} = global.PacerCharts;  // the DOM helpers (charts.js)
  const section = (el, title, cls) => global.PacerCharts.section(el, title, undefined, cls);

  // ---- Reading the document --------------------------------------------------------

  // "11,800/s" as the terminal's sentence writes rates; a tenth below 100/s.
  function rateText(r) {
    if (r == null || !isFinite(r)) return '–';
    return C.fmtCount(Math.abs(r) >= 100 ? Math.round(r) : Math.round(r * 10) / 10) + '/s';
  }
  function secondsText(s) {
    if (s == null) return '–';
    if (s < 60) return (Math.round(s * 10) / 10) + 's';
    const m = Math.floor(s / 60), rest = Math.round(s - m * 60);
    return m + 'm' + (rest ? rest + 's' : '');
  }
  function median(xs) {
    const v = xs.slice().sort((a, b) => a - b);
    return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  // The steps on the curve: the probe (a closed loop, no target) left out, in the
  // order of their target rates, a rate's repeats in the order they ran.
  function curveSteps(doc) {
    return (doc.steps || []).filter((s) => s.kind !== 'probe' && s.achieved_rate_per_s > 0)
      .sort((a, b) => a.target_rate_per_s - b.target_rate_per_s || a.index - b.index);
  }
  // The latency figures the steps have, in the order of LATENCY_ORDER, then any other.
  function latencyKeys(steps) {
    const keys = new Set();
    for (const s of steps) for (const k of Object.keys(s.latency_ns || {})) keys.add(k);
    return LATENCY_ORDER.filter((k) => keys.has(k)).concat([...keys].filter((k) => !LATENCY_ORDER.includes(k)));
  }
  function stepText(s) {
    const rep = s.repeats > 1 ? `, run ${s.repeat} of ${s.repeats}` : '';
    return `#${s.index}: ${rateText(s.target_rate_per_s)} → ${rateText(s.achieved_rate_per_s)}${rep}, ${VERDICT_WORDS[s.verdict] || s.verdict}`;
  }

  // The answer's outcome in one line: {cls (pr-verdict's colour), text}.
  function outcomeLine(doc) {
    const a = doc.answer || {};
    const steps = curveSteps(doc);
    const targets = steps.map((s) => s.target_rate_per_s);
    switch (a.outcome) {
      case 'found': {
        const p = (doc.settings || {}).precision;
        return {cls: 'ok', text: 'found: the highest rate that held and the lowest that broke' +
          (p ? `, within the search's precision (${(p * 100).toFixed(p < 0.01 ? 1 : 0)}%)` : '')};
      }
      case 'client_limited':
        return {cls: 'warn', text: 'the client was the limit, not the server: ' +
          (a.client_limit || 'pacer could not offer the rate').replace(/\.$/, '') +
          (a.holds_at_per_s != null ? `. The server held at ${rateText(a.holds_at_per_s)}; its own limit was not reached.` : '')};
      case 'no_rate_held':
        return {cls: 'bad', text: `no rate held the objective, not even the lowest tried (${rateText(Math.min(...targets))})` +
          (a.broken_by ? ': ' + a.broken_by : '')};
      case 'never_broke':
        return {cls: 'warn', text: `the objective held at every rate tried, up to ${rateText(Math.max(...targets))}: ` +
          'the server\'s limit is above what the search reached'};
      case 'sweep':
        return {cls: 'info', text: `a sweep of ${new Set(targets).size} rates` +
          (doc.objective ? ', each checked against the objective' : ', measured (no objective)')};
      default:
        return {cls: 'info', text: a.outcome || ''};
    }
  }

  function holdsChange(base, cand) {
    const b = (base.answer || {}).holds_at_per_s, c = (cand.answer || {}).holds_at_per_s;
    return b != null && c != null && b > 0 ? (c - b) / b : null;
  }
  function changeText(c) { return c == null ? '–' : (c > 0 ? '+' : '') + (c * 100).toFixed(1) + '%'; }

  // ---- The curve chart ----------------------------------------------------------------

  // The line of a series: the median point of each group (a rate's repeats), in order.
  function medianLine(points) {
    const groups = [];
    for (const p of points) {
      const last = groups[groups.length - 1];
      if (last && last.key === p.group) last.points.push(p); else groups.push({key: p.group, points: [p]});
    }
    return groups.map((g) => ({x: median(g.points.map((p) => p.x)), y: median(g.points.map((p) => p.y))}));
  }

  function linePath(points) {
    const line = medianLine(points);
    return (u) => {
      const path = new Path2D();
      line.forEach((p, i) => {
        const x = u.valToPos(p.x, 'x', true), y = u.valToPos(p.y, 'y', true);
        if (i) path.lineTo(x, y); else path.moveTo(x, y);
      });
      return {stroke: path, fill: null, clip: null, band: null, gaps: null, flags: 0};
    };
  }

  function clipToPlot(u) {
    const b = u.bbox;
    u.ctx.save();
    u.ctx.beginPath();
    u.ctx.rect(b.left, b.top, b.width, b.height);
    u.ctx.clip();
  }

  // Behind the series: the bracket's markers and the objective's limits, labelled.
  function drawGuides(u, spec) {
    const ctx = u.ctx, r = uPlot.pxRatio, b = u.bbox;
    clipToPlot(u);
    ctx.font = `${11 * r}px system-ui, sans-serif`;
    ctx.textBaseline = 'alphabetic';
    const rows = (spec.markers || []).reduce((n, m) => Math.max(n, (m.row || 0) + 1), 0);
    for (const m of spec.markers || []) {
      const x = Math.round(u.valToPos(m.x, 'x', true));
      ctx.strokeStyle = ctx.fillStyle = m.color;
      ctx.lineWidth = 1.5 * r;
      ctx.setLineDash((m.dash || []).map((d) => d * r));
      ctx.beginPath(); ctx.moveTo(x, b.top); ctx.lineTo(x, b.top + b.height); ctx.stroke();
      // A label that would pass the plot's edge goes to the line's other side, a row lower.
      let right = m.align === 'right', row = m.row || 0;
      const w = ctx.measureText(m.label).width + 5 * r;
      if (right ? x - w < b.left : x + w > b.left + b.width) { right = !right; row += rows; }
      ctx.textAlign = right ? 'right' : 'left';
      ctx.fillText(m.label, x + (right ? -5 : 5) * r, b.top + (14 + 14 * row) * r);
    }
    for (const l of spec.limits || []) {
      const y = Math.round(u.valToPos(l.y, 'y', true));
      ctx.strokeStyle = ctx.fillStyle = l.color || BROKE;
      ctx.lineWidth = 1.2 * r;
      ctx.setLineDash([6 * r, 4 * r]);
      ctx.beginPath(); ctx.moveTo(b.left, y); ctx.lineTo(b.left + b.width, y); ctx.stroke();
      ctx.textAlign = 'left';
      ctx.fillText(l.label, b.left + 6 * r, y - 4 * r);
    }
    ctx.restore();
  }

  function drawMark(ctx, x, y, mark, color, r) {
    ctx.setLineDash([]);
    if (mark === 'breaks') {
      const d = 4.5 * r;
      ctx.strokeStyle = BROKE; ctx.lineWidth = 2.2 * r;
      ctx.beginPath(); ctx.moveTo(x - d, y - d); ctx.lineTo(x + d, y + d); ctx.moveTo(x - d, y + d); ctx.lineTo(x + d, y - d); ctx.stroke();
    } else if (mark === 'client') {
      const d = 4 * r;
      ctx.fillStyle = '#fff'; ctx.strokeStyle = CLIENT; ctx.lineWidth = 2 * r;
      ctx.fillRect(x - d, y - d, 2 * d, 2 * d); ctx.strokeRect(x - d, y - d, 2 * d, 2 * d);
    } else {
      ctx.fillStyle = color; ctx.strokeStyle = '#fff'; ctx.lineWidth = 1 * r;
      ctx.beginPath(); ctx.arc(x, y, 3.5 * r, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
    }
  }

  // Over the series: every point, marked by its verdict.
  function drawMarks(u, series) {
    clipToPlot(u);
    series.forEach((s, i) => {
      if (s.info || !u.series[i + 1].show) return;
      for (const p of s.points) drawMark(u.ctx, u.valToPos(p.x, 'x', true), u.valToPos(p.y, 'y', true), p.mark, s.color, uPlot.pxRatio);
    });
    u.ctx.restore();
  }

  // The index of the series' point nearest the cursor along x (then along y).
  function nearest(u, s) {
    let best = null, bestDx = Infinity, bestDy = Infinity;
    s.points.forEach((p, i) => {
      const dx = Math.abs(u.valToPos(p.x, 'x') - u.cursor.left), dy = Math.abs(u.valToPos(p.y, 'y') - u.cursor.top);
      if (dx < bestDx - 0.5 || (Math.abs(dx - bestDx) <= 0.5 && dy < bestDy)) { best = i; bestDx = dx; bestDy = dy; }
    });
    return best;
  }

  // A log axis's ends on 1, 2 or 5 times a power of ten, so its end ticks read plainly.
  function niceLog(v, up) {
    const p = Math.pow(10, Math.floor(Math.log10(v)));
    const steps = [1, 2, 5, 10].map((k) => k * p);
    return up ? steps.find((x) => x >= v * 0.9999) : steps.reverse().find((x) => x <= v * 1.0001);
  }

  function yFormat(unit) { return unit === '%' ? (v) => (v == null ? '–' : v.toFixed(v !== 0 && v < 0.1 ? 3 : 1) + '%') : C.fmtMs; }

  function curveChart(el, spec) {
    const div = C.chartBox(el);
    const series = spec.series.map((s) => Object.assign({}, s, {points: s.points.filter((p) => p.y != null && (!spec.log || p.y > 0))}))
      .filter((s) => s.points.length);
    const xs = series.flatMap((s) => s.points.map((p) => p.x)).concat((spec.markers || []).map((m) => m.x));
    const ys = series.flatMap((s) => s.points.map((p) => p.y)).concat((spec.limits || []).map((l) => l.y));
    const yMax = Math.max(...ys, spec.log ? 1e-3 : 0), yMin = Math.min(...ys.filter((v) => v > 0), yMax);
    const fmt = yFormat(spec.unit);
    const opts = {
      mode: 2, title: spec.title, width: C.chartWidth(el), height: spec.height || 380,
      cursor: {drag: {x: true, y: true}, dataIdx: (u, i) => nearest(u, series[i - 1])},
      scales: {
        x: {time: false, range: () => [0, Math.max(1, ...xs) * 1.08]},
        y: spec.log ? {distr: 3, log: 10, range: () => [niceLog(yMin / 1.25, false), niceLog(yMax * 1.25, true)]} : {range: () => [0, yMax > 0 ? yMax * 1.15 : 1]},
      },
      axes: [{label: 'requests/s achieved', values: C.axisValues('/s')},
        {label: spec.unit === '%' ? '' : 'latency' + (spec.log ? ' (log)' : ''), size: 64,
          values: spec.unit === '%' ? (u, s) => s.map((v) => (v == null ? '' : Number(v.toPrecision(3)) + '%')) : C.axisValues('ms')}],
      series: [{}].concat(series.map((s) => ({
        label: s.label, stroke: s.color, width: s.info ? 0 : s.width || 1.8, dash: s.dash,
        paths: s.info ? () => null : linePath(s.points), points: {show: false},
        value: (u, v, si, idx) => (idx == null ? '–' : s.info ? s.points[idx].text : fmt(s.points[idx].y)),
      }))),
      hooks: {drawAxes: [(u) => drawGuides(u, spec)], draw: [(u) => drawMarks(u, series)]},
    };
    const data = [null].concat(series.map((s) => [s.points.map((p) => p.x), s.points.map((p) => p.y)]));
    const u = new uPlot(opts, data, div);
    const handle = C.register('curve', spec.title, u, series.reduce((n, s) => n + (s.info ? 0 : s.points.length), 0));
    handle.destroy = () => u.destroy();
    return handle;
  }

  // The symbols of the curve, said in words under it.
  function curveKey(el, extra) {
    el.append(h('p', {class: 'pr-note cap-key'}, h('span', {class: 'cap-dot'}, '●'), ' held (or measured)  ',
      h('span', {class: 'cap-cross'}, '✕'), ' broke the objective  ', h('span', {class: 'cap-square'}, '■'),
      ' the client was the limit  · dashed red: the objective\'s limits · ' + extra +
      ' Each line joins a rate\'s median (of its repeats); hover for a step, drag to zoom, double-click to unzoom.'));
  }

  function markOf(step) { return step.verdict === 'breaks' ? 'breaks' : step.verdict === 'client' ? 'client' : 'holds'; }

  function latencySeries(steps, keys, opts) {
    return keys.map((k, i) => ({label: (opts.prefix || '') + k, color: opts.color || LATENCY_COLORS[k] || C.COLORS[i % C.COLORS.length],
      width: opts.widths ? opts.widths[k] : undefined, dash: opts.dashes ? opts.dashes[k] : undefined,
      points: steps.map((s) => ({x: s.achieved_rate_per_s, y: s.latency_ns && s.latency_ns[k] != null ? s.latency_ns[k] / 1e6 : null,
        mark: markOf(s), group: s.target_rate_per_s}))}));
  }
  // y: where the point is on this chart (the info series draws nothing, but it is on the scale).
  function infoSeries(label, steps, y) {
    return {label, info: true, color: '#555', points: steps.map((s) => ({x: s.achieved_rate_per_s,
      y: y(s), group: s.target_rate_per_s, text: stepText(s)}))};
  }
  function p50Ms(s) { return s.latency_ns && s.latency_ns.p50 != null ? s.latency_ns.p50 / 1e6 : null; }
  function latencyLimits(docs) {
    const seen = new Map();
    for (const d of docs) for (const t of d.terms || []) if (t.unit === 'ns') seen.set(t.text, {y: t.limit / 1e6, label: 'limit: ' + t.text});
    return [...seen.values()];
  }
  function bracketMarkers(a, prefix, color, row) {
    const out = [];
    if (a.holds_at_per_s != null) out.push({x: a.holds_at_per_s, label: `${prefix}holds ${rateText(a.holds_at_per_s)}`, color: color || HELD, align: 'right', row});
    if (a.breaks_at_per_s != null) out.push({x: a.breaks_at_per_s, label: `${prefix}breaks ${rateText(a.breaks_at_per_s)}`, color: color || BROKE, dash: [5, 3], row});
    return out;
  }

  // ---- One search -----------------------------------------------------------------------

  function settingsTable(el, doc) {
    const st = doc.settings || {};
    const start = st.start_from === 'given' ? rateText(st.start_rate_per_s) + ' (given)'
      : st.start_from === 'probe' ? 'from a probe' + (st.start_rate_per_s ? ` (${rateText(st.start_rate_per_s)})` : '') : st.start_from;
    const cells = [['step', secondsText(st.step_duration_s) + (st.step_warmup_s ? ` (after ${secondsText(st.step_warmup_s)} warm-up)` : '')],
      ['repeats near a limit', st.step_repeat], ['precision', st.precision != null ? C.fmtPct(st.precision) : null],
      ['time budget', st.budget_s ? secondsText(st.budget_s) : null], ['arrival', st.arrival],
      ['connections', st.connections], ['threads', st.threads], ['start', start]].filter(([, v]) => v != null && v !== '');
    const row = {};
    cells.forEach(([k, v], i) => { row['c' + i] = String(v); });
    const t = C.table(el, {columns: cells.map(([k], i) => ({key: 'c' + i, label: k})), rows: [row]});
    t.classList.add('cap-settings');
  }

  function renderHeader(el, doc) {
    const a = doc.answer || {};
    const head = h('header', {class: 'pr-header'});
    head.append(h('h1', {}, doc.mode === 'sweep' ? 'Capacity sweep' : 'Capacity search'), h('div', {class: 'pr-url'}, doc.url || ''));
    head.append(h('div', {class: 'cap-sentence', 'data-field': 'sentence'}, a.sentence || '–'));
    const o = outcomeLine(doc);
    const lines = h('div', {class: 'cap-lines'}, h('div', {class: 'pr-verdict ' + o.cls, 'data-field': 'outcome', 'data-value': a.outcome}, o.text));
    if (a.cut_short) {
      lines.append(h('div', {class: 'pr-verdict warn', 'data-field': 'cut_short'}, `cut short by ${a.cut_reason || 'an interruption'}: ` +
        `the answer is from the ${(doc.steps || []).length} steps that ran`));
    }
    head.append(lines);
    const box = h('div', {class: 'pr-figures'});
    if (doc.mode !== 'sweep' || (doc.terms || []).length) {  // a sweep with no objective has no bracket
      box.append(figure('holds_at', 'holds at', a.holds_at_per_s, rateText(a.holds_at_per_s)));
      box.append(figure('breaks_at', 'breaks at', a.breaks_at_per_s, rateText(a.breaks_at_per_s),
        a.breaks_at_per_s != null && a.broken_by ? a.broken_by : null));
    }
    box.append(figure('steps', 'steps run', (doc.steps || []).length, C.fmtCount((doc.steps || []).length)));
    box.append(figure('elapsed', 'time taken', a.elapsed_s, secondsText(a.elapsed_s)));
    head.append(box);
    const dl = h('dl', {class: 'pr-meta'});
    if (doc.command_line) dl.append(h('dt', {}, 'command'), h('dd', {'data-field': 'command_line'}, doc.command_line));
    dl.append(h('dt', {}, 'objective'), h('dd', {'data-field': 'objective'},
      (doc.terms || []).length ? doc.terms.map((t) => t.text).join(' and ') : doc.objective || 'none (each rate measured)'));
    head.append(dl);
    settingsTable(head, doc);
    el.append(head);
  }

  function renderCurves(el, doc) {
    const s = section(el, 'Latency versus throughput', 'cap-curve');
    const steps = curveSteps(doc);
    if (!steps.length) { s.append(h('p', {class: 'pr-note'}, 'No step ran at a target rate.')); return; }
    curveChart(s, {title: 'Latency by achieved rate (log)', unit: 'ms', log: true,
      series: [infoSeries('step', steps, p50Ms)].concat(latencySeries(steps, latencyKeys(steps), {})),
      limits: latencyLimits([doc]), markers: bracketMarkers(doc.answer || {}, '', null, 0)});
    curveKey(s, 'green and red verticals: the answer, the target rate that held and the one that broke ' +
      '(past its limit a server achieves less than the target, so a step that broke can sit left of its rate).');
    const terms = (doc.terms || []).filter((t) => t.unit !== 'ns');
    const hasCpu = steps.some((x) => x.server_cpu != null);
    if (!terms.length && !hasCpu && !steps.some((x) => x.errors > 0)) return;
    const pointsOf = (f) => steps.map((x) => ({x: x.achieved_rate_per_s, y: f(x) == null ? null : f(x) * 100, mark: markOf(x), group: x.target_rate_per_s}));
    const series = [infoSeries('step', steps, (x) => x.error_rate * 100), {label: 'errors', color: '#d1481f', points: pointsOf((x) => x.error_rate)}];
    if (hasCpu) series.push({label: 'server CPU (of one CPU)', color: '#0a9aa8', points: pointsOf((x) => x.server_cpu)});
    curveChart(s, {title: 'Errors and server CPU by achieved rate', unit: '%', log: false, height: 260, series,
      limits: terms.map((t) => ({y: t.limit * 100, label: 'limit: ' + t.text})), markers: bracketMarkers(doc.answer || {}, '', null, 0)});
  }

  function stepsTable(el, doc) {
    const s = section(el, 'Steps', 'cap-steps-section');
    const steps = doc.steps || [];
    const hasCpu = steps.some((x) => x.server_cpu != null);
    const lat = (x, k) => ({value: x.latency_ns ? x.latency_ns[k] : null, text: C.fmtNs(x.latency_ns ? x.latency_ns[k] : null)});
    const rows = steps.map((x) => ({index: x.index, kind: x.kind, verdict: x.verdict,
      target: {value: x.kind === 'probe' ? null : x.target_rate_per_s, text: x.kind === 'probe' ? '–' : rateText(x.target_rate_per_s)},
      achieved: {value: x.achieved_rate_per_s, text: rateText(x.achieved_rate_per_s)},
      p50: lat(x, 'p50'), p90: lat(x, 'p90'), p99: lat(x, 'p99'), max: lat(x, 'max'),
      requests: x.requests, errors: x.errors, error_rate: x.error_rate, cpu: x.server_cpu,
      verdict_text: VERDICT_WORDS[x.verdict] || x.verdict, repeat: {value: x.repeat, text: `${x.repeat}/${x.repeats}`},
      note: x.broken_by || x.client_limit || (x.kind === 'probe' ? 'a closed loop: picks the start rate' : x.near && x.repeats > 1 ? 'near the limit: repeated' : x.near ? 'near the limit' : '')}));
    const columns = [{key: 'index', label: '#', num: true}, {key: 'kind', label: 'kind'},
      {key: 'target', label: 'target', num: true, format: (v) => v.text}, {key: 'achieved', label: 'achieved', num: true, format: (v) => v.text},
      ...['p50', 'p90', 'p99', 'max'].map((k) => ({key: k, label: k, num: true, format: (v) => v.text})),
      {key: 'requests', label: 'requests', num: true}, {key: 'errors', label: 'errors', num: true},
      {key: 'error_rate', label: 'error rate', num: true, format: C.fmtPct}];
    if (hasCpu) columns.push({key: 'cpu', label: 'server CPU', num: true, format: C.fmtPct});
    columns.push({key: 'verdict_text', label: 'verdict'}, {key: 'repeat', label: 'run', num: true, format: (v) => v.text},
      {key: 'note', label: 'why'});
    const t = C.table(s, {sortable: true, columns, rows, rowClass: (r) => 'cap-' + (r.kind === 'probe' ? 'probe' : r.verdict)});
    t.classList.add('cap-steps');
  }

  // Blue (the lowest rate) to red (the highest), through purple.
  function rampColor(i, n) { return `hsl(${Math.round(220 + 140 * (n > 1 ? i / (n - 1) : 0)) % 360}, 70%, 45%)`; }

  async function decodedLatency(lat) {
    if (!lat || !lat.histogram) return null;
    const hist = await C.decodeHistogram(lat.histogram);
    if (hist && hist.total && lat.max_ns != null) { hist.max = lat.max_ns; hist.min = lat.min_ns; }
    return hist;
  }

  // Each step's run, its whole latency histogram on one percentile plot.
  async function stepDistributions(el, doc) {
    const s = section(el, 'Latency distribution of each step', 'cap-distribution');
    const steps = curveSteps(doc).filter((x) => x.run && x.run.latency && x.run.latency.histogram);
    if (!steps.length) { s.append(h('p', {class: 'pr-note'}, 'The steps have no run report with a histogram.')); return; }
    const box = h('div', {class: 'pr-charts'});
    s.append(box, h('p', {class: 'pr-note'}, 'One curve per step, from its run\'s HdrHistogram (the probe left out): blue for the ' +
      'lowest rate to red for the highest, dashed where the step broke the objective. Click a name to hide its curve.'));
    const hists = await Promise.all(steps.map((x) => Promise.all([decodedLatency(x.run.latency),
      x.run.latency.censored_count ? C.decodeHistogram(x.run.latency.censored_histogram) : null])));
    C.percentileChart(box, {title: 'Latency by percentile, each step', height: 360, log: true, series: steps.map((x, i) => ({
      label: `#${x.index} ${rateText(x.target_rate_per_s)}` + (x.repeats > 1 ? ` (${x.repeat}/${x.repeats})` : ''),
      hist: hists[i][0], censored: hists[i][1], color: rampColor(i, steps.length), dash: x.verdict === 'breaks' ? [5, 3] : undefined}))});
  }

  async function render(el, doc) {
    renderHeader(el, doc);
    renderCurves(el, doc);
    stepsTable(el, doc);  // drawn before anything is awaited, as report.js's tables
    await stepDistributions(el, doc);
  }

  // ---- Two searches ---------------------------------------------------------------------

  function sideCard(name, side) {
    const a = side.doc.answer || {};
    const card = h('div', {class: 'cap-side', id: 'side-' + name, style: `border-top-color: ${SIDES[name]}`});
    card.append(h('h3', {}, `${name}: ${side.file}`), h('div', {class: 'cap-sentence', 'data-field': 'sentence'}, a.sentence || '–'),
      h('div', {class: 'pr-note'}, outcomeLine(side.doc).text + (a.cut_short ? ` (cut short by ${a.cut_reason})` : '')));
    const box = h('div', {class: 'pr-figures'});
    box.append(figure('holds_at', 'holds at', a.holds_at_per_s, rateText(a.holds_at_per_s)),
      figure('breaks_at', 'breaks at', a.breaks_at_per_s, rateText(a.breaks_at_per_s)));
    card.append(box);
    return card;
  }

  // What makes the two answers hard to compare, in words.
  function differences(base, cand) {
    const out = [];
    if (base.objective !== cand.objective) out.push(`the objectives differ ("${base.objective}" and "${cand.objective}")`);
    if (base.url !== cand.url) out.push(`the URLs differ (${base.url} and ${cand.url})`);
    const bs = base.settings || {}, cs = cand.settings || {};
    const keys = ['step_duration_s', 'step_warmup_s', 'arrival', 'connections', 'threads', 'precision']
      .filter((k) => bs[k] !== cs[k]);
    if (keys.length) out.push('the settings differ: ' + keys.map((k) => `${k} ${bs[k]} → ${cs[k]}`).join(', '));
    return out;
  }

  async function renderCompare(el, cmp) {
    const base = cmp.baseline.doc, cand = cmp.candidate.doc;
    const head = h('header', {class: 'pr-header'}, h('h1', {}, 'Capacity: baseline vs candidate'),
      h('div', {class: 'pr-url'}, base.url === cand.url ? base.url : `${base.url} · ${cand.url}`));
    const change = holdsChange(base, cand);
    const why = change != null ? `${rateText(base.answer.holds_at_per_s)} → ${rateText(cand.answer.holds_at_per_s)}`
      : `a side has no rate that held (${base.answer.outcome}, ${cand.answer.outcome})`;
    const box = h('div', {class: 'pr-figures'}, figure('holds_at_change', 'change of "holds at"', change, changeText(change), why));
    box.firstChild.classList.add('cap-change', change == null ? 'none' : change >= 0 ? 'up' : 'down');
    head.append(box, h('div', {class: 'cap-sides'}, sideCard('baseline', cmp.baseline), sideCard('candidate', cmp.candidate)));
    for (const d of differences(base, cand)) head.append(h('p', {class: 'pr-hint'}, 'Careful: ' + d + '.'));
    el.append(head);
    const s = section(el, 'Latency versus throughput, overlaid', 'cap-curve');
    const bs = curveSteps(base), cs = curveSteps(cand);
    const side = (name, steps) => [infoSeries(name + ' step', steps, p50Ms)].concat(latencySeries(steps, ['p99', 'p50'],
      {prefix: name + ' ', color: SIDES[name], widths: {p99: 2.2, p50: 1.4}, dashes: {p50: [6, 4]}}));
    curveChart(s, {title: 'Latency by achieved rate (log): p99 solid, p50 dashed', unit: 'ms', log: true,
      series: side('baseline', bs).concat(side('candidate', cs)), limits: latencyLimits([base, cand]),
      markers: bracketMarkers(base.answer || {}, 'baseline ', SIDES.baseline, 0).concat(bracketMarkers(cand.answer || {}, 'candidate ', SIDES.candidate, 1))});
    curveKey(s, 'verticals in each side\'s colour: the target rate where it held (solid) and where it broke (dashed).');
    for (const [name, sd] of [['baseline', cmp.baseline], ['candidate', cmp.candidate]]) {
      const part = h('div', {class: 'pr-run', id: 'run-' + name});
      part.append(h('h2', {}, `The ${name}: ${sd.file}`));
      el.append(part);
      await render(part, sd.doc);
    }
  }

  global.PacerCapacity = {render, renderCompare, curveChart, holdsChange, stepsTable, rateText};
})(typeof window !== 'undefined' ? window : globalThis);
