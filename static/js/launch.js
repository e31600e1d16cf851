// The launch form: fields that apply only to case sets (patient turns, patient model) show
// only while a case set is chosen. The task list itself follows the suite through htmx.
(function () {
  "use strict";

  function suiteSelect(form) {
    return form.querySelector("select[name=suite]");
  }

  function showCaseSetFields(form) {
    var select = suiteSelect(form);
    if (!select) return;
    var option = select.options[select.selectedIndex];
    var patients = !option || option.dataset.patients !== "false";
    form.querySelectorAll("[data-case-set-only]").forEach(function (row) {
      row.hidden = !patients;
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("launch-form");
    if (!form) return;
    showCaseSetFields(form);
    form.addEventListener("change", function (event) {
      if (event.target === suiteSelect(form)) showCaseSetFields(form);
    });
  });
})();
