// couplet run --live: the page (docs/live.md). Fills itself from /history, then
// follows the WebSocket /ws (rows [simulation time, wall time, lateness,
// values...] and the status). Keeps at most about two points per pixel of the
// plot's width: when more arrive, every other one is dropped.
'use strict';
(function() {
const statusElement = document.getElementById('live-status');
const rows = [];
let signals = [];
let shown = [];
let signalPlot = null;
let latenessPlot = null;
let redrawPending = false;
let finalState = false;
let lastStatus = null;

function text(id, value) { document.getElementById(id).textContent = value; }
function fixed(value, digits) {
  return value === null || value === undefined ? '–' : Number(value).toFixed(digits);
}

function maxPoints() {
  return Math.max(200, 2 * document.getElementById('plot-signals').clientWidth);
}

function decimate() {
  if (rows.length <= maxPoints()) return;
  let kept = 0;
  for (let k = 0; k < rows.length; k += 2) rows[kept++] = rows[k];
  rows.length = kept;
}

// Pixels in the plot area whose colour is not a grey: the grid and axes are
// grey, every series colour is saturated, so these pixels are drawn data.
function drawnPixels(plot) {
  if (!plot) return 0;
  const area = plot.getArea();
  let count = 0;
  document.getElementById('plot-signals').querySelectorAll('canvas').forEach(function(canvas) {
    const scale = canvas.width / (canvas.clientWidth || canvas.width);
    const pixels =
        canvas.getContext('2d')
            .getImageData(
                Math.floor(area.x * scale), Math.floor(area.y * scale),
                Math.max(1, Math.floor(area.w * scale)), Math.max(1, Math.floor(area.h * scale)))
            .data;
    for (let k = 0; k < pixels.length; k += 4) {
      const r = pixels[k], g = pixels[k + 1], b = pixels[k + 2];
      if (pixels[k + 3] > 0 && Math.max(r, g, b) - Math.min(r, g, b) > 40) ++count;
    }
  });
  return count;
}

function recordStatus(status) {
  statusElement.setAttribute('data-time', String(status.time));
  statusElement.setAttribute('data-state', status.state);
  statusElement.setAttribute('data-rows', String(rows.length));
  statusElement.setAttribute('data-drawn-pixels', String(drawnPixels(signalPlot)));
  statusElement.setAttribute('data-errors', window.coupletLiveErrors.join(' | '));
}

// One row per check: 'failed at t' as soon as it is violated, 'holding so
// far' while the run goes, the run's verdict (and its message) at the end.
function showChecks(checks) {
  const body = document.getElementById('checks-rows');
  body.replaceChildren();
  for (const check of checks) {
    const row = document.createElement('tr');
    const verdict = check.passed === true ? 'passed' :
        check.passed === false            ? 'failed' :
                                            'holding so far';
    row.className = 'check-' +
        (check.passed === true      ? 'passed' :
             check.passed === false ? 'failed' :
                                      'open');
    const when = check.first_violation_time === null || check.first_violation_time === undefined ?
        '–' :
        fixed(check.first_violation_time, 6) + ' s';
    for (const cell of [check.name, verdict, when, check.message || '']) {
      const td = document.createElement('td');
      td.textContent = cell;
      row.appendChild(td);
    }
    body.appendChild(row);
  }
}

function showStatus(status) {
  const state = document.getElementById('state');
  state.textContent = status.state;
  state.className = 'state-' + status.state;
  text('time', fixed(status.time, 3));
  text('end-time', fixed(status.end_time, 3));
  text('wall-time', fixed(status.wall_time, 1));
  text('factor', fixed(status.realtime_factor, 3));
  const progress = Math.min(1, Math.max(0, status.progress));
  document.getElementById('progress').value = progress;
  text('percent', Math.floor(progress * 100) + ' %');
  text(
      'eta',
      status.state !== 'running' ? '–' :
          status.eta_s === null  ? '–' :
                                   fixed(status.eta_s, 0) + ' s');
  text('dropped', String(status.dropped_samples + status.client_messages_dropped));
  document.getElementById('stop').hidden = !status.control || status.state !== 'running';
  if (status.wall_clock) {
    document.getElementById('health').hidden = false;
    text('lateness', fixed(status.lateness_s * 1e3, 3));
    text('max-lateness', fixed(status.max_lateness_s * 1e3, 3));
    text('overruns', String(status.overruns));
    text('tolerance', fixed(status.tolerance_s * 1e3, 3));
  }
  if (status.checks && status.checks.length > 0) {
    document.getElementById('checks').hidden = false;
    showChecks(status.checks);
  }
  finalState = status.state !== 'running';
  lastStatus = status;
  recordStatus(status);
}

function signalData() {
  return rows.map(function(row) {
    const point = [row[0]];
    for (let k = 0; k < signals.length; ++k)
      if (shown[k]) point.push(row[3 + k]);
    return point;
  });
}

function signalLabels() {
  const labels = ['t'];
  for (let k = 0; k < signals.length; ++k)
    if (shown[k]) labels.push(signals[k]);
  return labels;
}

function redraw() {
  redrawPending = false;
  if (rows.length === 0) return;
  const data = signalData();
  if (signalPlot === null) {
    signalPlot = new Dygraph(
        document.getElementById('plot-signals'), data,
        {labels: signalLabels(), xlabel: 'simulation time (s)', legend: 'always'});
  } else {
    signalPlot.updateOptions({file: data, labels: signalLabels()});
  }
  if (!document.getElementById('health').hidden) {
    const lateness = rows.map(function(row) { return [row[1], row[2] * 1e3]; });
    if (latenessPlot === null) {
      latenessPlot = new Dygraph(
          document.getElementById('plot-lateness'), lateness,
          {labels: ['wall time (s)', 'lateness (ms)'], xlabel: 'wall time (s)', legend: 'always'});
    } else {
      latenessPlot.updateOptions({file: lateness});
    }
  }
  if (lastStatus !== null) recordStatus(lastStatus);
}

function scheduleRedraw() {
  if (redrawPending) return;
  redrawPending = true;
  window.requestAnimationFrame(redraw);
  // A hidden tab has no animation frames: draw anyway, less often.
  window.setTimeout(function() {
    if (redrawPending) redraw();
  }, 500);
}

function buildPicker() {
  const picker = document.getElementById('picker');
  signals.forEach(function(name, k) {
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.checked = shown[k];
    box.addEventListener('change', function() {
      shown[k] = box.checked;
      if (signalPlot !== null) {
        signalPlot.destroy();
        signalPlot = null;
      }
      scheduleRedraw();
    });
    label.appendChild(box);
    label.appendChild(document.createTextNode(' ' + name));
    picker.appendChild(label);
  });
}

function take(message) {
  (message.rows || []).forEach(function(row) { rows.push(row); });
  decimate();
  scheduleRedraw();
  if (message.status) showStatus(message.status);
}

function follow() {
  const socket = new WebSocket('ws://' + window.location.host + '/ws');
  socket.onmessage = function(event) { take(JSON.parse(event.data)); };
  // The run is over or the server went: poll /status until it answers no more.
  socket.onclose = function() {
    if (finalState) return;
    window.setTimeout(function() {
      fetch('/status').then(function(r) { return r.json(); }).then(showStatus).catch(function() {
        text('state', 'disconnected');
      });
    }, 1000);
  };
}

document.getElementById('stop').addEventListener(
    'click', function() { fetch('/stop', {method: 'POST'}); });

fetch('/history')
    .then(function(r) { return r.json(); })
    .then(function(history) {
      signals = history.status.signals;
      shown = signals.map(function(_, k) { return k < 8; });
      buildPicker();
      take(history);
      follow();
    })
    .catch(function(error) { window.coupletLiveErrors.push(String(error)); });
})();
