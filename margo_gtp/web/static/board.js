// The board view: draws a frame the server sent, as an SVG top view of the pyramid.
//
// It knows no rule of MarGo (style.md item 24): which balls are zombies or buried, which
// empty points are supported and which of those are legal all come in the frame. It only
// knows where to draw: a level-l point (x, y) sits at (x + l/2, y + l/2) in cell units,
// over the 2x2 points it rests on. Levels are drawn bottom up, so upper balls cover lower.
//
// Test hooks (stable): every point is a <g data-vertex="C3:1">; a ball is a <circle
// data-ball="W|B" data-vertex> inside its point (plus data-zombie / data-buried); a point a
// click can aim at (empty and supported) holds a <rect data-target data-legal="true|false">.

export const CELL = 60;            // one cell, in SVG units
const MARGIN = 58;                 // room for the coordinates
export const COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ";

export function vertex(x, y, l) {
  return `${COLUMNS[x]}${y + 1}:${l + 1}`;
}

export function centre(size, x, y, l) {
  return [MARGIN + (x + l / 2) * CELL, MARGIN + (size - 1 - y - l / 2) * CELL];
}

// Ball radius grows with the level (higher balls are nearer the eye) but stays inside
// the ball's own cell, so neighbours on one level never overlap.
export function radius(l) {
  return CELL * Math.min(0.5, 0.43 + 0.025 * l);
}

// One shade per level, far enough apart to tell the white levels apart at a glance.
const SHADES = {
  W: ["#c6c1b3", "#dcd8cc", "#ece9e1", "#f7f5ef", "#ffffff"],
  B: ["#101014", "#25252c", "#383842", "#4a4a56", "#5c5c6a"],
};

function shade(colour, l) {
  const list = SHADES[colour];
  return list[Math.min(l, list.length - 1)];
}

function gradients() {
  let out = "";
  for (const colour of ["W", "B"]) {
    for (let l = 0; l < SHADES[colour].length; l++) {
      const base = shade(colour, l);
      const light = colour === "W" ? "#ffffff" : "#8a8a98";
      out += `<radialGradient id="ball-${colour}-${l}" cx="35%" cy="32%" r="70%">` +
        `<stop offset="0%" stop-color="${light}"/><stop offset="55%" stop-color="${base}"/>` +
        `<stop offset="100%" stop-color="${colour === "W" ? "#a8a59c" : "#000000"}"/></radialGradient>`;
    }
  }
  return out;
}

function escapeText(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
}

