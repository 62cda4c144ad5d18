// margo-web page: review mode in Replay (a review read from an SGF or streamed from the
// server, its graph, its judged moves, and the board's ownership and best line), for app.js.

import { graphPly, renderWinrates } from "./board.js";
import { game, keepCurrentInSight, mode, pliesOf, renderReplay, replay, send, setMode, showReplay, step } from "./app.js";
import { escapeHtml, fetchJson, setStatus, ui } from "./page.js";

// ---------------------------------------------------------------- review mode

// A replay's review: read from a reviewed SGF (the replay view carries it) or streamed
// from a review running on the server ({"type": "review"} messages, an entry per move as
// its position is searched). byMove[n] is the entry of move n (the position after it).
export function reviewFrom(data) {
  if (!data) return null;
  const review = { ...data, byMove: [] };
  for (const entry of data.entries) review.byMove[entry.move_number] = entry;
  return review;
}

export function startReview() {
  if (!replay || !replay.replay) return;
  const visits = Number(ui.reviewVisits.value);
  stopReview();
  replay.review = { source: "live", asked: true, done: false, total: pliesOf(replay), visits, entries: [], byMove: [] };
  if (!send({ type: "review", replay: replay.replay, visits, progress: true })) {
    replay.review = { ...replay.review, asked: false, done: true, error: "not connected to the server: try again in a moment" };
  }
  renderReview();
}

export function stopReview() {
  if (replay && replay.review && replay.review.source === "live" && !replay.review.done) {
    send({ type: "stop_review" });
    replay.review.done = true;
    replay.review.stopped = true;
  }
}

export function receiveReview(message) {
  const review = replay && replay.review;
  if (!review || review.source !== "live" || replay.replay !== message.replay || (review.done && !review.asked)) return;
  // Asked and not yet begun: the end of a review stopped before this one is not ours.
  if (review.asked && (message.done || message.entries.length)) return;
  review.asked = false;
  review.total = message.total;
  review.visits = message.visits;
  for (const entry of message.entries) {
    review.entries.push(entry);
    review.byMove[entry.move_number] = entry;
  }
  // The search under way (position `turn`, drawn on the graph as it grows); gone once the
  // entry that needs it came (move `turn`; move 1 for position 0) or the review ended.
  if (message.progress) review.progress = message.progress;
  if (review.progress && (message.done || review.byMove[Math.max(review.progress.turn, 1)])) review.progress = null;
  review.done = message.done;
  review.error = message.error || null;
  // The board shows this move's ownership and the next move's best line: redraw it when
  // one of them has just come in; the graph and the list always.
  if (mode === "replay" && message.entries.some((e) => e.move_number === replay.index || e.move_number === replay.index + 1)) {
    renderReplay();
  } else {
    renderReview();
  }
}

// What the board draws for the review at ply i: the ownership after move i, and the best
// line of the position (the engine's choice for move i + 1, with its principal variation).
export function reviewOptions(i) {
  const review = replay && replay.review;
  if (!review) return {};
  const options = {};
  const here = review.byMove[i], next = review.byMove[i + 1];
  if (here && here.ownership && ui.ownership.checked) options.ownership = here.ownership;
  if (next && next.pv.length) {
    const other = { W: "B", B: "W" };
    let colour = next.colour;
    options.pv = next.pv.map((v, k) => {
      const step = { v, c: colour, n: k + 1 };
      colour = other[colour];
      return step;
    }).filter((step) => step.v !== "pass" && step.v !== "swap");
  }
  return options;
}

const percent = (rate) => `${(rate * 100).toFixed(1)}%`;
const points = (loss) => `${loss > 0 ? "−" : "+"}${Math.abs(loss * 100).toFixed(1)}`;
const JUDGED = new Set(["blunder", "mistake", "inaccuracy"]);

