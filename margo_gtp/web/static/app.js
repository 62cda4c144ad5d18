// margo-web page: shows what the server sends, sends back intents. No rule of MarGo lives
// here (style.md item 24): legality, results and positions all come from the server.

import { graphPly, renderBoard, renderSlices, renderWinrates, vertex } from "./board.js";
import { clockHtml, followClocks, stopClocks } from "./clocks.js";
import { followGuide } from "./guide.js";
import { drawCursor } from "./keyboard.js";
import { escapeHtml, fetchJson, setStatus, shortName, ui } from "./page.js";
import { formPreset, formRules, presetTitle, showPresets } from "./presets.js";
import { receiveReview, renderReview, reviewFrom, reviewOptions, startReview, stopReview } from "./review.js";
import { wireRulesDialog } from "./rules.js";
import { markEngineSeats } from "./seats.js";
import { soundForMoves } from "./sound.js";
import { sideLine } from "./variation.js";
import { followLive, openWatchGame, receiveWatched, refreshWatch } from "./watch.js";
import { followThinking, receiveThinking, stopThinking, thinkingLine, thinkingStatus } from "./thinking.js";
import { plainRefusal, resultWords } from "./words.js";

let socket = null;
let retries = 0;
let engines = [];
let engineLabels = {}; // name -> what the form shows ("Level 3 — about 1,200"), from the server
let game = null;          // last state of the game this page follows
let gameId = null;
let pendingNew = null;    // a "new" message to send once connected
let attaching = false;    // an "attach" was sent and not answered yet
let mode = "play";        // "play" | "replay" | "watch"
let replay = null;        // {frames, moves, result, index, title, live, key, review}
let watchTimer = null;
let lookBack = null;      // in play: a replay of this game shown at an earlier ply (← →, a move clicked)
let foldedFor = null;     // the running game the new-game form was folded for
let lastFrame = null;     // the frame drawn last in play (captures flash against it)
let offline = false;      // the socket is down: the board takes no move until it is back

const COLOUR_NAME = { W: "White", B: "Black" };
const LOST = "Connection to the server lost: reconnecting…";

// The board is the largest square that fits: the width of its column, and the height of the
// window below the status line minus the rows under the board (hover, buttons, replay bar).
// Called on resize and after every drawing; it reads sizes only, so it never scrolls the page.
function fitBoard() {
  const rows = [...ui.boardArea.children].filter((el) => !el.hidden);
  const first = rows[0].getBoundingClientRect(), last = rows[rows.length - 1].getBoundingClientRect();
  const box = ui.boardBox.getBoundingClientRect();
  const others = (last.bottom - first.top) - box.height;
  const main = getComputedStyle(ui.boardArea.parentElement);
  const pageTop = first.top + window.scrollY;
  // A phone in Replay or Watch keeps the board stuck at the top (style.css), so its size
  // must not follow the scroll (read from the page's top, it shrank as the list under it
  // was scrolled): with its rows it takes at most 55% of the screen, so the graph and the
  // mistakes show under it, but the board itself keeps 30% of the screen's height, which a
  // small phone's rows would eat (at 360x640 they left it 160 px, too small to tap a point).
  // A phone on its side draws the board beside its rows (style.css): the window's height
  // below the board's top is all the board's.
  const beside = getComputedStyle(ui.boardArea).display === "grid";
  const stuck = !beside && document.body.classList.contains("browsing") && window.innerWidth <= 760;
  const height = beside ? window.innerHeight - (box.top + window.scrollY) - parseFloat(main.paddingBottom)
    : stuck ? Math.max(window.innerHeight * 0.55 - others, window.innerHeight * 0.30)
    : window.innerHeight - pageTop - others - parseFloat(main.paddingBottom);
  const side = Math.max(160, Math.floor(Math.min(ui.boardBox.clientWidth, height)));
  if (ui.board.style.width !== `${side}px`) {
    ui.board.style.width = ui.board.style.height = `${side}px`;
  }
  // The drawing's units per screen pixel: style.css keeps the level digits 9 px at least by it.
  const span = ui.board.viewBox.baseVal?.width;
  if (span) ui.board.style.setProperty("--units-per-px", (span / side).toFixed(3));
}
window.addEventListener("resize", fitBoard);
new ResizeObserver(fitBoard).observe(ui.boardArea.parentElement);

