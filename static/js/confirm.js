// Buttons that change something for good carry data-confirm: the question, with what will
// happen and the amounts. The request goes out only when staff answer yes.
(function () {
  "use strict";

  document.addEventListener("htmx:confirm", function (event) {
    var trigger = event.detail.triggeringEvent;
    var button = trigger && trigger.submitter;
    var question = button && button.getAttribute("data-confirm");
    if (!question) {
      return;
    }
    event.preventDefault();
    if (window.confirm(question)) {
      event.detail.issueRequest(true);
    }
  });

  // Without htmx (a plain post) the same question is asked before the form is sent.
  document.addEventListener("submit", function (event) {
    var button = event.submitter;
    var question = button && button.getAttribute("data-confirm");
    if (question && !event.target.hasAttribute("hx-post") && !window.confirm(question)) {
      event.preventDefault();
    }
  });
})();
