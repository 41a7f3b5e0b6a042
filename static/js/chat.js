// Chat transcripts (agent chat, fund chat, the orders desk): keep the newest message in
// view, and send with Ctrl/⌘+Enter. On the agent chat page the message box keeps focus.
(function () {
  "use strict";

  function scrollToEnd() {
    document.querySelectorAll(".chat").forEach(function (log) {
      log.scrollTop = log.scrollHeight;
    });
    var box = document.querySelector("#chat-panel[data-conversation-id] textarea[name=message]");
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
