// Correlation dashboards: sortable matrix table, scatter points that open their segment, and
// live updates of a campaign's dashboards (poll the judgments' fingerprint, swap the content in place).
(function () {
  function sortable(table) {
    table.querySelectorAll("thead th").forEach(function (head, column) {
      head.style.cursor = "pointer";
      head.addEventListener("click", function () {
        const body = table.tBodies[0];
        const rows = Array.from(body.rows);
        const numeric = head.dataset.sort === "num";
        const descending = head.dataset.order !== "desc";
        rows.sort(function (a, b) {
          const x = a.cells[column], y = b.cells[column];
          if (numeric) {
            const p = parseFloat(x.dataset.value), q = parseFloat(y.dataset.value);
            const pv = isNaN(p) ? -Infinity : p, qv = isNaN(q) ? -Infinity : q;
            return descending ? qv - pv : pv - qv;
          }
          return descending ? y.textContent.localeCompare(x.textContent) : x.textContent.localeCompare(y.textContent);
        });
        table.querySelectorAll("thead th").forEach(function (other) { delete other.dataset.order; });
        head.dataset.order = descending ? "desc" : "asc";
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  }

  function clickOpens(element) {
    if (!element || typeof element.on !== "function") return;
    element.on("plotly_click", function (event) {
      const point = event.points && event.points[0];
      if (point && point.customdata && point.customdata[0]) window.location.href = point.customdata[0];
    });
  }

  function live(container) {
    const badge = document.getElementById("live-badge");
    const count = document.getElementById("judgment-count");
    let fingerprint = container.dataset.fingerprint;
    setInterval(function () {
      fetch(container.dataset.stateUrl, { headers: { Accept: "application/json" } })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (state) {
          if (!state || state.fingerprint === fingerprint) return;
          fingerprint = state.fingerprint;
          if (count) count.textContent = state.judgments;
          const url = new URL(window.location.href);
          url.searchParams.set("partial", "1");
          return fetch(url).then(function (r) { return r.text(); }).then(function (html) {
            // The matrix answers with its fragment; other dashboards with the whole page, whose
            // container of the same id is taken.
            const fresh = new DOMParser().parseFromString(html, "text/html").getElementById(container.id);
            container.innerHTML = fresh ? fresh.innerHTML : html;
            container.querySelectorAll("table.sortable").forEach(sortable);
            if (window.evaltransCharts) window.evaltransCharts.renderAll(container);
            container.querySelectorAll("[data-click-opens]").forEach(clickOpens);
            if (badge) { badge.classList.add("flash"); setTimeout(function () { badge.classList.remove("flash"); }, 1200); }
          });
        })
        .catch(function () { /* the next poll tries again */ });
    }, 5000);
  }

  function init() {
    document.querySelectorAll("table.sortable").forEach(sortable);
    document.querySelectorAll("[data-click-opens]").forEach(function (element) {
      // charts.js has drawn the figure by now (it runs first, on the same event).
      setTimeout(function () { clickOpens(element); }, 0);
    });
    const container = document.getElementById("matrix-body") || document.getElementById("dashboard-body");
    if (container && container.dataset.live) live(container);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();

// A settings sweep whose run is computing: show its progress, reload when it is done.
(function () {
  const box = document.getElementById("sweep-running");
  if (!box) return;
  const text = document.getElementById("sweep-progress");
  const timer = setInterval(function () {
    fetch(box.dataset.progressUrl).then(function (r) { return r.json(); }).then(function (progress) {
      if (text && progress.percent !== undefined) text.textContent = "(" + Math.round(progress.percent) + " %)";
      if (progress.status && progress.status !== "queued" && progress.status !== "running") {
        clearInterval(timer);
        window.location.reload();
      }
    }).catch(function () {});
  }, 2000);
})();
