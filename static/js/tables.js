// Tables marked "stack" (and the admin's change lists) become one card per row on narrow
// screens: each cell is labelled with its column's header, copied here into data-label.
(function () {
  "use strict";

  function label(table) {
    var head = table.tHead && table.tHead.rows[0];
    if (!head) {
      return;
    }
    var names = [];
    Array.prototype.forEach.call(head.cells, function (cell) {
      for (var i = 0; i < (cell.colSpan || 1); i++) {
        // The admin's headers hold sort links and priorities beside the name (.text).
        names.push((cell.querySelector(".text") || cell).textContent.trim());
      }
    });
    Array.prototype.forEach.call(table.tBodies, function (body) {
      Array.prototype.forEach.call(body.rows, function (row) {
        var column = 0;
        Array.prototype.forEach.call(row.cells, function (cell) {
          if (cell.colSpan === 1 && names[column] && !cell.hasAttribute("data-label")) {
            cell.setAttribute("data-label", names[column]);
          }
          column += cell.colSpan || 1;
        });
      });
    });
  }

  function labelAll() {
    document.querySelectorAll("table.stack, #result_list").forEach(label);
  }

  document.addEventListener("DOMContentLoaded", labelAll);
  document.addEventListener("htmx:afterSettle", labelAll);
})();
