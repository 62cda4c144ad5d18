// An engine that thinks, as the page shows it: its seconds against its budget in the status
// line, and under its seat the visits and the best move of its own search so far. The
// server sends a state's "think" when the turn starts and a small "thinking" message at most
// 4 times a second as the engine reports (margo-genmove_analyze); the seconds tick here in
// between, from the server's figure, so a slow engine shows it is alive.

import { escapeHtml } from "./page.js";

const TICK_MS = 250;

let think = null;     // the server's view of the thinking engine, with `at` (when the page got it)
let shownSeconds = 0; // the seconds shown last: they never go back within one turn
let ticker = null;

// Follow a game's state: a turn that starts (or goes on after a reconnect) starts the ticks,
// which call `tick` (the page redraws its status); a move, a resignation or an undo stops them.
export function followThinking(game, tick) {
  const view = game && !game.over && game.thinking ? game.think : null;
  if (!view) {
    stopThinking();
    return;
  }
  const sameTurn = think && think.colour === view.colour && think.ply === view.ply;
  take(view, sameTurn);
  if (!ticker) ticker = setInterval(tick, TICK_MS);
}

// A "thinking" message: the newest report of the engine's search (ignored unless it is of
// the turn the page shows).
export function receiveThinking(message, game) {
  if (!think || !game || message.game !== game.game || message.colour !== think.colour || message.ply !== think.ply) return;
  take(message, true);
  renderThinking();
}

export function stopThinking() {
  clearInterval(ticker);
  ticker = null;
  think = null;
}

function take(view, sameTurn) {
  if (!sameTurn) shownSeconds = 0;
  think = { ...view, at: performance.now() };
}

// The engine's seconds so far: the server's figure plus the time since it came; null while
// the engine is being started.
function seconds() {
  if (!think || think.elapsed === null) return null;
  shownSeconds = Math.max(shownSeconds, think.elapsed + (performance.now() - think.at) / 1000);
  return shownSeconds;
}

// The status line while an engine thinks: "White (mcts) is thinking — 3.2 s of 10 s".
export function thinkingStatus(status) {
  if (!think) return status;
  const s = seconds();
  // A game clock's budget is the server's share of the time left (13.846153846 s): 3 digits.
  const budget = Number(think.budget.toPrecision(3));
  return s === null ? `${status} — starting the engine…` : `${status} — ${s.toFixed(1)} s of ${budget} s`;
}

// The line under the seat of the engine that thinks (empty for the other seat).
export function thinkingLine(colour) {
  if (!think || think.colour !== colour) return "";
  return `<div class="think" data-role="thinking" data-visits="${think.visits === null ? "" : think.visits}" ` +
    `data-best="${escapeHtml(think.best || "")}">${thinkingWords()}</div>`;
}

function thinkingWords() {
  if (think.visits === null) return think.elapsed === null ? "starting…" : "searching…";
  const rate = think.winrate === null ? "" : ` (${(think.winrate * 100).toFixed(0)}%)`;
  return `${think.visits.toLocaleString("en")} visits · best ${escapeHtml(think.best)}${rate}`;
}

function renderThinking() {
  const line = document.querySelector("[data-role=thinking]");
  if (!line) return;
  line.innerHTML = thinkingWords();
  line.dataset.visits = think.visits === null ? "" : think.visits;
  line.dataset.best = think.best || "";
}

