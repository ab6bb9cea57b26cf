/* medreview rating screen: keyboard-first labelling, autosaved drafts, visible-time measurement.
 * Plain ES, no build step. The page (templates/annotation/rate.html) carries its settings as data-*
 * attributes on #rate-page; the server draft is already rendered into the form.
 */
(function () {
  "use strict";

  var page = document.getElementById("rate-page");
  var form = document.getElementById("rating-form");
  if (!page || !form) return;

  var editable = page.dataset.editable === "1";
  var assignmentId = page.dataset.assignment;
  var draftUrl = page.dataset.draftUrl;
  var storageKey = "medreview:draft:" + assignmentId;
  var serverSavedMs = parseInt(page.dataset.serverSaved || "0", 10) * 1000;
  var statusEl = document.getElementById("save-status");
  var secondsInput = document.getElementById("seconds-spent");
  var timeEl = document.getElementById("time-spent");
  var help = document.getElementById("shortcut-help");
  var fields = Array.prototype.slice.call(form.querySelectorAll("fieldset.field"));
  var current = -1;

  /* ---------- time spent: only while the page is visible ---------- */
  var baseSeconds = parseInt(page.dataset.seconds || "0", 10) || 0;
  var visibleMs = 0;
  var visibleSince = document.visibilityState === "visible" ? Date.now() : null;
  function elapsedSeconds() {
    var ms = visibleMs + (visibleSince !== null ? Date.now() - visibleSince : 0);
    return baseSeconds + Math.round(ms / 1000);
  }
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      if (visibleSince === null) visibleSince = Date.now();
    } else if (visibleSince !== null) {
      visibleMs += Date.now() - visibleSince;
      visibleSince = null;
    }
  });
  function formatSeconds(total) {
    var m = Math.floor(total / 60), s = total % 60;
    return m ? m + " min " + (s < 10 ? "0" : "") + s + " s" : s + " s";
  }
  function syncSeconds() {
    var total = elapsedSeconds();
    if (secondsInput) secondsInput.value = String(total);
    return total;
  }
  setInterval(function () {
    var total = syncSeconds();
    if (timeEl) timeEl.textContent = formatSeconds(total);
  }, 1000);

  /* ---------- field focus ---------- */
  function focusField(index, scroll) {
    if (!fields.length) return;
    index = Math.max(0, Math.min(fields.length - 1, index));
    if (current >= 0 && fields[current]) fields[current].classList.remove("focused");
    current = index;
    var el = fields[current];
    el.classList.add("focused");
    el.focus({ preventScroll: true });
    if (scroll !== false) el.scrollIntoView({ block: "center", behavior: "auto" });
  }
  fields.forEach(function (el, index) {
    el.addEventListener("click", function () { if (current !== index) focusField(index, false); });
    el.addEventListener("focusin", function () {
      if (current !== index) {
        if (current >= 0 && fields[current]) fields[current].classList.remove("focused");
        current = index;
        el.classList.add("focused");
      }
    });
  });

  function pick(key) {
    if (current < 0) focusField(0);
    var el = fields[current];
    var radio = el.querySelector('input[type=radio][data-shortcut="' + key + '"]');
    if (!radio || radio.disabled) return false;
    radio.checked = true;
    radio.dispatchEvent(new Event("change", { bubbles: true }));
    el.classList.add("answered");
    // An explanation may be needed: stay on the field so "c" opens it; otherwise move on.
    if (!el.dataset.requiresExplanation && current < fields.length - 1) focusField(current + 1);
    return true;
  }

  function focusComment() {
    if (current < 0) focusField(0);
    var box = fields[current].querySelector("textarea");
    if (!box) return;
    box.closest(".comment").classList.add("open");
    box.focus();
  }

  function typing(target) {
    if (!target) return false;
    var tag = target.tagName;
    return tag === "TEXTAREA" || tag === "SELECT" ||
      (tag === "INPUT" && !/^(radio|checkbox|button|submit)$/i.test(target.type));
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (typing(target)) {
      if (event.key === "Escape") {
        var field = target.closest ? target.closest("fieldset.field") : null;
        target.blur();
        if (field) focusField(fields.indexOf(field), false);
        event.preventDefault();
      }
      return;
    }
    // Keys typed into the skip form or other controls outside the rating form are left alone.
    if (target && target.form && target.form !== form) return;
    var key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    if (key === "?") { toggleHelp(); event.preventDefault(); return; }
    if (key === "Escape" && document.body.classList.contains("help-open")) { toggleHelp(false); return; }
    if (key === "g") {
      var guide = document.getElementById("guidelines");
      if (guide) { guide.open = !guide.open; if (guide.open) guide.scrollIntoView({ block: "start" }); }
      event.preventDefault();
      return;
    }
    if (key === "j") { focusField(current + 1); event.preventDefault(); return; }
    if (key === "k") { focusField(current - 1); event.preventDefault(); return; }
    if (!editable) return;
    if (key === "c") { focusComment(); event.preventDefault(); return; }
    if (key === "Enter") {
      if (target && (target.tagName === "BUTTON" || target.tagName === "A" || target.tagName === "SUMMARY")) return;
      event.preventDefault();
      submitForm();
      return;
    }
    if (key.length === 1 && pick(key)) event.preventDefault();
  });

  function toggleHelp(force) {
    if (!help) return;
    var open = typeof force === "boolean" ? force : !document.body.classList.contains("help-open");
    document.body.classList.toggle("help-open", open);
  }
  document.querySelectorAll("[data-close-help]").forEach(function (button) {
    button.addEventListener("click", function () { toggleHelp(false); });
  });

  /* ---------- drafts: server (debounced) + localStorage copy ---------- */
  function formValues() {
    var values = {};
    fields.forEach(function (el) {
      var id = el.dataset.fieldId;
      var checked = el.querySelector("input[type=radio]:checked");
      var box = el.querySelector("textarea");
      values[id] = { label: checked ? checked.value : "", comment: box ? box.value : "" };
    });
    return values;
  }

  function applyValues(values) {
    fields.forEach(function (el) {
      var value = values[el.dataset.fieldId];
      if (!value) return;
      el.querySelectorAll("input[type=radio]").forEach(function (radio) {
        radio.checked = radio.value === value.label;
      });
      if (value.label) el.classList.add("answered");
      var box = el.querySelector("textarea");
      if (box && typeof value.comment === "string") {
        box.value = value.comment;
        if (value.comment) box.closest(".comment").classList.add("open");
      }
    });
  }

  function storeLocal(synced) {
    try {
      localStorage.setItem(storageKey, JSON.stringify({
        at: Date.now(), synced: synced, seconds: elapsedSeconds(), values: formValues()
      }));
    } catch (e) { /* storage full or disabled: the server copy still stands */ }
  }

  function setStatus(text, cls) {
    if (!statusEl) return;
    statusEl.textContent = text;
    statusEl.className = "save-status" + (cls ? " " + cls : "");
  }

  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function clock(date) { return pad(date.getHours()) + ":" + pad(date.getMinutes()) + ":" + pad(date.getSeconds()); }

  var timer = null;
  var saving = false;
  var again = false;

  function saveNow() {
    if (!editable) return Promise.resolve();
    if (saving) { again = true; return Promise.resolve(); }
    saving = true;
    syncSeconds();
    var body = new FormData(form);
    setStatus("Saving…", "pending");
    return fetch(draftUrl, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { "X-Requested-With": "fetch", "HX-Request": "true" },
      redirect: "error"
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (response.ok && data.ok) {
          storeLocal(true);
          setStatus("Saved at " + clock(new Date(data.saved_at)), "saved");
          var badge = document.getElementById("state-badge");
          if (badge && data.state === "draft") { badge.textContent = "Draft"; badge.className = "badge state-draft"; }
        } else if (response.status === 400) {
          storeLocal(false);
          setStatus("Not saved: " + (data.errors || ["invalid input"]).join(" "), "error");
        } else if (response.status === 401 || response.status === 403) {
          storeLocal(false);
          setStatus("Signed out — kept locally; sign in again in another tab", "error");
        } else {
          throw new Error("HTTP " + response.status);
        }
      });
    }).catch(function () {
      storeLocal(false);
      setStatus("Offline — kept locally", "offline");
    }).finally(function () {
      saving = false;
      if (again) { again = false; schedule(); }
    });
  }

  function schedule() {
    if (!editable) return;
    storeLocal(false);
    setStatus("Unsaved changes…", "pending");
    clearTimeout(timer);
    timer = setTimeout(function () { timer = null; saveNow(); }, 800);
  }

  if (editable) {
    form.addEventListener("change", schedule);
    form.addEventListener("input", function (event) { if (event.target.tagName === "TEXTAREA") schedule(); });

    // A local copy newer than the server draft and never confirmed saved means the connection was
    // lost (or the tab closed) before the last save: restore it and push it to the server.
    try {
      var stored = JSON.parse(localStorage.getItem(storageKey) || "null");
      if (stored && stored.values && !stored.synced && stored.at > serverSavedMs) {
        applyValues(stored.values);
        if (stored.seconds > elapsedSeconds()) baseSeconds += stored.seconds - elapsedSeconds();
        setStatus("Restored unsaved changes from this browser", "pending");
        saveNow();
      }
    } catch (e) { /* corrupt local copy: ignore it */ }

    window.addEventListener("online", function () { saveNow(); });
    window.addEventListener("pagehide", function () {
      if (timer === null) return;
      clearTimeout(timer);
      storeLocal(false);
      if (navigator.sendBeacon) {
        syncSeconds();
        navigator.sendBeacon(draftUrl, new FormData(form));
      }
    });
  }

  var submitting = false;
  function submitForm() {
    if (submitting) return;
    submitting = true;
    clearTimeout(timer);
    timer = null;
    syncSeconds();
    forgetLocal();
    form.submit();
  }
  // Submitting hands the labels to the server: a failed submit re-renders them with its errors, so
  // the local copy is dropped (a stale one would otherwise override a later "revision requested").
  function forgetLocal() {
    try { localStorage.removeItem(storageKey); } catch (e) { /* ignore */ }
  }
  form.addEventListener("submit", function () {
    clearTimeout(timer);
    timer = null;
    syncSeconds();
    forgetLocal();
  });

  if (!editable) forgetLocal();

  focusField(firstUnanswered(), false);
  function firstUnanswered() {
    for (var i = 0; i < fields.length; i++) {
      if (!fields[i].querySelector("input[type=radio]:checked")) return i;
    }
    return 0;
  }
})();
