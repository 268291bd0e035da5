/* evaltrans judging screen: keyboard-first scoring and honest active-time measurement.
 *
 * Keys: a digit picks that level of the current question and moves to the next question;
 * Enter submits (when every question is answered); Backspace opens the previous screen.
 * Everything also works with the mouse, and without this script (plain form post).
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
  const BASE_MS = Number(root.dataset.baseActiveMs) || 0;
  const TICK_MS = 250;
  const cells = Array.from(form.querySelectorAll("[data-cell]"));
  const submitButton = document.getElementById("submit-button");
  const backLink = document.getElementById("back-link");
  const hint = document.getElementById("form-hint");
  const activeField = form.querySelector("input[name=active_ms]");
  const activeTotal = document.getElementById("active-total");
  const timerState = document.getElementById("timer-state");

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

  // ---- questions and keyboard -------------------------------------------------------------
  let current = 0;

  function isAnswered(cell) {
    return cell.querySelector("input:checked") !== null;
  }

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
    // An unanswered question takes the focus itself, so no level looks chosen before it is.
    const target = cell.querySelector("input:checked") || cell;
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
      showHint("All answered. Press Enter to submit.");
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
      showHint("Choose a level for every question first.", true);
      return;
    }
    lockAndSend();
    form.submit();
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
    lockAndSend();
  });

  form.addEventListener("change", (event) => {
    const cell = event.target.closest("[data-cell]");
    if (!cell) return;
    showHint("");
    current = cells.indexOf(cell);
    advance();
  });

  form.addEventListener("focusin", (event) => {
    const cell = event.target.closest("[data-cell]");
    if (cell) setCurrent(cells.indexOf(cell), false);
  });

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || submitting) return;
    const tag = (event.target.tagName || "").toLowerCase();
    if (tag === "textarea" || (tag === "input" && event.target.type === "text")) return;
    if (/^[0-9]$/.test(event.key) && cells.length) {
      if (current < 0 || current >= cells.length) current = Math.max(firstOpen(0), 0);
      if (choose(cells[current], event.key)) {
        event.preventDefault();
      } else {
        showHint("Key " + event.key + " is not a level of this question.", true);
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

  const start = firstOpen(0);
  setCurrent(start === -1 ? 0 : start, true);
  if (start === -1 && cells.length) showHint("Revising: change any answer, then press Enter.");
})();
