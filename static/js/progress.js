/* Live progress of background work (metric runs, corpus imports): one poller for every page.
   The page renders a card with data-progress-url, data-active="1" while the work may move, and
   the first state as json_script; the poller renders it, then polls until the work is no longer
   queued or running, backing off while the server is busy or away. */
window.evaltransProgress = (function () {
  "use strict";

  function poll(options) {
    var card = document.getElementById(options.cardId);
    if (!card) return;
    var initial = document.getElementById(options.dataId);
    if (initial) options.render(card, JSON.parse(initial.textContent));
    if (card.getAttribute("data-active") !== "1") return;
    var url = card.getAttribute("data-progress-url");
    var delay = 1000;
    function tick() {
      fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (response) {
          if (!response.ok) throw new Error("HTTP " + response.status);
          return response.json();
        })
        .then(function (data) {
          options.render(card, data);
          if (data.status === "running" || data.status === "queued") {
            delay = 1000;
            window.setTimeout(tick, delay);
          } else if (options.finished) {
            options.finished(data);
          }
        })
        .catch(function () {
          delay = Math.min(delay * 2, 15000);
          window.setTimeout(tick, delay);
        });
    }
    window.setTimeout(tick, delay);
  }

  return { poll: poll };
})();
