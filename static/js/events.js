// Live events: one WebSocket per page to /ws/events/, re-dispatched as DOM events on <body>.
//
//   desk:<event>    every system_event, detail = its data (e.g. desk:bounty_claimed)
//   desk:event      every system_event, detail = its data
//   desk:ui_action  a UI instruction for this staff member, detail = its data
//   desk:resync     events were missed (seq gap): re-read what the page shows
//
// Events the user lacks the view permission for are not sent; an "events_hidden" frame says up to
// which seq, so the gap they leave is not taken for a missed event.
//
// The page asks for coalesced frames (?batch=1): {"type": "system_events", "data": {"after": A,
// "through": T, "events": [...]}} carries every event after seq A up to T that is for this page
// (a tick's thousand events in a few frames). A page whose <body> has data-event-topics="a,b"
// (the events it shows) asks for those only (?topics=a,b); without it, for all.
//
// Pages listen with htmx: hx-trigger="desk:bounty_claimed from:body". A live part swaps its
// own content (hx-swap="innerHTML" hx-select="#part > *" hx-disinherit="hx-select"), never
// itself: an event arriving while the part's request is in flight is queued on the element,
// and htmx drops the queue of an element its own response has replaced, which left the
// part one change behind.
// The stream resumes after the seq the page was rendered at (data-event-seq on <body>),
// and every reconnect asks for ?since=<last seq seen>, so nothing is missed or repeated.
(function () {
  "use strict";

  var FIRST_DELAY_MS = 500;
  var MAX_DELAY_MS = 15000;
  var body = document.body;
  var status = document.getElementById("live-status");
  var lastSeq = parseSeq(body.dataset.eventSeq);
  var delay = FIRST_DELAY_MS;
  var socket = null;
  var timer = null;
  var connectedBefore = false;
  var leaving = false;

  function parseSeq(value) {
    var seq = Number(value);
    return value !== undefined && value !== "" && Number.isInteger(seq) && seq >= 0 ? seq : null;
  }

  function setState(state) {
    if (status) {
      status.dataset.state = state;
      // The dot is a colour; people using a screen reader get the words.
      var label = status.getAttribute("data-label-" + state) || "";
      status.title = label;
      var text = status.querySelector(".visually-hidden");
      if (text) {
        text.textContent = label;
      }
    }
  }

  function emit(name, detail) {
    body.dispatchEvent(new CustomEvent(name, { detail: detail, bubbles: true }));
  }

  function streamUrl() {
    var scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    var query = "?batch=1";
    if (lastSeq !== null) {
      query += "&since=" + lastSeq;
    }
    var topics = (body.dataset.eventTopics || "").trim();
    if (topics) {
      query += "&topics=" + encodeURIComponent(topics);
    }
    return scheme + "//" + window.location.host + "/ws/events/" + query;
  }

  function onSystemEvent(data) {
    var seq = typeof data.seq === "number" ? data.seq : null;
    if (seq !== null && lastSeq !== null) {
      if (seq <= lastSeq) {
        return; // already seen
      }
      if (seq > lastSeq + 1) {
        emit("desk:resync", { after: lastSeq, next: seq });
      }
    }
    if (seq !== null) {
      lastSeq = seq;
    }
    emit("desk:" + data.event, data);
    emit("desk:event", data);
  }

  function onSystemEvents(data) {
    if (lastSeq !== null && data.after > lastSeq) {
      emit("desk:resync", { after: lastSeq, next: data.after + 1 });
    }
    for (var i = 0; i < data.events.length; i += 1) {
      var event = data.events[i];
      if (lastSeq !== null && event.seq <= lastSeq) {
        continue; // already seen
      }
      lastSeq = event.seq; // the seqs between are not for this page: no gap
      emit("desk:" + event.event, event);
      emit("desk:event", event);
    }
    lastSeq = Math.max(lastSeq === null ? 0 : lastSeq, data.through);
  }

  function onMessage(message) {
    var parsed;
    try {
      parsed = JSON.parse(message.data);
    } catch (error) {
      return;
    }
    if (parsed.type === "system_event" && parsed.data && parsed.data.event) {
      onSystemEvent(parsed.data);
    } else if (parsed.type === "system_events" && parsed.data && Array.isArray(parsed.data.events)) {
      onSystemEvents(parsed.data);
    } else if (parsed.type === "events_hidden" && parsed.data && typeof parsed.data.through === "number") {
      lastSeq = Math.max(lastSeq === null ? 0 : lastSeq, parsed.data.through); // not for this user: no gap
    } else if (parsed.type === "ui_action" && parsed.data) {
      emit("desk:ui_action", parsed.data);
    }
  }

  function scheduleReconnect() {
    if (timer !== null) {
      return;
    }
    var wait = delay / 2 + Math.random() * (delay / 2); // jitter: pages do not reconnect in step
    delay = Math.min(delay * 2, MAX_DELAY_MS);
    timer = window.setTimeout(connect, wait);
  }

  function connect() {
    timer = null;
    if (socket !== null) {
      return;
    }
    setState("connecting");
    var ws;
    try {
      ws = new WebSocket(streamUrl());
    } catch (error) {
      setState("closed");
      scheduleReconnect();
      return;
    }
    socket = ws;
    ws.addEventListener("open", function () {
      delay = FIRST_DELAY_MS;
      setState("open");
      if (connectedBefore && lastSeq === null) {
        emit("desk:resync", { after: null, next: null }); // nothing to resume from
      }
      connectedBefore = true;
    });
    ws.addEventListener("message", onMessage);
    ws.addEventListener("close", function () {
      if (socket === ws) {
        socket = null;
      }
      setState("closed");
      if (!leaving) {
        scheduleReconnect();
      }
    });
  }

  window.addEventListener("pagehide", function () {
    leaving = true;
    if (socket !== null) {
      socket.close();
      socket = null;
    }
  });
  window.addEventListener("pageshow", function (event) {
    leaving = false;
    if (event.persisted) {
      connect(); // back from the back-forward cache: resume after lastSeq
    }
  });

  if (body.dataset.userId) {
    connect();
  } else {
    setState("closed"); // the stream is staff only
  }
})();
