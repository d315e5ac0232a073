/* The chat inside the widget's iframe: a session (its token kept in this frame's storage, so
   a reload or a second tab shows the same conversation), the messages, and one Server-Sent
   Events stream that brings replies, the assistant's text token by token and chat changes. */
(function () {
  "use strict";
  var asi = document.body.getAttribute("data-integration");
  var api = "/widget/" + encodeURIComponent(asi) + "/api";
  var key = "appwidget:" + asi;
  var token = null, chatID = null, es = null, started = false, who = null, msgs = {}, count = 0, rates = false;
  var sounds = {}, spoke = false; // audio elements by file id; whether the visitor recorded here

  function $(id) { return document.getElementById(id); }
  function stored() { try { return JSON.parse(localStorage.getItem(key)); } catch (e) { return null; } }
  function store(v) { try { localStorage.setItem(key, JSON.stringify(v)); } catch (e) { /* private mode */ } }
  function showError(text) { $("error").textContent = text || ""; $("error").hidden = !text; }

  function call(method, path, body) {
    var h = {};
    if (token) h["X-Session-Token"] = token;
    if (body !== undefined) h["Content-Type"] = "application/json";
    return fetch(api + path, { method: method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) })
      .then(function (r) {
        return r.json().catch(function () { return {}; }).then(function (j) {
          if (r.ok) return j;
          var e = new Error((j.error && j.error.message) || "HTTP " + r.status);
          e.status = r.status;
          throw e;
        });
      });
  }

  function start(identity) {
    started = true;
    who = identity;
    var uid = identity ? identity.user_id : "";
    var s = stored();
    var p;
    if (s && s.token && s.user_id === uid) {
      token = s.token;
      p = call("GET", "/session").catch(function (e) {
        if (e.status === 401) return create(identity);
        throw e;
      });
    } else {
      p = create(identity);
    }
    p.then(begin).catch(function (e) {
      showError(e.status === 403 ? e.message : "The chat is not available right now (" + e.message + ").");
      $("send").hidden = true;
    });
  }
  function create(identity) {
    token = null;
    return call("POST", "/session", identity || {}).then(function (r) {
      token = r.token;
      store({ token: r.token, user_id: identity ? identity.user_id : "" });
      return r;
    });
  }
  function begin(r) {
    showError("");
    $("send").hidden = false;
    var w = r.widget;
    rates = w.asks_rating;
    $("title").textContent = w.name;
    if (w.welcome_banner) { $("banner").textContent = w.welcome_banner; $("banner").hidden = false; }
    suggest(w.suggested_messages || []);
    if (r.chat) { chatID = r.chat.id; setChat(r.chat); listen(); }
  }

  function listen() {
    if (es) es.close();
    es = new EventSource(api + "/stream?token=" + encodeURIComponent(token) + "&chat_id=" + encodeURIComponent(chatID));
    // Every open, a reconnect too, reads the messages again: a stream dropped for falling
    // behind resumes with Last-Event-ID, but the text streamed meanwhile is not replayed.
    es.onopen = refresh;
    ["message.created", "message.updated", "sync"].forEach(function (t) {
      es.addEventListener(t, function (e) { var m = JSON.parse(e.data); if (m) upsert(m); });
    });
    es.addEventListener("message.delta", function (e) {
      var d = JSON.parse(e.data), m = msgs[d.message_id];
      if (!m) return;
      m.text = Array.from(m.text).slice(0, d.offset).join("") + d.text;
      render(m);
    });
    es.addEventListener("chat.updated", function (e) { setChat(JSON.parse(e.data)); });
  }

  function refresh() {
    if (!chatID) return;
    call("GET", "/messages?chat_id=" + encodeURIComponent(chatID)).then(function (list) { list.forEach(upsert); })
      .catch(function () { /* the next open or tick tries again */ });
  }
  // While an answer is under way, read the messages every few seconds as well: a stream
  // that cannot reconnect (the network, a proxy) must not leave the visitor looking at
  // "typing" for good.
  setInterval(function () {
    for (var id in msgs) if (msgs[id].status === "RUNNING") { refresh(); return; }
  }, 5000);

  function upsert(m) {
    var had = msgs[m.id];
    if (had && had.status === "RUNNING" && m.status === "RUNNING" && Array.from(had.text).length > Array.from(m.text).length) {
      m.text = had.text; // the stream is ahead of a stored snapshot
    }
    msgs[m.id] = m;
    if (!had) {
      m.el = document.createElement("div");
      m.el.setAttribute("data-id", m.id);
      $("log").appendChild(m.el);
      count++;
      suggest([]);
    } else {
      m.el = had.el;
    }
    render(m);
  }
  function render(m) {
    m.el.className = "msg " + m.role + (m.status === "RUNNING" && !m.text ? " typing" : "");
    m.el.setAttribute("data-status", m.status);
    m.el.textContent = "";
    if (m.author) {
      var who = document.createElement("span");
      who.className = "who";
      who.textContent = m.author;
      m.el.appendChild(who);
    }
    m.el.appendChild(document.createTextNode(m.text));
    (m.audio || []).forEach(function (a) { m.el.appendChild(sound(a, m)); });
    $("log").scrollTop = $("log").scrollHeight;
  }
  // sound is the player of a message's audio, fetched once with the session's token (a
  // media element cannot send it) and played from a blob: URL; a spoken answer to a visitor
  // who recorded plays at once.
  function sound(a, m) {
    if (sounds[a.id]) return sounds[a.id];
    var el = document.createElement("audio");
    el.controls = true;
    el.preload = "none";
    sounds[a.id] = el;
    fetch(api + "/files/" + encodeURIComponent(a.id) + "?chat_id=" + encodeURIComponent(chatID), { headers: { "X-Session-Token": token } })
      .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.blob(); })
      .then(function (b) {
        el.src = URL.createObjectURL(b);
        if (spoke && m.role === "assistant") el.play().catch(function () { /* the browser refused autoplay */ });
      }).catch(function () { el.remove(); });
    return el;
  }
  function setChat(c) {
    var note = $("note");
    if (c.state === "CLOSED") {
      note.hidden = true;
    } else if (c.handed_off) {
      note.textContent = "You are now talking with our team: a member will reply here.";
      note.hidden = false;
    } else {
      note.hidden = true;
    }
    $("csat").hidden = !(rates && c.state === "CLOSED" && c.csat_score == null);
  }
  function suggest(list) {
    var box = $("suggested");
    box.textContent = "";
    if (count > 0) return;
    list.forEach(function (text) {
      var b = document.createElement("button");
      b.type = "button";
      b.textContent = text;
      b.onclick = function () { send(text); };
      box.appendChild(b);
    });
  }
  function send(text) {
    if (!token) { showError("The chat is still starting, please try again in a moment."); return; }
    return call("POST", "/messages", { text: text }).then(function (r) {
      showError("");
      if (chatID !== r.chat.id) { chatID = r.chat.id; listen(); }
      setChat(r.chat);
      upsert(r.message);
    }).catch(function (e) { showError("Your message was not sent: " + e.message); });
  }

  for (var i = 1; i <= 5; i++) {
    (function (n) {
      var b = document.createElement("button");
      b.type = "button";
      b.textContent = String(n);
      b.setAttribute("aria-label", "Rate " + n + " of 5");
      b.onclick = function () { send(String(n)); $("csat").hidden = true; };
      $("stars").appendChild(b);
    })(i);
  }
  $("send").addEventListener("submit", function (e) {
    e.preventDefault();
    var text = $("text").value.trim();
    if (!text) return;
    $("text").value = "";
    send(text);
  });
  $("file").addEventListener("change", function () {
    var f = $("file").files[0];
    $("file").value = "";
    upload(f, f && f.name);
  });
  function upload(f, name) {
    if (!f || !token) return;
    if (f.size > 10 * 1024 * 1024) { showError("Files can be at most 10 MB."); return; }
    var body = new FormData();
    body.append("file", f, name);
    fetch(api + "/files", { method: "POST", headers: { "X-Session-Token": token }, body: body })
      .then(function (r) { return r.json().then(function (j) { if (!r.ok) throw new Error((j.error && j.error.message) || "HTTP " + r.status); return j; }); })
      .then(function (r) {
        showError("");
        if (chatID !== r.chat.id) { chatID = r.chat.id; listen(); }
        upsert(r.message);
      }).catch(function (e) { showError("Your file was not sent: " + e.message); });
  }

  // The microphone: hold the button to talk and release to send, or tap it to start and tap
  // again to send (Space and Enter do the same on the focused button).
  var rec = null, pressedAt = 0;
  function record() {
    rec = { chunks: [], stop: false };
    var r = rec;
    navigator.mediaDevices.getUserMedia({ audio: true }).then(function (stream) {
      r.media = new MediaRecorder(stream);
      r.media.ondataavailable = function (e) { if (e.data.size) r.chunks.push(e.data); };
      r.media.onstop = function () {
        stream.getTracks().forEach(function (t) { t.stop(); });
        var type = (r.media.mimeType || "audio/webm").split(";")[0];
        var ext = type.indexOf("ogg") >= 0 ? "ogg" : type.indexOf("mp4") >= 0 ? "m4a" : "webm";
        if (r.chunks.length) { spoke = true; upload(new Blob(r.chunks, { type: type }), "voice." + ext); }
      };
      r.media.start();
      $("mic").classList.add("rec");
      if (r.stop) stopRecording();
    }).catch(function (e) { rec = null; showError("The microphone is not available: " + e.message); });
  }
  function stopRecording() {
    if (!rec) return;
    if (!rec.media) { rec.stop = true; return; } // released before the microphone opened
    $("mic").classList.remove("rec");
    if (rec.media.state !== "inactive") rec.media.stop();
    rec = null;
  }
  function press() {
    if (!token) return;
    if (rec) { stopRecording(); return; } // the second tap
    pressedAt = Date.now();
    record();
  }
  function release() { if (rec && Date.now() - pressedAt > 400) stopRecording(); } // a hold, not a tap
  if (window.MediaRecorder && navigator.mediaDevices) {
    var mic = $("mic");
    mic.hidden = false;
    mic.addEventListener("pointerdown", function (e) { e.preventDefault(); press(); });
    ["pointerup", "pointerleave", "pointercancel"].forEach(function (t) { mic.addEventListener(t, release); });
    mic.addEventListener("keydown", function (e) { if ((e.key === " " || e.key === "Enter") && !e.repeat) { e.preventDefault(); press(); } });
    mic.addEventListener("keyup", function (e) { if (e.key === " " || e.key === "Enter") release(); });
  }
  $("text").addEventListener("keydown", function (e) {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); $("send").requestSubmit(); }
  });
  $("close").addEventListener("click", function () { window.parent.postMessage({ type: "appwidget:close" }, "*"); });

  if (window.parent === window) { start(null); return; } // opened on its own, not framed
  window.addEventListener("message", function (e) {
    if (e.source !== window.parent || !e.data) return;
    var d = e.data;
    if (d.type === "appwidget:init") {
      var uid = d.identity ? d.identity.user_id : "";
      if (d.identity && (!started || !who || who.user_id !== uid)) start(d.identity);
      else if (d.open && !started) start(null);
    } else if (d.type === "appwidget:open" && !started) {
      start(who);
    }
  });
  window.parent.postMessage({ type: "appwidget:ready" }, "*");
})();
