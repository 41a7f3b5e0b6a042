// The menu button of narrow screens: opens and closes the navigation.
(function () {
  "use strict";

  document.addEventListener("DOMContentLoaded", function () {
    var button = document.getElementById("menu-toggle");
    if (!button) {
      return;
    }
    button.addEventListener("click", function () {
      var open = button.closest(".topbar").classList.toggle("menu-open");
      button.setAttribute("aria-expanded", open ? "true" : "false");
    });
  });
})();
