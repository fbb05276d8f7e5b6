/* pacer's live web view (web/live.html). Reads /events (Server-Sent Events: one
 * JSON object per --interval, exactly the NDJSON time series' fields), keeps the
 * current figures and four charts (requests/s, latency percentiles on a log axis,
 * errors, connections) drawn with PacerCharts (web/charts.js), and when the run
 * ends draws the final report with PacerReport (web/report.js). Stop posts to
 * /stop, which ends the run as Ctrl-C does. With a token (a non-loopback bind) the
 * page is opened as /?token=T and passes it on. Fetches nothing from elsewhere.
 * A capacity search or sweep (--capacity, --sweep) streams "search" events too (its
 * progress, at each step's start and end): PacerSearch (web/search.js) shows them
 * above the charts, which start again with each step; at the end the page draws
 * the search's page with PacerCapacity (web/capacity.js) instead of a report.
 *
 * For tests: <html data-state> is connecting|running|stopping|ended|disconnected,
 * data-intervals counts the intervals drawn, data-final="ready" once the final
 * report is drawn; each figure is an element with data-figure and data-value;
 * data-users-asked is the user count the last POST /users from the form set,
 * data-rate-asked the rate the last POST /rate from the rate form set,
 * data-reset-at the time (s) the last Reset statistics click restarts them at;
 * data-search is "search" or "sweep" once the page knows it follows one.
 */
