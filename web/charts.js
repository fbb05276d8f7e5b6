/* PacerCharts: pacer's charts and tables, drawn with uPlot. Shared by the HTML
 * report (web/report.js) and the live view (--web). Plain script, no imports: it
 * defines the global `PacerCharts` and needs the global `uPlot` loaded before it.
 * Nothing here fetches anything.
 *
 * API (every time is in seconds on the x axis, every latency in nanoseconds in and
 * milliseconds on screen):
 *
 *   PacerCharts.decodeHistogram(base64) -> Promise<Histogram|null>
 *       Decodes an HdrHistogram V2 string (compressed, base64: the JSON report's
 *       "histogram" fields). null for null/"" input. Histogram: {total, min, max,
 *       buckets: [{lo, hi, count}] (non-empty, ascending), valueAtPercentile(p)}
 *       where valueAtPercentile(p) is what pacer's C++ prints for p (0..100).
 *
 *   PacerCharts.timeChart(el, spec) -> handle
 *       Appends a time-series chart to el. spec: {title, unit ("ms", "/s", ""),
 *       log (bool: log y axis), x: [seconds...], series: [{label, values: [...],
 *       color?, dash?, bars?}], height?}. null values leave gaps. Hover shows the
 *       values, drag zooms on time, double-click unzooms; every time chart of the page
 *       shares its cursor. handle: {uplot, setData(x, [values...]), destroy()}.
 *
 *   PacerCharts.percentileChart(el, spec) -> handle
 *       The latency distribution on HdrHistogram's percentile axis (x = 1/(1-q), log,
 *       labelled 0% 90% 99% 99.9%...; y = latency). spec: {title, series: [{label,
 *       hist, censored?, color?, dash?}], log?} with decoded Histograms; `censored`
 *       (the timed-out samples) marks the part of the curve that is a lower bound
 *       with red points. The y axis is log when log is true, or (log not given) when
 *       the latencies span more than 50x. handle as above (no setData).
 *
 *   PacerCharts.table(el, spec) -> <table>
 *       spec: {columns: [{key, label, num?, format?}], rows: [{key: value}],
 *       sortable?, rowClass?}. A value may be {value, text}: shown as text, sorted by
 *       value. With sortable, a click on a header sorts by that column (again:
 *       reversed). Numeric cells keep their raw value in data-value. rowClass(row)
 *       -> the class of the row's <tr> (kept when sorted).
 *
 *   PacerCharts.fmtNs(ns), fmtCount(n), fmtRate(perS), fmtPct(fraction)
 *       The report's number formats ("1.23ms", "12,345", "1.2k/s", "12.5%").
 *
 *   PacerCharts.ERROR_CLASSES: the error classes the pages list first, in order.
 *
 *   PacerCharts.charts: every chart handle made so far and not destroyed ({title, kind, points,
 *       uplot}), for tests and for the live view's updates.
 *
 *   For a page's own kind of chart (web/capacity.js): chartBox(el) -> the <div> to
 *       give uPlot, chartWidth(el), axisValues(unit) (uPlot axis labels for "ms",
 *       "/s" or plain numbers), register(kind, title, uplot, points) -> handle (in
 *       `charts`, and resized with the page like the others).
 */
