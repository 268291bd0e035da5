/* evaltrans judging screen: keyboard-first scoring and honest active-time measurement.
 *
 * Keys: a digit picks that level of the current question and moves to the next question;
 * Enter submits (when every question is answered); Backspace opens the previous screen.
 * Direct-assessment sliders (<input type=range>, 0-100): the arrow keys move by 1 (the
 * browser's own behaviour), Shift+arrow and PageUp/PageDown by 10, Home/End to the ends; a
 * slider counts as answered once it was moved, or pressed with a key or the pointer (its
 * thumb starts in the middle, dimmed, and "not set" is what a screen reader hears).
 * Relative ranking (data-protocol="ranking"): the candidates stand side by side, each with a
 * rank 1-5 (1 best, ties allowed); a digit ranks the highlighted candidate and highlights the
 * next unranked one; Tab and the arrow keys (→ ↓ next, ← ↑ previous) move between candidates
 * (Tab after the last goes to the submit button); Enter submits once every candidate is ranked.
 * Error spans (MQM, ESA): judging_spans.js handles the candidate text; this script submits
 * (an MQM screen has no question cell, an ESA screen its 0-100 slider after the spans).
 * Everything also works with the mouse, and without this script (plain form post; a slider
 * then sends where it stands).
 *
 * Saving: the answer goes to the form's own URL with fetch() (same fields, same CSRF token). A
 * network error or a 5xx (the database or the server away) keeps the answer on the page and
 * sends the very same request again after 1, 2, 4, 8, 16 and then every 30 s, or at once with
 * "Retry now". Resending is safe: the screen token makes the server count an answer once.
 *
 * Active time counts only while the page is visible and focused and the judge has given some
 * input (key, pointer, wheel, touch) within the last IDLE_MS; longer silences are idle and
 * are not counted. The server caps the reported time at the time since the page was rendered.
 */
