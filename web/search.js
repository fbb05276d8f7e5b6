/* PacerSearch: the live web view's panel for a capacity search or sweep (issue 41:
 * --capacity or --sweep with --web). live.js hands it each "pacer-capacity-progress"
 * document (docs/web.md: the stream's "search" events, the same as /search.json),
 * sent when a step starts and when it ends; it shows the objective, the step running
 * now and the steps done with their verdicts, in the capacity page's own table
 * (PacerCapacity.stepsTable, web/capacity.js). The live charts beside it show the
 * running step's intervals (live.js starts them again at each step). At the end
 * live.js draws the capacity page itself (PacerCapacity.render). Nothing here
 * fetches anything.
 *
 *   PacerSearch.show(el, doc) -> the running step ({index, kind, target_rate_per_s}) or null
 *
 * For tests: el's data-running-index and data-running-rate are the running step's
 * index and target rate ('' between steps), data-steps the count of steps done;
 * [data-field=running] is the sentence that says which step runs;
 * table.cap-steps has a row per step done.
 */
(function (global) {
  'use strict';
  const P = global.PacerCapacity;

  function h(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class') e.className = v; else e.setAttribute(k, v);
    }
    for (const c of children) if (c != null) e.append(c);
    return e;
  }

  function secondsText(s) { return s == null ? '–' : (Math.round(s * 1000) / 1000) + 's'; }

  // "step 3: 400/s for 1s after a 0.3s warm-up, running", or what comes next.
  function runningText(doc) {
    const r = doc.running, s = doc.settings || {};
    const warmup = s.step_warmup_s ? ` after a ${secondsText(s.step_warmup_s)} warm-up` : '';
    const length = `for ${secondsText(s.step_duration_s)}${warmup}`;
    if (r) {
      const what = r.kind === 'probe' ? 'the closed-loop probe (it picks the start rate)' : P.rateText(r.target_rate_per_s);
      return `Step ${r.index}: ${what} ${length}, running.`;
    }
    const n = (doc.steps || []).length;
    return n ? `${n} step${n > 1 ? 's' : ''} done; choosing the next rate.` : 'Starting.';
  }

  function objectiveText(doc) {
    if ((doc.terms || []).length) return doc.terms.map((t) => t.text).join(' and ');
    return doc.objective || 'none (each rate measured)';
  }

  function show(el, doc) {
    el.hidden = false;
    el.textContent = '';
    const mode = doc.mode === 'sweep' ? 'Capacity sweep' : 'Capacity search';
    el.append(h('h2', {}, mode + ' (live)'));
    const dl = h('dl', {class: 'pr-meta'});
    dl.append(h('dt', {}, 'objective'), h('dd', {'data-field': 'objective'}, objectiveText(doc)));
    el.append(dl);
    el.append(h('p', {class: 'lv-search-running', 'data-field': 'running'}, runningText(doc)));
    const steps = doc.steps || [];
    if (steps.length) {
      P.stepsTable(el, doc);
    } else {
      el.append(h('p', {class: 'pr-note'}, 'Each step\'s row comes here when it ends, with its verdict.'));
    }
    const r = doc.running;
    el.dataset.runningIndex = r ? String(r.index) : '';
    el.dataset.runningRate = r ? String(r.target_rate_per_s) : '';
    el.dataset.steps = String(steps.length);
    return r || null;
  }

  global.PacerSearch = {show};
})(typeof window !== 'undefined' ? window : globalThis);
