// The game clocks of a game with a time control, next to each seat: the server's seconds
// left (a state's "clock"), the running one ticking down here between states, 4 times a
// second. The server alone decides when a flag falls (margo_gtp/web/clocks.py).

const TICK_MS = 250;

let clock = null;    // the server's {W, B, running, main, increment}, with `at` (when it came)
let ticker = null;

export function followClocks(game) {
  clock = game && game.clock ? { ...game.clock, at: performance.now() } : null;
  if (clock && clock.running && !game.over) {
    if (!ticker) ticker = setInterval(drawClocks, TICK_MS);
  } else {
    clearInterval(ticker);
    ticker = null;
  }
}

export function stopClocks() {
  clearInterval(ticker);
  ticker = null;
}

function secondsLeft(colour) {
  const running = clock.running === colour ? (performance.now() - clock.at) / 1000 : 0;
  return Math.max(0, clock[colour] - running);
}

// 4:05 from a minute up, 9.3 under ten seconds.
function clockWords(seconds) {
  if (seconds < 10) return seconds.toFixed(1);
  const whole = Math.floor(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

// The clock of a seat, for the seats' list (empty without a time control).
export function clockHtml(colour) {
  if (!clock) return "";
  const seconds = secondsLeft(colour);
  const running = clock.running === colour ? " running" : "";
  return ` <span class="clock${running}" data-clock="${colour}" data-seconds="${seconds.toFixed(1)}">${clockWords(seconds)}</span>`;
}

function drawClocks() {
  if (!clock) return;
  for (const element of document.querySelectorAll("[data-clock]")) {
    const seconds = secondsLeft(element.dataset.clock);
    element.dataset.seconds = seconds.toFixed(1);
    element.textContent = clockWords(seconds);
  }
}
