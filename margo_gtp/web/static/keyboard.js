// margo-web page: the board by keyboard (its cursor, and Enter to play), for app.js.

import { centre, radius, vertex } from "./board.js";
import { game, lookBack, mode, offline, send } from "./app.js";
import { ui } from "./page.js";
import { tryMove } from "./variation.js";

// ---------------------------------------------------------------- the board by keyboard

// With the board focused (Tab), the arrows move a cursor over the points of one level, Page Up
// and Page Down (or + and -) change the level, Enter or Space plays the point; the line under
// the board (a live region) says the point's name, as a screen reader would.
let cursor = null;   // {x, y, l} while the board has the focus

export function drawCursor() {
  for (const old of ui.board.querySelectorAll(".kbd-cursor")) old.remove();
  if (!cursor || document.activeElement !== ui.board) return;
  const size = Number(ui.board.dataset.size);
  const [cx, cy] = centre(size, cursor.x, cursor.y, cursor.l);
  const r = radius(cursor.l) + 3;
  const ring = document.createElementNS("http://www.w3.org/2000/svg", "rect");
  for (const [name, value] of Object.entries({ class: "kbd-cursor", "data-cursor": vertex(cursor.x, cursor.y, cursor.l),
    x: cx - r, y: cy - r, width: 2 * r, height: 2 * r, rx: 6 })) ring.setAttribute(name, value);
  ui.board.appendChild(ring);
  const point = ui.board.querySelector(`g[data-vertex="${vertex(cursor.x, cursor.y, cursor.l)}"]`);
  ui.hover.textContent = point ? point.getAttribute("aria-label") : "\u00a0";
  ui.hover.classList.remove("illegal");
}

ui.board.addEventListener("focus", () => {
  // Focus by a click (the mouse plays by clicking): no cursor, and the arrows keep stepping
  // through the game; focus by the keyboard (Tab) shows the cursor.
  if (!ui.board.matches(":focus-visible")) {
    cursor = null;
    return;
  }
  const size = Number(ui.board.dataset.size) || 7;
  if (!cursor || cursor.l >= size || cursor.x >= size - cursor.l || cursor.y >= size - cursor.l) {
    cursor = { x: Math.floor((size - 1) / 2), y: Math.floor((size - 1) / 2), l: 0 };
  }
  drawCursor();
});
ui.board.addEventListener("blur", () => {
  for (const old of ui.board.querySelectorAll(".kbd-cursor")) old.remove();
});
ui.board.addEventListener("keydown", (event) => {
  if (!cursor || event.ctrlKey || event.metaKey || event.altKey) return;
  const size = Number(ui.board.dataset.size);
  const side = (l) => size - l;
  const steps = { ArrowLeft: [-1, 0, 0], ArrowRight: [1, 0, 0], ArrowUp: [0, 1, 0], ArrowDown: [0, -1, 0],
    PageUp: [0, 0, 1], "+": [0, 0, 1], PageDown: [0, 0, -1], "-": [0, 0, -1] };
  if (event.key in steps) {
    const [dx, dy, dl] = steps[event.key];
    const l = Math.max(0, Math.min(size - 1, cursor.l + dl));
    const clamp = (value) => Math.max(0, Math.min(side(l) - 1, value));
    cursor = { x: clamp(cursor.x + dx), y: clamp(cursor.y + dy), l };
    drawCursor();
  } else if (event.key === "Enter" || event.key === " ") {
    const point = vertex(cursor.x, cursor.y, cursor.l);
    if (mode === "play" && game && !offline && !lookBack) send({ type: "play", move: point });
    else if (mode === "replay") tryMove(point);   // a move on a side line (variation.js)
  } else {
    return;   // u, p, Home, End... as anywhere on the page
  }
  event.preventDefault();
  event.stopPropagation();   // the page's ← → step through the game only when the board has no focus
});
