// The web app's own script: the live stream of the tab, keyboard shortcuts, the composer's
// modes and the alert area. Everything else is htmx attributes in the server's pages.
(function () {
  "use strict";

  var body = document.body;
  var csrf = body.getAttribute("data-csrf") || "";
  var source = null;      // the tab's one EventSource
  var streamChat = null;  // the chat it carries the deltas of
  var listTimer = null;
  var lastWaiting = -1;
  var live = {};          // message id -> text streamed so far (code points)
  var deltas = 0;         // deltas painted, on body[data-deltas] (tests read it)

  function $(sel, root) { return (root || document).querySelector(sel); }
  function chatID() { var c = $("#chat"); return c ? c.getAttribute("data-chat-id") : ""; }

  // ---- alert area: what failed and what to do ----
  function flash(text) {
    var f = $("#flash");
    if (!f) { return; }
    f.textContent = text;
    f.hidden = false;
    clearTimeout(flash.t);
    flash.t = setTimeout(function () { f.hidden = true; }, 10000);
  }
  document.addEventListener("htmx:responseError", function (e) {
    var x = e.detail.xhr;
    flash(x && x.responseText ? x.responseText : "The action failed. Check your connection and try again.");
  });
  document.addEventListener("htmx:sendError", function () {
    flash("The server could not be reached. Check your connection; the action was not done.");
  });

  // ---- the live connection ----
  function setLive(state, text) {
    var el = $("#live");
    if (!el) { return; }
    el.setAttribute("data-state", state);
    el.textContent = text;
  }

  function connect() {
    if (!$("#list-pane") && !$("#chat")) { return; } // the inbox, or the playground's chat
    var chat = chatID();
    if (source && streamChat === chat) { return; }
    if (source) { source.close(); }
    streamChat = chat;
    source = new EventSource("/app/events" + (chat ? "?chat=" + encodeURIComponent(chat) : ""));
    var wasDown = false;
    source.addEventListener("hello", function () {
      setLive("up", "Live");
      $("#live").setAttribute("data-chat", chat);
      if (wasDown) { refreshList(); refreshChat(); }
      wasDown = false;
    });
    source.onerror = function () {
      wasDown = true;
      setLive("down", "Reconnecting… changes will show when the connection returns");
    };
    source.addEventListener("signedout", function () {
      source.close();
      setLive("down", "Signed out");
      window.location.href = "/app/signin";
    });
    source.addEventListener("change", function (e) { onChange(JSON.parse(e.data)); });
    source.addEventListener("delta", function (e) { onDelta(JSON.parse(e.data)); });
    source.addEventListener("live", function (e) {
      var d = JSON.parse(e.data);
      live[d.message] = Array.from(d.text);
      paint(d.message);
    });
  }

  function onChange(d) {
    scheduleList();
    if (!d.chat || d.chat !== chatID()) { return; }
    if (d.type === "chat.updated") { refreshHeader(); }
    if (d.type === "chat.deleted") { flash("This conversation was deleted. Pick another from the list."); }
    if (d.message) { upsertMessage(d.message); }
  }

  // The list redraws itself at most every 150 ms, however many changes arrive.
  function scheduleList() {
    if (listTimer) { return; }
    listTimer = setTimeout(function () { listTimer = null; refreshList(); }, 150);
  }

  // refreshList redraws the list's views and rows; a redraw asked for while one is under way
  // runs once it is done (htmx would drop a second request of the same element).
  var listBusy = false, listAgain = false;
  function refreshList() {
    if (!$("#list-body") || !window.htmx) { return; }
    if (listBusy) { listAgain = true; return; }
    listBusy = true;
    var pane = $("#list-pane");
    var top = pane.scrollTop;
    var done = function () {
      pane.scrollTop = top;
      listBusy = false;
      if (listAgain) { listAgain = false; refreshList(); }
    };
    htmx.ajax("GET", window.location.pathname + window.location.search, { target: "#list-body", swap: "innerHTML" }).then(done, done);
  }

  // refreshHeader redraws the open chat's header after a change. Each redraw and each action
  // of the header takes a number; an answer older than the latest is dropped, so a redraw
  // that started before an action never undoes what the action shows.
  var headerSeq = 0;
  function refreshHeader() {
    var id = chatID();
    if (!id) { return; }
    var mine = ++headerSeq;
    fetch("/app/chats/" + id + "/header", { headers: { "HX-Request": "true" }, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        var old = $("#chat-header");
        if (html === null || mine !== headerSeq || id !== chatID() || !old) { return; }
        var t = document.createElement("template");
        t.innerHTML = html.trim();
        var el = t.content.firstElementChild;
        if (!el) { return; }
        old.replaceWith(el);
        htmx.process(el);
      });
  }
  document.addEventListener("htmx:beforeRequest", function (e) {
    var t = e.detail.target;
    if (t && t.id === "chat-header") { headerSeq++; }
  });

  function refreshChat() {
    var id = chatID();
    if (id) { htmx.ajax("GET", "/app/chats/" + id, { target: "#chat-pane", swap: "innerHTML" }); }
  }

  // upsertMessage fetches one message as the server renders it and puts it in place.
  function upsertMessage(id) {
    var chat = chatID();
    fetch("/app/chats/" + chat + "/messages/" + id, { headers: { "HX-Request": "true" }, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (html === null || chat !== chatID()) { return; }
        var box = $("#messages");
        var t = document.createElement("template");
        t.innerHTML = html.trim();
        var el = t.content.firstElementChild;
        if (!box || !el) { return; }
        var stick = atBottom(box);
        var old = document.getElementById("msg-" + id);
        if (old) { old.replaceWith(el); } else { box.appendChild(el); }
        if (el.getAttribute("data-live") !== "true") { delete live[id]; } else { paint(id); }
        htmx.process(el);
        if (stick) { box.scrollTop = box.scrollHeight; }
      });
  }

  // A delta is the text of a run from a code-point offset on; pieces may repeat.
  function onDelta(d) {
    if (d.chat !== chatID()) { return; }
    var cur = live[d.message];
    if (!cur) {
      var el = document.getElementById("msg-" + d.message);
      cur = el ? Array.from($(".text", el).textContent) : [];
    }
    var add = Array.from(d.text);
    if (d.offset > cur.length) { return; } // a gap: the message's own update will redraw it
    live[d.message] = cur.slice(0, d.offset).concat(add);
    body.setAttribute("data-deltas", String(++deltas));
    paint(d.message);
  }

  // paint shows a message's streamed text; it never replaces a longer text with a shorter.
  function paint(id) {
    var el = document.getElementById("msg-" + id);
    if (!el || !live[id]) { return; }
    var t = $(".text", el);
    if (Array.from(t.textContent).length > live[id].length) {
      live[id] = Array.from(t.textContent);
      return;
    }
    var text = live[id].join("");
    if (t.textContent === text) { return; }
    var box = $("#messages");
    var stick = atBottom(box);
    t.textContent = text;
    if (stick) { box.scrollTop = box.scrollHeight; }
  }

  function atBottom(box) { return box && box.scrollHeight - box.scrollTop - box.clientHeight < 40; }

  // ---- after htmx puts new content in ----
  document.addEventListener("htmx:afterSettle", function (e) {
    var box = $("#messages");
    if (box) {
      // Drop a message shown twice (a reply answered both by its POST and by the stream).
      var seen = {};
      box.querySelectorAll("article.msg").forEach(function (m) {
        if (seen[m.id]) { m.remove(); } else { seen[m.id] = true; }
      });
    }
    if (e.detail.target && e.detail.target.id === "chat-pane") {
      if (box) { box.scrollTop = box.scrollHeight; }
      document.body.classList.add("has-chat");
    }
    markSelected();
    if (e.detail.target && e.detail.target.id === "messages") {
      box.scrollTop = box.scrollHeight;
    }
    updateTitle();
    connect();
  });

  // Loading older messages keeps the reader's place: the page grows above them.
  document.addEventListener("htmx:beforeSwap", function (e) {
    var t = e.detail.target;
    if (t && t.classList && t.classList.contains("older")) {
      var box = $("#messages");
      var before = box.scrollHeight - box.scrollTop;
      e.detail.shouldSwap = true;
      setTimeout(function () { box.scrollTop = box.scrollHeight - before; }, 0);
    }
  });

  document.addEventListener("htmx:afterRequest", function (e) {
    var f = e.detail.elt;
    if (f && f.id === "composer" && e.detail.successful) {
      f.reset();
      setMode("reply");
    }
  });

  function markSelected() {
    var id = chatID();
    document.querySelectorAll(".row").forEach(function (r) {
      r.classList.toggle("selected", r.getAttribute("data-chat") === id);
    });
  }

  // The tab's title counts the chats waiting for a human; a new one notifies when allowed.
  function updateTitle() {
    var l = $("#list");
    if (!l) { return; }
    var n = parseInt(l.getAttribute("data-waiting") || "0", 10);
    document.title = (n > 0 ? "(" + n + ") " : "") + "Inbox";
    if (lastWaiting >= 0 && n > lastWaiting && window.Notification && Notification.permission === "granted" && document.hidden) {
      new Notification("A conversation is waiting for a human", { body: n + " waiting" });
    }
    lastWaiting = n;
  }

  // ---- the composer: reply to the contact, or a private note ----
  function setMode(mode) {
    var f = $("#composer");
    if (!f) { return; }
    var url = f.getAttribute(mode === "note" ? "data-note" : "data-reply");
    f.setAttribute("hx-post", url);
    f.classList.toggle("note-mode", mode === "note");
    var r = f.querySelector("input[value=" + mode + "]");
    if (r) { r.checked = true; }
    var ta = $("#reply-text");
    if (ta) { ta.placeholder = mode === "note" ? "Write a private note (members only)…" : "Write a reply… (Ctrl+Enter sends)"; }
    htmx.process(f);
  }
  document.addEventListener("change", function (e) {
    if (e.target.name === "mode") { setMode(e.target.value); }
  });

  // ---- keyboard shortcuts ----
  function click(sel) { var b = $(sel); if (b) { b.click(); return true; } return false; }
  function move(step) {
    var rows = Array.from(document.querySelectorAll(".row"));
    if (!rows.length) { return; }
    var i = rows.findIndex(function (r) { return r.classList.contains("selected"); });
    var next = rows[Math.max(0, Math.min(rows.length - 1, i + step))];
    var a = next.querySelector("a");
    a.focus();
    a.click();
  }
  document.addEventListener("keydown", function (e) {
    var t = e.target;
    var typing = t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT");
    if (typing) {
      if (e.key === "Escape") { t.blur(); }
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && t.id === "reply-text") {
        e.preventDefault();
        htmx.trigger("#composer", "submit");
      }
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) { return; }
    var handled = true;
    switch (e.key) {
      case "j": move(1); break;
      case "k": move(-1); break;
      case "/": var s = $("#search"); if (s) { s.focus(); } break;
      case "r": setMode("reply"); var r = $("#reply-text"); if (r) { r.focus(); } break;
      case "n": if ($("#composer input[value=note]")) { setMode("note"); $("#reply-text").focus(); } break;
      case "t": click("#takeover"); break;
      case "h": click("#handback"); break;
      case "e": click("#resolve"); break;
      case "w": click(".view.waiting"); break;
      case "?": var d = $("#help"); if (d && d.showModal) { d.showModal(); } break;
      default: handled = false;
    }
    if (handled) { e.preventDefault(); }
  });

  window.addEventListener("popstate", function () { setTimeout(connect, 0); });

  if (csrf && window.Notification && Notification.permission === "default") {
    var top = $(".topbar");
    if (top) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "link hide-small";
      b.textContent = "Notify me";
      b.addEventListener("click", function () { Notification.requestPermission(); b.remove(); });
      top.appendChild(b);
    }
  }

  updateTitle();
  connect();
  var box = $("#messages");
  if (box) { box.scrollTop = box.scrollHeight; }
})();
