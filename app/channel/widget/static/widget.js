/* The widget loader: a launcher button, and the chat in an iframe loaded only when the page
   is idle or the launcher is clicked. No framework, no third-party request. */
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || window.AppWidget) return;
  var asi = script.getAttribute("data-integration");
  var base = new URL(script.src).origin;
  var identity = null, frame = null, box = null, ready = false, open = false;

  function el(tag, css) {
    var e = document.createElement(tag);
    e.style.cssText = css;
    return e;
  }
  var launcher = el("button", "position:fixed;right:20px;bottom:20px;width:56px;height:56px;border-radius:50%;" +
    "border:0;background:#2563eb;color:#fff;font:24px/56px sans-serif;cursor:pointer;z-index:2147483646;" +
    "box-shadow:0 4px 12px rgba(0,0,0,.25)");
  launcher.type = "button";
  launcher.setAttribute("aria-label", "Open chat");
  launcher.setAttribute("data-appwidget", "launcher");
  var svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", "26");
  svg.setAttribute("height", "26");
  svg.style.verticalAlign = "middle";
  var bubble = document.createElementNS("http://www.w3.org/2000/svg", "path");
  bubble.setAttribute("d", "M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4H4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z");
  bubble.setAttribute("fill", "#fff");
  svg.appendChild(bubble);
  launcher.appendChild(svg);

  function post(msg) {
    if (frame && ready) frame.contentWindow.postMessage(msg, base);
  }
  function load() {
    if (frame) return;
    box = el("div", "position:fixed;right:20px;bottom:88px;width:370px;max-width:calc(100vw - 40px);height:560px;" +
      "max-height:calc(100vh - 110px);z-index:2147483647;display:none;border-radius:12px;overflow:hidden;" +
      "box-shadow:0 8px 28px rgba(0,0,0,.28);background:#fff");
    frame = el("iframe", "border:0;width:100%;height:100%");
    frame.title = "Chat";
    frame.setAttribute("data-appwidget", "frame");
    frame.allow = "microphone; autoplay"; // the voice button records, a spoken answer plays
    frame.src = base + "/widget/" + encodeURIComponent(asi);
    box.appendChild(frame);
    document.body.appendChild(box);
  }
  window.addEventListener("message", function (e) {
    if (!frame || e.source !== frame.contentWindow || e.origin !== base || !e.data) return;
    if (e.data.type === "appwidget:ready") {
      ready = true;
      post({ type: "appwidget:init", identity: identity, open: open });
    } else if (e.data.type === "appwidget:close") {
      api.close();
    }
  });
  var api = {
    identify: function (who) {
      identity = who ? { user_id: String(who.user_id || ""), user_hash: String(who.user_hash || ""),
        name: String(who.name || ""), email: String(who.email || "") } : null;
      post({ type: "appwidget:init", identity: identity, open: open });
    },
    open: function () {
      load();
      open = true;
      box.style.display = "block";
      launcher.setAttribute("aria-label", "Close chat");
      post({ type: "appwidget:open" });
    },
    close: function () {
      open = false;
      if (box) box.style.display = "none";
      launcher.setAttribute("aria-label", "Open chat");
    }
  };
  window.AppWidget = api;
  launcher.addEventListener("click", function () { open ? api.close() : api.open(); });
  function start() {
    document.body.appendChild(launcher);
    (window.requestIdleCallback || function (f) { setTimeout(f, 1500); })(load);
  }
  if (document.body) start(); else document.addEventListener("DOMContentLoaded", start);
})();
