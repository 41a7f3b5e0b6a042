// The overview's charts (Chart.js, vendored), each drawn from the <table> its canvas is
// described by (aria-describedby): row headers are the x labels, the columns named by the
// figure's data-series ("1,2" or "from:3"; all columns when absent) are the series.
//
//   <figure class="chart" data-chart="line|bar|stacked" [data-horizontal]>
//
// A live part swaps new tables in (htmx, on desk:* events); its charts are then redrawn.
// Each drawn chart is kept on its figure (figure.chart) for tests to read.
(function () {
  "use strict";

  var COLOURS = ["#2457c5", "#067647", "#b42318", "#b54708", "#6941c6", "#0e7090", "#c11574", "#475467"];

  function number(cell) {
    var value = Number(cell.textContent.trim());
    return Number.isFinite(value) ? value : null;
  }

  function columns(spec, count) {
    var all = [];
    for (var i = 1; i < count; i++) {
      all.push(i);
    }
    if (!spec) {
      return all;
    }
    if (spec.indexOf("from:") === 0) {
      var first = Number(spec.slice(5));
      return all.filter(function (i) { return i >= first; });
    }
    return spec.split(",").map(Number);
  }

  function readTable(table, spec) {
    var headers = Array.prototype.map.call(table.tHead.rows[0].cells, function (cell) { return cell.textContent.trim(); });
    // An empty table has one row saying so, spanning the columns.
    var rows = Array.prototype.filter.call(table.tBodies[0].rows, function (row) {
      return row.cells.length === headers.length && !row.querySelector("[colspan]");
    });
    return {
      axis: headers[0],
      labels: rows.map(function (row) { return row.cells[0].textContent.trim(); }),
      datasets: columns(spec, headers.length).map(function (column, index) {
        var colour = COLOURS[index % COLOURS.length];
        return {
          label: headers[column],
          data: rows.map(function (row) { return number(row.cells[column]); }),
          borderColor: colour,
          backgroundColor: colour,
          pointRadius: rows.length === 1 ? 4 : 0,  // a single point is drawn, not left invisible
          borderWidth: 2,
        };
      }),
    };
  }

  function draw(figure) {
    var canvas = figure.querySelector("canvas");
    var table = canvas && document.getElementById(canvas.getAttribute("aria-describedby"));
    if (!table || typeof window.Chart !== "function") {
      return;
    }
    var kind = figure.dataset.chart;
    var stacked = kind === "stacked";
    if (figure.chart) {
      figure.chart.destroy();
    }
    var data = readTable(table, figure.dataset.series);
    // An empty series says so, instead of blank axes.
    var empty = figure.querySelector(".chart-empty");
    if (empty) {
      empty.hidden = data.labels.length > 0;
      figure.querySelector(".plot").hidden = data.labels.length === 0;
    }
    // Both axes named: the table's first column across, the figure's unit (or its only series) up.
    var across = { display: true, text: data.axis };
    var up = { display: true, text: figure.dataset.unit || (data.datasets.length === 1 ? data.datasets[0].label : "") };
    var horizontal = Boolean(figure.dataset.horizontal);
    figure.chart = new window.Chart(canvas, {
      type: kind === "line" ? "line" : "bar",
      data: { labels: data.labels, datasets: data.datasets },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        indexAxis: figure.dataset.horizontal ? "y" : "x",
        interaction: { mode: "index", intersect: false },
        scales: {
          x: { stacked: stacked, ticks: { maxTicksLimit: 8 }, title: horizontal ? up : across, beginAtZero: horizontal },
          y: { stacked: stacked, beginAtZero: true, title: horizontal ? across : up },
        },
        plugins: { legend: { labels: { boxWidth: 12 } } },
      },
    });
  }

  function drawWithin(root) {
    Array.prototype.forEach.call(root.querySelectorAll("figure.chart"), draw);
  }

  // A swapped part brings new figures: draw them (the old ones left with their charts).
  document.body.addEventListener("htmx:afterSettle", function (event) {
    drawWithin(event.detail.elt || document);
  });
  drawWithin(document);
})();