(function (global) {
  'use strict';

  const COLORS = ['#1f6fd1', '#d1481f', '#2a9d3a', '#8a3fd1', '#c49a00', '#0a9aa8', '#d11f86', '#555'];
  // Every error class, in stats::ErrorCounts::kFields' order (redirect and decode
  // are in a report only when they occurred), then a scenario's (check, script:
  // ScenarioErrorCounts); a class a newer report adds follows where a page reads
  // the keys (report.js).
  const ERROR_CLASSES = ['connect', 'tls', 'read', 'write', 'timeout', 'parse', 'deadline', 'backlog', 'unsent',
    'stream_reset', 'goaway', 'redirect', 'decode', 'quic', 'status', 'check', 'script'];
  const charts = [];

  // ---- Number formats ----------------------------------------------------------

  function fmtNs(ns) {
    if (ns == null || !isFinite(ns)) return '–';
    const a = Math.abs(ns);
    if (a >= 1e9) return (ns / 1e9).toFixed(a >= 1e11 ? 0 : 2) + 's';
    if (a >= 1e6) return (ns / 1e6).toFixed(2) + 'ms';
    if (a >= 1e3) return (ns / 1e3).toFixed(2) + 'us';
    return Math.round(ns) + 'ns';
  }
  function fmtMs(ms) { return ms == null ? '–' : fmtNs(ms * 1e6); }
  function fmtCount(n) {
    if (n == null) return '–';
    return Number(n).toLocaleString('en-US', {maximumFractionDigits: 2});
  }
  function fmtRate(r) {
    if (r == null || !isFinite(r)) return '–';
    const a = Math.abs(r);
    if (a >= 1e6) return (r / 1e6).toFixed(2) + 'M/s';
    if (a >= 1e3) return (r / 1e3).toFixed(2) + 'k/s';
    return r.toFixed(a >= 100 ? 0 : 2) + '/s';
  }
  function fmtPct(f) { return f == null || !isFinite(f) ? '–' : (f * 100).toFixed(f !== 0 && Math.abs(f) < 0.001 ? 4 : 2) + '%'; }

  // ---- HdrHistogram V2 decoding ------------------------------------------------
  // Layout as HdrHistogram_c (and pacer's stats/histogram.cc): sub-buckets of
  // 2 * 10^digits rounded up to a power of two, buckets doubling.

  function base64Bytes(text) {
    const bin = atob(text.trim());
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }

  function be32(b, o) { return ((b[o] << 24) >>> 0) + (b[o + 1] << 16) + (b[o + 2] << 8) + b[o + 3]; }
  function be64(b, o) { return be32(b, o) * 4294967296 + be32(b, o + 4); }

  async function inflate(bytes) {
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }

  // ZigZag LEB128-64b9B varints, as numbers (counts stay far below 2^53).
  function readVarints(b, start, end, visit) {
    let pos = start;
    while (pos < end) {
      let zz = 0, mul = 1;
      for (let i = 0; i < 9 && pos < end; i++) {
        const byte = b[pos++];
        if (i === 8) { zz += byte * mul; break; }
        zz += (byte & 0x7f) * mul;
        mul *= 128;
        if ((byte & 0x80) === 0) break;
      }
      // ZigZag: even -> zz/2, odd -> -(zz+1)/2.
      visit(zz % 2 === 0 ? zz / 2 : -(zz + 1) / 2);
    }
  }

  function layout(digits, lowest) {
    const unitMagnitude = Math.floor(Math.log2(lowest));
    const subBucketCount = Math.pow(2, Math.ceil(Math.log2(2 * Math.pow(10, digits))));
    const halfCount = subBucketCount / 2;
    const halfMagnitude = Math.log2(halfCount);
    return {unitMagnitude, halfCount, halfMagnitude};
  }

  function bucketRange(index, L) {
    let bucket = Math.floor(index / L.halfCount) - 1;
    let sub = (index % L.halfCount) + L.halfCount;
    if (bucket < 0) { sub -= L.halfCount; bucket = 0; }
    const unit = Math.pow(2, bucket + L.unitMagnitude);
    return {lo: sub * unit, hi: sub * unit + unit - 1};
  }

  async function decodeHistogram(text) {
    if (!text) return null;
    const packed = base64Bytes(text);
    if (packed.length < 8 || (be32(packed, 0) & ~0xf0) !== 0x1c849304) throw new Error('not a compressed V2 histogram');
    const payload = await inflate(packed.subarray(8, 8 + be32(packed, 4)));
    if ((be32(payload, 0) & ~0xf0) !== 0x1c849303) throw new Error('not a V2 histogram payload');
    const length = be32(payload, 4);
    const L = layout(be32(payload, 12), be64(payload, 16));
    const highestTrackable = be64(payload, 24);
    const buckets = [];
    let index = 0, total = 0;
    readVarints(payload, 40, 40 + length, (v) => {
      if (v < 0) { index += -v; return; }
      if (v > 0) {
        const r = bucketRange(index, L);
        buckets.push({lo: r.lo, hi: Math.min(r.hi, highestTrackable), count: v});
        total += v;
      }
      index += 1;
    });
    return makeHistogram(buckets, total);
  }

  function makeHistogram(buckets, total) {
    const h = {
      total,
      buckets,
      min: buckets.length ? buckets[0].lo : 0,
      max: buckets.length ? buckets[buckets.length - 1].hi : 0,
      // HdrHistogram's rank rule (pacer's rank_at_percentile): ceil(p/100 * total), at least 1.
      // min and max are the buckets' bounds; set them to the report's exact min_ns/max_ns
      // (the V2 encoding does not keep them) to get exactly the report's percentiles.
      valueAtPercentile(p) {
        if (!total) return 0;
        if (!(p > 0)) return h.min;
        const scaled = BigInt(Math.round(Math.min(p, 100) * 1e9));  // fixed point, as the C++ does
        const rank = Math.max(1, Number((scaled * BigInt(total) + 99999999999n) / 100000000000n));
        let cumulative = 0;
        for (const b of buckets) {
          cumulative += b.count;
          if (cumulative >= rank) return Math.min(b.hi, h.max);
        }
        return h.max;
      },
    };
    return h;
  }

  // ---- Charts --------------------------------------------------------------------

  function chartWidth(el) {
    const w = el.clientWidth || (el.parentElement && el.parentElement.clientWidth) || 900;
    return Math.max(320, Math.min(w, 1100));
  }

  function box(el, title) {
    const div = document.createElement('div');
    div.className = 'pc-chart';
    el.appendChild(div);
    return div;
  }

  function valueFormatter(unit) {
    if (unit === 'ms') return (u, v) => fmtMs(v);
    if (unit === '/s') return (u, v) => fmtRate(v);
    return (u, v) => (v == null ? '–' : fmtCount(v));
  }

  // Axis ticks: as short as the tick values allow ("100ms", "2.5k/s", "0").
  function shortNum(v) { return String(Number(v.toPrecision(3))); }
  function axisMs(ms) {
    const ns = ms * 1e6;
    if (ns === 0) return '0';
    if (Math.abs(ns) >= 1e9) return shortNum(ns / 1e9) + 's';
    if (Math.abs(ns) >= 1e6) return shortNum(ns / 1e6) + 'ms';
    if (Math.abs(ns) >= 1e3) return shortNum(ns / 1e3) + 'us';
    return shortNum(ns) + 'ns';
  }
  function axisRate(r) {
    if (r === 0) return '0';
    if (Math.abs(r) >= 1e6) return shortNum(r / 1e6) + 'M/s';
    if (Math.abs(r) >= 1e3) return shortNum(r / 1e3) + 'k/s';
    return shortNum(r) + '/s';
  }
  function axisValues(unit) {
    if (unit === 'ms') return (u, splits) => splits.map((v) => (v == null ? '' : axisMs(v)));
    if (unit === '/s') return (u, splits) => splits.map((v) => (v == null ? '' : axisRate(v)));
    return (u, splits) => splits.map((v) => (v == null ? '' : shortNum(v)));
  }

  function register(kind, title, u, points) {
    const handle = {kind, title, uplot: u, points};
    charts.push(handle);
    return handle;
  }
  // A destroyed chart leaves `charts` (the live view remakes its charts at each search step).
  function unregister(handle) {
    handle.uplot.destroy();
    const i = charts.indexOf(handle);
    if (i >= 0) charts.splice(i, 1);
  }

  function timeChart(el, spec) {
    const div = box(el, spec.title);
    const unit = spec.unit || '';
    // The x row of the legend says the time under the cursor, and nothing before a hover.
    const series = [{label: 'time', value: (u, v) => (v == null ? '' : v.toFixed(1) + 's')}];
    spec.series.forEach((s, i) => {
      const color = s.color || COLORS[i % COLORS.length];
      series.push({
        label: s.label, stroke: color, width: s.width || 1.5, dash: s.dash,
        fill: s.bars ? color + '55' : undefined,
        paths: s.bars ? uPlot.paths.bars({size: [0.9, 40]}) : undefined,
        points: {show: spec.x.length < 60},
        spanGaps: false, value: valueFormatter(unit),
      });
    });
    const opts = {
      title: spec.title, width: chartWidth(el), height: spec.height || 240,
      cursor: {sync: {key: 'pacer-time', setSeries: false}, drag: {x: true, y: false}},
      scales: {x: {time: false, range: (u, lo, hi) => [Math.min(0, lo), hi > 0 ? hi : 1]}, y: spec.log ? {distr: 3, log: 10} : {range: (u, lo, hi) => [0, hi > 0 ? hi * 1.05 : 1]}},
      axes: [{label: 'seconds since the start (after the warm-up)', values: (u, s) => s.map((v) => (v == null ? '' : shortNum(v) + 's'))},
        {values: axisValues(unit), size: 64}],
      series,
    };
    const data = [spec.x].concat(spec.series.map((s) => s.values));
    const u = new uPlot(opts, cleanForLog(data, spec.log), div);
    const handle = register('time', spec.title, u, spec.x.length);
    handle.setData = (x, ys) => { handle.points = x.length; u.setData(cleanForLog([x].concat(ys), spec.log)); };
    handle.destroy = () => unregister(handle);
    return handle;
  }

  // A log axis cannot hold 0 or negative values: they become gaps.
  function cleanForLog(data, log) {
    if (!log) return data;
    return data.map((col, i) => (i === 0 ? col : col.map((v) => (v != null && v > 0 ? v : null))));
  }

  // The points of one histogram on the percentile axis: each non-empty bucket is a
  // step at its highest value, from the quantile before it to the quantile after it.
  function percentilePoints(hist, censored) {
    const xs = [], ys = [], cs = [];
    if (!hist || !hist.total) return {xs, ys, cs};
    const cap = 1 - 1 / (2 * hist.total);  // the last step ends at 1/(1-q) = 2N, not infinity
    const censoredAt = new Map();
    if (censored) for (const b of censored.buckets) censoredAt.set(b.lo, b.count);
    let cumulative = 0;
    for (const b of hist.buckets) {
      const q0 = Math.min(cumulative / hist.total, cap);
      cumulative += b.count;
      const q1 = Math.min(cumulative / hist.total, cap);
      const ms = Math.min(b.hi, hist.max) / 1e6;
      const isCensored = censoredAt.has(b.lo);
      xs.push(1 / (1 - q0), 1 / (1 - q1));
      ys.push(ms, ms);
      cs.push(isCensored ? ms : null, isCensored ? ms : null);
    }
    return {xs, ys, cs};
  }

  function percentileLabel(x) {
    const q = 1 - 1 / x;
    if (x <= 1.0001) return '0%';
    const pct = q * 100;
    const digits = Math.max(0, Math.round(Math.log10(x)) - 2);
    return pct.toFixed(digits) + '%';
  }

  // Merges several series' x values into one ascending axis (uPlot shares x).
  function unionAxis(parts) {
    const xs = Array.from(new Set(parts.flatMap((p) => p.xs))).sort((a, b) => a - b);
    const cols = [];
    for (const p of parts) {
      const ys = new Array(xs.length).fill(null), cs = new Array(xs.length).fill(null);
      const at = new Map(xs.map((x, i) => [x, i]));
      // Several points at one x (a step's rise): keep the highest, the step's top.
      p.xs.forEach((x, i) => {
        const k = at.get(x);
        if (ys[k] == null || p.ys[i] > ys[k]) ys[k] = p.ys[i];
        if (p.cs[i] != null) cs[k] = p.cs[i];
      });
      cols.push({ys, cs});
    }
    return {xs, cols};
  }

  function percentileChart(el, spec) {
    const div = box(el, spec.title);
    const present = spec.series.filter((s) => s.hist && s.hist.total > 0);
    const parts = present.map((s) => percentilePoints(s.hist, s.censored));
    const {xs, cols} = unionAxis(parts);
    const series = [{label: 'percentile', value: (u, v) => (v == null ? '' : percentileLabel(v))}];
    const data = [xs];
    present.forEach((s, i) => {
      const color = s.color || COLORS[i % COLORS.length];
      series.push({label: s.label, stroke: color, width: 1.5, dash: s.dash, spanGaps: true,
        paths: uPlot.paths.stepped({align: 1}), points: {show: false}, value: (u, v) => fmtMs(v)});
      data.push(cols[i].ys);
    });
    present.forEach((s, i) => {
      if (!s.censored || !s.censored.total) return;
      series.push({label: s.label + ': censored (lower bound)', stroke: '#d11f1f', width: 0,
        paths: () => null, points: {show: true, size: 6, fill: '#d11f1f', stroke: '#d11f1f'},
        value: (u, v) => (v == null ? '–' : '≥ ' + fmtMs(v))});
      data.push(cols[i].cs);
    });
    const maxMs = Math.max(1e-6, ...present.map((s) => s.hist.max / 1e6));
    const minMs = Math.max(1e-6, Math.min(...present.map((s) => Math.max(1, s.hist.min) / 1e6)));
    const logY = spec.log ?? maxMs / minMs > 50;
    const opts = {
      title: spec.title, width: chartWidth(el), height: spec.height || 300,
      cursor: {drag: {x: true, y: false}},
      scales: {x: {time: false, distr: 3, log: 10}, y: logY ? {distr: 3, log: 10} : {range: (u, lo, hi) => [0, hi * 1.05]}},
      axes: [{label: 'percentile (HdrHistogram axis: 1/(1-q), log)', values: (u, s) => s.map((v) => (v == null ? '' : percentileLabel(v)))},
        {values: axisValues('ms'), size: 64}],
      series,
    };
    const u = new uPlot(opts, data, div);
    const handle = register('percentile', spec.title, u, xs.length);
    handle.destroy = () => unregister(handle);
    return handle;
  }

  // ---- Tables --------------------------------------------------------------------

  // A cell's raw value: a number or text, or {value, text} (a figure and how it is shown).
  function raw(v) { return v != null && typeof v === 'object' && 'value' in v ? v.value : v; }

  function table(el, spec) {
    const t = document.createElement('table');
    t.className = 'pc-table' + (spec.sortable ? ' pc-sortable' : '');
    const head = t.createTHead().insertRow();
    spec.columns.forEach((c) => {
      const th = document.createElement('th');
      th.textContent = c.label;
      if (c.num) th.className = 'num';
      head.appendChild(th);
    });
    const body = t.createTBody();
    const fill = (rows) => {
      body.textContent = '';
      for (const r of rows) {
        const tr = body.insertRow();
        if (spec.rowClass) tr.className = spec.rowClass(r) || '';
        for (const c of spec.columns) {
          const td = tr.insertCell();
          const v = r[c.key];
          td.textContent = c.format ? c.format(v, r) : (v == null ? '–' : c.num ? fmtCount(v) : String(v));
          if (c.num) { td.className = 'num'; if (raw(v) != null) td.dataset.value = String(raw(v)); }
        }
      }
    };
    fill(spec.rows);
    if (spec.sortable) {
      let sortedBy = null, descending = false;
      Array.from(head.cells).forEach((th, i) => {
        th.title = 'sort';
        th.addEventListener('click', () => {
          const c = spec.columns[i];
          descending = sortedBy === c.key ? !descending : !!c.num;
          sortedBy = c.key;
          const rows = spec.rows.slice().sort((a, b) => {
            const x = raw(a[c.key]), y = raw(b[c.key]);
            const cmp = c.num ? (x ?? -Infinity) - (y ?? -Infinity) : String(x ?? '').localeCompare(String(y ?? ''));
            return descending ? -cmp : cmp;
          });
          Array.from(head.cells).forEach((h) => h.classList.remove('asc', 'desc'));
          th.classList.add(descending ? 'desc' : 'asc');
          fill(rows);
        });
      });
    }
    el.appendChild(t);
    return t;
  }

  // Charts follow the page's width (window resize, printing).
  function resizeAll() {
    for (const c of charts) {
      const parent = c.uplot.root.parentElement;
      if (parent && parent.parentElement) c.uplot.setSize({width: chartWidth(parent.parentElement), height: c.uplot.height});
    }
  }
  if (typeof window !== 'undefined') {
    window.addEventListener('resize', resizeAll);
    window.addEventListener('beforeprint', resizeAll);
  }

  // ---- Small DOM helpers, shared by the pages (report.js, capacity.js, search.js) ----

  // An element: attributes (class, data-*, else a property; null ones skipped), then
  // children (nodes, or text).
  function h(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v == null) continue;
      if (k === 'class') e.className = v; else if (k.startsWith('data-')) e.setAttribute(k, v); else e[k] = v;
    }
    for (const c of children) if (c != null) e.append(c instanceof Node ? c : String(c));
    return e;
  }
  // A titled section appended to el (id and an extra class optional).
  function section(el, title, id, cls) {
    const s = h('section', {class: 'pr-section' + (cls ? ' ' + cls : ''), id});
    s.append(h('h2', {}, title));
    el.append(s);
    return s;
  }
  // One headline figure: its value in data-value (what tests compare), its text shown.
  function figure(name, label, value, text, note) {
    return h('div', {class: 'pr-figure', 'data-figure': name, 'data-value': value == null ? '' : String(value)},
      h('div', {class: 'pr-value'}, text), h('div', {class: 'pr-label'}, label), note ? h('div', {class: 'pr-note'}, note) : null);
  }

  global.PacerCharts = {decodeHistogram, makeHistogram, timeChart, percentileChart, table, h, section, figure,
    fmtNs, fmtMs, fmtCount, fmtRate, fmtPct, charts, COLORS, ERROR_CLASSES,
    chartBox: box, chartWidth, axisValues, register};
})(typeof window !== 'undefined' ? window : globalThis);
