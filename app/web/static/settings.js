// The settings pages' script: a file dropped on the knowledge page is uploaded by the same
// form as the file input; an upload's refusal is shown beside the file field; the
// playground's box empties after a send; "Copy" copies a snippet; deleting asks first.
(function () {
  "use strict";

  function $(sel, root) { return (root || document).querySelector(sel); }

  var zone = $(".dropzone");
  if (zone) {
    var input = $("input[type=file]", zone);
    ["dragenter", "dragover"].forEach(function (t) {
      document.addEventListener(t, function (e) { e.preventDefault(); zone.classList.add("dragging"); });
    });
    ["dragleave", "dragend"].forEach(function (t) {
      document.addEventListener(t, function () { zone.classList.remove("dragging"); });
    });
    document.addEventListener("drop", function (e) {
      e.preventDefault();
      zone.classList.remove("dragging");
      if (!e.dataTransfer || !e.dataTransfer.files.length) { return; }
      input.files = e.dataTransfer.files;
      upload();
    });
  }

  // upload sends the file form through htmx (its CSRF header, no size limit of a plain form);
  // the server answers a redirect to the page, or the problem, shown beside the field.
  function upload() {
    var err = $("#k-file-error");
    if (err) { err.textContent = ""; }
    htmx.trigger(zone, "submit");
  }

  document.addEventListener("htmx:responseError", function (e) {
    if (e.detail.elt && e.detail.elt.id === "k-file-form") {
      var err = $("#k-file-error");
      if (err) { err.textContent = e.detail.xhr.responseText; }
    }
  });

  document.addEventListener("htmx:afterRequest", function (e) {
    var f = e.detail.elt;
    if (f && f.id === "play-form" && e.detail.successful) { f.reset(); }
  });

  document.addEventListener("keydown", function (e) {
    var t = e.target;
    if (t && t.id === "play-text" && e.key === "Enter" && (e.ctrlKey || e.metaKey || !e.shiftKey)) {
      e.preventDefault();
      htmx.trigger("#play-form", "submit");
    }
  });

  // A form that deletes asks first.
  document.addEventListener("submit", function (e) {
    var q = e.target.getAttribute && e.target.getAttribute("data-confirm");
    if (q && !window.confirm(q)) { e.preventDefault(); }
  });

  document.addEventListener("click", function (e) {
    var b = e.target.closest ? e.target.closest("button[data-copy]") : null;
    if (!b) { return; }
    var el = document.getElementById(b.getAttribute("data-copy"));
    el.select();
    if (navigator.clipboard) { navigator.clipboard.writeText(el.value); }
    b.textContent = "Copied";
  });
})();