// The page's own view options, applied to every board it draws.
function viewOptions(frame, moves) {
  const options = {};
  const level = Number(ui.levelView.value);
  if (level) options.level = level;
  if (ui.numbers.checked && moves) {
    // A ball's number is the last ply that played its point (a point can be played again
    // after a capture); pure display, read off the move list the server sent.
    const numbers = new Map();
    moves.slice(0, frame.ply).forEach((m, i) => numbers.set(m.move, i + 1));
    options.numbers = numbers;
  }
  return options;
}

function fillLevelView(size) {
  if (ui.levelView.options.length === size + 1) return;
  const before = ui.levelView.value;
  ui.levelView.innerHTML = '<option value="">all</option>' +
    Array.from({ length: size }, (_, i) => `<option value="${i + 1}">${i + 1}</option>`).join("");
  ui.levelView.value = Number(before) <= size ? before : "";
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify(message));
    return true;
  }
  return false;
}

// ---------------------------------------------------------------- connection

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws`);
  socket.onopen = () => {
    retries = 0;
    ui.connection.textContent = "connected";
    ui.connection.classList.remove("down");
    if (offline) {
      offline = false;
      ui.board.classList.remove("offline");
      if (mode === "play" && !gameId && !pendingNew) renderPlay();   // a game comes back with its state
    }
    if (pendingNew) {
      send(pendingNew);
      pendingNew = null;
    } else if (gameId) {
      attaching = true;
      send({ type: "attach", game: gameId });   // resume the view after a dropped socket
    }
    followLive();
  };
  socket.onmessage = (event) => receive(JSON.parse(event.data));
  socket.onclose = () => {
    const review = replay && replay.review;
    if (review && review.source === "live" && !review.done) {
      // The server stops a review whose page went away: say so, and keep what came.
      review.done = true;
      review.error = `the connection dropped: the review stopped after ${review.entries.length} of ${review.total} moves (Review again to redo it)`;
      renderReview();
    }
    ui.connection.textContent = "reconnecting…";
    ui.connection.classList.add("down");
    if (!offline) {
      offline = true;
      ui.board.classList.add("offline");
      stopThinking();
      stopClocks();
      if (mode === "play") setStatus(LOST, "error");
    }
    const delay = Math.min(5000, 250 * 2 ** retries++);
    setTimeout(connect, delay);
  };
}

function receive(message) {
  followGuide(message);
  if (message.type === "hello") {
    engines = message.engines;
    engineLabels = message.labels || {};
    fillPlayerSelects();
    showPresets(message.presets);
    document.querySelector("[data-tab=watch]").hidden = !message.watch;
    if (!gameId && !pendingNew && mode === "play" && !game) showEmptyBoard();
  } else if (message.type === "state") {
    attaching = false;
    game = message;
    if (gameId !== message.game) {
      lookBack = null;
      lastFrame = null;
      gameId = message.game;
      history.replaceState(null, "", `/#game=${gameId}`);
      // A new game folds the form away under the finger: bring the status and the board back
      // into view (on a phone Start is far down the page).
      requestAnimationFrame(() => window.scrollTo(0, 0));
    }
    soundForMoves(game);
    followClocks(game);
    followThinking(game, () => {
      if (mode === "play" && game && !lookBack && !offline) setStatus(playStatus());
    });
    if (mode === "play") renderPlay();
  } else if (message.type === "thinking") {
    receiveThinking(message, game);
  } else if (message.type === "watch") {
    receiveWatched(message);
  } else if (message.type === "review") {
    receiveReview(message);
  } else if (message.type === "error") {
    if (attaching && message.message.startsWith("no such game")) {
      // A game from before a server restart: its record, if it finished, is under Replay.
      attaching = false;
      game = null;
      gameId = null;
      history.replaceState(null, "", "/");
      if (mode === "play") {
        renderPlay();
        setStatus("That game is no longer open (finished games are under Replay)", "error");
      }
      return;
    }
    if (mode === "play") showRefusal(message.message);
    else if (mode === "watch") setStatus(message.message, "error");
    else if (replay && replay.review && replay.review.asked) {
      // The review request was refused (another review runs, a game too long...).
      replay.review = { ...replay.review, asked: false, done: true, error: message.message };
      renderReview();
    }
  }
}

// ---------------------------------------------------------------- play

function fillPlayerSelects() {
  const options = ["human", ...engines]
    .map((name) => `<option value="${escapeHtml(name)}">${escapeHtml(engineLabels[name] || name)}</option>`).join("");
  for (const select of document.querySelectorAll("[data-role=player-select]")) {
    const before = select.value;
    select.innerHTML = options;
    select.value = before || (select.name === "white" ? "human" : engines[0] || "human");
  }
  ui.replaceEngine.innerHTML = options;
}

