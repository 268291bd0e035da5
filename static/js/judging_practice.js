/* evaltrans practice feedback page: Enter goes on (the Next button has the focus when the page
 * opens; Enter anywhere else on the page, outside links and other buttons, does the same).
 * Without this script the focused button still takes Enter. */
(function () {
  "use strict";

  const next = document.getElementById("next-button");
  if (!next) return;
  next.focus({ preventScroll: true });
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.ctrlKey || event.metaKey || event.altKey) return;
    const tag = (event.target.tagName || "").toLowerCase();
    if (tag === "a" || tag === "button" || tag === "input" || tag === "textarea" || tag === "select") return;
    event.preventDefault();
    next.click();
  });
})();
