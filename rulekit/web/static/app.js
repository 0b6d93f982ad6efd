// A seat's page, kept live: the server sends the changing part of the page as HTML
// (server-sent events), and a click on a choice posts the move with the version it was
// chosen at. No build step, no framework.
"use strict";
(function () {
  const main = document.getElementById("game");
  const error = document.getElementById("error");
  if (!main) return;
  const token = main.dataset.token;
  let version = Number(main.dataset.version);

  function show(msg) {
    if (msg.version < version) return;
    version = msg.version;
    main.dataset.version = String(version);
    main.innerHTML = msg.html;
    main.classList.toggle("over", Boolean(msg.over));
  }

  main.addEventListener("click", async (event) => {
    const button = event.target.closest("button[data-label]");
    if (!button) return;
    main.querySelectorAll("button.choice").forEach((b) => { b.disabled = true; });
    error.textContent = "";
    try {
      const answer = await fetch(`/api/seat/${encodeURIComponent(token)}/move`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ label: button.dataset.label, version: version }),
      });
      const data = await answer.json();
      if (answer.ok) {
        show(data);
      } else {
        error.textContent = data.error || `the server answered ${answer.status}`;
        main.querySelectorAll("button.choice").forEach((b) => { b.disabled = false; });
      }
    } catch (e) {
      error.textContent = "the server cannot be reached: " + e;
      main.querySelectorAll("button.choice").forEach((b) => { b.disabled = false; });
    }
  });

  const events = new EventSource(`/api/seat/${encodeURIComponent(token)}/events`);
  events.onmessage = (event) => {
    const msg = JSON.parse(event.data);
    show(msg);
    if (msg.over) events.close();
  };
})();