function showEmptyBoard() {
  const size = Number(ui.form.size.value) || 7;
  renderBoard(ui.board, { size, balls: [], targets: [], last: null });
  ui.board.classList.add("idle");
  ui.slices.innerHTML = "";
  ui.players.innerHTML = "";   // no game, no seats (on a phone their strip goes with them)
  ui.newGameBox.open = true;
  ui.resultPanel.hidden = true;
  setStatus(offline ? LOST : "Choose the players and press Start", offline ? "error" : "");
  fitBoard();
}

function renderPlay() {
  ui.replayBar.hidden = true;
  if (!game) {
    showEmptyBoard();
    return;
  }
  // The new-game form folds away while a game runs (once: the user may open it again).
  if (!game.over && foldedFor !== game.game) {
    foldedFor = game.game;
    ui.newGameBox.open = false;
  }
  const frame = game.frame;
  fillLevelView(frame.size);
  const crashed = Object.keys(game.crashed).length > 0;
  if (lookBack && lookBack.plies !== game.moves.length) {
    lookBackTo(lookBack.index);   // the game changed meanwhile (an engine's move, an undo): look again
    return;
  }
  if (lookBack) {
    renderLookBack();
  } else {
    const mover = game.human_to_move && !game.over ? frame.to_move : null;
    const flash = lastFrame && lastFrame.size === frame.size && frame.ply === lastFrame.ply + 1 ? capturedSince(lastFrame, frame) : [];
    lastFrame = frame;
    renderBoard(ui.board, frame, { mover, analysis: game.analysis_on ? game.analysis : null, flash,
      ...viewOptions(frame, game.moves) });
    ui.board.classList.toggle("idle", !mover);
    ui.hover.textContent = "\u00a0";   // the points under the cursor were redrawn
    ui.hover.classList.remove("illegal");
    if (offline) setStatus(LOST, "error");
    else setStatus(playStatus(), game.over ? "over" : crashed ? "error" : "");
  }
  renderResult();
  // The tab's title tells a player in another tab that it is their move, or how it ended.
  const yours = game.human_to_move && Object.values(game.seats).some((seat) => seat !== "human");
  document.title = game.over ? `${resultWords(game.result, game.status).title} — margo-web` :
    yours ? "Your turn — margo-web" : "margo-web";
  markEngineSeats(game);
  ui.players.innerHTML = ["W", "B"].map((c) => {
    const toMove = !game.over && frame.to_move === c ? " to-move" : "";
    const won = game.over && game.result && game.result.startsWith(`${c}+`) ? ' <span class="winner-badge" data-role="winner-badge">winner</span>' : "";
    return `<div class="player${toMove}" data-seat="${c}"><span class="dot dot-${c}"></span>` +
      `${COLOUR_NAME[c]}: ${escapeHtml(game.seats[c])}${won}${clockHtml(c)}</div>${thinkingLine(c)}`;
  }).join("");
  for (const action of ["pass", "swap", "resign", "undo"]) {
    document.querySelector(`[data-action=${action}]`).disabled = !game.can[action];
  }
  if (!game.can.resign) askResign(false);
  // An ended game keeps Undo (a resignation can be taken back); the result panel offers the rest.
  for (const action of ["pass", "swap", "resign"]) document.querySelector(`[data-action=${action}]`).hidden = game.over;
  ui.download.hidden = game.over;
  ui.download.href = `/api/games/${game.game}.sgf`;
  ui.reviewGame.disabled = game.moves.length === 0;
  ui.crash.hidden = !crashed;
  ui.analysisToggle.checked = game.analysis_on;
  ui.analysis.hidden = !game.analysis_on;
  if (game.analysis_on) {
    const a = game.analysis;
    ui.analysisText.textContent = !a ? "analysing…" : a.error ? a.error :
      `${COLOUR_NAME[a.to_move]} win rate ${(a.winrate * 100).toFixed(1)}%; best ${a.moves.length ? a.moves[0].move : "-"}` +
      (a.visits ? `; ${a.visits} visits` : "");
    // What the overlay shows, for tests and tools: the position analysed and the search's
    // size (it grows while the server streams the analysis).
    ui.analysisText.dataset.ply = a && !a.error && a.ply !== undefined ? a.ply : "";
    ui.analysisText.dataset.visits = a && !a.error && a.visits ? a.visits : "";
    renderWinrates(ui.winrateGraph, game.winrates, lookBack ? lookBack.index : frame.ply);
  }
  if (!lookBack) renderInfo(frame, game.moves, frame.ply);
  drawCursor();
  fitBoard();
}

