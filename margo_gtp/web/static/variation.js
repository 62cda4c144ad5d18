// margo-web page: variations in Replay and Review, for app.js. A click on the position shown
// tries a move on a side line, as in Sabaki and KaTrain: its balls are ringed and numbered, a
// bar says "Variation: N moves" with Undo and Back to game, and Play from here starts a game
// against an engine from the position shown, main line or side line.
//
// The server plays every move (style.md item 24): the page keeps only the list of moves
// clicked and asks for the position they reach (POST /api/replay/<id>/variation), which
// comes with its points to try (legal or not, and why). The main-line position shown is
// asked for the same way, with no moves, so that its empty points can be clicked.

import { mode, renderReplay, replay, viewOptions } from "./app.js";
import { renderBoard } from "./board.js";
import { fetchJson, setStatus, ui } from "./page.js";
import { reviewOptions } from "./review.js";
import { plainRefusal } from "./words.js";

const COLOUR_NAME = { W: "White", B: "Black" };
const ASK_DELAY = 120;   // ms at rest on a position before its points are asked for (a held → key asks once)

let base = null;      // {replay, ply, frame}: the main-line position shown, with its targets
let side = null;      // {replay, ply, moves: [{colour, move}], frames: [frame after each move], result}
let busy = false;     // a move is being tried (one at a time: each names the whole side line)
let askTimer = null;