// Draw `frame` into `svg` (an <svg> element). Options:
//   mover:    "W" | "B" | null  colour of the ghost ball shown on hover (null: no hover)
//   analysis: {moves: [{move, visits, winrate}]} | null  overlay of the engine's top moves
//   numbers:  Map vertex -> move number, written on the balls (the move-number view)
//   level:    a level counted from 1: the balls of other levels are drawn faint (one-level view)
//   flash:    vertices whose balls were just captured: a ring that fades out
//   pv:       [{v, c, n}] a review's best line from here: numbered balls of its colours (n = 1: the best move)
//   tried:    Map vertex -> n, the balls of a side line tried in Replay (variation.js): a ring and
//             their number in the side line, instead of the move-number view's number
//   ownership: {vertex: lean} a review's ownership map, -1 White's .. 1 Black's: a shaded square per point
//             (on a ball only when it leans to the other colour)
export function renderBoard(svg, frame, options = {}) {
  const size = frame.size;
  const span = (size - 1) * CELL + 2 * MARGIN;
  svg.setAttribute("viewBox", `0 0 ${span} ${span}`);
  svg.dataset.size = size;
  const balls = new Map();
  for (const ball of frame.balls) balls.set(ball.v, ball);
  const targets = new Map();
  for (const target of frame.targets || []) targets.set(target.v, target);
  // A buried ball is hidden exactly under the ball two levels up: mark that ball instead.
  const covering = new Map();
  for (const ball of frame.balls) {
    if (ball.buried) covering.set(vertex(ball.x - 1, ball.y - 1, ball.l + 2), ball.c);
  }
  const analysis = new Map();
  if (options.analysis && options.analysis.moves) {
    options.analysis.moves.forEach((item, order) => analysis.set(item.move, { ...item, order }));
  }
  const flash = new Set(options.flash || []);
  const line = new Map();
  for (const step of options.pv || []) if (!line.has(step.v)) line.set(step.v, step);
  const ownership = options.ownership || null;
  const numbers = options.numbers || null;
  const inners = [];   // the content of every point, in drawing order
  const half = CELL * 0.45;   // a target's hit square, a little smaller than its cell
  for (let l = 0; l < size; l++) {
    const side = size - l;
    for (let y = side - 1; y >= 0; y--) {
      for (let x = 0; x < side; x++) {
        const v = vertex(x, y, l);
        const [cx, cy] = centre(size, x, y, l);
        const ball = balls.get(v);
        const target = targets.get(v);
        const tried = ball && options.tried ? options.tried.get(v) : undefined;
        let inner = "";
        if (flash.has(v)) inner += `<circle class="capture-flash" cx="${cx}" cy="${cy}" r="${radius(l)}"/>`;
        if (ball) {
          const r = radius(l);
          const lift = 1.5 + 2.5 * l;
          const flags = (ball.zombie ? " data-zombie" : "") + (ball.buried ? " data-buried" : "");
          const faint = options.level && options.level !== l + 1 ? " faint" : "";
          if (faint) inner += '<g class="faint">';
          // Shadows and level numbers only where they tell something (and cost little to
          // draw): a shadow lifts a stacked ball off the balls below; level 2 is told by its
          // place (between grid points), levels 3 and up, back on the grid points, by a number.
          if (l >= 1) inner += `<circle class="shadow" cx="${cx + lift}" cy="${cy + lift}" r="${r}"/>`;
          inner += `<circle class="ball ball-${ball.c}" data-ball="${ball.c}" data-vertex="${v}" data-level="${l + 1}"${flags}` +
            ` cx="${cx}" cy="${cy}" r="${r}" fill="url(#ball-${ball.c}-${Math.min(l, 4)})"/>`;
          const under = covering.get(v);
          if (under) {
            // A ring in the buried ball's colour on a halo of the other tone: seen on either ball.
            inner += `<circle class="buried-halo buried-halo-${under}" cx="${cx}" cy="${cy}" r="${r * 0.62}"/>` +
              `<circle class="buried-mark buried-${under}" data-buried-mark="${under}" cx="${cx}" cy="${cy}" r="${r * 0.62}"/>`;
          }
          if (l >= 2) {   // after the ring, which crosses it: drawn before, it hid half the digit
            inner += `<text class="level level-${ball.c}" x="${cx + r * 0.5}" y="${cy + r * 0.75}">${l + 1}</text>`;
          }
          if (tried) {
            inner += `<circle class="tried-ring" data-tried="${tried}" cx="${cx}" cy="${cy}" r="${r - 2}"/>` +
              `<text class="tried-number tried-number-${ball.c}" x="${cx}" y="${cy + 8}">${tried}</text>`;
          } else if (numbers && numbers.has(v)) {
            inner += `<text class="move-number move-number-${ball.c}" data-move-number x="${cx}" y="${cy + 5}">${numbers.get(v)}</text>`;
          }
          if (ball.zombie) {
            // The red cross on a white halo on a black ball: red on black alone is 2.7:1.
            const cross = `d="M${cx - r * 0.35} ${cy - r * 0.35}L${cx + r * 0.35} ${cy + r * 0.35}` +
              `M${cx + r * 0.35} ${cy - r * 0.35}L${cx - r * 0.35} ${cy + r * 0.35}"`;
            if (ball.c === "B") inner += `<path class="zombie-halo" ${cross}/>`;
            inner += `<path class="zombie-mark" ${cross}/>`;
          }
          if (frame.last === v && !tried) {   // a side line's balls are numbered: its last is the highest
            inner += `<rect class="last-mark last-mark-${ball.c}" data-last x="${cx - r * 0.2}" y="${cy - r * 0.2}" width="${r * 0.4}" height="${r * 0.4}"/>`;
          }
          if (faint) inner += "</g>";
        } else if (target) {
          const why = target.why ? ` data-why="${escapeText(target.why)}"` : "";
          inner += `<rect class="hit" data-target data-legal="${target.legal}"${why} x="${cx - half}" y="${cy - half}"` +
            ` width="${2 * half}" height="${2 * half}" rx="${half * 0.5}"/>`;
          if (options.mover && target.legal) {
            inner += `<circle class="ghost ghost-${options.mover}" cx="${cx}" cy="${cy}" r="${radius(l)}"/>`;
          } else if (options.mover) {
            inner += `<path class="ghost ghost-illegal" d="M${cx - 10} ${cy - 10}L${cx + 10} ${cy + 10}M${cx + 10} ${cy - 10}L${cx - 10} ${cy + 10}"/>`;
          }
          // Seen before any tap (touch has no hover): on the mover's turn a legal point above
          // level 1 gets a dark dot and a refused point of any level a thin cross.
          if (options.mover && !target.legal) {
            const s = CELL * 0.09;
            inner += `<path class="refused-mark" data-mark="refused" d="M${cx - s} ${cy - s}L${cx + s} ${cy + s}M${cx + s} ${cy - s}L${cx - s} ${cy + s}"/>`;
          } else if (l >= 1 && options.mover) {
            inner += `<circle class="slot slot-legal" data-mark="legal" cx="${cx}" cy="${cy}" r="${CELL * 0.11}"/>`;
          } else if (l >= 1) {
            inner += `<circle class="slot" cx="${cx}" cy="${cy}" r="${CELL * 0.08}"/>`;
          }
          const item = analysis.get(v);
          if (item) {
            const best = item.order === 0 ? " best" : "";
            inner += `<g class="analysis${best}" data-analysis="${v}"><circle cx="${cx}" cy="${cy}" r="${radius(l) * 0.9}"/>` +
              `<text x="${cx}" y="${cy - 2}">${Math.round(item.winrate * 100)}%</text>` +
              `<text class="visits" x="${cx}" y="${cy + 13}">${escapeText(item.visits)}</text></g>`;
          }
        }
        const lean = ownership ? ownership[v] : undefined;
        const owner = lean === undefined ? null : lean > 0 ? "B" : "W";
        if (owner && (!ball || ball.c !== owner)) {
          // On an empty point: who is expected to hold it; on a ball only when it is the
          // other colour's (the ball is expected to be lost), as KaTrain marks dead stones.
          const s = CELL * 0.4;
          inner += `<rect class="owner owner-${owner}" data-owner="${owner}" x="${cx - s / 2}" y="${cy - s / 2}"` +
            ` width="${s}" height="${s}" opacity="${Math.min(0.85, 0.2 + Math.abs(lean)).toFixed(2)}"/>`;
        }
        const step = line.get(v);
        if (step) {
          inner += `<g class="pv pv-${step.c}${step.n === 1 ? " pv-best" : ""}" data-pv="${step.n}">` +
            `<circle cx="${cx}" cy="${cy}" r="${radius(l) * 0.78}"/><text x="${cx}" y="${cy + 6}">${step.n}</text></g>`;
        }
        inners.push([v, inner, pointName(v, ball, target, tried, owner && (!ball || ball.c !== owner) ? owner : null)]);
      }
    }
  }
  const drawn = drawnPoints.get(svg);
  if (!drawn || drawn.size !== size) {
    // A new board (or size): draw everything once, and remember each point's element.
    svg.innerHTML = `<g class="static">${staticLayer(size, span)}</g><g class="points">` +
      inners.map(([v, inner, name]) => `<g class="pt" data-vertex="${v}" role="img" aria-label="${escapeText(name)}">${inner}</g>`).join("") + "</g>";
    const elements = svg.lastChild.children;
    drawnPoints.set(svg, { size, points: inners.map(([, inner, name], i) => ({ element: elements[i], inner, name })) });
    return;
  }
  // The same board again: replace only the points whose content changed (a move touches few).
  inners.forEach(([, inner, name], i) => {
    const point = drawn.points[i];
    if (point.inner !== inner) {
      point.element.innerHTML = inner;
      point.inner = inner;
    }
    if (point.name !== name) {
      point.element.setAttribute("aria-label", name);
      point.name = name;
    }
  });
}

