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

  // the connection: lost when the event stream fails or a click cannot be sent; then the
  // banner shows and the page tries again by itself, waiting longer each time (up to
  // RETRY_MOST ms), until the server answers: the view is fetched anew, the stream reopened
  const banner = document.getElementById("connection");
  const RETRY_FIRST = 500;
  const RETRY_MOST = 8000;
  let events = null;
  let retry = RETRY_FIRST;
  let retrying = null;
  let lost = false;

  function connected() {
    retry = RETRY_FIRST;
    if (!lost) return;
    lost = false;
    banner.hidden = true;
    if (error.dataset.connection) {
      error.textContent = "";
      delete error.dataset.connection;
    }
  }

  // `sure`: the server is known not to answer (a click failed); a stream that ended may
  // only have been closed by the server after a while, so the banner waits for a retry
  function connectionLost(sure) {
    if (events) { events.close(); events = null; }
    if (sure === true) {
      lost = true;
      banner.hidden = false;
    }
    if (retrying === null) retrying = setTimeout(reconnect, retry);
  }

  async function reconnect() {
    retrying = null;
    try {
      const answer = await fetch(`/api/seat/${encodeURIComponent(token)}`,
                                 { cache: "no-store" });
      if (answer.status >= 500 && answer.status !== 503) throw new Error("not yet");
      const data = await answer.json();
      if (answer.ok) show(data);
      connected();
      // (an answer that refuses, a 404 or a busy 503, is an answer: the server is back)
    } catch (e) {
      lost = true;
      banner.hidden = false;
      retry = Math.min(retry * 2, RETRY_MOST);
      retrying = setTimeout(reconnect, retry);
      return;
    }
    listen();
  }

  function listen() {
    if (main.classList.contains("over")) { connected(); return; }
    events = new EventSource(`/api/seat/${encodeURIComponent(token)}/events`);
    events.onopen = connected;
    events.onmessage = (event) => {
      connected();
      const msg = JSON.parse(event.data);
      show(msg);
      if (msg.over) { events.close(); events = null; }
    };
    events.onerror = connectionLost;
  }

  async function play(label) {
    buttons(true);
    error.textContent = "";
    delete error.dataset.connection;
    let answer;
    try {
      answer = await fetch(`/api/seat/${encodeURIComponent(token)}/move`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ label: label, version: version }),
      });
    } catch (e) {
      error.textContent = "your move was not sent: the server cannot be reached. The page " +
        "reconnects by itself; choose again once it has.";
      error.dataset.connection = "1";
      buttons(false);
      connectionLost(true);
      return;
    }
    let data = null;
    try { data = await answer.json(); } catch (e) { data = null; }
    if (answer.ok && data) {
      connected();
      show(data);
    } else {
      error.textContent = (data && data.error) ||
        `your move was not played: the server answered with an error (${answer.status}); ` +
        "try again in a moment";
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

  // an invite's copy button: the full link onto the clipboard (or, where the page may
  // not write there, the link selected for the person to copy)
  document.querySelectorAll("button.copy[data-copy]").forEach((button) => {
    button.addEventListener("click", async () => {
      const text = button.dataset.copy;
      try {
        await navigator.clipboard.writeText(text);
        button.textContent = "copied";
      } catch (e) {
        const link = button.previousElementSibling;
        const range = document.createRange();
        range.selectNodeContents(link);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        button.textContent = "selected: copy it";
      }
      setTimeout(() => { button.textContent = "copy"; }, 2000);
    });
  });

  markPieces();
  listen();
})();
