// The rules of MarGo in plain words, with small diagrams drawn by the board itself.
//
// One text, two places: the Rules dialog of the game page (opened from the header and from
// every refusal's "Why?" link, so a game is never left) and the page /rules. The words live
// here; the diagrams are positions the server played through the rules core
// (/api/rules/diagrams, web/rules_diagrams.py) and renderBoard draws them as it draws a game:
// no rule of MarGo is decided here (style.md item 24).
//
// Test hooks: each section is a <section data-section="rules-ko"> whose heading has that id;
// each diagram a <figure data-diagram="ko-after" data-ready> around an <svg data-role=diagram>.

import { renderBoard } from "./board.js";

const COLOUR = { W: "White", B: "Black" };

// [id, title, paragraphs]; a paragraph may hold inline HTML (emphasis only).
export const SECTIONS = [
  ["rules-placing", "Placing", [
    "MarGo is Go played with marbles that can be stacked into pyramids. Two players, White and Black, take turns; " +
      "<b>White starts</b>. The board starts empty.",
    "On your turn you put one ball of your colour on a free point. Balls never move: they leave the board only " +
      "when they are captured. You may resign at any time.",
  ]],
  ["rules-stacking", "Stacking", [
    "A ball can also go on top of <b>four balls that touch in a square</b> (2\u00d72), whatever their colours: it " +
      "sits on level 2, in the middle of the four. Four level-2 balls in a square hold a level-3 ball, and so on " +
      "up. A ball never rests on two or three balls.",
    "While you play, a <b>dark dot</b> marks each point above level 1 where you may play now, and a <b>thin " +
      "cross</b> a point where you may not.",
  ]],
  ["rules-freedoms", "Freedoms and capture", [
    "Balls of one colour that touch side by side on one level, or that rest on one another, form a <b>group</b>. " +
      "Diagonal neighbours do not touch.",
    "A group's <b>freedoms</b> are the empty points of the board itself (level 1) next to its level-1 balls. " +
      "Empty points up in the pyramid never count: a stacked ball lives only through the balls of its group " +
      "that stand on the board.",
    "A group left without a freedom is <b>captured</b>: its balls are lifted off, the top ones first. You may " +
      "not play a ball that would have no freedom, unless it captures something: the opponent's groups are " +
      "always judged first.",
  ]],
  ["rules-bridges", "Bridges", [
    "Two of your balls side by side are <b>cut apart</b> when two enemy balls sit across their contact one " +
      "level up, like a bridge. One enemy ball there, or a ball of your own, does not cut; a contact along the " +
      "edge of the board is never cut, and balls that rest on one another are never cut.",
  ]],
  ["rules-zombies", "Zombies and buried balls", [
    "A captured ball that still holds other balls up cannot be lifted: it stays as a <b>zombie</b>, marked " +
      "with a red cross. A zombie is an ordinary ball of its colour: it fills its point, gives freedoms, " +
      "counts in the score and can be captured again. When the balls resting on it are gone, it is free.",
    "A ball hidden under a ball two levels up is <b>buried</b> (a dashed ring on the ball above marks it): " +
      "it touches nothing and cannot be captured while it is buried.",
  ]],
  ["rules-ko", "Ko: no repeating", [
    "A move may not bring back a position the game has already had. This stops two players from capturing " +
      "back and forth for ever: play somewhere else first, then take back if you still can.",
  ]],
  ["rules-end", "The end and the score", [
    "There is no passing. The game ends when <b>the player to move has no legal move left</b>, or when a " +
      "player resigns.",
    "Each side then counts its balls on the board, zombies and buried balls included; White adds the komi, " +
      "if any. More balls wins; equal is a draw. When passing is allowed (an option), two passes in a row end " +
      "the game and it is counted as in Go: balls and surrounded points.",
  ]],
  ["rules-options", "Options of a game", [
    "New game \u2192 Rules can change a few rules: who moves first; <b>swap</b> (on the second turn only, " +
      "the second player may swap instead of placing a ball: the players exchange colours and the board stays " +
      "as it is); passing; a <b>highest level</b> (no ball above it); <b>first capture wins</b> (a beginner's " +
      "game); komi; which positions count as a repeat; no bridge cutting; and freedoms on every level.",
  ]],
];

// The sections as HTML, each diagram an empty figure of a fixed size (drawn when the
// positions come, so nothing moves under the reader). `heading`: the tag of the titles.
export function rulesHtml(heading = "h3") {
  return SECTIONS.map(([id, title, paragraphs]) =>
    `<section data-section="${id}"><${heading} id="${id}">${title}</${heading}>` +
    paragraphs.map((p) => `<p>${p}</p>`).join("") + `<div class="diagrams" data-diagrams="${id}"></div></section>`).join("");
}

let diagramsOnce = null;   // one request per page