// The status line of the running game: the server's words, and while an engine thinks the
// seconds it has taken against its budget (a slow engine shows it is alive; thinking.js).
function playStatus() {
  return game.over ? game.status : thinkingStatus(game.status);
}

// The end of a game: a panel under the board names the winner and why, and offers what next.
function renderResult() {
  const over = Boolean(game && game.over && !lookBack);
  ui.resultPanel.hidden = !over;
  if (!over) return;
  const words = resultWords(game.result, game.status);
  ui.winner.textContent = words.title;
  ui.resultWhy.textContent = words.why;
  ui.resultRules.textContent = presetTitle(game.preset) ? `Rules: ${presetTitle(game.preset)}` : "";
  ui.resultPanel.dataset.winner = words.winner || "";
  ui.resultDownload.href = `/api/games/${game.game}.sgf`;
}

// A refused move in plain words, with a link to the rule (under the board).
function showRefusal(message) {
  const plain = plainRefusal(message);
  setStatus(plain ? plain.text : message, "error");
  ui.status.title = message;   // the server's exact words stay at hand
  ui.hover.classList.toggle("illegal", Boolean(plain));
  if (plain && plain.rule) {
    ui.hover.innerHTML = `<a href="/rules#${plain.rule}" data-rule="${plain.rule}">Why? Read the rule</a>`;
  }
}

wireRulesDialog();   // the header's Rules and every "Why?" link open the rules (rules.js)

// Resign asks first: the button gives way to "Resign this game? Yes, resign / No".
function askResign(asking) {
  ui.resignConfirm.hidden = !asking;
  ui.resign.hidden = asking || mode !== "play";
}

// The balls of `before` that are gone in `after`, but for a ball played over (a capture
// empties points; the server's frames say which).
function capturedSince(before, after) {
  const now = new Set(after.balls.map((b) => b.v));
  return before.balls.filter((b) => !now.has(b.v)).map((b) => b.v);
}

// ---------------------------------------------------------------- looking back in play

// Show ply `ply` of the running game (from the server's replay of its record), or the
// game itself again when `ply` is its last.
async function lookBackTo(ply) {
  if (!game) return;
  const last = game.moves.length;
  if (ply >= last) {
    lookBack = null;
    renderPlay();
    return;
  }
  ply = Math.max(0, ply);
  if (!lookBack || lookBack.plies !== last) {
    try {
      const data = await fetchJson(`/api/games/${encodeURIComponent(game.game)}/replay`);
      lookBack = { ...data, index: ply, frames: placeFrames([], 0, data.frames) };
    } catch (error) {
      setStatus(error.message, "error");
      return;
    }
  }
  lookBack.index = ply;
  renderPlay();
}

async function renderLookBack() {
  const i = lookBack.index;
  const frame = await frameAt(lookBack, i);
  if (!lookBack || lookBack.index !== i || mode !== "play") return;
  renderBoard(ui.board, frame, { ...viewOptions(frame, lookBack.moves) });
  ui.board.classList.add("idle");
  const move = i > 0 ? ` (${lookBack.moves[i - 1].colour} ${lookBack.moves[i - 1].move})` : "";
  setStatus(`Looking back: move ${i} of ${lookBack.plies}${move} — → or End: back to the game`);
  renderInfo(frame, lookBack.moves, i);
  fitBoard();
}

// Keep a list's current item in sight by scrolling the list only: scrollIntoView would
// scroll the page as well, and a page that moves under the finger loses the next tap.
function keepCurrentInSight(list) {
  const item = list.querySelector(".current");
  if (!item) return;
  const top = item.offsetTop, bottom = top + item.offsetHeight;
  if (top < list.scrollTop) list.scrollTop = top;
  else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
}

