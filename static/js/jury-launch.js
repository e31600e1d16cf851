// The jury launch form: the sample size and seed show only for a sample, the id box only
// for chosen ids. Without JavaScript every field shows and the server reads the chosen one.
(function () {
  "use strict";

  function showFor(form) {
    var choice = form.querySelector("select[name=conversations]");
    if (!choice) return;
    form.querySelectorAll("[data-for-conversations]").forEach(function (row) {
      row.hidden = row.dataset.forConversations !== choice.value;
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("jury-launch-form");
    if (!form) return;
    showFor(form);
    form.addEventListener("change", function (event) {
      if (event.target.name === "conversations") showFor(form);
    });
  });
})();
