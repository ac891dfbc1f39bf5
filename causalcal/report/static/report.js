// causalcal's run report: the pairs table (paged, sorted, searched in the page) and the
// sorting of the smaller tables. No network access, no library.
(function () {
  "use strict";
  function compare(x, y) {
    if (typeof x === "number" && typeof y === "number") { return x - y; }
    return String(x).localeCompare(String(y));
  }
  function format(value) {
    if (typeof value !== "number") { return value === null ? "" : String(value); }
    return value.toFixed(3);
  }
  function markSorted(table, th, ascending) {
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  }
  function pairsTable() {
    var source = document.getElementById("pairs-data");
    var table = document.getElementById("pairs-table");
    if (!source || !table) { return; }
    var data = JSON.parse(source.textContent);
    var rows = data.rows, shown = rows, page = 0, size = data.page_size;
    var body = table.querySelector("tbody");
    var search = document.getElementById("pairs-search");
    var info = document.getElementById("pairs-info");
    var prev = document.getElementById("pairs-prev"), next = document.getElementById("pairs-next");
    function render() {
      var pages = Math.max(1, Math.ceil(shown.length / size));
      page = Math.min(page, pages - 1);
      var html = [];
      shown.slice(page * size, (page + 1) * size).forEach(function (row) {
        html.push("<tr>" + row.map(function (v, k) {
          var cell = document.createElement("td");
          cell.textContent = format(v);
          if (k < 2) { cell.className = "text"; }
          return cell.outerHTML;
        }).join("") + "</tr>");
      });
      body.innerHTML = html.join("");
      info.textContent = shown.length ? ("rows " + (page * size + 1) + "–" +
        Math.min((page + 1) * size, shown.length) + " of " + shown.length +
        (shown.length < rows.length ? " matching" : "") + " (page " + (page + 1) + " of " +
        pages + ")") : "no pair matches";
      prev.disabled = page === 0;
      next.disabled = page >= pages - 1;
    }
    table.querySelectorAll("th").forEach(function (th, k) {
      th.addEventListener("click", function () {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        var key = function (r) { return r[k]; };
        shown = shown.slice().sort(function (x, y) {
          return ascending ? compare(key(x), key(y)) : compare(key(y), key(x));
        });
        markSorted(table, th, ascending);
        page = 0;
        render();
      });
    });
    search.addEventListener("input", function () {
      var words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
      shown = rows.filter(function (r) {
        var text = (r[0] + " " + r[1]).toLowerCase();
        return words.every(function (w) { return text.indexOf(w) >= 0; });
      });
      table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
      page = 0;
      render();
    });
    prev.addEventListener("click", function () { page -= 1; render(); });
    next.addEventListener("click", function () { page += 1; render(); });
    render();
  }
  function smallTables() {
    document.querySelectorAll("table.sortable.dom").forEach(function (table) {
      var body = table.querySelector("tbody");
      table.querySelectorAll("th").forEach(function (th, k) {
        th.addEventListener("click", function () {
          var ascending = th.getAttribute("aria-sort") !== "ascending";
          var trs = Array.prototype.slice.call(body.rows);
          trs.sort(function (x, y) {
            var a = x.cells[k].dataset.value, b = y.cells[k].dataset.value;
            var u = a === undefined ? x.cells[k].textContent : parseFloat(a);
            var v = b === undefined ? y.cells[k].textContent : parseFloat(b);
            return ascending ? compare(u, v) : compare(v, u);
          });
          trs.forEach(function (tr) { body.appendChild(tr); });
          markSorted(table, th, ascending);
        });
      });
    });
  }
  pairsTable();
  smallTables();
}());