function renderInfo(frame, moves, current) {
  ui.counts.innerHTML = ["W", "B"].map((c) =>
    `<div data-count="${c}"><span class="dot dot-${c}"></span> ${COLOUR_NAME[c]}: ${frame.score[c]} balls, ` +
    `captured <span data-role="captured-${c}">${frame.captured[c]}</span></div>`).join("");
  ui.moves.innerHTML = moves.map((m, i) =>
    `<li data-ply="${i + 1}"${i + 1 === current ? ' class="current"' : ""}>${m.colour} ${escapeHtml(m.move)}</li>`).join("");
  keepCurrentInSight(ui.moves);
  const comments = mode === "play" ? null : replay && replay.comments;
  const comment = comments && current > 0 ? comments[current - 1] : null;
  ui.comment.hidden = !comment;
  ui.comment.textContent = comment || "";
  renderSlices(ui.slices, frame);
}

ui.moves.addEventListener("click", (event) => {
  const item = event.target.closest("[data-ply]");
  if (!item) return;
  const ply = Number(item.dataset.ply);
  if (mode === "play") lookBackTo(ply);
  else step(ply);
});

function startGame(message) {
  game = null;
  gameId = null;
  setMode("play");
  if (!send(message)) pendingNew = message;
  setStatus("Starting…");
}

ui.form.addEventListener("submit", (event) => {
  event.preventDefault();
  const f = ui.form;
  const minutes = Number(f.clock_minutes.value);   // 0: no game clock
  startGame({ type: "new", size: Number(f.size.value), white: f.white.value, black: f.black.value,
    seconds: Number(f.seconds.value), rules: formRules(), preset: formPreset(),
    ...(minutes > 0 ? { clock: { main: minutes * 60, increment: Number(f.clock_increment.value) || 0 } } : {}) });
});

ui.board.addEventListener("click", (event) => {
  if (mode !== "play" || !game || offline) return;
  if (lookBack) {
    lookBackTo(Infinity);   // a click on a past position brings the game back first
    return;
  }
  const point = event.target.closest("[data-vertex]");
  if (point) send({ type: "play", move: point.dataset.vertex });
  else if (game.human_to_move && !game.over) {
    // Between the points: say so, and take down an older error.
    setStatus(`No ball can go there: click a free point (${game.status})`, "error");
  }
});

// Hover: name the point a click would take (the point under the cursor that the server
// marked as a target: the lowest free supported one) and say whether the server calls it legal.
ui.board.addEventListener("mouseover", (event) => {
  if (mode === "replay") return;   // variation.js says what a click would try there
  const point = event.target.closest("g[data-vertex]");
  const target = point && point.querySelector("[data-target]");
  let text = "\u00a0";
  let illegal = false;
  if (point && mode === "play" && game && game.human_to_move && !game.over && !lookBack) {
    if (target) {
      illegal = target.dataset.legal !== "true";
      text = `${point.dataset.vertex}: ${illegal ? `illegal (${target.dataset.why})` : "legal"}`;
    } else if (point.querySelector("[data-ball]")) {
      illegal = true;
      text = `${point.dataset.vertex}: occupied`;
    }
  }
  ui.hover.textContent = text;
  ui.hover.classList.toggle("illegal", illegal);
});
ui.board.addEventListener("mouseleave", () => {
  // A refusal's link to its rule stays: a finger going for it leaves the board first.
  if (!ui.hover.querySelector("[data-rule]")) ui.hover.textContent = "\u00a0";
});

for (const action of ["pass", "swap"]) {
  document.querySelector(`[data-action=${action}]`).addEventListener("click", () => send({ type: "play", move: action }));
}
ui.resign.addEventListener("click", () => askResign(true));
document.querySelector("[data-action=resign-no]").addEventListener("click", () => askResign(false));
document.querySelector("[data-action=resign-yes]").addEventListener("click", () => {
  askResign(false);
  send({ type: "play", move: "resign" });
});
// What next after a game: the same game again, its review, or the form for another.
document.querySelector("[data-action=rematch]").addEventListener("click", () => {
  if (!game) return;
  startGame({ type: "new", size: game.frame.size, white: game.seats.W, black: game.seats.B, seconds: game.seconds,
    ...(game.clock ? { clock: { main: game.clock.main, increment: game.clock.increment } } : {}),
    rules: Object.fromEntries(Object.entries(game.rules).map(([k, v]) => [k, String(v)])),
    ...(game.preset ? { preset: game.preset } : {}) });
});
document.querySelector("[data-action=result-review]").addEventListener("click", () => ui.reviewGame.click());
document.querySelector("[data-action=show-new-game]").addEventListener("click", () => {
  ui.newGameBox.open = true;
  ui.newGameBox.scrollIntoView({ block: "start" });
});
document.querySelector("[data-action=undo]").addEventListener("click", () => send({ type: "undo" }));
document.addEventListener("click", (event) => {
  // Any game action brings the running game back into view.
  if (lookBack && event.target.closest("[data-action=pass], [data-action=swap], [data-action=resign-yes], [data-action=undo]")) {
    lookBack = null;
  }
}, true);
document.querySelector("[data-action=replace]").addEventListener("click", () => {
  if (!game) return;
  for (const colour of Object.keys(game.crashed)) send({ type: "seat", colour, player: ui.replaceEngine.value });
});
ui.analysisToggle.addEventListener("change", () => send({ type: "analysis", on: ui.analysisToggle.checked }));
ui.form.size.addEventListener("change", () => { if (!game && mode === "play") showEmptyBoard(); });
for (const control of [ui.numbers, ui.levelView]) {
  control.addEventListener("change", () => (mode === "play" ? renderPlay() : renderReplay()));
}
ui.winrateGraph.addEventListener("click", (event) => {
  const ply = graphPly(ui.winrateGraph, event);
  if (ply !== null && mode === "play") lookBackTo(ply);
});

