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

// Streamed replies (agents/streaming.py): a compose form marked data-stream posts with fetch,
// asking for text/event-stream, and shows the reply as the model writes it. Stop aborts the
// request; the server then closes the model's request and keeps the text so far, marked
// stopped. The last event carries the panel as the HTMX post would render it, swapped in the
// same way. Without fetch streaming, or for a named button (new conversation), HTMX posts as before.
// After Stop no event comes any more: a page with a list of conversations (data-recent-url) asks
// for that list until it no longer waits for the stopped reply, as a done event would bring it.
(function () {
  "use strict";

  if (!window.fetch || !window.AbortController || !window.TextDecoder || !window.ReadableStream) {
    return;
  }

  function bubble(className, who) {
    var node = document.createElement("div");
    node.className = "msg " + className;
    var name = document.createElement("strong");
    name.textContent = who;
    node.appendChild(name);
    node.appendChild(document.createTextNode("\n"));
    return node;
  }

  function parseEvents(buffer, handle) {
    // Complete events end with a blank line; what is left waits for the next read.
    var parts = buffer.split("\n\n");
    var rest = parts.pop();
    parts.forEach(function (block) {
      var name = "message";
      var data = [];
      block.split("\n").forEach(function (line) {
        if (line.indexOf("event:") === 0) {
          name = line.slice(6).trim();
        } else if (line.indexOf("data:") === 0) {
          data.push(line.slice(5).replace(/^ /, ""));
        }
      });
      if (data.length) {
        handle(name, JSON.parse(data.join("\n")));
      }
    });
    return rest;
  }

  // What was typed while the reply came in stays: the new panel's box would be empty.
  function swapPanel(panel, html) {
    var typed = panel.querySelector("textarea[name=message]");
    typed = typed ? typed.value : "";
    if (window.htmx && window.htmx.swap) {
      window.htmx.swap(panel, html, { swapStyle: "outerHTML" });
    } else {
      panel.outerHTML = html;
    }
    document.querySelectorAll(".chat").forEach(function (log) {
      log.scrollTop = log.scrollHeight;
    });
    var box = document.querySelector("#chat-panel textarea[name=message]");
    if (box) {
      if (typed && !box.value) {
        box.value = typed;
      }
      box.focus();
    }
  }

  // The server stores the stopped reply within moments of the request closing (STOP_POLL); until
  // then the list it renders says data-awaiting-reply, and is asked for again (at most ~3 s).
  function refreshRecent(url, tries) {
    fetch(url, { credentials: "same-origin", headers: { "HX-Request": "true" } }).then(function (response) {
      return response.ok ? response.text() : null;
    }).then(function (html) {
      var current = document.getElementById("recent-conversations");
      if (html === null || !current || document.querySelector("#chat-panel[aria-busy]")) {
        return; // gone, or a new reply is coming: its done event brings the list
      }
      var holder = document.createElement("template");
      holder.innerHTML = html.trim();
      var fresh = holder.content.querySelector("#recent-conversations");
      if (fresh && fresh.hasAttribute("data-awaiting-reply") && tries > 1) {
        setTimeout(function () { refreshRecent(url, tries - 1); }, 150);
      } else if (fresh) {
        current.replaceWith(fresh);
      }
    }).catch(function () {});
  }

  function stream(form) {
    var panel = form.closest("#chat-panel");
    var log = panel.querySelector(".chat");
    var box = form.querySelector("textarea[name=message]");
    var send = form.querySelector("button[type=submit]:not([name])");
    var stop = form.querySelector("[data-stop]");
    var data = new FormData(form);
    var controller = new AbortController();
    var reply = null;
    var finished = false;

    var empty = log.querySelector(":scope > p.muted");
    if (empty) {
      empty.remove();
    }
    var mine = bubble("user", form.dataset.you);
    mine.appendChild(document.createTextNode(box.value));
    log.appendChild(mine);
    box.value = "";
    send.hidden = true;
    stop.hidden = false;
    form.classList.add("htmx-request"); // shows the form's "thinking…" indicator, as an HTMX post does
    panel.setAttribute("aria-busy", "true");

    function say(text) {
      if (!reply || reply !== log.lastElementChild) {
        reply = bubble("assistant streaming", form.dataset.agent);
        log.appendChild(reply);
      }
      reply.appendChild(document.createTextNode(text));
      log.scrollTop = log.scrollHeight;
    }

    function note(className, text) {
      var line = document.createElement("div");
      line.className = "msg tool " + className;
      line.textContent = text;
      log.appendChild(line);
      log.scrollTop = log.scrollHeight;
    }

    function settle() {
      finished = true;
      send.hidden = false;
      stop.hidden = true;
      form.classList.remove("htmx-request");
      panel.removeAttribute("aria-busy");
      box.focus();
    }

    function handle(name, detail) {
      if (name === "began") {
        var field = form.querySelector("input[name=conversation_id]");
        if (field && !field.value && form.dataset.conversationUrl) {
          field.value = detail.conversation_id;
          history.pushState({ htmx: true }, "", form.dataset.conversationUrl + detail.conversation_id);
        } else if (field) {
          field.value = detail.conversation_id;
        }
      } else if (name === "text") {
        say(detail.text);
      } else if (name === "tool") {
        note("tool-result", "▸ " + detail.name + " " + detail.line);
      } else if (name === "failed") {
        note("error", detail.message);
        settle();
      } else if (name === "done") {
        finished = true;
        if (detail.push_url && detail.push_url !== location.pathname + location.search) {
          history.pushState({ htmx: true }, "", detail.push_url);
        }
        swapPanel(panel, detail.html);
        Object.keys(detail.trigger || {}).forEach(function (key) {
          document.body.dispatchEvent(new CustomEvent(key, { bubbles: true, detail: detail.trigger[key] }));
        });
      }
    }

    stop.onclick = function () {
      if (finished) {
        return;
      }
      controller.abort();
      if (!reply) {
        say("");
      }
      reply.classList.remove("streaming");
      reply.classList.add("stopped");
      var badge = document.createElement("span");
      badge.className = "badge";
      badge.textContent = form.dataset.stopped;
      reply.appendChild(document.createTextNode(" "));
      reply.appendChild(badge);
      settle();
      var field = form.querySelector("input[name=conversation_id]");
      if (form.dataset.recentUrl && field && field.value) {
        refreshRecent(form.dataset.recentUrl + field.value, 20);
      }
    };

    fetch(form.getAttribute("action"), { // not form.action: a button named "action" shadows it
      method: "POST",
      body: data,
      credentials: "same-origin",
      headers: { Accept: "text/event-stream", "HX-Request": "true" },
      signal: controller.signal,
    }).then(function (response) {
      if ((response.headers.get("Content-Type") || "").indexOf("text/event-stream") !== 0) {
        return response.text().then(function (html) {
          if (response.ok) {
            swapPanel(panel, html);
          } else {
            note("error", form.dataset.failed + " (HTTP " + response.status + ")");
            settle();
          }
        });
      }
      var reader = response.body.getReader();
      var decoder = new TextDecoder();
      var buffer = "";
      function read() {
        return reader.read().then(function (chunk) {
          if (chunk.done) {
            if (!finished) {
              note("error", form.dataset.failed);
              settle();
            }
            return;
          }
          buffer = parseEvents(buffer + decoder.decode(chunk.value, { stream: true }), handle);
          return read();
        });
      }
      return read();
    }).catch(function (error) {
      if (error.name !== "AbortError" && !finished) {
        note("error", form.dataset.failed);
        settle();
      }
    });
  }

  // Capture: runs before HTMX's own submit listener on the form, which then never sees it.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("form[data-stream]") || (event.submitter && event.submitter.name)) {
      return;
    }
    event.preventDefault();
    event.stopPropagation();
    if (!form.querySelector("[data-stop]").hidden) {
      return; // a reply is still coming
    }
    stream(form);
  }, true);
})();