(function () {
  "use strict";

  const root = document.getElementById("judging");
  const form = document.getElementById("screen-form");
  if (!root || !form) return;

  const IDLE_MS = Number(root.dataset.idleMs) || 30000;
  const RANKING = root.dataset.protocol === "ranking";
  const BASE_MS = Number(root.dataset.baseActiveMs) || 0;
  const TICK_MS = 250;
  const cells = Array.from(form.querySelectorAll("[data-cell]"));
  const submitButton = document.getElementById("submit-button");
  const backLink = document.getElementById("back-link");
  const hint = document.getElementById("form-hint");
  const activeField = form.querySelector("input[name=active_ms]");
  const activeTotal = document.getElementById("active-total");
  const timerState = document.getElementById("timer-state");
  const saveStatus = document.getElementById("save-status");
  const saveStatusText = document.getElementById("save-status-text");
  const retryButton = document.getElementById("retry-now");
  const RETRY_FIRST_MS = 1000;
  const RETRY_MAX_MS = 30000;

  // ---- active time ----------------------------------------------------------------------
  let activeMs = 0;
  let lastTick = performance.now();
  let lastInput = lastTick;
  let submitting = false;

  function isActive(now) {
    return document.visibilityState === "visible" && document.hasFocus() &&
      now - lastInput < IDLE_MS;
  }

  function formatDuration(ms) {
    const total = Math.round(ms / 1000);
    const hours = Math.floor(total / 3600);
    const minutes = Math.floor((total % 3600) / 60);
    const seconds = total % 60;
    const pad = (n) => String(n).padStart(2, "0");
    if (hours) return hours + " h " + pad(minutes) + " min";
    if (minutes) return minutes + " min " + pad(seconds) + " s";
    return seconds + " s";
  }

  function tick() {
    const now = performance.now();
    const active = isActive(now);
    if (active && !submitting) activeMs += now - lastTick;
    lastTick = now;
    if (activeTotal) activeTotal.textContent = formatDuration(BASE_MS + activeMs);
    if (timerState) timerState.hidden = active || submitting;
  }

  function noteInput() {
    const now = performance.now();
    // Coming back from idle: the silent gap is not counted (tick() skipped it already).
    lastInput = now;
  }

  ["keydown", "pointerdown", "pointermove", "wheel", "touchstart", "scroll"].forEach(
    (type) => window.addEventListener(type, noteInput, { passive: true, capture: true })
  );
  document.addEventListener("visibilitychange", () => {
    // Background tabs run timers late; never count the hidden stretch.
    lastTick = performance.now();
    if (document.visibilityState === "visible") noteInput();
  });
  window.addEventListener("focus", () => { lastTick = performance.now(); noteInput(); });
  setInterval(tick, TICK_MS);

  // ---- saving, and retrying when saving fails -----------------------------------------------
  const canFetch = typeof window.fetch === "function" && typeof window.FormData === "function" &&
    Boolean(saveStatus && retryButton);
  let payload = null;     // the answer as first sent: every retry sends exactly this
  let failures = 0;
  let inFlight = false;
  let retryAt = 0;
  let countdown = null;

  function warnBeforeLeaving(event) {
    event.preventDefault();
    event.returnValue = "";
  }

  function save() {
    payload = new FormData(form);
    failures = 0;
    window.addEventListener("beforeunload", warnBeforeLeaving);
    post();
  }

  function post() {
    if (inFlight) return;
    inFlight = true;
    stopCountdown();
    retryButton.disabled = true;
    if (failures) saveStatusText.textContent = "Could not save — retrying now…";
    fetch(form.action, {
      method: "POST",
      body: payload,
      credentials: "same-origin",
      headers: { Accept: "application/json" },
    }).then((response) => {
      const json = (response.headers.get("Content-Type") || "").includes("application/json");
      if (response.status >= 500) throw new Error("HTTP " + response.status);
      if (!json) return fallBack();
      return response.json().then((data) => {
        if (!data.location) return fallBack();
        leave(data.location);
      });
    }).catch(() => {
      inFlight = false;
      failures += 1;
      retryAt = Date.now() + Math.min(RETRY_FIRST_MS * 2 ** (failures - 1), RETRY_MAX_MS);
      showCountdown();
      countdown = setInterval(showCountdown, 250);
    });
  }

  function leave(url) {
    window.removeEventListener("beforeunload", warnBeforeLeaving);
    window.location.assign(url);
  }

  function fallBack() {
    // Neither saved nor a fault worth retrying (e.g. the session ended): the plain form post
    // shows the judge what the server says, as without this script.
    window.removeEventListener("beforeunload", warnBeforeLeaving);
    HTMLFormElement.prototype.submit.call(form);
  }

  function showCountdown() {
    const left = Math.max(0, Math.ceil((retryAt - Date.now()) / 1000));
    if (left === 0) { post(); return; }
    const text = "Could not save — retrying in " + left + " s… " +
      "Your answer stays on this page; keep it open.";
    // Rewritten only when it changes: screen readers announce every change of a live region.
    if (saveStatusText.textContent !== text) saveStatusText.textContent = text;
    saveStatus.hidden = false;
    retryButton.disabled = false;
    showHint("Not saved yet", true);
  }

  function stopCountdown() {
    if (countdown !== null) clearInterval(countdown);
    countdown = null;
  }

  if (retryButton) retryButton.addEventListener("click", post);

  // ---- questions and keyboard -------------------------------------------------------------
  let current = 0;

  const SLIDER_BIG_STEP = 10;

  function sliderOf(cell) {
    return cell.querySelector("input[type=range]");
  }

  function isAnswered(cell) {
    const slider = sliderOf(cell);
    if (slider) return !slider.hasAttribute("data-unset");
    return cell.querySelector("input:checked") !== null;
  }

  function describe(slider) {
    const set = !slider.hasAttribute("data-unset");
    const output = slider.parentElement.querySelector("output");
    if (output) output.textContent = set ? slider.value : "–";
    slider.setAttribute("aria-valuetext", set ? slider.value + " of " + slider.max : "not set");
  }

  function markSet(slider) {
    if (!slider.hasAttribute("data-unset")) return;
    slider.removeAttribute("data-unset");
    describe(slider);
    showHint("");
  }

  function nudge(slider, delta) {
    const value = Math.min(Number(slider.max), Math.max(Number(slider.min), Number(slider.value) + delta));
    slider.value = String(value);
    slider.removeAttribute("data-unset");
    slider.dispatchEvent(new Event("input", { bubbles: true }));
  }

  form.querySelectorAll("input[type=range]").forEach((slider) => {
    describe(slider);
    slider.addEventListener("input", () => { slider.removeAttribute("data-unset"); describe(slider); showHint(""); });
    slider.addEventListener("pointerdown", () => markSet(slider));
    slider.addEventListener("keydown", (event) => {
      if (event.ctrlKey || event.metaKey || event.altKey || submitting) return;
      const up = event.key === "ArrowRight" || event.key === "ArrowUp";
      const down = event.key === "ArrowLeft" || event.key === "ArrowDown";
      if (event.shiftKey && (up || down)) {
        event.preventDefault();
        nudge(slider, up ? SLIDER_BIG_STEP : -SLIDER_BIG_STEP);
      } else if (event.key === "PageUp" || event.key === "PageDown") {
        event.preventDefault();
        nudge(slider, event.key === "PageUp" ? SLIDER_BIG_STEP : -SLIDER_BIG_STEP);
      } else if (up || down || event.key === "Home" || event.key === "End") {
        // The browser moves the thumb; a key that cannot move it (Home at 0) still answers.
        setTimeout(() => markSet(slider), 0);
      }
    });
  });

  function firstOpen(from) {
    for (let i = from; i < cells.length; i++) if (!isAnswered(cells[i])) return i;
    for (let i = 0; i < from; i++) if (!isAnswered(cells[i])) return i;
    return -1;
  }

  function setCurrent(index, focus) {
    current = index;
    cells.forEach((cell, i) => cell.classList.toggle("current", i === index));
    if (!focus || index < 0) return;
    const cell = cells[index];
    // An unanswered question takes the focus itself, so no level looks chosen before it is;
    // a slider takes it at once, so the arrow keys move it.
    const target = sliderOf(cell) || cell.querySelector("input:checked") || cell;
    target.focus({ preventScroll: true });
    cell.scrollIntoView({ block: "nearest", behavior: "smooth" });
  }

  function advance() {
    // First pass: the next unanswered question. Revising (all answered): the next question.
    let next;
    if (firstOpen(0) !== -1) next = firstOpen(current + 1 < cells.length ? current + 1 : 0);
    else next = current + 1 < cells.length ? current + 1 : -1;
    if (next === -1) {
      cells.forEach((cell) => cell.classList.remove("current"));
      submitButton.focus({ preventScroll: true });
      showHint(RANKING ? "All ranked. Press Enter to submit." : "All answered. Press Enter to submit.");
      return;
    }
    setCurrent(next, true);
  }

  function showHint(text, isError) {
    if (!hint) return;
    hint.textContent = text;
    hint.classList.toggle("error", Boolean(isError));
  }

  function choose(cell, value) {
    const input = cell.querySelector('input[value="' + value + '"]');
    if (!input) return false;
    input.checked = true;
    input.dispatchEvent(new Event("change", { bubbles: true }));
    return true;
  }

  function submit() {
    if (submitting) return;
    const open = firstOpen(0);
    if (open !== -1) {
      setCurrent(open, true);
      cells[open].classList.add("missing");
      setTimeout(() => cells[open].classList.remove("missing"), 900);
      showHint(sliderOf(cells[open]) ? "Move every slider first." :
        RANKING ? "Rank every translation first." : "Choose a level for every question first.", true);
      return;
    }
    lockAndSend();
    if (canFetch) save();
    else form.submit();
  }

  function lockAndSend() {
    tick();
    submitting = true;
    activeField.value = String(Math.round(activeMs));
    submitButton.setAttribute("aria-disabled", "true");
    submitButton.classList.add("is-saving");
    showHint("Saving…");
  }

  form.addEventListener("submit", (event) => {
    // Mouse users click the button: same guard against a double click.
    if (submitting) { event.preventDefault(); return; }
    // A slider always has a value: the browser cannot tell an untouched one (radios are
    // "required"), so the same check as for Enter.
    if (firstOpen(0) !== -1) { event.preventDefault(); submit(); return; }
    lockAndSend();
    if (canFetch) { event.preventDefault(); save(); }
  });

  form.addEventListener("change", (event) => {
    const cell = event.target.closest("[data-cell]");
    // A slider fires "change" on every key press: the judge moves on with Tab, not by itself.
    if (!cell || event.target.type === "range") return;
    showHint("");
    current = cells.indexOf(cell);
    advance();
  });

  form.addEventListener("focusin", (event) => {
    const cell = event.target.closest("[data-cell]");
    if (cell) setCurrent(cells.indexOf(cell), false);
  });

  document.addEventListener("keydown", (event) => {
    // The comment box (campaigns that offer it) keeps its keys: digits, m/M, Enter (a line
    // break) are text there. Ctrl+Enter (⌘+Enter) submits from it; Esc leaves it, so the
    // protocol's keys work again.
    const inComment = Boolean(event.target.matches && event.target.matches("[data-comment]"));
    if (inComment && !submitting) {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); submit(); }
      else if (event.key === "Escape") { event.preventDefault(); event.target.blur(); }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (submitting) {
      // While a failed save waits, Enter retries it; every other key waits with it.
      if (event.key === "Enter" && countdown !== null) { event.preventDefault(); post(); }
      return;
    }
    const tag = (event.target.tagName || "").toLowerCase();
    if (tag === "textarea" || (tag === "input" && event.target.type === "text")) return;
    if (RANKING && cells.length && rankMove(event)) return;
    if (/^[0-9]$/.test(event.key) && cells.length) {
      if (current < 0 || current >= cells.length) current = Math.max(firstOpen(0), 0);
      if (sliderOf(cells[current])) {
        showHint("Move the slider with the arrow keys (Shift or PageUp/PageDown: by 10).", true);
      } else if (choose(cells[current], event.key)) {
        event.preventDefault();
      } else {
        showHint(RANKING ? "Ranks go from 1 (best) to 5 (worst)." :
          "Key " + event.key + " is not a level of this question.", true);
      }
    } else if (event.key === "Enter") {
      if (tag === "a" || tag === "button" && event.target !== submitButton) return;
      event.preventDefault();
      submit();
    } else if (event.key === "Backspace" && backLink) {
      event.preventDefault();
      submitting = true;
      window.location.href = backLink.href;
    }
  });

  // Ranking: Tab and the arrows go from candidate to candidate (a radio group would otherwise
  // take the arrows to change the rank, and Tab from a highlighted card into its own buttons).
  function rankMove(event) {
    const next = event.key === "ArrowRight" || event.key === "ArrowDown" ||
      (event.key === "Tab" && !event.shiftKey);
    const previous = event.key === "ArrowLeft" || event.key === "ArrowUp" ||
      (event.key === "Tab" && event.shiftKey);
    if (!next && !previous) return false;
    const inCell = Boolean(event.target.closest && event.target.closest("[data-cell]"));
    const onSubmit = event.target === submitButton;
    // Tab elsewhere (links, the pause button) moves the focus as usual.
    if (event.key === "Tab" && !inCell && !(onSubmit && previous)) return false;
    event.preventDefault();
    if (onSubmit) {
      if (previous) setCurrent(cells.length - 1, true);
      return true;
    }
    const from = inCell ? cells.indexOf(event.target.closest("[data-cell]")) : current;
    const to = from + (next ? 1 : -1);
    if (to >= cells.length) {
      cells.forEach((cell) => cell.classList.remove("current"));
      current = cells.length;
      submitButton.focus({ preventScroll: true });
    } else {
      setCurrent(Math.max(0, to), true);
    }
    return true;
  }

  const start = firstOpen(0);
  // An MQM screen has no question of its own (its score comes from the spans): no cell.
  if (cells.length) setCurrent(start === -1 ? 0 : start, true);
  if (start === -1 && cells.length) showHint("Revising: change any answer, then press Enter.");
  else if (start !== -1 && sliderOf(cells[start])) showHint("Move the slider with the arrow keys or the mouse.");
})();
