/* Metric runs: live progress polling, sortable results, the preset helper of the run form.
   No framework; data comes from json_script elements and JSON endpoints. Text is always set
   with textContent, never innerHTML (system names and errors are user data). */
(function () {
  "use strict";

  function formatSeconds(seconds) {
    if (seconds === null || seconds === undefined) return "";
    if (seconds > 0 && seconds < 0.5) return "< 1 s";
    seconds = Math.round(seconds);
    if (seconds < 60) return seconds + " s";
    var minutes = Math.floor(seconds / 60);
    if (minutes < 60) return minutes + " min " + (seconds % 60) + " s";
    return Math.floor(minutes / 60) + " h " + (minutes % 60) + " min";
  }

  // --- progress ----------------------------------------------------------------------------
  // A measure's computing time (summed over workers) and what its missing segments need.
  function measureTimes(item, status) {
    var parts = [];
    if (item.elapsed_s) parts.push(formatSeconds(item.elapsed_s) + " computing");
    var active = status === "running" || status === "queued";
    if (active && item.remaining_s) parts.push("about " + formatSeconds(item.remaining_s) + " left");
    return parts.join(" · ");
  }

  function renderProgress(card, data) {
    var bar = document.getElementById("overall-bar");
    bar.setAttribute("aria-valuenow", String(Math.round(data.percent)));
    bar.querySelector("span").style.width = data.percent + "%";
    document.getElementById("overall-text").textContent = data.percent.toFixed(1) + "%";
    document.getElementById("overall-count").textContent = data.done + " / " + data.total;
    document.getElementById("elapsed").textContent =
      data.elapsed_s === null ? "" : formatSeconds(data.elapsed_s) + " elapsed";
    document.getElementById("remaining").textContent =
      data.status === "running" && data.remaining_s !== null
        ? "· about " + formatSeconds(data.remaining_s) + " left" : "";
    data.measures.forEach(function (item) {
      var rows = card.querySelectorAll("tr[data-signature]");
      rows.forEach(function (row) {
        if (row.getAttribute("data-signature") !== item.signature) return;
        row.querySelector(".progress-bar span").style.width = item.percent + "%";
        row.querySelector(".count").textContent = item.done + " / " + item.total;
        row.querySelector(".pct").textContent = Math.round(item.percent) + "%";
        row.querySelector(".times").textContent = measureTimes(item, data.status);
      });
    });
    var status = document.getElementById("run-status");
    status.textContent = data.status_label;
    status.className = "status status-" + data.status;
    card.classList.toggle("done", data.status === "done");
    card.classList.toggle("failed", data.status === "failed");
    var error = document.getElementById("run-error");
    if (data.status === "failed") {
      document.getElementById("run-error-text").textContent = data.error;
      error.hidden = false;
    }
    document.getElementById("run-waiting").hidden = !data.waiting_for_broker;
    var stalled = document.getElementById("run-stalled");
    if (stalled) {
      stalled.hidden = !data.stalled;
      document.getElementById("run-stalled-for").textContent = data.stalled_for;
    }
    var cancel = document.getElementById("cancel-form");
    if (cancel && data.status !== "queued" && data.status !== "running") cancel.hidden = true;
  }

  function pollProgress() {
    window.evaltransProgress.poll({
      cardId: "progress",
      dataId: "progress-data",
      render: renderProgress,
      finished: function (data) {
        // The results table is rendered by the server: load it once.
        if (data.status === "done") window.setTimeout(function () { window.location.reload(); }, 600);
      },
    });
  }

  // --- sortable tables ---------------------------------------------------------------------
  function makeSortable(table) {
    var headers = table.querySelectorAll("th[data-sort]");
    headers.forEach(function (header, column) {
      header.addEventListener("click", function () {
        var numeric = header.getAttribute("data-sort") === "number";
        var ascending = !header.classList.contains("sorted-asc");
        headers.forEach(function (h) { h.classList.remove("sorted-asc", "sorted-desc"); });
        header.classList.add(ascending ? "sorted-asc" : "sorted-desc");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[column], y = b.cells[column];
          if (numeric) {
            var vx = x.getAttribute("data-value"), vy = y.getAttribute("data-value");
            if (vx === "" || vx === null) return 1; // undefined scores last
            if (vy === "" || vy === null) return -1;
            return ascending ? vx - vy : vy - vx;
          }
          var c = x.textContent.trim().localeCompare(y.textContent.trim());
          return ascending ? c : -c;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  }

  // --- run form: presets -------------------------------------------------------------------
  function presetHelper() {
    var form = document.getElementById("run-form");
    var source = document.getElementById("preset-values");
    if (!form || !source) return;
    var presets = JSON.parse(source.textContent);
    var select = form.querySelector("select[name=preset]");
    var defaults = {};
    form.querySelectorAll(".option-field input, .option-field select").forEach(function (input) {
      defaults[input.name] = input.type === "checkbox" ? input.checked : input.value;
    });
    function setValue(input, value) {
      if (input.type === "checkbox") input.checked = value === true || value === "true" || value === "yes";
      else input.value = String(value);
    }
    function apply() {
      var name = select.value;
      var values = presets[name] || {};
      form.querySelectorAll(".option-field input, .option-field select").forEach(function (input) {
        setValue(input, defaults[input.name]);
        input.disabled = Boolean(name);
      });
      Object.keys(values).forEach(function (measure) {
        Object.keys(values[measure]).forEach(function (field) {
          var input = form.querySelector("[name='" + field + "']");
          if (input) setValue(input, values[measure][field]);
        });
      });
      if (name) {
        var named = Object.keys(values);
        form.querySelectorAll("input[name=measures]").forEach(function (box) {
          box.checked = named.length ? named.indexOf(box.value) >= 0 : true;
        });
      }
    }
    select.addEventListener("change", apply);
    if (select.value) apply();
    form.querySelectorAll("[data-check-all],[data-check-none]").forEach(function (link) {
      link.addEventListener("click", function (event) {
        event.preventDefault();
        var field = link.getAttribute("data-check-all") || link.getAttribute("data-check-none");
        var on = link.hasAttribute("data-check-all");
        form.querySelectorAll("input[name='" + field + "']").forEach(function (box) { box.checked = on; });
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    pollProgress();
    document.querySelectorAll("table.sortable").forEach(makeSortable);
    presetHelper();
  });
})();