export function renderReview() {
  const shown = mode === "replay" && replay && replay.replay;
  ui.reviewBox.hidden = !shown;
  if (!shown) return;
  const review = replay.review;
  const i = replay.index, n = pliesOf(replay);
  const live = review && review.source === "live";
  const running = live && !review.done;
  ui.reviewButton.disabled = running || n === 0;
  ui.reviewButton.textContent = review ? "Review again" : "Review";
  ui.stopReview.hidden = !running;
  ui.reviewedSgf.hidden = !(live && review.entries.length && !running);
  ui.reviewedSgf.href = `/api/replay/${encodeURIComponent(replay.replay)}/reviewed.sgf`;
  ui.reviewProgress.classList.toggle("error", Boolean(review && review.error));
  if (!review) {
    ui.reviewProgress.textContent = "Not reviewed: Review searches every position (the server runs one review at a time)";
  } else if (review.error) {
    ui.reviewProgress.textContent = review.error;
  } else if (!live) {
    ui.reviewProgress.textContent = `Review read from the SGF (${review.entries.length} of ${review.total} moves)`;
  } else {
    const done = review.entries.length;
    const p = running && review.progress;
    ui.reviewProgress.textContent = running ? `Reviewing at ${review.visits} visits: ${done} of ${review.total} moves…` +
      (p ? ` searching position ${p.turn}: ${p.visits} visits, best ${p.best || "-"}, White ${percent(p.white)}` : "") :
      review.stopped ? `Review stopped after ${done} of ${review.total} moves` : `Reviewed: ${done} moves at ${review.visits} visits`;
  }
  ui.reviewProgress.dataset.reviewed = review ? review.entries.length : 0;
  ui.reviewProgress.dataset.done = review ? Boolean(review.done) : false;
  const searching = review && !review.done && review.progress;
  ui.reviewProgress.dataset.searchingTurn = searching ? searching.turn : "";
  ui.reviewProgress.dataset.searchingVisits = searching ? searching.visits : "";
  // The graph: White's win rate after each reviewed move, the judged moves marked; the
  // position being searched drawn from its search so far (it moves as the search grows).
  const winrates = Array.from({ length: n + 1 }, (_, ply) => (review && review.byMove[ply] ? review.byMove[ply].white :
    searching && searching.turn === ply ? searching.white : null));
  const judged = review ? review.entries.filter((e) => JUDGED.has(e.judgement)) : [];
  renderWinrates(ui.reviewGraph, winrates, i, { dots: false, marks: judged.map((e) => ({ ply: e.move_number, kind: e.judgement })) });
  // The move shown: its judgement, and the best line drawn on the board.
  const here = review && review.byMove[i], next = review && review.byMove[i + 1];
  let text = "";
  if (here) {
    text += `Move ${i} (${here.colour} ${here.move})${here.judgement ? `: ${here.judgement}` : ""}`;
    if (here.winrate_before !== null && here.winrate_before !== undefined) {
      text += ` — ${here.colour} ${percent(here.winrate_before)} → ${percent(here.winrate_after)} (${points(here.loss)})`;
    }
    if (here.best && here.best !== here.move) text += `; best was ${here.best}`;
  }
  if (next && next.best) text += `${text ? "\n" : ""}Best here: ${next.pv.join(" ")} (numbered on the board)`;
  ui.reviewMove.textContent = text;
  ui.mistakes.innerHTML = judged.map((e) =>
    `<li data-mistake="${e.move_number}" class="judgement-${e.judgement}${e.move_number === i ? " current" : ""}">` +
    `${e.move_number}. ${e.colour} ${escapeHtml(e.move)} ${e.judgement}` +
    `${e.loss !== null && e.loss !== undefined ? ` ${points(e.loss)}` : ""}${e.best && e.best !== e.move ? ` (best ${escapeHtml(e.best)})` : ""}</li>`).join("") ||
    (review ? `<li class="none">${running ? "no mistakes yet" : "no mistakes"}</li>` : "");
  keepCurrentInSight(ui.mistakes);
  if (revealMistake) {
    revealMistake = false;
    revealBelowBoard(ui.mistakes.querySelector(".current"));
  }
}

ui.reviewButton.addEventListener("click", startReview);
ui.stopReview.addEventListener("click", () => { stopReview(); renderReview(); });
ui.ownership.addEventListener("change", () => renderReplay());
ui.reviewGraph.addEventListener("click", (event) => {
  const ply = graphPly(ui.reviewGraph, event);
  if (ply !== null) step(ply);
});
ui.mistakes.addEventListener("click", (event) => {
  const item = event.target.closest("[data-mistake]");
  if (!item) return;
  revealMistake = true;
  step(Number(item.dataset.mistake));
});

// On a phone the board is stuck at the top (style.css): scroll the page so that the mistake
// just tapped is whole, below the board and above the screen's bottom.
let revealMistake = false;
function revealBelowBoard(item) {
  if (!item || !document.body.classList.contains("browsing") || window.innerWidth > 760) return;
  const rect = item.getBoundingClientRect(), board = ui.boardArea.getBoundingClientRect();
  if (rect.bottom > window.innerHeight) window.scrollBy(0, rect.bottom - window.innerHeight + 4);
  else if (rect.top < board.bottom) window.scrollBy(0, rect.top - board.bottom - 4);
}
// Play: review the running game as far as it has gone (its replay, in the Replay tab).
ui.reviewGame.addEventListener("click", async () => {
  if (!game) return;
  try {
    const data = await fetchJson(`/api/games/${encodeURIComponent(game.game)}/replay`);
    setMode("replay");
    showReplay(data, "this game", "end");
    startReview();
  } catch (error) {
    setStatus(error.message, "error");
  }
});
