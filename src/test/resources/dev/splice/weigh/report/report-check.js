// Appended by ReportInChromiumTest to a copy of a report page (the pages themselves have no script):
// shows every hidden diagnostics section, then measures each inline SVG as the browser laid it out
// and writes the result as JSON into a pre element (id splice-check), which --dump-dom prints.
(function () {
  document.querySelectorAll('.diag').forEach(function (s) { s.style.display = 'block'; });
  var svgs = [];
  document.querySelectorAll('svg[id]').forEach(function (s) {
    var box = s.getBBox();
    var rect = s.getBoundingClientRect();
    svgs.push({
      id: s.id,
      children: s.childElementCount,
      bboxWidth: box.width, bboxHeight: box.height,
      width: rect.width, height: rect.height,
      circles: s.querySelectorAll('circle').length,
      dots: s.querySelectorAll('circle').length + Array.prototype.reduce.call(s.querySelectorAll('path.points'),
          function (n, p) { return n + p.getAttribute('d').split('M').length - 1; }, 0),
      paths: s.querySelectorAll('path').length,
      rects: s.querySelectorAll('rect').length,
      lines: s.querySelectorAll('line').length,
      texts: Array.prototype.map.call(s.querySelectorAll('text'), function (t) { return t.textContent; }),
      logscale: s.classList.contains('logscale')
    });
  });
  var tables = {};
  document.querySelectorAll('table[id]').forEach(function (t) {
    tables[t.id] = Array.prototype.map.call(t.querySelectorAll('tr'), function (r) {
      return Array.prototype.map.call(r.cells, function (c) { return c.textContent; });
    });
  });
  var links = Array.prototype.map.call(document.querySelectorAll('#context-table a'), function (a) {
    var target = document.getElementById(a.getAttribute('href').substring(1));
    return { text: a.textContent, target: target ? target.className : null };
  });
  var pre = document.createElement('pre');
  pre.id = 'splice-check';
  pre.textContent = JSON.stringify({
    errors: window.__spliceErrors || [],
    scripts: document.scripts.length,
    svgs: svgs,
    tables: tables,
    links: links,
    title: document.title
  });
  document.body.appendChild(pre);
})();
