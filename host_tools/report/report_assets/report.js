// couplet report's page script (docs/report.md): draws every <div class="plot">
// from the JSON in its data-plot attribute with dygraphs, then records in
// #report-status what it drew, so that a headless browser can check the page.
(function() {
'use strict';

// dygraphs puts axis labels in with innerHTML; names come from run logs.
function escapeHtml(text) {
  return String(text).replace(
      /[&<>"']/g,
      function(
          c) { return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\'': '&#39;'}[c]; });
}

// Histogram bars: a row's x is its bin's lower edge; the sets of a histogram
// stand side by side within the bin. Bars start at the bottom of the plot
// area, which a log axis needs (it has no zero).
function barPlotter(binWidth) {
  return function(e) {
    var slot = binWidth / e.seriesCount;
    var context = e.drawingContext;
    var bottom = e.plotArea.y + e.plotArea.h;
    context.fillStyle = e.color;
    e.points.forEach(function(point) {
      if (point.yval === null || isNaN(point.canvasy)) return;
      var left = e.dygraph.toDomXCoord(point.xval + slot * e.seriesIndex);
      var right = e.dygraph.toDomXCoord(point.xval + slot * (e.seriesIndex + 1));
      context.fillRect(
          left, point.canvasy, Math.max(1, right - left - 0.5), bottom - point.canvasy);
    });
  };
}

// Pixels in the plot area whose colour is not a grey: the grid and axes are
// grey, every series colour is saturated, so these pixels are drawn data.
function dataPixels(div, graph) {
  var area = graph.getArea();
  var count = 0;
  div.querySelectorAll('canvas').forEach(function(canvas) {
    var scale = canvas.width / (canvas.clientWidth || canvas.width);
    var pixels =
        canvas.getContext('2d')
            .getImageData(
                Math.floor(area.x * scale), Math.floor(area.y * scale),
                Math.max(1, Math.floor(area.w * scale)), Math.max(1, Math.floor(area.h * scale)))
            .data;
    for (var k = 0; k < pixels.length; k += 4) {
      var r = pixels[k], g = pixels[k + 1], b = pixels[k + 2];
      if (pixels[k + 3] > 0 && Math.max(r, g, b) - Math.min(r, g, b) > 40) ++count;
    }
  });
  return count;
}

// Short numbers on the axes, more digits on hover; no "4.0000e-" cut off at
// the axis edge as dygraphs' fixed decimals give on a log axis.
function shortNumber(value) {
  var number = Number(value);
  var magnitude = Math.abs(number);
  if (magnitude !== 0 && (magnitude < 1e-3 || magnitude >= 1e6)) {
    return number.toExponential(3).replace(/\.?0+e/, 'e');  // 1.400e-5 -> 1.4e-5
  }
  return String(Number(number.toPrecision(4)));
}
function hoverNumber(value) { return String(Number(Number(value).toPrecision(7))); }

function withFormatters(axes) {
  ['x', 'y'].forEach(function(axis) {
    axes[axis] = axes[axis] || {};
    axes[axis].axisLabelFormatter = shortNumber;
    axes[axis].valueFormatter = hoverNumber;
  });
  return axes;
}

function draw(div) {
  var spec = JSON.parse(div.getAttribute('data-plot'));
  var options = spec.options;
  ['xlabel', 'ylabel'].forEach(function(key) {
    if (key in options) options[key] = escapeHtml(options[key]);
  });
  options.labels = spec.labels;
  options.axes = withFormatters(options.axes || {});
  if (spec.kind === 'histogram') options.plotter = barPlotter(spec.bin_width);
  var graph = new Dygraph(div, spec.data, options);
  div.setAttribute('data-drawn-y-scale', graph.getOption('logscale') ? 'log' : 'linear');
  return dataPixels(div, graph);
}

var plots = document.querySelectorAll('div.plot[data-plot]');
var drawn = 0;
var empty = [];
plots.forEach(function(div) {
  try {
    var pixels = draw(div);
    ++drawn;
    div.setAttribute('data-drawn-pixels', String(pixels));
    if (pixels === 0) empty.push(div.id);
  } catch (error) {
    window.coupletReportErrors.push(div.id + ': ' + error);
  }
});
var status = document.getElementById('report-status');
status.setAttribute('data-plots', String(plots.length));
status.setAttribute('data-drawn', String(drawn));
status.setAttribute('data-empty', empty.join(' '));
status.setAttribute('data-errors', window.coupletReportErrors.join(' | '));
status.setAttribute('data-done', 'yes');
})();
