// Shows only the fields the chosen import format uses.
(function () {
  const fieldsByFormat = {
    "text": ["source_lang", "target_lang", "source", "references", "systems", "system_names", "docs", "encoding"],
    "sgml": ["source", "references", "systems", "encoding"],
    "wmt-xml": ["file"],
    "evaltrans-xml": ["file", "source_lang", "target_lang"],
    "mqm-tsv": ["file", "source_lang", "target_lang", "reference_systems", "encoding"],
  };
  const optional = ["source_lang", "target_lang", "source", "references", "systems", "system_names",
                    "docs", "file", "reference_systems", "encoding"];
  const select = document.getElementById("id_format");
  if (!select) return;
  function update() {
    const shown = fieldsByFormat[select.value] || optional;
    for (const name of optional) {
      const field = document.querySelector(".field-" + name);
      if (field) field.hidden = !shown.includes(name);
    }
  }
  select.addEventListener("change", update);
  update();
})();