// What a screen reader says of a point: "D4, level 2, black, zombie", "C3, level 1, empty,
// legal", "A1, level 1, empty, not allowed: suicide" (colour is never the only sign); a ball of
// a side line tried in Replay says its number there ("C3, level 1, black, variation move 2"),
// and a point the review's ownership map marks says for whom ("B2, level 1, empty, Black's
// area"; "C3, level 1, white, likely lost to Black"): the shaded square is not the only sign.
export function pointName(v, ball, target, tried, owner = null) {
  const [name, level] = v.split(":");
  let what = "empty";
  if (ball) {
    what = (ball.c === "W" ? "white" : "black") + (ball.zombie ? ", zombie" : "") + (ball.buried ? ", buried" : "") +
      (tried ? `, variation move ${tried}` : "");
  } else if (target) {
    what = target.legal ? "empty, legal" : `empty, not allowed: ${target.why || "illegal"}`;
  }
  const side = owner === "B" ? "Black" : "White";
  if (owner) what += ball ? `, likely lost to ${side}` : `, ${side}'s area`;
  return `${name}, level ${level}, ${what}`;
}

// What each board <svg> shows now: {size, points: [{element, inner}]} in drawing order.
const drawnPoints = new WeakMap();

// Forget what `svg` shows, so the next renderBoard draws everything (the benchmark's full draw).
export function clearBoard(svg) {
  drawnPoints.delete(svg);
  svg.innerHTML = "";
}

