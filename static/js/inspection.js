/* Inspector keyboard (issues 11 and 20). No framework, no network of its own.
 *
 * Queue: j / k move between items, Enter opens the focused one.
 *
 * Inspection page: the page opens with the first field that differs focused (outlined). j / k move
 * to the next / previous field as the rows are shown; n to the next field that differs; 1-9 take
 * that rater's label (column order) as the final label of the focused field only; e goes to the
 * reason, where Enter asks for the summary of the final labels (Shift+Enter: a new line; nothing
 * while an input method is composing); a asks for the summary of an accept; r goes to the return
 * form; q goes back to the queue; Esc leaves a text box for the focused field. No key stores
 * anything: every decision is shown as a summary first.
 *
 * Summary page: Enter confirms (the one key that stores; a repeat or a press in the first 300 ms
 * after the page appears is ignored, so a key held or pressed twice cannot confirm what was never
 * seen); Esc goes back to change it. Keys are ignored while typing in a field, and with modifiers.
 */
(function () {
  "use strict";

  function typing(el) {
    return el && (el.tagName === "TEXTAREA" || el.tagName === "SELECT" ||
      (el.tagName === "INPUT" && !/^(radio|checkbox|submit|button|hidden)$/.test(el.type)));
  }

  function modified(event) {
    return event.ctrlKey || event.metaKey || event.altKey;
  }

  function submitWith(button) {
    if (!button || button.disabled) return;
    var form = button.form;
    if (form.requestSubmit) form.requestSubmit(button); else button.click();
  }

  function queuePage() {
    var links = Array.prototype.slice.call(document.querySelectorAll("[data-triage-list] .triage-link"));
    if (!links.length) return;
    var at = -1;
    document.addEventListener("keydown", function (event) {
      if (modified(event) || typing(event.target)) return;
      if (event.key !== "j" && event.key !== "k") return;
      at = Math.max(0, Math.min(links.length - 1, at + (event.key === "j" ? 1 : -1)));
      links.forEach(function (el) { el.classList.remove("focused"); });
      links[at].classList.add("focused");
      links[at].focus();
      event.preventDefault();
    });
  }

  function inspectPage() {
    var page = document.getElementById("inspect-page");
    var form = document.getElementById("adjudicate-form");
    if (!page || !form) return;
    // The rows in the order they are shown; a phase heading row has no field id and is skipped.
    var rows = Array.prototype.slice.call(form.querySelectorAll("tr[data-field-id]"));
    if (!rows.length) return;
    var reason = document.getElementById("id_reason");
    var setReason = document.getElementById("id_set_reason");
    var current = -1;

    function focusRow(index, scroll) {
      if (index < 0 || index >= rows.length) return;
      if (current >= 0) rows[current].classList.remove("focused");
      current = index;
      rows[current].classList.add("focused");
      rows[current].focus({ preventScroll: !scroll });
      if (scroll) rows[current].scrollIntoView({ block: "nearest" });
    }

    function nextDiffering() {
      for (var step = 1; step <= rows.length; step++) {
        var index = (current + step) % rows.length;
        if (rows[index].hasAttribute("data-differs")) return index;
      }
      return current;
    }

    function takeRater(row, n) {
      var cells = row.querySelectorAll("td[data-label]");
      var select = row.querySelector("select");
      if (!select || n >= cells.length) return;
      var label = cells[n].getAttribute("data-label");
      if (!label) return;
      select.value = label;
      select.dispatchEvent(new Event("change", { bubbles: true }));
      row.classList.remove("taken");
      void row.offsetWidth; // restart the highlight
      row.classList.add("taken");
    }

    rows.forEach(function (row, index) {
      // A click or tap in a row (its select too) makes it the row the keys act on.
      row.addEventListener("focusin", function () { if (current !== index) focusRow(index, false); });
      row.addEventListener("click", function () { if (current !== index) focusRow(index, false); });
    });

    [[reason, "adjudicate-button"], [setReason, "reject-set-button"]].forEach(function (pair) {
      if (!pair[0]) return;
      pair[0].addEventListener("keydown", function (event) {
        if (event.key === "Enter" && !event.shiftKey && !event.isComposing && !modified(event)) {
          event.preventDefault();
          submitWith(document.getElementById(pair[1]));
        }
        if (event.key === "Escape") { event.preventDefault(); focusRow(current, true); }
      });
    });

    var first = rows.findIndex(function (row) { return row.getAttribute("data-field-id") === page.dataset.firstDiffering; });
    focusRow(first >= 0 ? first : 0, false);

    document.addEventListener("keydown", function (event) {
      if (modified(event) || typing(event.target) || event.repeat) {
        if (event.key === "Escape" && typing(event.target)) { event.target.blur(); focusRow(current, true); }
        return;
      }
      var key = event.key;
      if (key === "j" || key === "k") { focusRow(current + (key === "j" ? 1 : -1), true); event.preventDefault(); return; }
      if (key === "n") { focusRow(nextDiffering(), true); event.preventDefault(); return; }
      if (/^[1-9]$/.test(key)) {
        if (current >= 0) takeRater(rows[current], Number(key) - 1);
        event.preventDefault();
        return;
      }
      if (key === "e" && reason) { reason.focus(); event.preventDefault(); return; }
      if (key === "a") {
        // Asks for the accept's summary; nothing is stored before it is confirmed.
        submitWith(document.getElementById("accept-button"));
        event.preventDefault();
        return;
      }
      if (key === "r") {
        var radio = document.querySelector("#return-form input[name=assignment]");
        if (radio) { radio.focus(); event.preventDefault(); }
        return;
      }
      if (key === "q") {
        var back = document.getElementById("back-to-queue");
        if (back) { window.location.href = back.href; event.preventDefault(); }
      }
    });
  }

  function confirmPage() {
    var page = document.getElementById("confirm-page");
    if (!page) return;
    var confirmButton = document.getElementById("confirm-button");
    var backButton = document.getElementById("back-button");
    var shownAt = Date.now();
    var sent = false;
    if (confirmButton) confirmButton.focus({ preventScroll: true });
    document.addEventListener("keydown", function (event) {
      if (modified(event)) return;
      if (event.key === "Enter") {
        // Enter is handled here, not by the focused button, so the guard below holds for it too.
        event.preventDefault();
        if (event.repeat || event.isComposing || Date.now() - shownAt < 300 || sent) return;
        var active = document.activeElement;
        var target = active && active.tagName === "BUTTON" && active.form ? active : confirmButton;
        sent = true;
        submitWith(target);
      }
      if (event.key === "Escape" && !sent) {
        event.preventDefault();
        sent = true;
        submitWith(backButton);
      }
    });
    // A confirmation goes out once, even when clicked twice.
    document.querySelectorAll("#confirm-form, #back-form").forEach(function (f) {
      f.addEventListener("submit", function (event) {
        if (f.dataset.sent === "1") { event.preventDefault(); return; }
        f.dataset.sent = "1";
        sent = true;
      });
    });
  }

  queuePage();
  inspectPage();
  confirmPage();
})();
