// Funds page: the create / edit / proposal form lives in a modal <dialog>.
//
// - Any htmx swap into #fund-form-slot that brings a form opens the dialog.
// - The server's HX-Trigger "fund-form-done" (after a save, confirm or reject) closes it.
// - "desk:ui_action" open_form for "fund-form" (the agent's proposal, sent over the
//   WebSocket to this staff member, or in the chat panel's response) loads that proposal
//   from the server, pre-filled, and opens it.
// - A shown proposal decided elsewhere ("desk:pending_action") is reloaded to show its outcome.
// - [data-close-dialog] closes it (without JavaScript it is a link back to the page).
(function () {
  "use strict";

  var FORM_ID = "fund-form";
  var body = document.body;
  var dialog = document.getElementById("fund-dialog");
  var slot = document.getElementById("fund-form-slot");
  if (!dialog || !slot) {
    return;
  }
  var page = dialog.dataset.page || "/funds/";
  var submitting = null; // the dialog's own form while its confirm / reject / save is on its way
  // The proposal being loaded: the same open_form arrives twice (chat response and WebSocket),
  // and a second load landing after staff started editing would wipe their edit.
  var loading = "";

  function openDialog() {
    if (!dialog.open) {
      dialog.showModal();
    }
  }

  function closeDialog() {
    if (dialog.open) {
      dialog.close();
    }
  }

  function shownProposal() {
    var form = document.getElementById(FORM_ID);
    return dialog.open && form ? form.dataset.pendingActionId : "";
  }

  function loadProposal(id) {
    loading = String(id);
    window.htmx.ajax("GET", page + "?part=form&proposal=" + encodeURIComponent(id), {
      target: "#fund-form-slot",
      swap: "innerHTML",
    }).finally(function () {
      loading = "";
    });
  }

  body.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.target === slot && slot.querySelector("form")) {
      openDialog();
      var first = slot.querySelector("input:not([type=hidden]):not([readonly]), textarea:not([readonly])");
      if (first) {
        first.focus();
      }
    }
  });

  body.addEventListener("fund-form-done", closeDialog);

  body.addEventListener("htmx:beforeRequest", function (event) {
    if (event.detail.elt.closest && event.detail.elt.closest("#fund-form-slot form")) {
      submitting = event.detail.elt;
    }
  });
  body.addEventListener("htmx:afterRequest", function (event) {
    if (event.detail.elt === submitting) {
      submitting = null; // by now the form may have been swapped out of the page
    }
  });

  body.addEventListener("click", function (event) {
    var closer = event.target.closest("[data-close-dialog]");
    if (closer && dialog.contains(closer)) {
      event.preventDefault();
      closeDialog();
    }
  });

  body.addEventListener("desk:ui_action", function (event) {
    var data = event.detail || {};
    if (data.action !== "open_form" || data.form !== FORM_ID || !data.pending_action_id) {
      return;
    }
    if (data.url && data.url !== window.location.pathname) {
      window.location.assign(data.url + "?proposal=" + encodeURIComponent(data.pending_action_id));
      return;
    }
    var id = String(data.pending_action_id);
    if (id !== shownProposal() && id !== loading) {
      loadProposal(id); // unless already in front of the staff member (perhaps half edited) or on its way
    }
  });

  // Decided elsewhere (chat answer, admin, API, another staff member): show its outcome.
  body.addEventListener("desk:pending_action", function (event) {
    var data = event.detail || {};
    if (data.status !== "pending" && submitting === null && String(data.id) === shownProposal()) {
      loadProposal(data.id);
    }
  });

  // Rendered open by the server (no-JS fallback, or ?proposal=): make it a real modal.
  if (dialog.hasAttribute("open")) {
    dialog.close();
    openDialog();
  }
})();