// ---------------------------------------------------------------- replay (SGF, saved, watched)

// A replay's frames: all of them for a watched game; for a record (`replay` id) the server
// sends the first few and the page asks for more around the ply it shows (frameAt).
const pliesOf = (r) => r.plies ?? r.frames.length - 1;

function placeFrames(frames, from, more) {
  more.forEach((f, j) => { frames[from + j] = f; });
  return frames;
}

async function frameAt(r, i) {
  if (!r.frames[i]) {
    const from = Math.max(0, i - 8);
    const data = await fetchJson(`/api/replay/${encodeURIComponent(r.replay)}/frames?from=${from}&count=32`);
    placeFrames(r.frames, data.from, data.frames);
  }
  return r.frames[i];
}

function showReplay(data, title, start) {
  // The same game again (a live feed polled): stay where the viewer is, or follow the end.
  const same = replay && replay.key && replay.key === data.key;
  const wasAtEnd = same && replay.index === pliesOf(replay);
  const before = same ? replay.index : 0;
  if (!same) stopReview();
  replay = { ...data, title, review: reviewFrom(data.review) };
  const last = pliesOf(replay);
  replay.index = same ? (wasAtEnd ? last : Math.min(before, last)) : start === "end" ? last : 0;
  renderGameInfo();
  renderReplay();
}

function renderGameInfo() {
  const r = replay;
  ui.gameInfo.hidden = !r || mode !== "replay";
  if (ui.gameInfo.hidden) return;
  const line = (label, value) => (value ? `<div><b>${label}</b> ${escapeHtml(value)}</div>` : "");
  ui.gameInfo.innerHTML = line("White", r.white) + line("Black", r.black) + line("Result", r.result) +
    line("Date", r.date) + line("Event", r.event) + line("Size", `${r.rules ? r.rules.size : ""}`) +
    (r.comment ? `<div class="comment">${escapeHtml(r.comment)}</div>` : "") +
    (r.notes || []).map((n) => `<div class="note" data-role="note">Note: ${escapeHtml(n)}</div>`).join("");
}

async function renderReplay() {
  if (!replay) {
    ui.replayBar.hidden = true;
    renderBoard(ui.board, { size: 7, balls: [], targets: [], last: null });
    setStatus(mode === "watch" ? "Choose a game" : "Load an SGF file or pick a saved game");
    renderGameInfo();
    renderReview();
    fitBoard();
    return;
  }
  const shown = replay;
  const n = pliesOf(replay);
  const i = replay.index;
  let frame = replay.frames[i];
  if (!frame) {
    setStatus(`${replay.title}: loading move ${i}…`);
    try {
      frame = await frameAt(replay, i);
    } catch (error) {
      setStatus(error.message, "error");
      return;
    }
    if (replay !== shown || replay.index !== i) return;   // the viewer moved on meanwhile
  }
  fillLevelView(frame.size);
  const tried = sideLine(replay, i);   // variation.js: a side line tried from here, or the points to try one on
  renderBoard(ui.board, tried ? tried.frame : frame, { ...viewOptions(frame, replay.moves), ...reviewOptions(i), ...(tried && tried.options) });
  ui.board.classList.toggle("idle", !tried || !tried.options.mover);
  ui.replayBar.hidden = false;
  ui.slider.max = n;
  ui.slider.value = i;
  ui.ply.textContent = `${i}/${n}`;
  let text = `${replay.title}: move ${i} of ${n}`;
  if (i > 0) text += ` (${replay.moves[i - 1].colour} ${replay.moves[i - 1].move})`;
  if (replay.live) text += " — live";
  if (i === n && replay.result) text += ` — result ${replay.result}`;
  if (replay.error) text += ` — ${replay.error}`;
  setStatus(tried?.status || text, i === n && replay.result && !tried?.status ? "over" : "");
  renderInfo(tried ? tried.frame : frame, replay.moves, i);
  renderReview();
  fitBoard();
}

