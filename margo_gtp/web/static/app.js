// margo-web page: shows what the server sends, sends back intents. No rule of MarGo lives
// here (style.md item 24): legality, results and positions all come from the server.

import { renderBoard, renderSlices, renderWinrates } from "./board.js";

const $ = (selector) => document.querySelector(selector);
const ui = {
  status: $("[data-role=status]"),
  board: $("[data-role=board]"),
  connection: $("[data-role=connection]"),
  hover: $("[data-role=hover]"),
  players: $("[data-role=players]"),
  counts: $("[data-role=counts]"),
  moves: $("[data-role=moves]"),
  slices: $("[data-role=slices]"),
  download: $("[data-role=download]"),
  crash: $("[data-role=crash]"),
  replaceEngine: $("[data-role=replace-engine]"),
  analysisToggle: $("[data-role=analysis-toggle]"),
  analysis: $("[data-role=analysis]"),
  analysisText: $("[data-role=analysis-text]"),
  winrateGraph: $("[data-role=winrate-graph]"),
  form: $("[data-role=new-game]"),
  replayBar: $("[data-role=replay-bar]"),
  slider: $("[data-role=slider]"),
  ply: $("[data-role=ply]"),
  sgfFile: $("[data-role=sgf-file]"),
  savedList: $("[data-role=saved-list]"),
  watchGames: $("[data-role=watch-games]"),
  crosstable: $("[data-role=crosstable]"),
  ratings: $("[data-role=ratings]"),
};

let socket = null;
let retries = 0;
let engines = [];
let game = null;          // last state of the game this page follows
let gameId = null;
let pendingNew = null;    // a "new" message to send once connected
let attaching = false;    // an "attach" was sent and not answered yet
let mode = "play";        // "play" | "replay" | "watch"
let replay = null;        // {frames, moves, result, index, title, live, key}
let watchTimer = null;

const COLOUR_NAME = { W: "White", B: "Black" };

function escapeHtml(text) {
  return String(text ?? "").replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
}

function setStatus(text, kind = "") {
  ui.status.textContent = text;
  ui.status.className = "status" + (kind ? ` ${kind}` : "");
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
    ui.connection.textContent = "reconnecting…";
    ui.connection.classList.add("down");
    const delay = Math.min(5000, 250 * 2 ** retries++);
    setTimeout(connect, delay);
  };
}

function receive(message) {
  if (message.type === "hello") {
    engines = message.engines;
    fillPlayerSelects();
    document.querySelector("[data-tab=watch]").hidden = !message.watch;
    if (!gameId && !pendingNew && mode === "play" && !game) showEmptyBoard();
  } else if (message.type === "state") {
    attaching = false;
    game = message;
    if (gameId !== message.game) {
      gameId = message.game;
      history.replaceState(null, "", `/#game=${gameId}`);
    }
    if (mode === "play") renderPlay();
  } else if (message.type === "watch") {
    receiveWatched(message);
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
    if (mode === "play" || mode === "watch") setStatus(message.message, "error");
  }
}

// ---------------------------------------------------------------- play

function fillPlayerSelects() {
  const options = ["human", ...engines].map((name) => `<option>${escapeHtml(name)}</option>`).join("");
  for (const select of document.querySelectorAll("[data-role=player-select]")) {
    const before = select.value;
    select.innerHTML = options;
    select.value = before || (select.name === "white" ? "human" : engines[0] || "human");
  }
  ui.replaceEngine.innerHTML = ["human", ...engines].map((n) => `<option>${escapeHtml(n)}</option>`).join("");
}

function showEmptyBoard() {
  const size = Number(ui.form.size.value) || 7;
  renderBoard(ui.board, { size, balls: [], targets: [], last: null });
  ui.slices.innerHTML = "";
  setStatus("Choose the players and press Start");
}

