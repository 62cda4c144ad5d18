// The guided first game: 5x5 against the weakest engine the server offers, with one short
// hint at each new idea (the first square to stack on, the first stacked ball, the first
// capture, a zombie, the end and the score). A hint sits under the status, never over the
// board; "Got it" hides it and "No more hints" ends the guide. Play never waits for it.
//
// The hints read only what the server's states say (a ball's level, its zombie flag, the
// captured counts, a legal point above level 1, the game over): no rule is decided here.

import { startGame } from "./app.js";
import { resultWords } from "./words.js";

const SIZE = 5;
// The weakest engines first: the page offers what the server was started with.
const WEAKEST = ["level-1", "random"];
const STORE = "margo-guide";   // sessionStorage: a reload or a dropped socket keeps the guide

const $ = (selector) => document.querySelector(selector);
const box = $("[data-role=guide]");
const text = $("[data-role=guide-text]");
const link = $("[data-role=guide-rule]");

let guide = load();            // {game, seen: [keys], pending, off}
let engines = [];
let startWhenReady = new URLSearchParams(location.search).has("guide");   // /?guide (from /rules)

function load() {
  try {
    return JSON.parse(sessionStorage.getItem(STORE)) || null;
  } catch {
    return null;
  }
}

function save() {
  try {
    sessionStorage.setItem(STORE, JSON.stringify(guide));
  } catch { /* private mode: the guide lasts as long as the page */ }
}

const COLOUR = { W: "White", B: "Black" };

// The moments, latest idea first: the hint shown is the first one whose moment has come and
// that was not shown yet (a later idea wins when two come with one move). Each: [key, when(state), words(state), rules section].
const MOMENTS = [
  ["end", (s) => s.over, (s) => {
    const words = resultWords(s.result, s.status);
    return `${words.title} ${words.why}. Each side counts its balls on the board, zombies too: ` +
      `White ${s.frame.score.W}, Black ${s.frame.score.B}.`;
  }, "rules-end"],
  ["zombie", (s) => s.frame.balls.some((b) => b.zombie), () =>
    "A red cross marks a zombie: a captured ball that stays because a ball rests on it. It still counts for its " +
    "colour, and it can be captured again.", "rules-zombies"],
  ["capture", (s) => s.frame.captured.W + s.frame.captured.B > 0, (s) => {
    const by = s.frame.captured.W > 0 ? "W" : "B";
    return `${COLOUR[by]} captured: a group with no empty board point next to it is lifted off. Watch the ` +
      "freedoms of your own groups too.";
  }, "rules-freedoms"],
  ["stack", (s) => s.frame.balls.some((b) => b.l > 0), () =>
    "A ball now sits on level 2, on four balls. It lives only through the balls of its colour on the board " +
    "below: empty points up in the pyramid are no freedoms.", "rules-stacking"],
  ["square", (s) => s.human_to_move && s.frame.targets.some((t) => t.legal && t.l > 0), () =>
    "Four balls touch in a square: the dark dot between them is a point on level 2. You may stack a ball there.",
  "rules-stacking"],
  ["start", () => true, () =>
    "You play White and move first. Click or tap a point to place a ball. A group with no empty point next to it " +
    "is captured, so keep your balls together and surround Black's.", "rules-placing"],
];

// The hint for `state` of the guided game, given the keys already shown: {key, text, rule}
// or null when no new moment has come.
export function nextHint(state, seen) {
  for (const [key, when, words, rule] of MOMENTS) {
    if (!seen.includes(key) && when(state)) return { key, text: words(state), rule };
  }
  return null;
}

function show(hint) {
  text.textContent = hint.text;
  link.dataset.rule = hint.rule;
  link.href = `/rules#${hint.rule}`;
  box.dataset.hint = hint.key;
  box.hidden = false;
  if (window.margo) window.margo.fitBoard();
}

function hide() {
  if (box.hidden) return;
  box.hidden = true;
  delete box.dataset.hint;
  if (window.margo) window.margo.fitBoard();
}

export function startGuidedGame() {
  const engine = WEAKEST.find((name) => engines.includes(name)) || engines[0] || "human";
  guide = { game: null, seen: [], pending: true, off: false };
  save();
  hide();
  startGame({ type: "new", size: SIZE, white: "human", black: engine, seconds: 1 });
}

// Every message of the socket (app.js's receive): the engines from "hello"; the guided
// game's states bring its hints.
export function followGuide(message) {
  if (message.type === "hello") {
    engines = message.engines || [];
    if (startWhenReady) {
      startWhenReady = false;
      startGuidedGame();
    }
    return;
  }
  if (message.type !== "state" || !guide) return;
  if (guide.pending) {
    guide = { ...guide, game: message.game, pending: false };
    save();
  }
  if (guide.off || message.game !== guide.game) {
    hide();
    return;
  }
  const hint = nextHint(message, guide.seen);
  if (!hint) return;
  guide.seen.push(hint.key);
  save();
  show(hint);
}

$("[data-action=guided-game]").addEventListener("click", startGuidedGame);
$("[data-action=guide-dismiss]").addEventListener("click", hide);
$("[data-action=guide-off]").addEventListener("click", () => {
  if (guide) guide.off = true;
  save();
  hide();
});
