// Where the seats go: the players' names, the game clocks and the thinking engine's visits and
// best move (app.js fills `ui.players`). On a wide window they sit in the side panel beside
// the board. On a phone (narrow, or on its side) the side panel follows below the controls, a
// scroll away (at 360x640 the engine's visits were under the fold), so there the same element
// moves up between the status line and the board, drawn as a two-row strip (style.css
// `.players.strip`): one element either way, so the clocks' and the thinking line's updates
// need not know where it is.

import { ui } from "./page.js";

const phone = matchMedia("(max-width: 760px), (orientation: landscape) and (max-height: 500px)");   // style.css
const home = { parent: ui.players.parentElement, next: ui.players.nextElementSibling };

function placeSeats() {
  if (phone.matches) {
    if (ui.players.previousElementSibling !== ui.status) ui.status.after(ui.players);
  } else if (ui.players.parentElement !== home.parent) {
    home.parent.insertBefore(ui.players, home.next);
  }
  ui.players.classList.toggle("strip", phone.matches);
}

// A game with an engine keeps the strip's second row, where the engine's search shows while it
// thinks, until the game ends: the board's size must not change from one move to the next (at
// the end the result panel comes, and the board is fitted again anyway).
export function markEngineSeats(game) {
  const engine = Object.values(game.seats).some((seat) => seat !== "human");
  ui.players.classList.toggle("engines", engine && !game.over);
}

phone.addEventListener("change", placeSeats);
placeSeats();
