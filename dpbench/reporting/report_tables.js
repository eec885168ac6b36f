// Sort and filter for the report's tables (dpbench/report_tables.py inlines this file into
// every table page: no network, no library). Each <table class="dpbench"> gets a filter box
// above it (rows kept: those containing every typed word, case-insensitive) and clickable
// column headers (click: ascending, again: descending; numbers by value, the rest as text;
// empty cells last).
(function () {
  "use strict";

  function cellKey(row, col) {
    var cell = row.cells[col];
    var text = cell ? cell.textContent.trim() : "";
    var num = parseFloat(text.replace("\u2212", "-").replace("\u221e", "Infinity"));
    return { text: text.toLowerCase(), num: isNaN(num) ? null : num, empty: text === "" };
  }

  function compare(a, b) {
    if (a.empty !== b.empty) return a.empty ? 1 : -1;
    if (a.num !== null && b.num !== null) return a.num - b.num;
    if (a.num !== null) return -1;
    if (b.num !== null) return 1;
    return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
  }

  function sortBy(table, col, th) {
    var body = table.tBodies[0];
    var descending = th.getAttribute("aria-sort") === "ascending";
    var rows = Array.prototype.slice.call(body.rows);
    var keyed = rows.map(function (row, i) { return { row: row, key: cellKey(row, col), i: i }; });
    keyed.sort(function (x, y) {
      var c = compare(x.key, y.key);
      if (descending && !(x.key.empty || y.key.empty)) c = -c;
      return c || x.i - y.i;
    });
    keyed.forEach(function (k) { body.appendChild(k.row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", descending ? "descending" : "ascending");
  }

  function filterRows(table, query, count) {
    var words = query.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0, rows = table.tBodies[0].rows;
    Array.prototype.forEach.call(rows, function (row) {
      var text = row.textContent.toLowerCase();
      var keep = words.every(function (w) { return text.indexOf(w) >= 0; });
      row.style.display = keep ? "" : "none";
      if (keep) shown += 1;
    });
    count.textContent = shown + " of " + rows.length + " rows";
  }

  function enhance(table) {
    if (!table.tHead || !table.tBodies.length || table.getAttribute("data-enhanced")) return;
    table.setAttribute("data-enhanced", "1");
    var bar = document.createElement("div");
    bar.className = "dpbench-filter";
    var input = document.createElement("input");
    input.type = "search";
    input.placeholder = "filter rows (every word must appear)";
    input.setAttribute("aria-label", "filter rows");
    var count = document.createElement("span");
    bar.appendChild(input);
    bar.appendChild(count);
    table.parentNode.insertBefore(bar, table);
    input.addEventListener("input", function () { filterRows(table, input.value, count); });
    filterRows(table, "", count);
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.title = "sort by this column";
      th.style.cursor = "pointer";
      th.addEventListener("click", function () { sortBy(table, col, th); });
    });
  }

  function enhanceAll() {
    Array.prototype.forEach.call(document.querySelectorAll("table.dpbench"), enhance);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", enhanceAll);
  else enhanceAll();
})();
