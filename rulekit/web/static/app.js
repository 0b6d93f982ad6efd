// A seat's page, kept live: the server sends the changing part of the page as HTML
// (server-sent events), and a click on a choice posts the move with the version it was
// chosen at. No build step, no framework.
//
// A piece drawn with `data-pick` (a sheet cell "red 7", a tile "3|12", a lane "5") can be
// clicked too when the labels of the choices name it (its words in a row within a label):
// one such choice is played at once; several are marked, for the person to pick one.
// A piece with `data-picks` (a JSON list of labels: a grid's cell that several choices
// fill) fits exactly those choices.
"use strict";
(function () {
  const main = document.getElementById("game");
  const error = document.getElementById("error");
  if (!main) return;
  const token = main.dataset.token;
  let version = Number(main.dataset.version);

  function names(label, pick) {
    const l = label.trim().split(/\s+/);
    const p = pick.trim().split(/\s+/);
    for (let i = 0; i + p.length <= l.length; i++) {
      if (p.every((w, j) => l[i + j] === w)) return true;
    }
    return false;
  }

  function choicesFor(piece) {
    const buttons = Array.from(main.querySelectorAll("button.choice"));
    if (piece.dataset.picks !== undefined) {
      const labels = JSON.parse(piece.dataset.picks);
      return buttons.filter((b) => labels.includes(b.dataset.label));
    }
    return buttons.filter((b) => names(b.dataset.label, piece.dataset.pick));
  }

  function markPieces() {
    main.querySelectorAll("[data-pick], [data-picks]").forEach((piece) => {
      piece.classList.toggle("pickable", choicesFor(piece).length > 0);
    });
  }

  function show(msg) {
    if (msg.version < version) return;
    version = msg.version;
    main.dataset.version = String(version);
    main.innerHTML = msg.html;
    main.classList.toggle("over", Boolean(msg.over));
    markPieces();
  }

  function buttons(disabled) {
    main.querySelectorAll("button.choice").forEach((b) => { b.disabled = disabled; });
  }

  async function play(label) {
    buttons(true);
    error.textContent = "";
    try {
      const answer = await fetch(`/api/seat/${encodeURIComponent(token)}/move`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ label: label, version: version }),
      });
      const data = await answer.json();
      if (answer.ok) {
        show(data);
      } else {
        error.textContent = data.error || `the server answered ${answer.status}`;
        buttons(false);
      }
    } catch (e) {
      error.textContent = "the server cannot be reached: " + e;
      buttons(false);
    }
  }

  main.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-label]");
    if (button) {
      play(button.dataset.label);
      return;
    }
    const piece = event.target.closest("[data-pick].pickable, [data-picks].pickable");
    main.querySelectorAll("button.choice.picked").forEach((b) => b.classList.remove("picked"));
    const choices = main.querySelector(".choices");
    if (choices) choices.classList.remove("narrowed");
    if (!piece) return;
    const fit = choicesFor(piece);
    if (fit.length === 1) {
      play(fit[0].dataset.label);
    } else if (fit.length > 1) {
      fit.forEach((b) => b.classList.add("picked"));
      choices.classList.add("narrowed");
      fit[0].scrollIntoView({ block: "nearest" });
    }
  });

  markPieces();
  const events = new EventSource(`/api/seat/${encodeURIComponent(token)}/events`);
  events.onmessage = (event) => {
    const msg = JSON.parse(event.data);
    show(msg);
    if (msg.over) events.close();
  };
})();