function renderPlay() {
  ui.replayBar.hidden = true;
  if (!game) {
    showEmptyBoard();
    return;
  }
  const frame = game.frame;
  const mover = game.human_to_move ? frame.to_move : null;
  renderBoard(ui.board, frame, { mover, analysis: game.analysis_on ? game.analysis : null });
  ui.hover.textContent = "\u00a0";   // the points under the cursor were redrawn
  const crashed = Object.keys(game.crashed).length > 0;
  setStatus(game.status, game.over ? "over" : crashed ? "error" : "");
  ui.players.innerHTML = ["W", "B"].map((c) => {
    const toMove = !game.over && frame.to_move === c ? " to-move" : "";
    return `<div class="player${toMove}" data-seat="${c}"><span class="dot dot-${c}"></span>` +
      `${COLOUR_NAME[c]}: ${escapeHtml(game.seats[c])}</div>`;
  }).join("");
  for (const action of ["pass", "swap", "resign", "undo"]) {
    document.querySelector(`[data-action=${action}]`).disabled = !game.can[action];
  }
  ui.download.hidden = false;
  ui.download.href = `/api/games/${game.game}.sgf`;
  ui.crash.hidden = !crashed;
  ui.analysisToggle.checked = game.analysis_on;
  ui.analysis.hidden = !game.analysis_on;
  if (game.analysis_on) {
    const a = game.analysis;
    ui.analysisText.textContent = !a ? "analysing…" : a.error ? a.error :
      `${COLOUR_NAME[a.to_move]} win rate ${(a.winrate * 100).toFixed(1)}%; best ${a.moves.length ? a.moves[0].move : "-"}`;
    renderWinrates(ui.winrateGraph, game.winrates);
  }
  renderInfo(frame, game.moves, frame.ply);
}

function renderInfo(frame, moves, current) {
  ui.counts.innerHTML = ["W", "B"].map((c) =>
    `<div data-count="${c}"><span class="dot dot-${c}"></span> ${COLOUR_NAME[c]}: ${frame.score[c]} balls, ` +
    `captured <span data-role="captured-${c}">${frame.captured[c]}</span></div>`).join("");
  ui.moves.innerHTML = moves.map((m, i) =>
    `<li${i + 1 === current ? ' class="current"' : ""}>${m.colour} ${escapeHtml(m.move)}</li>`).join("");
  const currentItem = ui.moves.querySelector(".current");
  if (currentItem) currentItem.scrollIntoView({ block: "nearest" });
  renderSlices(ui.slices, frame);
}

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
  const rules = {
    first_player: f.first_player.value, ko_rule: f.ko_rule.value, scoring: f.scoring.value,
    komi: f.komi.value || "0", swap: f.swap.checked ? "on" : "off",
    allow_pass: f.allow_pass.checked ? "on" : "off", first_capture_wins: f.first_capture_wins.checked ? "on" : "off",
    own_freedomless_group: f.own_freedomless_group.value, ko_position: f.ko_position.value,
    bridge_cutting: f.bridge_cutting.checked ? "on" : "off", all_freedoms: f.all_freedoms.checked ? "on" : "off",
  };
  // The form counts levels from 1 as GTP does; the rules option is 0-based. Empty: no limit.
  if (f.max_level.value) rules.max_level = String(Number(f.max_level.value) - 1);
  startGame({ type: "new", size: Number(f.size.value), white: f.white.value, black: f.black.value,
    seconds: Number(f.seconds.value), rules });
});

ui.board.addEventListener("click", (event) => {
  if (mode !== "play" || !game) return;
  const point = event.target.closest("[data-vertex]");
  if (point) send({ type: "play", move: point.dataset.vertex });
});

