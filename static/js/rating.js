/* medreview rating screen: keyboard-first labelling that is as sure by mouse and touch, autosaved
 * drafts, visible-time measurement, and the next item swapped in without a page load.
 * Plain ES, no build step. The page (templates/rating/rating.html) carries its settings as data-*
 * attributes on #rate-page; the server draft is already rendered into the form.
 *
 * One controller (mount) per #rate-page on screen. Submitting posts the form with fetch; the server
 * answers with the next claimed item's rating page (or the same page with its errors), whose
 * #rate-page replaces this one and is mounted in turn; the address bar follows with pushState, so
 * reload and the back button load the right item from the server.
 *
 * Instrumentation read by the browser tests and benchmarks/rating_loop.py:
 *   window.medreviewLayoutShift = {total, unexpected, entries}  (the page's layout-shift entries)
 *   window.medreviewTiming = {items: [{assignment, ms, painted_ms}]}  (submit to next item ready)
 */
(function () {
  "use strict";
  // Strings in the interface language: Django's JavaScript catalogue (/i18n/catalog.js), English without it.
  var gettext = window.gettext || function (s) { return s; };
  var interpolate = function (f, a) { return window.interpolate ? window.interpolate(f, a) : f.replace("%s", a[0]); };
  var interpolateNamed = function (f, o) {
    return window.interpolate ? window.interpolate(f, o, true) : f.replace(/%\((\w+)\)s/g, function (_, k) { return o[k]; });
  };

  /* ---------- layout shifts: anything that moves under the pointer is a bug ---------- */
  var shift = window.medreviewLayoutShift = { total: 0, unexpected: 0, entries: [] };
  function describe(node) {
    if (!node || !node.tagName) return String(node && node.nodeName);
    return node.tagName.toLowerCase() + (node.id ? "#" + node.id : "") +
      (node.className && typeof node.className === "string" ? "." + node.className.trim().split(/\s+/).join(".") : "");
  }
  try {
    new PerformanceObserver(function (list) {
      list.getEntries().forEach(function (entry) {
        shift.total += entry.value;
        if (!entry.hadRecentInput) shift.unexpected += entry.value;
        shift.entries.push({
          value: entry.value, recentInput: entry.hadRecentInput, at: Math.round(entry.startTime),
          sources: (entry.sources || []).map(function (s) { return describe(s.node); })
        });
      });
    }).observe({ type: "layout-shift", buffered: true });
  } catch (e) { /* browsers without the Layout Instability API */ }

  var timing = window.medreviewTiming = { items: [] };
  var active = null;

  function mount(page) {
    var form = page.querySelector("#rating-form");
    if (!form) return null;

    var editable = page.dataset.editable === "1";
    var assignmentId = page.dataset.assignment;
    var draftUrl = page.dataset.draftUrl;
    var storageKey = "medreview:draft:" + assignmentId;
    var serverSavedMs = parseInt(page.dataset.serverSaved || "0", 10) * 1000;
    var statusEl = page.querySelector("#save-status");
    var secondsInput = page.querySelector("#seconds-spent");
    var timeEl = page.querySelector("#time-spent");
    var help = page.querySelector("#shortcut-help");
    var fields = Array.prototype.slice.call(form.querySelectorAll("fieldset.field"));
    var current = -1;
    var destroyed = false;

    /* ---------- time spent: only while the page is visible ---------- */
    var baseSeconds = parseInt(page.dataset.seconds || "0", 10) || 0;
    var visibleMs = 0;
    var visibleSince = document.visibilityState === "visible" ? Date.now() : null;
    function elapsedSeconds() {
      var ms = visibleMs + (visibleSince !== null ? Date.now() - visibleSince : 0);
      return baseSeconds + Math.round(ms / 1000);
    }
    function visibilityChanged() {
      if (document.visibilityState === "visible") {
        if (visibleSince === null) visibleSince = Date.now();
      } else if (visibleSince !== null) {
        visibleMs += Date.now() - visibleSince;
        visibleSince = null;
      }
    }
    function formatSeconds(total) {
      var m = Math.floor(total / 60), s = total % 60;
      // The same formats as the server's `seconds` filter (annotation/templatetags/review.py), so the
      // catalogue says them in the reader's language ("1 分 05 秒").
      if (!m) return interpolateNamed(gettext("%(seconds)s s"), {seconds: s});
      return interpolateNamed(gettext("%(minutes)s min %(seconds)s s"), {minutes: m, seconds: (s < 10 ? "0" : "") + s});
    }
    function syncSeconds() {
      var total = elapsedSeconds();
      if (secondsInput) secondsInput.value = String(total);
      return total;
    }
    var ticker = setInterval(function () {
      var total = syncSeconds();
      if (timeEl) timeEl.textContent = formatSeconds(total);
    }, 1000);

    /* ---------- field focus (a class and an outline: never a size change) ---------- */
    // LiveClin phase 2 (examinee): judging question n, the answers shown are those of questions 1..n
    // (Appendix G); later answers are hidden (visibility only: nothing moves) until their question is reached.
    var stepwise = !!page.querySelector('#liveclin-phase[data-phase="examinee"]');
    var reached = -1;
    function markCurrent(index) {
      if (current === index) return;
      if (current >= 0 && fields[current]) fields[current].classList.remove("focused");
      current = index;
      fields[current].classList.add("focused");
      if (stepwise && current > reached) {
        reached = current;
        fields.forEach(function (el, i) { el.classList.toggle("answer-later", i > reached); });
      }
    }
    function focusField(index, scroll) {
      if (!fields.length) return;
      index = Math.max(0, Math.min(fields.length - 1, index));
      markCurrent(index);
      var el = fields[current];
      el.focus({ preventScroll: true });
      if (scroll !== false) el.scrollIntoView({ block: "nearest", behavior: "auto" });
    }
    fields.forEach(function (el, index) {
      // Pointer: the field under the pointer becomes the current one for the keys, and nothing else
      // happens (a click on a choice or in a comment keeps its own focus).
      el.addEventListener("pointerdown", function () { markCurrent(index); });
      el.addEventListener("focusin", function () { markCurrent(index); });
      el.addEventListener("change", function (event) {
        if (event.target.type === "radio") el.classList.add("answered");
      });
    });

    function pick(key) {
      if (current < 0) focusField(0);
      var el = fields[current];
      var radio = el.querySelector('input[type=radio][data-shortcut="' + key + '"]');
      if (!radio || radio.disabled) return false;
      radio.checked = true;
      radio.dispatchEvent(new Event("change", { bubbles: true }));
      // A label that needs an explanation (a LiveClin "no") opens the box right there, and Enter or
      // Esc in it returns to the flow; any other label moves on. The next key then goes to the box or
      // to the next field, never to a verdict the physician did not focus.
      if (el.dataset.requiresExplanation && radio.dataset.approves !== "1") {
        openComment(el, true);
        return true;
      }
      if (current < fields.length - 1) focusField(current + 1);
      return true;
    }

    function openComment(el, focus) {
      var box = el.querySelector(".comment");
      if (!box) return;
      box.classList.add("open");  // and it stays open: closing it would move what lies below
      if (focus) box.querySelector("textarea").focus();
    }
    form.querySelectorAll("[data-add-comment]").forEach(function (button) {
      button.addEventListener("click", function () { openComment(button.closest("fieldset.field"), true); });
    });

    function typing(target) {
      if (!target) return false;
      var tag = target.tagName;
      return tag === "TEXTAREA" || tag === "SELECT" ||
        (tag === "INPUT" && !/^(radio|checkbox|button|submit)$/i.test(target.type));
    }

    function keydown(event) {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      var target = event.target;
      if (typing(target)) {
        var field = target.closest ? target.closest("fieldset.field") : null;
        // An explanation box: Enter (Shift+Enter for a new line) or Esc returns to the flow, on the next field.
        var explaining = field && field.dataset.requiresExplanation && target.tagName === "TEXTAREA";
        if (event.key === "Escape" || (explaining && event.key === "Enter" && !event.shiftKey)) {
          target.blur();
          if (field) {
            var at = fields.indexOf(field);
            focusField(explaining && at < fields.length - 1 ? at + 1 : at, false);
          }
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
        var guide = page.querySelector("#guidelines");
        if (guide) { guide.open = !guide.open; if (guide.open) guide.scrollIntoView({ block: "start" }); }
        event.preventDefault();
        return;
      }
      if (key === "u") {
        // Undo the last submit (issue 11): save what is pending here, then give this item back
        // (if it holds no draft) and reopen the last submission.
        var undo = document.getElementById("undo-form");
        if (undo) {
          var go = function () { undo.submit(); };
          if (timer) { clearTimeout(timer); timer = null; saveNow().then(go, go); } else { go(); }
          event.preventDefault();
        }
        return;
      }
      if (key === "e" && !editable) {
        // A submitted item opens read-only (issue 21): `e` is the Edit button, nothing else.
        var edit = page.querySelector("#edit-button");
        if (edit) { event.preventDefault(); window.location.assign(edit.href); }
        return;
      }
      if (key === "j") { focusField(current + 1); event.preventDefault(); return; }
      if (key === "k") { focusField(current - 1); event.preventDefault(); return; }
      if (!editable) return;
      if (key === "c") {
        if (current < 0) focusField(0);
        openComment(fields[current], true);
        event.preventDefault();
        return;
      }
      if (key === "Enter") {
        if (target && (target.tagName === "BUTTON" || target.tagName === "A" || target.tagName === "SUMMARY")) return;
        event.preventDefault();
        submitForm(null, event.timeStamp);
        return;
      }
      if (key.length === 1 && pick(key)) event.preventDefault();
    }

    function toggleHelp(force) {
      if (!help) return;
      var open = typeof force === "boolean" ? force : !document.body.classList.contains("help-open");
      document.body.classList.toggle("help-open", open);
    }
    page.querySelectorAll("[data-close-help]").forEach(function (button) {
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
          if (value.comment) openComment(el, false);
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
      statusEl.title = text;  // the box has a fixed size; the full text is in the tooltip
      statusEl.className = "save-status" + (cls ? " " + cls : "");
    }

    function pad(n) { return (n < 10 ? "0" : "") + n; }
    function clock(date) { return pad(date.getHours()) + ":" + pad(date.getMinutes()) + ":" + pad(date.getSeconds()); }

    var timer = null;
    var saving = false;
    var again = false;

    var inflight = null;  // the autosave on the wire: a submit waits for it (issue 21)
    function saveNow() {
      if (!editable || destroyed) return Promise.resolve();
      if (saving) { again = true; return inflight || Promise.resolve(); }
      saving = true;
      syncSeconds();
      var body = new FormData(form);
      setStatus(gettext("Saving…"), "pending");
      inflight = fetch(draftUrl, {
        method: "POST",
        body: body,
        credentials: "same-origin",
        headers: { "X-Requested-With": "fetch", "HX-Request": "true" },
        redirect: "error"
      }).then(function (response) {
        return response.json().catch(function () { return {}; }).then(function (data) {
          if (destroyed) return;
          if (response.ok && data.ok) {
            storeLocal(true);
            setStatus(data.notice || (gettext("Saved at") + " " + clock(new Date(data.saved_at))), "saved");
            var badge = page.querySelector("#state-badge");
            if (badge && data.state === "draft") { badge.textContent = gettext("Draft"); badge.className = "badge state-draft"; }
          } else if (response.status === 400) {
            storeLocal(false);
            setStatus(gettext("Not saved:") + " " + (data.errors || [gettext("invalid input")]).join(" "), "error");
          } else if (response.status === 401 || response.status === 403) {
            storeLocal(false);
            setStatus(gettext("Signed out — kept locally; sign in again in another tab"), "error");
          } else if (response.status === 503 && data.busy) {
            // A busy database: nothing stored; the labels stay here and locally, and the save is retried.
            storeLocal(false);
            setStatus((data.errors || []).join(" "), "pending");
            again = true;
          } else {
            throw new Error("HTTP " + response.status);
          }
        });
      }).catch(function () {
        if (destroyed) return;
        storeLocal(false);
        setStatus(gettext("Offline — kept locally"), "offline");
      }).finally(function () {
        saving = false;
        inflight = null;
        if (again && !destroyed && !submitting) { again = false; schedule(); }
      });
      return inflight;
    }

    function schedule() {
      if (!editable || destroyed) return;
      storeLocal(false);
      setStatus(gettext("Unsaved changes…"), "pending");
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
          setStatus(gettext("Restored unsaved changes from this browser"), "pending");
          saveNow();
        }
      } catch (e) { /* corrupt local copy: ignore it */ }
    }

    function pagehide() {
      if (!editable || timer === null) return;
      clearTimeout(timer);
      storeLocal(false);
      if (navigator.sendBeacon) {
        syncSeconds();
        navigator.sendBeacon(draftUrl, new FormData(form));
      }
    }

    /* ---------- submit: fetch, then swap in the page the server answers with ---------- */
    var submitting = false;
    var BUSY_RETRIES = 8;
    function submitForm(submitter, startedAt, attempt) {
      if (submitting && !attempt) return;
      submitting = true;
      attempt = attempt || 0;
      var t0 = typeof startedAt === "number" ? startedAt : performance.now();
      // The submit carries every label itself, so a save still waiting to start is dropped, but one
      // already on the wire is finished first: two writes of one item never race (issue 21).
      clearTimeout(timer);
      timer = null;
      again = false;
      (inflight || Promise.resolve()).then(function () { return null; }, function () { return null; }).then(function () {
        if (destroyed) return;
        postSubmit(submitter, t0, attempt);
      });
    }
    function postSubmit(submitter, t0, attempt) {
      syncSeconds();
      var body = new FormData(form);
      if (submitter && submitter.name) body.append(submitter.name, submitter.value);
      setStatus(gettext("Submitting…"), "pending");
      fetch(page.dataset.submitUrl || form.action, {
        method: "POST", body: body, credentials: "same-origin", headers: { "X-Requested-With": "fetch" }
      }).then(function (response) {
        var answered = performance.now();
        if (response.status === 503 && attempt < BUSY_RETRIES) {
          // A busy database: nothing was submitted. Say so, keep the labels, and try again shortly.
          storeLocal(false);
          setStatus(gettext("Not submitted: the database is busy. Your labels are kept; trying again…"), "pending");
          var wait = (parseInt(response.headers.get("Retry-After") || "1", 10) || 1) * 1000 * (1 + attempt / 2);
          setTimeout(function () { if (!destroyed) submitForm(submitter, t0, attempt + 1); }, wait);
          return null;
        }
        return response.text().then(function (html) {
          timing.last = { server_ms: Math.round((answered - t0) * 10) / 10 };
          if (response.status === 503 || !swapIn(html, response, t0)) {
            // Not one of our pages (a proxy or server error): the labels stay here and locally.
            submitting = false;
            storeLocal(false);
            setStatus(interpolate(gettext("Not submitted (HTTP %s); your labels are kept — press Enter to retry"), [response.status]), "error");
          }
        });
      }).catch(function () {
        submitting = false;
        storeLocal(false);
        setStatus(gettext("Offline — not submitted; kept locally, press Enter to retry"), "offline");
      });
    }
    function forgetLocal() {
      try { localStorage.removeItem(storageKey); } catch (e) { /* ignore */ }
    }
    form.addEventListener("submit", function (event) {
      if (event.submitter && event.submitter.name === "then") {
        // "Submit and back to my queue": an ordinary navigation.
        clearTimeout(timer);
        timer = null;
        syncSeconds();
        forgetLocal();
        return;
      }
      event.preventDefault();
      submitForm(event.submitter, event.timeStamp);
    });

    if (!editable) forgetLocal();

    // After a failed submit the first field in error takes the keys (issue 11); the error list links
    // move there too. A returned item opens on the first field the inspector marked (issue 20).
    var firstError = page.querySelector("fieldset.field.has-error");
    var firstMarked = page.querySelector("fieldset.field.return-marked");
    var start = firstError || firstMarked;
    focusField(start ? fields.indexOf(start) : firstUnanswered(), !!start);
    page.querySelectorAll("[data-focus-field]").forEach(function (link) {
      link.addEventListener("click", function (event) {
        event.preventDefault();
        focusField(Number(link.dataset.focusField));
      });
    });
    function firstUnanswered() {
      for (var i = 0; i < fields.length; i++) {
        if (!fields[i].querySelector("input[type=radio]:checked")) return i;
      }
      return 0;
    }

    return {
      page: page,
      assignment: assignmentId,
      keydown: keydown,
      visibilityChanged: visibilityChanged,
      online: function () { if (editable) saveNow(); },
      pagehide: pagehide,
      setStatus: setStatus,
      forgetLocal: forgetLocal,
      destroy: function () {
        destroyed = true;
        clearInterval(ticker);
        clearTimeout(timer);
        document.body.classList.remove("help-open");
      }
    };
  }

  function swapIn(html, response, t0) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var next = doc.getElementById("rate-page");
    var main = document.querySelector("main");
    var nextMain = doc.querySelector("main");
    if (!nextMain || !main) return false;
    var previous = active;
    if (previous) {
      // Submitting handed the labels to the server: the answer (next item, or this one with its
      // errors) is rendered from what it stored, so the local copy is dropped (a stale one would
      // otherwise override a later "revision requested").
      if (response.ok || response.status === 400) previous.forgetLocal();
      previous.destroy();
    }
    active = null;
    document.title = doc.title;
    if (next && document.getElementById("rate-page")) {
      document.getElementById("rate-page").replaceWith(document.adoptNode(next));
    } else {
      // Another page ("nothing left to rate"): shown inside a .rate-page box, so the page keeps the
      // rating screen's width and nothing around it moves.
      var box = document.createElement("div");
      box.className = "rate-page rate-done";
      Array.prototype.slice.call(nextMain.childNodes).forEach(function (n) { box.appendChild(document.adoptNode(n)); });
      main.replaceChildren(box);
    }
    // The next item's address: named by the server when it answered with the next item, or where a
    // redirect led; a page with errors keeps the current address.
    var address = response.headers.get("X-Location") || (response.redirected ? response.url : null);
    if (address) {
      address = new URL(address, window.location.href).href;
      if (address !== window.location.href) window.history.pushState({ medreview: "rate" }, "", address);
    }
    window.scrollTo(0, 0);
    var page = document.getElementById("rate-page");
    if (page && page.querySelector("#rating-form")) {
      active = mount(page);
      // Messages the server queued for the next page ("Submitted. Thank you.") go to the status box,
      // which has a fixed size, rather than above the page, which would push everything down.
      var notes = Array.prototype.map.call(doc.querySelectorAll(".messages li"), function (li) {
        return li.textContent.trim();
      }).join(" ");
      if (active && notes && response.ok) active.setStatus(notes, "saved");
    }
    var ready = performance.now();
    requestAnimationFrame(function () {
      setTimeout(function () {
        timing.items.push({
          assignment: page ? page.dataset.assignment : null,
          status: response.status,
          response_ms: timing.last ? timing.last.server_ms : null,
          ms: Math.round((ready - t0) * 10) / 10,
          painted_ms: Math.round((performance.now() - t0) * 10) / 10
        });
        document.dispatchEvent(new CustomEvent("medreview:item-ready"));
      }, 0);
    });
    return true;
  }

  document.addEventListener("keydown", function (event) { if (active) active.keydown(event); });
  document.addEventListener("visibilitychange", function () { if (active) active.visibilityChanged(); });
  window.addEventListener("online", function () { if (active) active.online(); });
  window.addEventListener("pagehide", function () { if (active) active.pagehide(); });
  // Pages swapped in pushed their address: going back (or forward) loads that address afresh, so the
  // server decides what it shows (the item as it now stands).
  window.addEventListener("popstate", function () { window.location.reload(); });

  var initial = document.getElementById("rate-page");
  if (initial) active = mount(initial);
})();
