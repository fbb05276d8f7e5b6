/* PacerReport: the HTML report's page, drawn from the JSON report embedded in it
 * (<script type="application/json" id="pacer-data">, docs/report.schema.json) with
 * PacerCharts (web/charts.js). One data path: `--html` and `pacer report` both embed
 * the JSON report and this script draws everything from it.
 *
 *   PacerReport.render(el, report) -> Promise   one run
 *   PacerReport.renderCompare(el, compare) -> Promise   {schema: "pacer-compare",
 *       baseline, candidate (reports), baseline_name, candidate_name, changes: [{figure,
 *       label, baseline, candidate, change, higher_is_worse}], bounds: [{figure, limit,
 *       change, broken, regression, undecided, runs_to_settle}]}
 *   A capacity search's page ("pacer-capacity", "pacer-capacity-compare") is
 *   web/capacity.js's (PacerCapacity); boot() hands it those documents.
 *
 * Every headline figure is an element with data-figure="NAME" and data-value (the
 * JSON's raw number), so tests compare the page with the report. When the page is
 * drawn <html> gets data-ready="true" (or data-error with the reason).
 */
(function (global) {
  'use strict';
  const C = global.PacerCharts;
  const ERROR_CLASSES = C.ERROR_CLASSES;

  const {h, section, figure} = C;  // the DOM helpers (charts.js)

  // ---- Reading the report --------------------------------------------------------

  // Every class the report has (other modules add classes: redirect, decode, check...).
  function errorClasses(errors) {
    const keys = Object.keys(errors || {});
    return ERROR_CLASSES.filter((k) => keys.includes(k)).concat(keys.filter((k) => !ERROR_CLASSES.includes(k)));
  }
  // Requests that failed, each once: the report's counts.failed (a failed check on a
  // request that failed otherwise is one failure); older reports: every class.
  function errorTotal(r) {
    if (r.counts && r.counts.failed != null) return r.counts.failed;
    return errorClasses(r.errors).filter((k) => k !== 'script').reduce((n, k) => n + (r.errors[k] || 0), 0);
  }
  // "HTTP 404 x568, 500 x113": the status class's reason, from the status codes.
  function statusReason(r) {
    const codes = Object.entries(r.status_codes || {}).filter(([code]) => Number(code) >= 400);
    return codes.length ? 'HTTP ' + codes.map(([code, n]) => `${code} x${n}`).join(', ') : '';
  }

  function loadModelText(c) {
    if (!c || c.load_model === 'closed') return 'closed loop';
    let t = 'open model, ' + c.load_model;
    if (c.load_model === 'constant') t += ' ' + C.fmtRate(c.rate_per_s);
    if (c.load_model === 'ramp') t += ' ' + C.fmtRate(c.rate_per_s) + ' → ' + C.fmtRate(c.rate_end_per_s);
    if (c.load_model === 'stages') t += ' ' + (c.stages || []).map((s) => s.duration_s + 's:' + s.rate_per_s).join(',');
    if (c.arrival === 'poisson') t += ', Poisson (seed ' + c.seed + ')';
    return t;
  }

  // A percentile of a summary, "≥ value" when it falls among censored samples.
  function pct(summary, key) {
    if (!summary || !summary.percentiles_ns) return {value: null, text: '–'};
    const v = summary.percentiles_ns[key];
    const lower = (summary.lower_bound_percentiles || []).includes(key);
    return {value: v, text: (lower ? '≥ ' : '') + C.fmtNs(v), lower};
  }

  function verdict(r) {
    const failures = (r.gates && r.gates.failures) || [];
    if (r.gave_up) return {ok: false, text: 'gave up: ' + r.gave_up};
    // Each failure names its gate and the breach ("gate failed: p99<50ms (measured 594ms)").
    if (failures.length) return {ok: false, text: failures.map((f) => (/^gate failed/.test(f) ? f : 'gate failed: ' + f)).join('; ')};
    if (r.no_request_succeeded) {
      return {ok: false, text: 'failed: not one request succeeded' + (r.first_error ? ` (first error: ${r.first_error})` : '')};
    }
    if (r.interrupted) return {ok: null, text: 'interrupted: partial run'};
    // No gate failed; errors are shown, since a run without gates "passes" with any.
    const errors = errorTotal(r);
    if (errors) return {ok: null, text: `completed, no gate failed; ${C.fmtPct(r.error_rate)} errors (${C.fmtCount(errors)})`};
    return {ok: true, text: 'completed, no gate failed, no error'};
  }

  // Histograms decoded once, with the report's exact min and max (V2 keeps buckets only).
  async function decoded(summary, field) {
    if (!summary || !summary[field || 'histogram']) return null;
    const hist = await C.decodeHistogram(summary[field || 'histogram']);
    if (hist && hist.total && !field && summary.max_ns != null) { hist.max = summary.max_ns; hist.min = summary.min_ns; }
    return hist;
  }

  // ---- One run -------------------------------------------------------------------

  function renderHeader(el, r, title) {
    const c = r.config || {};
    const v = verdict(r);
    const head = h('header', {class: 'pr-header'});
    head.append(h('h1', {}, title || 'pacer report'), h('div', {class: 'pr-url'}, c.url || ''));
    const dl = h('dl', {class: 'pr-meta'});
    const add = (k, val, name) => { dl.append(h('dt', {}, k), h('dd', {'data-field': name}, val)); };
    if (r.command_line) add('command', r.command_line, 'command_line');
    const sc = r.scenario;
    add('load model', loadModelText(c) + (sc && sc.open_model ? ' (tasks/s)' : ''), 'load_model');
    if (sc) {
      add('scenario', `${sc.users_started} virtual users started (at most ${sc.user_limit}` +
        `${sc.open_model ? ', --max-users' : ''}), ${sc.tasks.reduce((n, t) => n + t.count, 0)} tasks`, 'scenario');
    }
    const threads = `${c.threads} thread${c.threads === 1 ? '' : 's'}`;
    if (sc && sc.open_model) add('connections', `one per virtual user, on ${threads}, ${c.protocol || 'http/1.1'}`, 'connections');
    else {
      add('connections', `${c.connections} on ${threads}, ${c.protocol || 'http/1.1'}` +
        (c.requests_per_connection > 1 ? `, ${c.requests_per_connection} per connection` : ''), 'connections');
    }
    add('started', r.start_time || '–', 'start_time');
    add('duration', (r.duration_s ?? 0).toFixed(3) + 's' + (c.warmup_s ? ` (after ${c.warmup_s}s warm-up)` : ''), 'duration');
    if (c.shard && c.shard.count > 1) add('shard', c.shard.index == null ? `${c.shard.covered} of ${c.shard.count} shards` : `${c.shard.index}/${c.shard.count}`, 'shard');
    if (r.merge) add('merged', `${r.merge.files} reports` + (r.merge.complete ? '' : `, missing shards ${r.merge.missing_shards.join(', ')}`), 'merge');
    add('pacer', r.pacer_version || '', 'pacer_version');
    head.append(dl);
    head.append(h('div', {class: 'pr-verdict ' + (v.ok === true ? 'ok' : v.ok === false ? 'bad' : 'warn'), 'data-field': 'verdict'}, v.text));
    el.append(head);
  }

  function renderHeadline(el, r) {
    const lat = r.latency || {};
    const errors = errorTotal(r);
    const box = h('div', {class: 'pr-figures'});
    box.append(figure('requests', 'responses', r.counts.responses, C.fmtCount(r.counts.responses)));
    box.append(figure('rps', 'requests/s', r.rates.completed_per_s, C.fmtRate(r.rates.completed_per_s)));
    box.append(figure('errors', 'errors', errors, C.fmtCount(errors), C.fmtPct(r.error_rate)));
    for (const [key, name] of [['50', 'p50'], ['99', 'p99'], ['100', 'max']]) {
      const p = pct(lat, key);
      box.append(figure(name, 'latency ' + name, p.value, p.text, p.lower ? 'lower bound (timeouts)' : null));
    }
    if (r.rates.target_per_s != null) {
      box.append(figure('target_rps', 'target rate', r.rates.target_per_s, C.fmtRate(r.rates.target_per_s)));
      box.append(figure('sent_rps', 'sent rate', r.rates.sent_per_s, C.fmtRate(r.rates.sent_per_s),
        r.rates.sent_to_target != null ? C.fmtPct(r.rates.sent_to_target) + ' of target' : null));
    }
    el.append(box);
    if (r.hint) el.append(h('p', {class: 'pr-hint'}, r.hint));
  }

  function renderTimeCharts(el, r) {
    const ts = r.timeseries;
    const s = section(el, 'Over time', 'over-time');
    if (!ts || !ts.length) {
      s.append(h('p', {class: 'pr-note'}, 'No time series in this report: run with --timeseries FILE or --html FILE.'));
      return;
    }
    // Each interval is drawn at its end: the figures are over the time up to there.
    const x = ts.map((p) => p.start_s + p.duration_s);
    const open = ts.some((p) => p.target_rate_per_s != null);
    // The drain after -d's end (its own record, "drain": true) has no rate to chart:
    // a few responses over a sliver of time would read as a spike. Its counts are in the tables.
    const rate = (p, v) => (p.drain ? null : v);
    const rps = [{label: 'achieved', values: ts.map((p) => rate(p, p.achieved_rate_per_s))}];
    if (open) {
      rps.push({label: 'target', values: ts.map((p) => p.target_rate_per_s), dash: [6, 4]});
      rps.push({label: 'sent', values: ts.map((p) => rate(p, p.duration_s > 0 ? p.sent / p.duration_s : null))});
    }
    C.timeChart(s, {title: 'Requests per second', unit: '/s', x, series: rps});
    renderEndpointRates(s, ts, x);
    const ms = (k) => ts.map((p) => (p.latency_ns && p.latency_ns.count ? p.latency_ns[k] / 1e6 : null));
    C.timeChart(s, {title: 'Latency per interval (log)', unit: 'ms', log: true, x, series: [
      {label: 'p50', values: ms('p50')}, {label: 'p90', values: ms('p90')}, {label: 'p99', values: ms('p99')},
      {label: 'max', values: ms('max')},
      {label: 'oldest in flight', values: ts.map((p) => (p.oldest_in_flight_ns ? p.oldest_in_flight_ns / 1e6 : null)), dash: [3, 3]}]});
    const errSeries = errorClasses(r.errors).filter((k) => k !== 'status' && ts.some((p) => p.errors && p.errors[k]))
      .map((k) => ({label: k, values: ts.map((p) => rate(p, (p.errors[k] || 0) / p.duration_s))}));
    errSeries.push({label: 'status ≥ 400 (non-2xx/3xx)', values: ts.map((p) => rate(p, (p.errors ? p.errors.status : 0) / p.duration_s))});
    C.timeChart(s, {title: 'Errors per second, by class', unit: '/s', x, series: errSeries});
    const conns = [{label: 'connections open', values: ts.map((p) => p.open_connections)},
      {label: 'requests in flight', values: ts.map((p) => p.in_flight)}];
    if (open) conns.push({label: 'backlog', values: ts.map((p) => p.backlog)});
    // A scenario's users running at each interval's end (a load shape or POST /users changes them).
    if (ts.some((p) => p.users !== null && p.users !== undefined)) conns.push({label: 'users', values: ts.map((p) => p.users)});
    C.timeChart(s, {title: 'Connections', unit: '', x, series: conns});
    renderEvidenceCharts(s, ts, x);
  }

  // Issue 28: the client's health and the server's side on the run's timeline
  // (the intervals' "client" and "server", docs/output.md). A failed sample is a gap,
  // and so is a share over a window too short to measure (null: the drain's instant).
  function renderEvidenceCharts(s, ts, x) {
    const workers = Math.max(0, ...ts.map((p) => (p.client && p.client.workers ? p.client.workers.length : 0)));
    if (workers > 0) {
      const busy = [];
      for (let w = 0; w < Math.min(workers, 8); w++) {
        busy.push({label: `worker ${w + 1} busy`, values: ts.map((p) => (p.client && p.client.workers[w] && p.client.workers[w].busy != null ? p.client.workers[w].busy * 100 : null))});
      }
      busy.push({label: 'process CPU (of the CPUs allowed)', values: ts.map((p) => (p.client && p.client.cpu_share != null ? p.client.cpu_share * 100 : null)), dash: [6, 3]});
      const chart = C.timeChart(s, {title: 'The client: busy share per worker, process CPU', unit: '%', x, series: busy});
      if (chart) chart.id = 'client-chart';
    }
    const pids = {};
    for (const p of ts) for (const q of ((p.server || {}).pids || [])) pids[q.pid] = true;
    for (const pid of Object.keys(pids)) {
      const at = (p) => ((p.server || {}).pids || []).find((q) => String(q.pid) === pid && q.error == null);
      C.timeChart(s, {title: `Server pid ${pid}: CPU per second`, unit: 's/s', x, series: [
        {label: 'user', values: ts.map((p) => (at(p) ? at(p).cpu_user_s / p.duration_s : null))},
        {label: 'system', values: ts.map((p) => (at(p) ? at(p).cpu_system_s / p.duration_s : null))}]});
    }
    const series = {};
    for (const p of ts) for (const m of ((p.server || {}).metrics || [])) for (const v of (m.series || [])) series[m.url + ' ' + v.series] = v.kind;
    const names = Object.keys(series).slice(0, 8);
    if (names.length) {
      const value = (p, name) => {
        for (const m of ((p.server || {}).metrics || [])) for (const v of (m.series || [])) if (m.url + ' ' + v.series === name) return v.value;
        return null;
      };
      C.timeChart(s, {title: 'Server metrics (counters per second, gauges as they are)', unit: '', x,
        series: names.map((n) => ({label: n + (series[n] === 'rate_per_s' ? ' /s' : ''), values: ts.map((p) => value(p, n))}))});
    }
  }

  // Completed requests per second of each request name (the intervals' "endpoints"),
  // when there are several: the eight busiest, the rest summed as "others".
  function renderEndpointRates(s, ts, x) {
    const totals = {};
    for (const p of ts) for (const [name, c] of Object.entries(p.endpoints || {})) totals[name] = (totals[name] || 0) + (c.completed || 0);
    const names = Object.keys(totals).sort((a, b) => totals[b] - totals[a]);
    if (names.length < 2) return;
    const shown = names.slice(0, 8);
    const rate = (p, c) => (p.duration_s > 0 && !p.drain ? c / p.duration_s : null);
    const series = shown.map((name) => ({label: name,
      values: ts.map((p) => rate(p, ((p.endpoints || {})[name] || {}).completed || 0))}));
    if (names.length > shown.length) {
      series.push({label: `${names.length - shown.length} others`, values: ts.map((p) => rate(p,
        Object.entries(p.endpoints || {}).filter(([n]) => !shown.includes(n)).reduce((a, [, c]) => a + (c.completed || 0), 0)))});
    }
    C.timeChart(s, {title: 'Requests per second by endpoint', unit: '/s', x, series});
  }

  // The first byte's histogram under whichever name the report gives it.
  function ttfbSummary(r) { return r.ttfb || null; }  // absent from reports before it

  // The section and its table are drawn at once (before the first await); the
  // charts, which decode the histograms, go above the table when ready.
  async function renderDistribution(el, r) {
    const s = section(el, 'Latency distribution', 'distribution');
    const charts = h('div', {class: 'pr-charts'});
    s.append(charts);
    distributionTable(s, r);
    await distributionCharts(charts, r);
  }

  async function distributionCharts(s, r) {
    const lat = await decoded(r.latency);
    const cens = await decoded(r.latency, 'censored_histogram');
    const series = [{label: 'latency', hist: lat, censored: cens}];
    if (r.service_time) series.push({label: 'service time', hist: await decoded(r.service_time)});
    if (r.queue_delay) series.push({label: 'queue delay', hist: await decoded(r.queue_delay)});
    if (ttfbSummary(r)) series.push({label: 'time to first byte', hist: await decoded(ttfbSummary(r))});
    C.percentileChart(s, {title: 'Latency by percentile', series});
    if (cens && cens.total) {
      s.append(h('p', {class: 'pr-note'}, `${C.fmtCount(cens.total)} censored samples (timeouts, unsent arrivals): ` +
        'recorded when given up, so the true latency is at least the value drawn; the red points mark them.'));
    }
    const setup = [{label: 'connect', hist: await decoded(r.connect_time)}];
    if (r.tls_handshake_time && r.tls_handshake_time.count) setup.push({label: 'TLS handshake', hist: await decoded(r.tls_handshake_time)});
    if (setup.some((x) => x.hist && x.hist.total)) C.percentileChart(s, {title: 'Connection setup by percentile', series: setup, height: 220});
  }

  function distributionTable(s, r) {
    const rows = [['latency', r.latency], ['service time', r.service_time], ['queue delay', r.queue_delay],
      ['time to first byte', ttfbSummary(r)], ['connect', r.connect_time], ['TLS handshake', r.tls_handshake_time]]
      .filter(([, x]) => x && x.count).map(([name, x]) => {
        const row = {name, count: x.count, mean: x.mean_ns};
        for (const k of ['50', '90', '99', '99.9', '100']) row['p' + k] = pct(x, k);
        return row;
      });
    const pcol = (k) => ({key: 'p' + k, label: k === '100' ? 'max' : 'p' + k, num: true, format: (v) => v.text});
    C.table(s, {columns: [{key: 'name', label: ''}, {key: 'count', label: 'count', num: true},
      {key: 'mean', label: 'mean', num: true, format: C.fmtNs}, pcol('50'), pcol('90'), pcol('99'), pcol('99.9'), pcol('100')], rows});
  }

  function renderTables(el, r) {
    const s = section(el, 'Responses and errors', 'tables');
    const codes = Object.entries(r.status_codes || {}).map(([code, count]) => ({code, count,
      share: r.counts.responses ? count / r.counts.responses : null}));
    s.append(h('h3', {}, 'Status codes'));
    if (codes.length) {
      C.table(s, {columns: [{key: 'code', label: 'status'}, {key: 'count', label: 'responses', num: true},
        {key: 'share', label: 'share', num: true, format: C.fmtPct}], rows: codes});
    } else s.append(h('p', {class: 'pr-note'}, 'No response.'));
    const reasons = {};
    if (r.first_error) reasons[r.first_error.split(':')[0]] = r.first_error;
    if (r.tls_first_error) reasons.tls = r.tls_first_error;
    for (const [k, v] of Object.entries(r.first_errors || {})) reasons[k] = v;
    if (!reasons.status) reasons.status = statusReason(r);
    for (const m of (r.scenario && r.scenario.first_messages) || []) {
      if (!reasons[m.class]) reasons[m.class] = `${m.where}: ${m.text}`;
    }
    const errs = errorClasses(r.errors).filter((k) => r.errors[k]).map((k) => ({cls: k, count: r.errors[k], reason: reasons[k] || ''}));
    s.append(h('h3', {}, 'Errors by class'));
    if (errs.length) {
      C.table(s, {columns: [{key: 'cls', label: 'class'}, {key: 'count', label: 'count', num: true},
        {key: 'reason', label: 'first reason'}], rows: errs});
    } else s.append(h('p', {class: 'pr-note', 'data-figure': 'no-errors'}, 'No error.'));
  }

  // Endpoints (per request name: targets' endpoints[], docs/report.schema.json), when
  // the report has them: a sortable table of each name's figures.
  function renderEndpoints(el, r) {
    const eps = r.endpoints;
    if (!Array.isArray(eps) || !eps.length) return;
    const s = section(el, 'Endpoints', 'endpoints');
    const rows = eps.map((e) => {
      const errors = e.failed != null ? e.failed
        : e.errors && typeof e.errors === 'object' ? Object.values(e.errors).reduce((a, b) => a + (b || 0), 0) : e.errors;
      const row = {name: e.name, sent: e.requests_sent, responses: e.responses, non2xx: e.non_2xx_3xx, errors,
        rps: e.completed_per_s ?? (r.duration_s > 0 && e.responses != null ? e.responses / r.duration_s : null)};
      for (const k of ['50', '90', '99', '100']) row['p' + k] = pct(e.latency, k);
      return row;
    });
    const pcol = (k) => ({key: 'p' + k, label: k === '100' ? 'max' : 'p' + k, num: true, format: (v) => v.text});
    const t = C.table(s, {sortable: true, columns: [{key: 'name', label: 'name'},
      {key: 'sent', label: 'sent', num: true}, {key: 'responses', label: 'responses', num: true},
      {key: 'non2xx', label: 'non-2xx/3xx', num: true}, {key: 'errors', label: 'errors', num: true},
      {key: 'rps', label: 'req/s', num: true, format: C.fmtRate}, pcol('50'), pcol('90'), pcol('99'), pcol('100')],
    rows});
    t.id = 'endpoints-table';
    if (r.endpoint_names && r.endpoint_names.capped) {
      s.append(h('p', {class: 'pr-note'}, `Names past --max-names ${r.endpoint_names.max_names} are counted under (other).`));
    }
  }

  // --scenario: the Tasks table (each task from its scheduled start to its end).
  function renderTasks(el, r) {
    const sc = r.scenario;
    if (!sc || !Array.isArray(sc.tasks)) return;
    const s = section(el, 'Tasks (scenario)', 'tasks');
    const rows = sc.tasks.map((t) => ({name: t.name, count: t.count, failures: t.failures,
      p50: t.duration ? t.duration.p50_ns : null, p99: t.duration ? t.duration.p99_ns : null, max: t.duration ? t.duration.max_ns : null}));
    const ns = (v) => (v == null ? '–' : C.fmtNs(v));
    const t = C.table(s, {columns: [{key: 'name', label: 'task'}, {key: 'count', label: 'count', num: true},
      {key: 'failures', label: 'failed', num: true}, {key: 'p50', label: 'p50', num: true, format: ns},
      {key: 'p99', label: 'p99', num: true, format: ns}, {key: 'max', label: 'max', num: true, format: ns}], rows});
    t.id = 'tasks-table';
    s.append(h('p', {class: 'pr-note'}, `${sc.users_started} virtual users started; errors: check ` +
      `${sc.errors.check}, script ${sc.errors.script}.`));
  }

  async function render(el, r) {
    renderHeader(el, r);
    renderHeadline(el, r);
    renderTimeCharts(el, r);
    // Every table is drawn before anything is awaited: a DOM dump, a printer and a
    // crawler see them whatever the charts' decoding does.
    const charts = renderDistribution(el, r);
    renderTasks(el, r);
    renderEndpoints(el, r);
    renderTables(el, r);
    await charts;
  }

  // ---- Two runs ------------------------------------------------------------------

  function changeText(c, row) {
    if (c == null) return row && row.candidate ? 'new' : '–';
    return (c > 0 ? '+' : '') + (c * 100).toFixed(2) + '%';
  }

  async function renderCompare(el, cmp) {
    const base = cmp.baseline, cand = cmp.candidate;
    const baseUrl = (base.config || {}).url || '', candUrl = (cand.config || {}).url || '';
    el.append(h('header', {class: 'pr-header'}, h('h1', {}, 'pacer comparison'),
      h('div', {class: 'pr-url', 'data-field': 'urls'}, baseUrl === candUrl ? candUrl : `baseline ${baseUrl} · candidate ${candUrl}`)));
    const dl = h('dl', {class: 'pr-meta'});
    dl.append(h('dt', {}, 'baseline'), h('dd', {}, `${cmp.baseline_name} (${base.start_time}, ${loadModelText(base.config)})`));
    dl.append(h('dt', {}, 'candidate'), h('dd', {}, `${cmp.candidate_name} (${cand.start_time}, ${loadModelText(cand.config)})`));
    el.firstChild.append(dl);
    const broken = (cmp.bounds || []).filter((b) => (b.regression != null ? b.regression : b.broken));
    // Issue 43: a bound passed within noise too large to judge is neither a pass nor a regression (exit 4).
    const undecided = (cmp.bounds || []).filter((b) => b.undecided);
    const beyond = (b) => `${b.figure} ${changeText(b.change)} > ${(b.limit * 100).toFixed(2)}%`;
    const settle = (b) => (b.runs_to_settle != null ? `about ${b.runs_to_settle} runs a side would settle it` : 'more than 100 runs a side would be needed');
    el.firstChild.append(h('div', {class: 'pr-verdict ' + (broken.length ? 'bad' : undecided.length ? 'warn' : 'ok'), 'data-field': 'verdict'},
      broken.length ? 'regression: ' + broken.map(beyond).join('; ')
        : undecided.length ? 'undecided: ' + undecided.map((b) => `${beyond(b)} within the noise (${settle(b)})`).join('; ')
          : (cmp.bounds || []).length ? 'within --max-regression bounds' : 'no bound given'));
    const s = section(el, 'Headline figures', 'changes');
    const t = C.table(s, {columns: [{key: 'label', label: 'figure'},
      {key: 'baseline', label: 'baseline', num: true, format: (v, row) => row.fmt(v)},
      {key: 'candidate', label: 'candidate', num: true, format: (v, row) => row.fmt(v)},
      {key: 'change', label: 'change', num: true, format: changeText},
      {key: 'noise', label: 'beyond the noise?'}],
    rows: cmp.changes.map((c) => Object.assign({fmt: c.unit === 'ns' ? C.fmtNs : c.unit === '/s' ? C.fmtRate :
      c.unit === 'fraction' ? C.fmtPct : C.fmtCount, noise: (c.significance || {}).words || ''}, c))});
    Array.from(t.tBodies[0].rows).forEach((tr, i) => {
      const c = cmp.changes[i];
      tr.dataset.figure = c.figure;
      tr.dataset.change = c.change == null ? '' : String(c.change);
      const worse = c.change != null && (c.higher_is_worse ? c.change > 0 : c.change < 0);
      if (worse && Math.abs(c.change) > 0.0001) tr.classList.add('worse');
    });
    const dist = section(el, 'Latency distribution, overlaid', 'distribution');
    C.percentileChart(dist, {title: 'Latency by percentile', series: [
      {label: 'baseline', hist: await decoded(base.latency), censored: await decoded(base.latency, 'censored_histogram')},
      {label: 'candidate', hist: await decoded(cand.latency), censored: await decoded(cand.latency, 'censored_histogram'), dash: [6, 3]}]});
    const over = section(el, 'Over time, overlaid', 'over-time');
    const bt = base.timeseries || [], ct = cand.timeseries || [];
    if (!bt.length || !ct.length) {
      over.append(h('p', {class: 'pr-note'}, 'A report has no time series (run with --timeseries or --html).'));
      return;
    }
    const n = Math.max(bt.length, ct.length);
    const longer = bt.length >= ct.length ? bt : ct;
    const x = longer.map((p) => p.start_s + p.duration_s);
    const col = (ts, f) => Array.from({length: n}, (_, i) => (i < ts.length ? f(ts[i]) : null));
    C.timeChart(over, {title: 'Requests per second', unit: '/s', x, series: [
      {label: 'baseline', values: col(bt, (p) => (p.drain ? null : p.achieved_rate_per_s))},
      {label: 'candidate', values: col(ct, (p) => (p.drain ? null : p.achieved_rate_per_s)), dash: [6, 3]}]});
    const p99 = (p) => (p.latency_ns && p.latency_ns.count ? p.latency_ns.p99 / 1e6 : null);
    C.timeChart(over, {title: 'Latency p99 per interval (log)', unit: 'ms', log: true, x, series: [
      {label: 'baseline', values: col(bt, p99)}, {label: 'candidate', values: col(ct, p99), dash: [6, 3]}]});
  }

  // ---- Repeated runs (--repeat, schema "pacer-repeat") ----------------------------

  async function renderRepeat(el, rep) {
    const runs = rep.runs || [];
    el.append(h('header', {class: 'pr-header'}, h('h1', {}, `pacer: ${runs.length} runs`),
      h('div', {class: 'pr-url'}, runs.length ? (runs[0].config || {}).url || '' : '')));
    const s = section(el, 'The runs: median, minimum, maximum, spread', 'repeat');
    const fmt = {rps: C.fmtRate, p50: C.fmtNs, p99: C.fmtNs, 'p99.9': C.fmtNs, errors: C.fmtCount};
    const rows = Object.entries(rep.summary || {}).map(([k, v]) => Object.assign({figure: k, fmt: fmt[k] || C.fmtCount}, v));
    const t = C.table(s, {columns: [{key: 'figure', label: 'figure'},
      {key: 'median', label: 'median', num: true, format: (v, row) => row.fmt(v)},
      {key: 'min', label: 'min', num: true, format: (v, row) => row.fmt(v)},
      {key: 'max', label: 'max', num: true, format: (v, row) => row.fmt(v)},
      {key: 'spread', label: 'spread', num: true, format: (v) => (v * 100).toFixed(1) + '%'},
      {key: 'values', label: 'each run', format: (v, row) => (v || []).map((x) => row.fmt(x)).join(', ')}], rows});
    t.id = 'repeat-table';
    Array.from(t.tBodies[0].rows).forEach((tr, i) => { tr.dataset.figure = rows[i].figure; tr.dataset.median = String(rows[i].median); });
    for (let i = 0; i < runs.length; i++) {
      const part = h('div', {class: 'pr-run', id: `run-${i + 1}`});
      part.append(h('h2', {}, `Run ${i + 1} of ${runs.length}`));
      el.append(part);
      await render(part, runs[i]);
    }
  }

  async function boot() {
    const root = document.getElementById('pacer-report');
    try {
      const data = JSON.parse(document.getElementById('pacer-data').textContent);
      if (data.schema === 'pacer-compare') await renderCompare(root, data);
      else if (data.schema === 'pacer-repeat') await renderRepeat(root, data);
      else if (data.schema === 'pacer-capacity') await global.PacerCapacity.render(root, data);
      else if (data.schema === 'pacer-capacity-compare') await global.PacerCapacity.renderCompare(root, data);
      else await render(root, data);
      document.documentElement.dataset.ready = 'true';
    } catch (e) {
      document.documentElement.dataset.error = String(e && e.stack || e);
      root.append(h('pre', {class: 'pr-error'}, 'pacer report: cannot draw this report: ' + e));
      console.error(e);
    }
  }

  global.PacerReport = {render, renderCompare, renderRepeat, boot, errorTotal, verdict};
  if (typeof document !== 'undefined' && document.getElementById('pacer-data')) {
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot); else boot();
  }
})(typeof window !== 'undefined' ? window : globalThis);
