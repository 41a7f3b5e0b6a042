// Chat page: keep the newest message in view, and send with Ctrl/⌘+Enter.
(function () {
  "use strict";

  function scrollToEnd() {
    var log = document.getElementById("chat-log");
    if (log) {
      log.scrollTop = log.scrollHeight;
      var last = log.lastElementChild;
      if (last && last.scrollIntoView) {
        last.scrollIntoView({ block: "nearest" });
      }
    }
    var box = document.querySelector("#chat-panel textarea[name=message]");
    if (box) {
      box.focus();
    }
  }

  document.addEventListener("DOMContentLoaded", scrollToEnd);
  document.body.addEventListener("htmx:afterSwap", scrollToEnd);
  document.body.addEventListener("keydown", function (event) {
    var box = event.target;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && box.matches && box.matches("#chat-panel textarea")) {
      event.preventDefault();
      box.form.requestSubmit();
    }
  });
})();