function fetchDiagrams() {
  diagramsOnce = diagramsOnce || fetch("/api/rules/diagrams").then((r) => {
    if (!r.ok) throw new Error(`the diagrams could not be loaded (${r.status})`);
    return r.json();
  }).then((data) => data.diagrams);
  return diagramsOnce;
}

// The text alternative of a diagram: every ball by colour, the marks, the last move.
export function describeFrame(frame, marks) {
  const ballText = (b) => `${b.v.split(":")[0]}${b.l ? ` on level ${b.l + 1}` : ""}${b.zombie ? " (zombie)" : ""}` +
    `${b.buried ? " (buried)" : ""}`;
  const parts = [`A ${frame.size}\u00d7${frame.size} board.`];
  for (const c of ["W", "B"]) {
    const balls = frame.balls.filter((b) => b.c === c);
    parts.push(`${COLOUR[c]}: ${balls.length ? balls.map(ballText).join(", ") : "no ball"}.`);
  }
  if (frame.last) parts.push(`Last move: ${frame.last.split(":")[0]}${frame.last.endsWith(":1") ? "" : ` on level ${frame.last.split(":")[1]}`}.`);
  if (marks) {
    const mover = COLOUR[frame.to_move];
    const place = (t) => `${t.v.split(":")[0]}${t.l ? ` on level ${t.l + 1}` : ""}`;
    const upper = frame.targets.filter((t) => t.legal && t.l > 0);
    const refused = frame.targets.filter((t) => !t.legal);
    if (upper.length) parts.push(`${mover} may play on top at ${upper.map(place).join(", ")}.`);
    if (refused.length) parts.push(`${mover} may not play at ${refused.map((t) => `${place(t)} (${t.why})`).join(", ")}.`);
  }
  return parts.join(" ");
}

// Write the rules into `container` and draw their diagrams. Resolves when they are drawn.
export async function showRules(container, heading = "h3") {
  if (!container.dataset.filled) {
    container.innerHTML = rulesHtml(heading);
    container.dataset.filled = "true";
  }
  if (container.dataset.drawn) return;
  let diagrams;
  try {
    diagrams = await fetchDiagrams();
  } catch (error) {
    diagramsOnce = null;   // try again next time
    for (const box of container.querySelectorAll("[data-diagrams]")) box.textContent = `(${error.message})`;
    return;
  }
  for (const box of container.querySelectorAll("[data-diagrams]")) box.innerHTML = "";
  for (const diagram of diagrams) {
    const box = container.querySelector(`[data-diagrams="${diagram.section}"]`);
    if (!box) continue;
    const figure = document.createElement("figure");
    figure.className = "diagram";
    figure.dataset.diagram = diagram.key;
    const captionId = `diagram-${diagram.key}-${heading}`;
    figure.innerHTML = `<svg class="board diagram-board" data-role="diagram" role="group" xmlns="http://www.w3.org/2000/svg"` +
      ` aria-describedby="${captionId}"></svg><figcaption id="${captionId}"></figcaption>`;
    figure.querySelector("figcaption").textContent = diagram.caption;
    box.append(figure);
    const svg = figure.querySelector("svg");
    const frame = diagram.frame;
    renderBoard(svg, frame, { mover: diagram.marks ? frame.to_move : null });
    svg.setAttribute("aria-label", `Diagram: ${describeFrame(frame, diagram.marks)}`);
    figure.dataset.ready = "true";
  }
  container.dataset.drawn = "true";
}

// ---------------------------------------------------------------- the game page's dialog

// Open the Rules dialog at `section` (an id such as "rules-ko"), or at the top.
export function openRules(section) {
  const dialog = document.querySelector("[data-role=rules]");
  if (!dialog) return;
  const text = dialog.querySelector("[data-role=rules-text]");
  const drawing = showRules(text);
  if (!dialog.open) dialog.showModal();
  const scroll = () => {
    const heading = section && dialog.querySelector(`[id="${section}"]`);
    if (heading) heading.scrollIntoView({ block: "start" });
    else dialog.scrollTop = 0;
  };
  scroll();
  drawing.then(scroll);   // the figures keep their size, but a first load settles fonts too
}

// The header's Rules button, the dialog's Close, and every link to a rule (a refusal's
// "Why?", a hint of the guided game) open the dialog instead of leaving the game.
export function wireRulesDialog() {
  const dialog = document.querySelector("[data-role=rules]");
  document.querySelector("[data-action=rules]").addEventListener("click", () => openRules(null));
  dialog.querySelector("[data-action=close-rules]").addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => {
    // The diagrams' points are boards too (g[data-vertex], [data-ball]): while the dialog is
    // shut they are gone, so the page holds one board, as tools and tests expect.
    const text = dialog.querySelector("[data-role=rules-text]");
    text.innerHTML = "";
    delete text.dataset.filled;
    delete text.dataset.drawn;
  });
  document.addEventListener("click", (event) => {
    const link = event.target.closest("a[data-rule]");
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    openRules(link.dataset.rule);
  });
}