// Hover: name the point a click would take (the point under the cursor that the server
// marked as a target: the lowest free supported one) and say whether the server calls it legal.
ui.board.addEventListener("mouseover", (event) => {
  const point = event.target.closest("g[data-vertex]");
  const target = point && point.querySelector("[data-target]");
  let text = "\u00a0";
  let illegal = false;
  if (point && mode === "play" && game && game.human_to_move) {
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
ui.board.addEventListener("mouseleave", () => { ui.hover.textContent = "\u00a0"; });

for (const action of ["pass", "swap", "resign"]) {
  document.querySelector(`[data-action=${action}]`).addEventListener("click", () => send({ type: "play", move: action }));
}
document.querySelector("[data-action=undo]").addEventListener("click", () => send({ type: "undo" }));
document.querySelector("[data-action=replace]").addEventListener("click", () => {
  if (!game) return;
  for (const colour of Object.keys(game.crashed)) send({ type: "seat", colour, player: ui.replaceEngine.value });
});
ui.analysisToggle.addEventListener("change", () => send({ type: "analysis", on: ui.analysisToggle.checked }));
ui.form.size.addEventListener("change", () => { if (!game && mode === "play") showEmptyBoard(); });

// ---------------------------------------------------------------- replay (SGF, saved, watched)

function showReplay(data, title, start) {
  // The same game again (a live feed polled): stay where the viewer is, or follow the end.
  const same = replay && replay.key && replay.key === data.key;
  const wasAtEnd = same && replay.index === replay.frames.length - 1;
  const before = same ? replay.index : 0;
  replay = { ...data, title };
  const last = data.frames.length - 1;
  replay.index = same ? (wasAtEnd ? last : Math.min(before, last)) : start === "end" ? last : 0;
  renderReplay();
}

function renderReplay() {
  if (!replay) {
    ui.replayBar.hidden = true;
    renderBoard(ui.board, { size: 7, balls: [], targets: [], last: null });
    setStatus(mode === "watch" ? "Choose a game" : "Load an SGF file or pick a saved game");
    return;
  }
  const n = replay.frames.length - 1;
  const i = replay.index;
  const frame = replay.frames[i];
  renderBoard(ui.board, frame, {});
  ui.replayBar.hidden = false;
  ui.slider.max = n;
  ui.slider.value = i;
  ui.ply.textContent = `${i}/${n}`;
  let text = `${replay.title}: move ${i} of ${n}`;
  if (i > 0) text += ` (${replay.moves[i - 1].colour} ${replay.moves[i - 1].move})`;
  if (replay.live) text += " — live";
  if (i === n && replay.result) text += ` — result ${replay.result}`;
  if (replay.error) text += ` — ${replay.error}`;
  setStatus(text, i === n && replay.result ? "over" : "");
  renderInfo(frame, replay.moves, i);
}

function step(to) {
  if (!replay) return;
  replay.index = Math.max(0, Math.min(replay.frames.length - 1, to));
  renderReplay();
}

ui.slider.addEventListener("input", () => step(Number(ui.slider.value)));
document.querySelector("[data-action=first]").addEventListener("click", () => step(0));
document.querySelector("[data-action=prev]").addEventListener("click", () => step(replay.index - 1));
document.querySelector("[data-action=next]").addEventListener("click", () => step(replay.index + 1));
document.querySelector("[data-action=last]").addEventListener("click", () => step(Infinity));
document.addEventListener("keydown", (event) => {
  if (mode === "play" || !replay || event.target.closest("input:not([type=range]), select, textarea")) return;
  const moves = { ArrowLeft: replay.index - 1, ArrowRight: replay.index + 1, Home: 0, End: Infinity };
  if (event.key in moves) {
    event.preventDefault();
    step(moves[event.key]);
  }
});

async function fetchJson(url, options) {
  const response = await fetch(url, options);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

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
    ui.savedList.innerHTML = data.games.map((g) =>
      `<li data-saved="${escapeHtml(g.id)}">${g.size}×${g.size} ${escapeHtml(g.white)} – ${escapeHtml(g.black)}: ` +
      `${escapeHtml(g.result ?? "unfinished")} (${g.moves} moves)</li>`).join("") || "<li>none yet</li>";
  } catch (error) {
    ui.savedList.innerHTML = `<li>${escapeHtml(error.message)}</li>`;
  }
}

ui.savedList.addEventListener("click", async (event) => {
  const item = event.target.closest("[data-saved]");
  if (!item) return;
  try {
    showReplay(await fetchJson(`/api/saved/${encodeURIComponent(item.dataset.saved)}`), "saved game", "start");
  } catch (error) {
    setStatus(error.message, "error");
  }
});

// ---------------------------------------------------------------- watch a referee folder

async function refreshWatch() {
  let data;
  try {
    data = await fetchJson("/api/watch");
  } catch (error) {
    setStatus(error.message, "error");
    return;
  }
  const selected = replay && replay.key;
  ui.watchGames.innerHTML = "<tr><th>#</th><th>White</th><th>Black</th><th>Result</th></tr>" +
    data.games.map((g) => `<tr data-key="${escapeHtml(g.key)}" data-title="${escapeHtml(
      `${g.folder === "." ? "" : g.folder + " "}game ${g.game}: ${g.white} – ${g.black}`)}"${g.live ? " data-live" : ""}` +
      `${g.key === selected ? ' class="selected"' : ""}><td>${escapeHtml(g.folder === "." ? "" : g.folder + " ")}${g.game}</td>` +
      `<td>${escapeHtml(g.white)}</td><td>${escapeHtml(g.black)}</td>` +
      `<td>${g.live ? `<span class="live-badge">live</span> ${g.moves} moves` : escapeHtml(g.result)}</td></tr>`).join("");
  const names = Object.keys(data.crosstable).sort();
  ui.crosstable.innerHTML = names.length ? `<tr><th></th>${names.map((n) => `<th>${escapeHtml(n)}</th>`).join("")}</tr>` +
    names.map((a) => `<tr><th>${escapeHtml(a)}</th>${names.map((b) => {
      const cell = data.crosstable[a][b];
      return `<td>${cell ? `${cell.score}/${cell.games}` : ""}</td>`;
    }).join("")}</tr>`).join("") : "<tr><td>no finished games yet</td></tr>";
  const elo = (value) => (value === null || value === undefined ? "—" : Math.round(value));
  ui.ratings.innerHTML = data.ratings.length ? "<tr><th>engine</th><th>Elo</th><th>95%</th><th>games</th></tr>" +
    data.ratings.map((r) => `<tr><td>${escapeHtml(r.name)}</td><td>${elo(r.elo)}</td>` +
      `<td>${elo(r.low)} … ${elo(r.high)}</td><td>${escapeHtml(r.games ?? "")}</td></tr>`).join("")
    : "<tr><td>none (tournaments write them)</td></tr>";
  if (replay && replay.live && !data.games.some((g) => g.key === replay.key && g.live)) {
    openWatchGame(replay.key, replay.title);   // the live game just finished: show its record
  }
}

let watchRequest = 0;   // only the answer to the latest request is shown

async function openWatchGame(key, title = replay ? replay.title : key) {
  const mine = ++watchRequest;
  send({ type: "unwatch" });
  try {
    const data = await fetchJson(`/api/watch/${encodeURIComponent(key)}`);
    if (mode !== "watch" || mine !== watchRequest) return;
    showReplay(data, title, "end");   // a watched game opens at its latest position
  } catch (error) {
    if (mine === watchRequest) setStatus(error.message, "error");
    return;
  }
  followLive();
}

// A live game: the server pushes its new frames over the websocket as the feed grows.
function followLive() {
  if (mode === "watch" && replay && replay.live) {
    send({ type: "watch", key: replay.key, since: replay.frames.length });
  }
}

function receiveWatched(data) {
  if (mode !== "watch" || !replay || replay.key !== data.key) return;
  data.frames = replay.frames.slice(0, data.since).concat(data.frames);
  showReplay(data, replay.title, "end");
}

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
  clearInterval(watchTimer);
  send({ type: "unwatch" });
  if (next === "play") {
    renderPlay();
  } else {
    replay = null;
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
    const engine = params.get("engine") || "random";
    const human = params.get("human") || "white";
    const seats = { white: human === "white" ? "human" : engine, black: human === "black" ? "human" : engine };
    if (human === "both") seats.white = seats.black = "human";
    pendingNew = { type: "new", size: Number(params.get("size") || 7), ...seats, seconds: Number(params.get("seconds") || 1) };
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
});

// For tests and the curious: the live socket (closing it shows the reconnect).
window.margo = { get socket() { return socket; }, get game() { return game; } };

initialise();
