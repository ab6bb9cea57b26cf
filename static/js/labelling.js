// Label tasks (liveclin/labelling): keyboard-first level pickers for a blind taxonomy assignment,
// and the C / E keys of the label audit. Without this script the forms still post; the server
// checks every answer.
(function () {
  "use strict";
  var form = document.getElementById("label-form");
  if (!form) { return; }
  var started = Date.now();
  var seconds = document.getElementById("seconds");
  form.addEventListener("submit", function () {
    if (seconds) { seconds.value = String(Math.round((Date.now() - started) / 1000)); }
  });
  function typing(target) {
    return target && (target.tagName === "INPUT" && target.type !== "radio" || target.tagName === "TEXTAREA");
  }

  // --- Pickers: level n lists the children of the entry chosen on level n - 1. ---
  var pickers = document.getElementById("pickers");
  if (pickers) {
    var url = pickers.dataset.nodesUrl;
    var depth = parseInt(pickers.dataset.levels, 10);
    var zh = (pickers.dataset.lang || "").slice(0, 2) === "zh";
    var list = function (n) { return document.getElementById("level" + n); };
    var search = function (n) { return document.getElementById("search" + n); };
    var fill = function (n, nodes) {
      var select = list(n);
      var kept = select.value;  // a choice still listed stays chosen (a search never drops it)
      select.textContent = "";
      nodes.forEach(function (node) {
        var option = document.createElement("option");
        option.value = String(node.id);
        var name = zh && node.name_zh ? node.name_zh : node.name;
        option.textContent = node.code + " · " + name;
        option.lang = zh && node.name_zh ? "zh" : "en";
        select.appendChild(option);
      });
      select.value = kept;
      if (select.value !== kept) { select.selectedIndex = -1; }
    };
    var load = function (n, query) {
      var params = new URLSearchParams();
      if (n === 1) { params.set("level", "1"); } else {
        var parent = list(n - 1).value;
        if (!parent) { fill(n, []); return Promise.resolve(); }
        params.set("parent", parent);
      }
      if (query) { params.set("q", query); }
      return fetch(url + "?" + params.toString(), {credentials: "same-origin", headers: {"Accept": "application/json"}})
        .then(function (r) { return r.ok ? r.json() : []; })
        .then(function (nodes) { fill(n, nodes); });
    };
    var clearBelow = function (n) {
      for (var k = n + 1; k <= depth; k++) { fill(k, []); search(k).value = ""; search(k).disabled = true; }
    };
    var choose = function (n) {
      clearBelow(n);
      if (n < depth && list(n).value) {
        search(n + 1).disabled = false;
        return load(n + 1, "");
      }
      return Promise.resolve();
    };
    for (var n = 1; n <= depth; n++) {
      (function (n) {
        var timer = null;
        search(n).addEventListener("input", function () {
          clearTimeout(timer);
          timer = setTimeout(function () { load(n, search(n).value.trim()); }, 150);
        });
        search(n).addEventListener("keydown", function (e) {
          if (e.key === "Enter" || e.key === "ArrowDown") {
            e.preventDefault();  // Enter in a search box never submits the form
            var select = list(n);
            if (select.options.length && select.selectedIndex < 0) { select.selectedIndex = 0; }
            select.focus();
          }
        });
        list(n).addEventListener("change", function () { choose(n); });
        list(n).addEventListener("keydown", function (e) {
          if (e.key !== "Enter" || e.ctrlKey || e.metaKey) { return; }
          e.preventDefault();
          if (!list(n).value) { return; }
          choose(n).then(function () {
            var next = n < depth ? search(n + 1) : document.getElementById("submit-label");
            if (next) { next.focus(); }
          });
        });
      })(n);
    }
    form.addEventListener("keydown", function (e) {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); form.requestSubmit(); }
    });
  }

  // --- Audit: C marks the label correct, E opens the correction. ---
  var correct = document.getElementById("verdict-correct");
  var edited = document.getElementById("verdict-edited");
  var value = document.getElementById("value");
  if (correct && edited && value) {
    document.addEventListener("keydown", function (e) {
      if (typing(e.target) || e.ctrlKey || e.metaKey || e.altKey) { return; }
      var key = e.key.toLowerCase();
      if (key === "c") { e.preventDefault(); correct.checked = true; document.getElementById("submit-label").focus(); }
      if (key === "e") { e.preventDefault(); edited.checked = true; value.focus(); }
    });
    value.addEventListener("input", function () { if (value.value) { edited.checked = true; } });
  }
})();