(function () {
  'use strict';
  const C = window.PacerCharts;
  const root = document.documentElement;
  const token = new URLSearchParams(location.search).get('token');
  const withToken = (path) => (token ? path + '?token=' + encodeURIComponent(token) : path);
  const ERROR_CLASSES = C.ERROR_CLASSES;

  const points = [];            // every interval so far, in order
  const errorTotals = {};       // by class, summed over the intervals
  let completed = 0;
  let charts = null;
  let errorClassesShown = '';
  let redrawPending = false;
  let ended = false;
  let search = null;            // the newest capacity search progress, if this is one
  let runningStep = null;       // the index of the search's step whose intervals come now

  function setState(state, text) {
    root.dataset.state = state;
    document.getElementById('lv-state').textContent = text || state;
    document.getElementById('lv-stop').disabled = state !== 'running';
    document.getElementById('lv-users-apply').disabled = state !== 'running';
    document.getElementById('lv-rate-apply').disabled = state !== 'running';
    document.getElementById('lv-reset').disabled = state !== 'running';
  }

  function message(text) {
    const el = document.getElementById('lv-message');
    el.textContent = text;
    el.hidden = !text;
  }

  // ---- Figures ---------------------------------------------------------------

  const FIGURES = [
    ['elapsed_s', 'elapsed', (v) => v.toFixed(1) + 's'],
    ['rate', 'requests/s (last interval)', C.fmtRate],
    ['requests', 'responses so far', C.fmtCount],
    ['errors', 'errors so far', C.fmtCount],
    ['p50', 'p50 (last interval)', C.fmtNs],
    ['p99', 'p99 (last interval)', C.fmtNs],
    ['max', 'max (last interval)', C.fmtNs],
    ['connections', 'connections open', C.fmtCount],
    ['in_flight', 'requests in flight', C.fmtCount],
    // The stall signal: how long the oldest request in flight had waited (none: –).
    ['oldest_in_flight', 'oldest in flight', C.fmtNs],
  ];

  function buildFigures() {
    const el = document.getElementById('lv-figures');
    for (const [name, label] of FIGURES) {
      const box = document.createElement('div');
      box.className = 'lv-figure';
      box.dataset.figure = name;
      box.dataset.value = '';
      box.innerHTML = '<div class="lv-label"></div><div class="lv-value">–</div>';
      box.querySelector('.lv-label').textContent = label;
      el.append(box);
    }
  }

  function setFigure(name, value) {
    const box = document.querySelector('[data-figure="' + name + '"]');
    const format = FIGURES.find((f) => f[0] === name)[2];
    box.dataset.value = value == null ? '' : String(value);
    box.querySelector('.lv-value').textContent = value == null ? '–' : format(value);
  }

  function showFigures() {
    const p = points[points.length - 1];
    const lat = p.latency_ns || {};
    setFigure('elapsed_s', p.start_s + p.duration_s);
    if (!p.drain) setFigure('rate', p.achieved_rate_per_s);  // the drain's is no rate of the run
    setFigure('requests', completed);
    setFigure('errors', Object.values(errorTotals).reduce((a, b) => a + b, 0));
    setFigure('p50', lat.count ? lat.p50 : null);
    setFigure('p99', lat.count ? lat.p99 : null);
    setFigure('max', lat.count ? lat.max : null);
    setFigure('connections', p.open_connections);
    setFigure('in_flight', p.in_flight);
    setFigure('oldest_in_flight', p.in_flight > 0 ? p.oldest_in_flight_ns : null);
    const errors = ERROR_CLASSES.filter((k) => errorTotals[k]).map((k) => k + ' ' + C.fmtCount(errorTotals[k]));
    document.getElementById('lv-errors').textContent = errors.length ? 'Errors: ' + errors.join(', ') : '';
  }

  // ---- Charts ----------------------------------------------------------------

  const isOpen = () => points.length > 0 && points[0].target_rate_per_s != null;
  const column = (f) => points.map(f);
  // The drain after -d's end (its own record) has no rate to chart: a spike over a sliver of time.
  const perSecond = (n, p) => (p.duration_s > 0 && !p.drain ? n / p.duration_s : null);
  const ms = (k) => column((p) => (p.latency_ns && p.latency_ns.count ? p.latency_ns[k] / 1e6 : null));

  function rateSeries() {
    const s = [{label: 'achieved', values: column((p) => (p.drain ? null : p.achieved_rate_per_s))}];
    if (isOpen()) {
      s.push({label: 'target', values: column((p) => p.target_rate_per_s), dash: [6, 4]});
      s.push({label: 'sent', values: column((p) => perSecond(p.sent, p))});
    }
    return s;
  }
  function latencySeries() {
    return [{label: 'p50', values: ms('p50')}, {label: 'p90', values: ms('p90')}, {label: 'p99', values: ms('p99')},
      {label: 'max', values: ms('max')},
      {label: 'oldest in flight', values: column((p) => (p.in_flight > 0 ? p.oldest_in_flight_ns / 1e6 : null)), dash: [3, 3]}];
  }
  // Each class that has happened (status >= 400 always): a class's first error adds its series.
  function errorClasses() { return ERROR_CLASSES.filter((k) => k === 'status' || errorTotals[k]); }
  function errorSeries() {
    return errorClasses().map((k) => ({
      label: k === 'status' ? 'status ≥ 400 (non-2xx/3xx)' : k,
      values: column((p) => perSecond((p.errors && p.errors[k]) || 0, p)),
    }));
  }
  function connectionSeries() {
    const s = [{label: 'connections open', values: column((p) => p.open_connections)},
      {label: 'requests in flight', values: column((p) => p.in_flight)}];
    if (isOpen()) s.push({label: 'backlog', values: column((p) => p.backlog)});
    // A scenario's users running (a load shape or POST /users changes them).
    if (points.some((p) => p.users !== null && p.users !== undefined)) {
      s.push({label: 'users', values: column((p) => p.users)});
    }
    return s;
  }

  const CHARTS = [
    {key: 'rate', title: 'Requests per second', unit: '/s', series: rateSeries},
    {key: 'latency', title: 'Latency per interval (log)', unit: 'ms', log: true, series: latencySeries},
    {key: 'errors', title: 'Errors per second, by class', unit: '/s', series: errorSeries},
    {key: 'connections', title: 'Connections', unit: '', series: connectionSeries},
  ];

  function makeChart(def, x) {
    const box = document.getElementById('lv-chart-' + def.key);
    box.textContent = '';
    return C.timeChart(box, {title: def.title, unit: def.unit, log: !!def.log, x, series: def.series()});
  }

  function redraw() {
    redrawPending = false;
    if (points.length === 0) return;
    const x = column((p) => p.start_s + p.duration_s);  // at its end, as the report draws it
    if (!charts) {
      const area = document.getElementById('lv-charts');
      charts = {};
      for (const def of CHARTS) {
        const box = document.createElement('div');
        box.id = 'lv-chart-' + def.key;
        area.append(box);
        charts[def.key] = makeChart(def, x);
      }
      errorClassesShown = errorClasses().join();
    } else {
      for (const def of CHARTS) {
        if (def.key === 'errors' && errorClasses().join() !== errorClassesShown) {
          charts.errors.destroy();
          charts.errors = makeChart(def, x);
          errorClassesShown = errorClasses().join();
        } else {
          charts[def.key].setData(x, def.series().map((s) => s.values));
        }
      }
    }
    showFigures();
    root.dataset.intervals = String(points.length);
  }

  function scheduleRedraw() {
    if (redrawPending) return;
    redrawPending = true;
    setTimeout(redraw, 50);  // a page that joins late gets the history in one burst: one redraw for it
  }

  // ---- A capacity search ------------------------------------------------------

  // A step's run: its intervals alone on the charts and figures (the probe is a
  // closed loop, the steps are not: the charts are made again for each).
  function startStep() {
    points.length = 0;
    completed = 0;
    for (const k of Object.keys(errorTotals)) delete errorTotals[k];
    if (charts) for (const c of Object.values(charts)) c.destroy();
    charts = null;
    document.getElementById('lv-charts').textContent = '';
    root.dataset.intervals = '0';
  }

  function onSearch(doc) {
    if (!search) {
      root.dataset.search = doc.mode;
      document.getElementById('lv-reset').hidden = true;  // a step's statistics are the search's
      document.getElementById('lv-target').textContent = (doc.mode === 'sweep' ? 'capacity sweep' : 'capacity search') +
        (doc.objective ? ' for ' + doc.objective : '') + ' · ' + doc.url;
    }
    search = doc;
    const running = window.PacerSearch.show(document.getElementById('lv-search'), doc);
    if (running && running.index !== runningStep) startStep();
    runningStep = running ? running.index : runningStep;
  }

  async function onSearchEnd(doc) {
    document.getElementById('lv-search').hidden = true;  // the page below has every step
    for (const id of ['lv-figures', 'lv-errors', 'lv-charts']) document.getElementById(id).hidden = true;
    const section = document.getElementById('lv-final');
    section.querySelector('h2').textContent = 'Final result';
    section.classList.add('lv-final-alone');  // nothing above it but the header
    section.hidden = false;
    try {
      await window.PacerCapacity.render(document.getElementById('pacer-report'), doc);
      root.dataset.final = 'ready';
    } catch (e) {
      message('Cannot draw the search\'s page: ' + e);
      console.error(e);
    }
  }

  // ---- The run ---------------------------------------------------------------

  function onInterval(p) {
    points.push(p);
    // A closed-model scenario's first interval: its user count can change now.
    if (points.length === 1 && p.users != null && p.target_rate_per_s == null) loadUsers();
    if (points.length === 1 && p.target_rate_per_s != null && !search) loadRate();
    if (p.stats_reset) {  // POST /stats/reset: the totals start again at this interval
      completed = 0;
      for (const k of Object.keys(errorTotals)) delete errorTotals[k];
    }
    completed += p.completed;
    for (const k of ERROR_CLASSES) errorTotals[k] = (errorTotals[k] || 0) + ((p.errors && p.errors[k]) || 0);
    scheduleRedraw();
  }

  function describe(report) {
    const c = report.config || {};
    if (!c.url) return;
    const model = c.load_model === 'closed' ? 'closed loop' : 'open model (' + c.load_model + ')';
    document.getElementById('lv-target').textContent =
      c.method + ' ' + c.url + ' · ' + c.connections + ' connections · ' + model +
      (c.duration_s ? ' · ' + c.duration_s + 's' : '');
  }

  async function onEnd(report) {
    ended = true;
    redraw();
    if (report.schema === 'pacer-capacity') {
      setState('ended', report.answer && report.answer.cut_short ? 'stopped' : 'ended');
      return onSearchEnd(report);
    }
    setState('ended', report.interrupted ? 'stopped' : 'ended');
    if (report.error) {
      message('The run failed: ' + report.error);
      root.dataset.final = 'ready';
      return;
    }
    // The final report draws the run over time from the intervals this page has
    // (the same objects --timeseries writes) when it carries none itself; its
    // charts then replace the live ones.
    const complete = report.timeseries || points.length === 0 ? report : Object.assign({}, report, {timeseries: points});
    if (complete.timeseries) document.getElementById('lv-charts').hidden = true;
    const section = document.getElementById('lv-final');
    section.hidden = false;
    try {
      await window.PacerReport.render(document.getElementById('pacer-report'), complete);
      root.dataset.final = 'ready';
    } catch (e) {
      message('Cannot draw the final report: ' + e);
      console.error(e);
    }
  }

  function connect() {
    const events = new EventSource(withToken('/events'));
    events.onopen = () => {
      if (ended || root.dataset.state === 'stopping') return;
      setState('running');
      message('');
    };
    events.onmessage = (e) => onInterval(JSON.parse(e.data));
    events.addEventListener('search', (e) => onSearch(JSON.parse(e.data)));
    events.addEventListener('end', (e) => {
      events.close();
      onEnd(JSON.parse(e.data));
    });
    events.onerror = () => {
      if (ended) return;
      // EventSource tries again by itself (and resumes after the last interval it had).
      setState('disconnected');
      message('Lost the connection to pacer: the run may have ended (pacer exits with the run unless ' +
        '--web-linger keeps it serving). Trying again...');
    };
  }

  async function stop() {
    setState('stopping');
    try {
      const r = await fetch('/stop', {method: 'POST', headers: token ? {Authorization: 'Bearer ' + token} : {}});
      if (!r.ok) throw new Error('pacer answered ' + r.status);
      message('');
    } catch (e) {
      setState('running');
      message('Stop failed: ' + e.message);
    }
  }

  // POST path (with the token, if any); the JSON answer, or an Error with pacer's reason.
  async function postJson(path) {
    const r = await fetch(path, {method: 'POST', headers: token ? {Authorization: 'Bearer ' + token} : {}});
    const body = await r.json();
    if (!r.ok) throw new Error(body.error || 'pacer answered ' + r.status);
    return body;
  }

  // A closed-model scenario's user count (GET/POST /users): the form shows only
  // when the run has one to change; each change is the server's answer.
  function showUsers(state) {
    const form = document.getElementById('lv-users');
    form.hidden = false;
    const count = document.getElementById('lv-users-count');
    count.max = String(state.max_users);
    if (document.activeElement !== count) count.value = String(state.users);
    document.getElementById('lv-users-now').textContent =
      'asked now: ' + state.users + ' (at most ' + state.max_users + ', --max-users)';
  }
  async function loadUsers() {
    try {
      const r = await fetch(withToken('/users'));
      if (r.ok) showUsers(await r.json());
    } catch (e) {
      // no count to change: the form stays hidden
    }
  }
  async function applyUsers(event) {
    event.preventDefault();
    const users = document.getElementById('lv-users-count').value;
    const rate = document.getElementById('lv-users-rate').value;
    let path = '/users?users=' + encodeURIComponent(users);
    if (rate !== '') path += '&spawn_rate=' + encodeURIComponent(rate);
    try {
      const body = await postJson(path);
      showUsers(body);
      root.dataset.usersAsked = String(body.users);
      message('');
    } catch (e) {
      message('Changing the users failed: ' + e.message);
    }
  }

  // The open model's rate (GET/POST /rate): the same, for a run whose load is a rate.
  function showRate(state) {
    document.getElementById('lv-rate').hidden = false;
    const value = document.getElementById('lv-rate-value');
    if (document.activeElement !== value) value.value = String(state.rate_per_s);
    document.getElementById('lv-rate-now').textContent = 'asked now: ' + state.rate_per_s + '/s';
  }
  async function loadRate() {
    try {
      const r = await fetch(withToken('/rate'));
      if (r.ok) showRate(await r.json());
    } catch (e) {
      // no rate to change: the form stays hidden
    }
  }
  async function applyRate(event) {
    event.preventDefault();
    const rate = document.getElementById('lv-rate-value').value;
    try {
      const body = await postJson('/rate?rate=' + encodeURIComponent(rate));
      showRate(body);
      root.dataset.rateAsked = String(body.rate_per_s);
      message('');
    } catch (e) {
      message('Changing the rate failed: ' + e.message);
    }
  }

  // POST /stats/reset: the statistics start again at the next interval boundary;
  // the interval that starts there says so (stats_reset) and the totals restart.
  async function resetStats() {
    try {
      const body = await postJson('/stats/reset');
      root.dataset.resetAt = String(body.reset_at_s);
      message('The statistics start again at ' + body.reset_at_s.toFixed(1) + ' s.');
    } catch (e) {
      message('Resetting the statistics failed: ' + e.message);
    }
  }

  async function start() {
    buildFigures();
    document.getElementById('lv-stop').addEventListener('click', stop);
    document.getElementById('lv-reset').addEventListener('click', resetStats);
    document.getElementById('lv-users').addEventListener('submit', applyUsers);
    document.getElementById('lv-rate').addEventListener('submit', applyRate);
    try {
      const r = await fetch(withToken('/report.json'));
      if (r.ok) describe(await r.json());
    } catch (e) {
      // the events below say whether pacer is there
    }
    connect();
  }

  start();
})();