const post = (path, body) => fetchJson(`/api/replay/${encodeURIComponent(replay.replay)}/${path}`,
  { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

// What renderReplay draws at ply i of replay r: null (the replay's own frame, nothing to click
// yet), or {frame, options, status}: the main-line position with its points to try, or the
// side line tried from it. Keeps the bar under the replay bar in step.
export function sideLine(r, i) {
  const tryable = mode === "replay" && r && r.replay;
  if (side && (!tryable || side.replay !== r || side.ply !== i)) side = null;   // the main line moved on: left
  renderBar(tryable);
  if (!tryable) return null;
  if (side) {
    const frame = side.frames[side.frames.length - 1];
    const tried = new Map();
    side.moves.forEach((m, k) => tried.set(m.move, k + 1));   // a point played again keeps its last number
    const last = side.moves[side.moves.length - 1];
    const after = side.result ? `the game would end here: ${side.result}` : `${COLOUR_NAME[frame.to_move]} to move`;
    return {
      frame,
      options: { mover: side.result ? null : frame.to_move, tried, pv: [], ownership: null },
      status: `Variation: ${last.colour} ${last.move} — ${after}`,
    };
  }
  if (base && base.replay === r && base.ply === i) {
    return { frame: base.frame, options: { mover: base.over ? null : base.frame.to_move } };
  }
  askLater(r, i);
  return null;
}

function askLater(r, i) {
  clearTimeout(askTimer);
  askTimer = setTimeout(async () => {
    if (replay !== r || r.index !== i || mode !== "replay") return;
    try {
      const data = await post("variation", { ply: i, moves: [] });
      base = { replay: r, ply: i, frame: data.frame, over: Boolean(data.result) };
    } catch (error) {
      return;   // a replay the server forgot (it keeps the last few): the board stays as it is
    }
    // Only the board is drawn again: the status line may hold a message meanwhile (a record
    // that could not be loaded) that a whole renderReplay would overwrite.
    if (replay !== r || r.index !== i || mode !== "replay" || side || !r.frames[i]) return;
    const tried = sideLine(r, i);
    renderBoard(ui.board, tried.frame, { ...viewOptions(r.frames[i], r.moves), ...reviewOptions(i), ...tried.options });
    ui.board.classList.toggle("idle", !tried.options.mover);
  }, ASK_DELAY);
}

function renderBar(tryable) {
  ui.tryBar.hidden = !tryable;
  if (!tryable) return;
  const k = side ? side.moves.length : 0;
  ui.tryBar.classList.toggle("trying", k > 0);
  ui.tryBar.dataset.moves = k;
  ui.variationText.textContent = k ? `Variation: ${k} move${k === 1 ? "" : "s"}` : "Try a move on the board";
  ui.variationText.title = k ? `tried from move ${side.ply} of the game` : "click or tap a point: the server plays it on a side line";
  // Undo and Back stay in their places, greyed on the main line: the board keeps its size
  // when a side line starts (on a phone the bar takes two rows either way).
  ui.variationUndo.disabled = ui.variationBack.disabled = !k;
}

// Try `vertex` (a click, a tap, or Enter on the keyboard's cursor) after the side line shown.
export async function tryMove(vertex) {
  if (busy || mode !== "replay" || !replay || !replay.replay) return;
  const r = replay, ply = r.index;
  const before = side && side.replay === r && side.ply === ply ? side : null;
  busy = true;
  let data;
  try {
    data = await post("variation", { ply, moves: [...(before ? before.moves.map((m) => m.move) : []), vertex] });
  } catch (error) {
    if (replay === r && r.index === ply) refuse(error.message);
    return;
  } finally {
    busy = false;
  }
  if (replay !== r || r.index !== ply) return;   // the viewer moved on meanwhile
  side = { replay: r, ply, moves: data.moves, frames: [...(before ? before.frames : []), data.frame], result: data.result };
  renderReplay();
}

// A refused move in one plain sentence, with a link to its rule (as Play says it).
function refuse(message) {
  const plain = plainRefusal(message);
  setStatus(plain ? plain.text : message, "error");
  ui.status.title = message;
  ui.hover.classList.toggle("illegal", Boolean(plain));
  ui.hover.innerHTML = plain && plain.rule ? `<a href="#${plain.rule}" data-rule="${plain.rule}">Why? Read the rule</a>` : "\u00a0";
}

export function undoTried() {
  if (!side) return;
  side.moves.pop();
  side.frames.pop();
  side.result = null;   // only the last position of a side line can end the game
  if (!side.moves.length) side = null;
  renderReplay();
}

export function backToGame() {
  side = null;
  renderReplay();
}

ui.variationUndo.addEventListener("click", undoTried);
ui.variationBack.addEventListener("click", backToGame);
ui.board.addEventListener("click", (event) => {
  if (mode !== "replay") return;
  const point = event.target.closest("g[data-vertex]");
  if (point) tryMove(point.dataset.vertex);
});
// Hover, as in Play: the point a click would try, and whether the server calls it legal.
ui.board.addEventListener("mouseover", (event) => {
  if (mode !== "replay") return;
  const point = event.target.closest("g[data-vertex]");
  const target = point && point.querySelector("[data-target]");
  const legal = target && target.dataset.legal === "true";
  ui.hover.textContent = !target ? "\u00a0" : `${point.dataset.vertex}: ${legal ? "try it" : `illegal (${target.dataset.why})`}`;
  ui.hover.classList.toggle("illegal", Boolean(target) && !legal);
});
// Keys while a side line is shown: ← or u takes back its last move, Esc goes back to the game
// (→ Home End step the game itself, leaving the side line). The board's own cursor keys come first.
document.addEventListener("keydown", (event) => {
  if (mode !== "replay" || !side || ui.playHere.open || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest("input:not([type=range]):not([type=checkbox]), select, textarea")) return;
  const action = { ArrowLeft: undoTried, u: undoTried, Escape: backToGame }[event.key];
  if (!action) return;
  event.preventDefault();
  event.stopImmediatePropagation();   // app.js's ← would step the game back instead
  action();
});

// ---------------------------------------------------------------- play from here

// The position Play from here starts from: the side line's last, or the main line's shown.
function shownPosition() {
  const i = replay.index;
  if (side && side.replay === replay && side.ply === i) {
    return { ply: i, moves: side.moves.map((m) => m.move), frame: side.frames[side.frames.length - 1] };
  }
  return { ply: i, moves: [], frame: base && base.replay === replay && base.ply === i ? base.frame : replay.frames[i] };
}

ui.playFromHere.addEventListener("click", () => {
  if (!replay || !replay.replay) return;
  const { ply, moves, frame } = shownPosition();
  const form = ui.playHereForm;
  // The opponents are the engines of the new-game form, by their labels ("Level 3 — about 1,200").
  const engines = [...document.querySelector("[data-role=new-game] [name=black]").options].filter((o) => o.value !== "human");
  const before = form.engine.value;
  form.engine.replaceChildren(...engines.map((o) => o.cloneNode(true)));
  if (before && engines.some((o) => o.value === before)) form.engine.value = before;
  if (frame) form.human.value = frame.to_move;   // you play the side to move, unless you choose the other
  const k = moves.length;
  ui.playHereWhat.textContent = `From move ${ply}` + (k ? ` and ${k} variation move${k === 1 ? "" : "s"}` : "") +
    (frame ? `: ${COLOUR_NAME[frame.to_move]} to move.` : ".");
  ui.playHereError.hidden = true;
  ui.playHere.showModal();
});
document.querySelector("[data-action=play-here-cancel]").addEventListener("click", () => ui.playHere.close());
ui.playHereForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = ui.playHereForm;
  const { ply, moves } = shownPosition();
  const human = form.human.value, engine = form.engine.value;
  const seats = { white: human === "W" ? "human" : engine, black: human === "B" ? "human" : engine };
  try {
    const data = await post("play", { ply, moves, ...seats, seconds: Number(form.seconds.value) });
    ui.playHere.close();
    side = null;
    location.hash = `game=${data.game}`;   // app.js's hashchange opens it in Play
  } catch (error) {
    ui.playHereError.textContent = error.message;
    ui.playHereError.hidden = false;
  }
});