function step(to) {
  if (!replay) return;
  replay.index = Math.max(0, Math.min(pliesOf(replay), to));
  renderReplay();
}

ui.slider.addEventListener("input", () => step(Number(ui.slider.value)));
document.querySelector("[data-action=first]").addEventListener("click", () => step(0));
document.querySelector("[data-action=prev]").addEventListener("click", () => step(replay.index - 1));
document.querySelector("[data-action=next]").addEventListener("click", () => step(replay.index + 1));
document.querySelector("[data-action=last]").addEventListener("click", () => step(Infinity));
// Keys, everywhere: ← → Home End step through the game shown (in Play: back through the
// running game and forward to it again); in Play, u takes back and p passes.
document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest("input:not([type=range]):not([type=checkbox]), select, textarea")) return;
  if (mode === "play") {
    if (!game) return;
    const at = lookBack ? lookBack.index : game.moves.length;
    const moves = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: Infinity };
    if (event.key in moves) {
      event.preventDefault();
      lookBackTo(moves[event.key]);
    } else if (event.key === "u" && game.can.undo) {
      send({ type: "undo" });
    } else if (event.key === "p" && game.can.pass && game.human_to_move) {
      send({ type: "play", move: "pass" });
    }
    return;
  }
  if (!replay) return;
  const moves = { ArrowLeft: replay.index - 1, ArrowRight: replay.index + 1, Home: 0, End: Infinity };
  if (event.key in moves) {
    event.preventDefault();
    step(moves[event.key]);
  }
});

ui.sgfFile.addEventListener("change", async () => {
  const file = ui.sgfFile.files[0];
  if (!file) return;
  try {
    const data = await fetchJson("/api/replay", { method: "POST", body: await file.text() });
    showReplay(data, file.name, "start");
  } catch (error) {
    setStatus(error.message, "error");
  }
  ui.sgfFile.value = "";
});

async function loadSaved() {
  try {
    const data = await fetchJson("/api/saved");
    // An unfinished game (kept across restarts) opens in Play, where it goes on.
    // The game this page plays is not deleted under it (the server refuses it too).
    const own = (g) => (g.id === gameId ? "" : `<button type="button" class="delete" data-delete="${escapeHtml(g.id)}">Delete</button>`);
    // A finished game's record, as its SGF is kept; an unfinished one has only its journal (resumed, Play downloads it).
    const download = (g) => (g.unfinished ? "" : `<a class="button download" data-download href="/api/games/${encodeURIComponent(g.id)}.sgf" download>Download</a>`);
    ui.savedList.innerHTML = data.games.map((g) =>
      `<li data-game="${escapeHtml(g.id)}"><span class="saved-what" data-${g.unfinished ? "resume" : "saved"}="${escapeHtml(g.id)}">` +
      `${g.size}×${g.size} ${escapeHtml(shortName(g.white))} – ${escapeHtml(shortName(g.black))}: ` +
      `${g.unfinished ? "<b>unfinished — resume</b>" : escapeHtml(g.result ?? "unfinished")} (${g.moves} moves)` +
      (g.preset_title ? ` <span class="saved-rules" data-role="saved-rules">${escapeHtml(g.preset_title)}</span>` : "") +
      ` <span class="saved-date" data-role="saved-date">${escapeHtml(g.date)}</span></span>` +
      `${download(g)}${own(g)}</li>`).join("") ||
      "<li>none yet</li>";
  } catch (error) {
    ui.savedList.innerHTML = `<li>${escapeHtml(error.message)}</li>`;
  }
}