let gradientDefs = null;

function staticLayer(size, span) {
  gradientDefs = gradientDefs || gradients();
  const parts = [`<defs>${gradientDefs}</defs>`];
  parts.push(`<rect class="wood" x="0" y="0" width="${span}" height="${span}" rx="10"/>`);
  const lo = MARGIN, hi = MARGIN + (size - 1) * CELL;
  let grid = "";
  for (let i = 0; i < size; i++) {
    const p = MARGIN + i * CELL;
    grid += `M${lo} ${p}H${hi}M${p} ${lo}V${hi}`;
  }
  parts.push(`<path class="grid" d="${grid}"/>`);
  for (let i = 0; i < size; i++) {
    const p = MARGIN + i * CELL;
    const row = MARGIN + (size - 1 - i) * CELL + 5;
    parts.push(`<text class="coord" x="${p}" y="${MARGIN * 0.3}">${COLUMNS[i]}</text>`);
    parts.push(`<text class="coord" x="${p}" y="${span - MARGIN * 0.12}">${COLUMNS[i]}</text>`);
    parts.push(`<text class="coord" x="${MARGIN * 0.2}" y="${row}">${i + 1}</text>`);
    parts.push(`<text class="coord" x="${span - MARGIN * 0.2}" y="${row}">${i + 1}</text>`);
  }
  return parts.join("");
}

// Small per-level grids for the side panel: one SVG per level that holds a ball, plus
// the next level up when it has a supported empty point.
export function renderSlices(container, frame) {
  const size = frame.size;
  const byLevel = new Map();
  for (const ball of frame.balls) {
    if (!byLevel.has(ball.l)) byLevel.set(ball.l, []);
    byLevel.get(ball.l).push(ball);
  }
  const top = Math.max(0, ...frame.balls.map((b) => b.l));
  const parts = [];
  for (let l = Math.min(top, size - 1); l >= 0; l--) {
    const side = size - l;
    const cell = 14;
    const span = side * cell;
    let cells = "";
    for (const ball of byLevel.get(l) || []) {
      const cx = ball.x * cell + cell / 2, cy = (side - 1 - ball.y) * cell + cell / 2;
      const cls = `slice-ball slice-${ball.c}` + (ball.zombie ? " slice-zombie" : "") + (ball.buried ? " slice-buried" : "");
      cells += `<circle class="${cls}" cx="${cx}" cy="${cy}" r="${cell * 0.42}"/>`;
    }
    let lines = "";
    for (let i = 0; i < side; i++) {
      const p = i * cell + cell / 2;
      lines += `M${cell / 2} ${p}H${span - cell / 2}M${p} ${cell / 2}V${span - cell / 2}`;
    }
    parts.push(`<figure class="slice" data-level="${l + 1}"><figcaption>level ${l + 1}</figcaption>` +
      `<svg viewBox="0 0 ${span} ${span}" width="${span}" height="${span}"><path class="slice-grid" d="${lines}"/>${cells}</svg></figure>`);
  }
  container.innerHTML = parts.join("");
}

