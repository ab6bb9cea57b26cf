/* Injected into every page by benchmarks/rating_loop.py (Playwright's add_init_script), before the
 * page's own scripts: measures submit -> next item usable as the physician meets it, and where the
 * time goes, without changing the page's code (it only observes, and wraps two DOM methods to
 * timestamp them).
 *
 * A run starts at the submit's input event: the Enter keydown, or the pointerdown on the Submit
 * button (its event.timeStamp, on the same clock as performance.now()). It ends at the first frame
 * painted after the next item is usable:
 *   - a different assignment is on screen (#rate-page[data-assignment]) showing a different case
 *     (the case line under the item text),
 *   - its first field is focused (document.activeElement is in it) and enabled (no disabled radio),
 *   - its case text (the first block: original and translation) is not empty, rendered and at
 *     least partly inside the viewport.
 * The DOM conditions are checked on every mutation and focus change; rendering and the viewport in
 * an animation frame (so the check forces no extra layout); "painted" is a message posted from that
 * frame's requestAnimationFrame, which runs once the frame has been produced.
 *
 * Marks on the way (all ms from the input event), read by the benchmark as window.__ratingLoop.runs:
 *   fetch      the submit request started (Resource Timing startTime)
 *   response   its last byte arrived (responseEnd); serverTiming = the Server-Timing header
 *   parse      DOMParser.parseFromString start / end (the answer parsed into a document)
 *   swap       #rate-page replaced (Element.replaceWith returned)
 *   focus      the first field of the new page took focus (focusin)
 *   usable     the DOM conditions hold; painted: the frame that shows it is done
 */
(function () {
  "use strict";
  var SUBMIT_PATH = "/submit-next/";
  var bench = window.__ratingLoop = { runs: [], pending: null, errors: [] };
  var now = function () { return performance.now(); };

  try { performance.setResourceTimingBufferSize(100000); } catch (e) { /* observers get entries anyway */ }

  function ratePage() { return document.getElementById("rate-page"); }
  function caseLine(page) {
    var line = page && page.querySelector(".item-content > p.muted");
    return line ? line.textContent.replace(/\s+/g, " ").trim() : "";
  }
  function firstField(page) { return page.querySelector("#rating-form fieldset.field"); }
  function caseTexts(page) {
    var block = page.querySelector(".item-content .content-block");
    return block ? Array.prototype.slice.call(block.querySelectorAll(".longtext")) : [];
  }

  function start(event, input) {
    var page = ratePage();
    if (!page || (bench.pending && !bench.pending.painted)) return;
    var run = {
      input: input, t0: event.timeStamp, from: page.dataset.assignment, fromCase: caseLine(page),
      marks: {}, resource: null, to: null, status: null
    };
    bench.pending = run;
    bench.runs.push(run);
    watchFrames(run);
  }
  function mark(name, at) {
    var run = bench.pending;
    if (run && !run.painted && run.marks[name] === undefined) run.marks[name] = (at === undefined ? now() : at) - run.t0;
  }

  // The input events, before the page's own listeners (capture on window).
  window.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && !event.shiftKey && !/^(TEXTAREA|BUTTON|A|SUMMARY)$/.test(event.target.tagName)) {
      start(event, "keyboard");
    }
  }, true);
  window.addEventListener("pointerdown", function (event) {
    if (event.target.closest && event.target.closest("#submit-rating")) start(event, "mouse");
  }, true);

  // Timestamps inside the page's own swap (static/js/rating.js swapIn), by wrapping what it calls.
  var parse = DOMParser.prototype.parseFromString;
  DOMParser.prototype.parseFromString = function () {
    mark("parse_start");
    var doc = parse.apply(this, arguments);
    mark("parse_end");
    return doc;
  };
  var replaceWith = Element.prototype.replaceWith;
  Element.prototype.replaceWith = function () {
    var swapping = this.id === "rate-page";
    var result = replaceWith.apply(this, arguments);
    if (swapping) { mark("swap"); check(); }
    return result;
  };

  function domReady(run) {
    var page = ratePage();
    if (!page || page.dataset.assignment === run.from) return false;
    if (caseLine(page) === run.fromCase) return false;
    var field = firstField(page);
    if (!field || !field.contains(document.activeElement)) return false;
    var radios = field.querySelectorAll("input[type=radio]");
    if (!radios.length || field.disabled || field.querySelector("input[type=radio]:disabled")) return false;
    var texts = caseTexts(page);
    return texts.length > 0 && texts.every(function (el) { return el.textContent.trim().length > 0; });
  }
  function shown(page) {
    return caseTexts(page).every(function (el) {
      var box = el.getBoundingClientRect();
      var visible = el.checkVisibility ? el.checkVisibility({ opacityProperty: true, visibilityProperty: true }) : true;
      return visible && box.width > 0 && box.height > 0 && box.bottom > 0 && box.top < window.innerHeight &&
        box.right > 0 && box.left < window.innerWidth;
    });
  }
  function check() {
    var run = bench.pending;
    if (!run || run.marks.usable !== undefined) return;
    if (domReady(run)) {
      mark("usable");
      run.to = ratePage().dataset.assignment;
    }
  }

  // Rendering: from the input on, every frame checks whether the usable item is on screen; the
  // frame that shows it ends the run once it has been produced.
  function watchFrames(run) {
    requestAnimationFrame(function frame() {
      if (bench.pending !== run || run.painted) return;
      check();
      if (run.marks.usable !== undefined && shown(ratePage())) {
        mark("frame");
        var channel = new MessageChannel();
        channel.port1.onmessage = function () { mark("painted"); run.painted = true; };
        channel.port2.postMessage(null);
        return;
      }
      requestAnimationFrame(frame);
    });
  }

  document.addEventListener("focusin", function (event) {
    var run = bench.pending;
    var page = ratePage();
    if (!run || !page || page.dataset.assignment === run.from) return;
    var field = firstField(page);
    if (field && field.contains(event.target)) { mark("focus"); check(); }
  }, true);
  new MutationObserver(check).observe(document, { childList: true, subtree: true, attributes: true });

  // The submit request's timings and Server-Timing header.
  new PerformanceObserver(function (list) {
    list.getEntries().forEach(function (entry) {
      if (entry.name.indexOf(SUBMIT_PATH) < 0) return;
      for (var i = bench.runs.length - 1; i >= 0; i--) {
        var run = bench.runs[i];
        if (entry.startTime < run.t0) continue;  // an earlier run's request
        if (!run.resource) {
          run.resource = {
            start: entry.startTime - run.t0, request: entry.requestStart - run.t0,
            first_byte: entry.responseStart - run.t0, end: entry.responseEnd - run.t0,
            bytes: entry.encodedBodySize, status: entry.responseStatus || null,
            server: (entry.serverTiming || []).map(function (m) {
              return { name: m.name, dur: m.duration, desc: m.description };
            })
          };
        }
        return;
      }
    });
  }).observe({ type: "resource", buffered: true });
})();
