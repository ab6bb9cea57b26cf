/* Inspector keyboard (issue 11). No framework, no network of its own.
 *
 * Queue: j / k move between items, Enter opens the focused one.
 * Inspection page: j / k move between fields; 1-9 take that rater's label (column order) as the
 * final label of the focused field, or of every field when none is focused; e goes to the reason,
 * where Enter sets the final labels (Shift+Enter: a new line); a accepts; r goes to the return
 * form; q goes back to the queue. Keys are ignored while typing in a field, and with modifiers.
 */
(function () {
  "use strict";

  function typing(el) {
    return el && (el.tagName === "TEXTAREA" || el.tagName === "SELECT" ||
      (el.tagName === "INPUT" && !/^(radio|checkbox|submit|button)$/.test(el.type)));
  }

  function mover(items, focusClass) {
    var at = -1;
    return function (step) {
      if (!items.length) return;
      at = Math.max(0, Math.min(items.length - 1, at + step));
      items.forEach(function (el) { el.classList.remove(focusClass); });
      items[at].classList.add(focusClass);
      items[at].focus();
      return items[at];
    };
  }

  function queuePage() {
    var links = Array.prototype.slice.call(document.querySelectorAll("[data-triage-list] .triage-link"));
    if (!links.length) return;
    var move = mover(links, "focused");
    document.addEventListener("keydown", function (event) {
      if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
      if (event.key === "j") { move(1); event.preventDefault(); }
      if (event.key === "k") { move(-1); event.preventDefault(); }
    });
  }

  function inspectPage() {
    var form = document.getElementById("adjudicate-form");
    if (!form) return;
    var rows = Array.prototype.slice.call(form.querySelectorAll("tr[data-field-id]"));
    var move = mover(rows, "focused");
    var reason = document.getElementById("id_reason");

    function takeRater(row, n) {
      var cells = row.querySelectorAll("td[data-label]");
      var select = row.querySelector("select");
      if (!select || n >= cells.length) return;
      var label = cells[n].getAttribute("data-label");
      if (label) select.value = label;
    }

    if (reason) {
      reason.addEventListener("keydown", function (event) {
        if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
          event.preventDefault();
          if (form.requestSubmit) form.requestSubmit(); else form.submit();
        }
      });
    }

    document.addEventListener("keydown", function (event) {
      if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
      var key = event.key;
      var focused = form.querySelector("tr.focused");
      if (key === "j" || key === "k") { move(key === "j" ? 1 : -1); event.preventDefault(); return; }
      if (/^[1-9]$/.test(key)) {
        (focused ? [focused] : rows).forEach(function (row) { takeRater(row, Number(key) - 1); });
        if (focused && rows.indexOf(focused) < rows.length - 1) move(1);
        event.preventDefault();
        return;
      }
      if (key === "e" && reason) { reason.focus(); event.preventDefault(); return; }
      if (key === "a") {
        var accept = document.getElementById("accept-button");
        if (accept && !accept.disabled) { accept.click(); event.preventDefault(); }
        return;
      }
      if (key === "r") {
        var first = document.querySelector("#return-form input[name=assignment]");
        if (first) { first.focus(); event.preventDefault(); }
        return;
      }
      if (key === "q") {
        var back = document.getElementById("back-to-queue");
        if (back) { window.location.href = back.href; event.preventDefault(); }
      }
    });
  }

  queuePage();
  inspectPage();
})();