// White's win rate over the game, one point per analysed ply, on a 0/50/100% scale, with
// the current ply marked; each point carries data-ply (the page jumps there on a click, and
// graphPly reads a click between points). Options: marks [{ply, kind}] (a review's
// blunders, mistakes and inaccuracies, drawn as coloured dots), dots (false: the line only).
// A graph drawn taller than 80 px (the review's on a large screen, style.css) gets a taller
// scale, not a larger drawing: its viewBox takes the shape of its box, and a new box draws it
// again.
const graphBoxes = new ResizeObserver((entries) => { for (const entry of entries) entry.target.redrawGraph(); });

export function renderWinrates(svg, winrates, current = null, { marks = [], dots: withDots = true } = {}) {
  const width = 300, left = 30;
  const box = svg.getBoundingClientRect();
  const height = box.width > 0 ? Math.max(80, Math.round((width * box.height) / box.width)) : 80;
  svg.redrawGraph = () => renderWinrates(svg, winrates, current, { marks, dots: withDots });
  graphBoxes.observe(svg);
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const points = [];
  let dots = "";
  const n = Math.max(winrates.length - 1, 1);
  svg.dataset.plies = n;
  const xOf = (i) => left + (i / n) * (width - left - 6);
  const yOf = (w) => (1 - w) * (height - 10) + 5;
  winrates.forEach((w, i) => {
    if (w === null || w === undefined) return;
    points.push(`${xOf(i)},${yOf(w)}`);
    if (withDots) dots += `<circle class="graph-dot" data-ply="${i}" cx="${xOf(i)}" cy="${yOf(w)}" r="4"/>`;
  });
  for (const { ply, kind } of marks) {
    const w = winrates[ply];
    if (w === null || w === undefined) continue;
    dots += `<circle class="graph-mark graph-${kind}" data-ply="${ply}" data-mark="${kind}" cx="${xOf(ply)}" cy="${yOf(w)}" r="${kind === "inaccuracy" ? 2.5 : 3.5}"/>`;
  }
  const axis = [[1, "100%"], [0.5, "50%"], [0, "0%"]].map(([w, label]) =>
    `<line class="${w === 0.5 ? "graph-mid" : "graph-tick"}" x1="${left}" y1="${yOf(w)}" x2="${width}" y2="${yOf(w)}"/>` +
    `<text class="graph-label" x="${left - 3}" y="${yOf(w) + 4}">${label}</text>`).join("");
  const marker = current === null ? "" :
    `<line class="graph-current" data-role="winrate-current" data-current="${current}" x1="${xOf(current)}" y1="0" x2="${xOf(current)}" y2="${height}"/>`;
  svg.innerHTML = `<rect class="graph-bg" x="${left}" width="${width - left}" height="${height}"/>${axis}${marker}` +
    (points.length ? `<polyline class="graph-line" data-role="winrate-line" points="${points.join(" ")}"/>` : "") + dots;
}

// The ply a click on a win-rate graph means: the nearest ply to the click's x (a point of
// a long game is too small to aim at). Null left of the scale.
export function graphPly(svg, event) {
  const width = 300, left = 30;
  const matrix = svg.getScreenCTM();
  if (!matrix) return null;
  const x = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse()).x;
  if (x < left - 3) return null;
  const n = Number(svg.dataset.plies) || 1;
  return Math.max(0, Math.min(n, Math.round(((x - left) / (width - left - 6)) * n)));
}
