/* Corpus imports: live progress polling of an import page, as runs.js does for metric runs.
   Text is always set with textContent, never innerHTML (names and messages are user data). */
(function () {
  "use strict";

  function formatSeconds(seconds) {
    if (seconds === null || seconds === undefined) return "";
    seconds = Math.round(seconds);
    if (seconds < 60) return seconds + " s";
    var minutes = Math.floor(seconds / 60);
    if (minutes < 60) return minutes + " min " + (seconds % 60) + " s";
    return Math.floor(minutes / 60) + " h " + (minutes % 60) + " min";
  }

  function render(card, data) {
    var bar = document.getElementById("import-bar");
    bar.setAttribute("aria-valuenow", String(Math.round(data.percent)));
    bar.querySelector("span").style.width = data.percent + "%";
    document.getElementById("import-phase").textContent = data.phase_label;
    document.getElementById("import-count").textContent =
      data.total ? data.done + " / " + data.total + " segments" : "";
    document.getElementById("import-elapsed").textContent =
      data.elapsed_s === null ? "" : formatSeconds(data.elapsed_s) + " elapsed";
    var status = document.getElementById("import-status");
    status.textContent = data.status_label;
    status.className = "status status-" + data.status;
    card.classList.toggle("done", data.status === "done");
    card.classList.toggle("failed", data.status === "failed");
    if (data.status === "failed") {
      document.getElementById("import-error-text").textContent = data.message;
      document.getElementById("import-error").hidden = false;
    }
    if (data.status === "done") {
      document.getElementById("import-done-text").textContent = data.message;
      var link = document.getElementById("test-set-link");
      link.href = data.test_set_url;
      link.textContent = "Open " + data.test_set_label;
      document.getElementById("import-done").hidden = false;
    }
  }

  function poll() {
    window.evaltransProgress.poll({ cardId: "import-progress", dataId: "import-progress-data", render: render });
  }

  poll();
})();