ui.savedList.addEventListener("click", async (event) => {
  const remove = event.target.closest("[data-delete]");
  if (remove) {
    // Asks first: the button turns into "Delete for good?"; a second tap deletes.
    if (!remove.dataset.asked) {
      remove.dataset.asked = "1";
      remove.textContent = "Delete for good?";
      return;
    }
    try {
      await fetchJson(`/api/saved/${encodeURIComponent(remove.dataset.delete)}`, { method: "DELETE" });
    } catch (error) {
      setStatus(error.message, "error");
    }
    loadSaved();
    return;
  }
  const resume = event.target.closest("[data-resume]");
  if (resume) {
    location.hash = `game=${resume.dataset.resume}`;   // the hashchange handler attaches
    return;
  }
  const item = event.target.closest("[data-saved]");
  if (!item) return;
  try {
    showReplay(await fetchJson(`/api/saved/${encodeURIComponent(item.dataset.saved)}`), "saved game", "start");
  } catch (error) {
    setStatus(error.message, "error");
  }
});

ui.watchGames.addEventListener("click", (event) => {
  const row = event.target.closest("[data-key]");
  if (!row) return;
  replay = null;
  openWatchGame(row.dataset.key, row.dataset.title);
});

// ---------------------------------------------------------------- tabs and start-up

function setMode(next) {
  mode = next;
  for (const tab of document.querySelectorAll("[data-tab]")) tab.classList.toggle("active", tab.dataset.tab === next);
  for (const panel of document.querySelectorAll("[data-panel]")) panel.hidden = panel.dataset.panel !== next;
  // The game buttons under the board belong to Play; the view options stay everywhere.
  for (const control of document.querySelectorAll("[data-role=play-buttons] > button")) control.hidden = next !== "play";
  askResign(false);
  document.body.classList.toggle("browsing", next !== "play");
  if (next !== "play") document.title = "margo-web";
  if (next !== "play") {
    ui.download.hidden = true;
    ui.resultPanel.hidden = true;
  }
  clearInterval(watchTimer);
  send({ type: "unwatch" });
  stopReview();
  if (next === "play") {
    renderPlay();
  } else {
    replay = null;
    lookBack = null;
    renderReplay();
    if (next === "replay") loadSaved();
    if (next === "watch") {
      refreshWatch();
      watchTimer = setInterval(refreshWatch, 1000);
    }
  }
}

for (const tab of document.querySelectorAll("[data-tab]")) tab.addEventListener("click", () => setMode(tab.dataset.tab));

function initialise() {
  ui.form.size.innerHTML = Array.from({ length: 18 }, (_, i) => i + 2)
    .map((n) => `<option${n === 7 ? " selected" : ""}>${n}</option>`).join("");
  const params = new URLSearchParams(location.search);
  if (params.has("size") || params.has("engine") || params.has("human")) {
    // /?size=N&engine=NAME&human=white|black|none starts a game at once.
    const engine = params.get("engine") || engines[0] || "strongest";
    const human = params.get("human") || "white";
    const seats = { white: human === "white" ? "human" : engine, black: human === "black" ? "human" : engine };
    if (human === "both") seats.white = seats.black = "human";
    pendingNew = { type: "new", size: Number(params.get("size") || 7), ...seats, seconds: Number(params.get("seconds") || 1) };
    if (params.has("clock")) pendingNew.clock = { main: Number(params.get("clock")), increment: Number(params.get("increment") || 0) };
    history.replaceState(null, "", "/");
    setStatus("Starting…");
  } else {
    const match = /game=([A-Za-z0-9-]+)/.exec(location.hash);
    if (match) gameId = match[1];
    if (params.get("tab") === "watch") setMode("watch");
    else if (params.get("tab") === "replay") setMode("replay");
    else showEmptyBoard();
  }
  connect();
}

// A link to /#game=ID (or editing the hash) opens that game.
window.addEventListener("hashchange", () => {
  const match = /game=([A-Za-z0-9-]+)/.exec(location.hash);
  if (!match || match[1] === gameId) return;
  setMode("play");
  game = null;
  gameId = match[1];
  attaching = true;
  send({ type: "attach", game: gameId });
  // The state's own scroll-back sees no new game (gameId is set here): Play from here and a
  // resumed game left a phone's page where Replay's list was scrolled.
  requestAnimationFrame(() => window.scrollTo(0, 0));
});

// For tests and the curious: the live socket (closing it shows the reconnect).
window.margo = { get socket() { return socket; }, get game() { return game; }, fitBoard };

// For keyboard.js, review.js, variation.js, watch.js and guide.js: the state they read (only app.js
// assigns it) and what they call back.
export { game, keepCurrentInSight, lookBack, mode, offline, pliesOf, renderReplay, replay, send, setMode, showReplay, startGame, step, viewOptions };

initialise();
