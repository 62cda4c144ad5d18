// margo-web page: an optional move sound. Off unless the player ticks "sound" under the board
// (remembered in localStorage); then each new move of the game in Play, the player's or the
// engine's, makes a short click generated here with WebAudio: no sound file to load, nothing
// to install. Never a sound while it is off, nor for a game opened, resumed or taken back.

const STORAGE_KEY = "margo-web.sound";
const toggle = document.querySelector("[data-role=sound]");
let audio = null;          // the AudioContext, made at the first need (after a gesture)
let heard = { game: null, moves: 0 };   // the last state's game and its number of moves

function remembered() {
  try {
    return localStorage.getItem(STORAGE_KEY) === "on";
  } catch {
    return false;   // storage refused (a private window): the sound stays off
  }
}

function click() {
  audio ??= new AudioContext();
  if (audio.state === "suspended") audio.resume();
  // A wooden tick: a short triangle wave falling from 900 to 300 Hz, gone in 60 ms.
  const now = audio.currentTime;
  const tone = audio.createOscillator();
  const volume = audio.createGain();
  tone.type = "triangle";
  tone.frequency.setValueAtTime(900, now);
  tone.frequency.exponentialRampToValueAtTime(300, now + 0.05);
  volume.gain.setValueAtTime(0.25, now);
  volume.gain.exponentialRampToValueAtTime(0.001, now + 0.06);
  tone.connect(volume).connect(audio.destination);
  tone.start(now);
  tone.stop(now + 0.07);
}

// Called with each state of the game in Play: a click when it holds more moves than the last
// state of the same game did (not for the first state of a game, nor for an undo).
export function soundForMoves(game) {
  const moves = game.moves.length;
  const isNewMove = heard.game === game.game && moves > heard.moves;
  heard = { game: game.game, moves };
  if (isNewMove && toggle.checked) click();
}

toggle.checked = remembered();
toggle.addEventListener("change", () => {
  try {
    localStorage.setItem(STORAGE_KEY, toggle.checked ? "on" : "off");
  } catch {
    // not remembered: it still holds for this page
  }
  if (toggle.checked) {
    audio ??= new AudioContext();   // made inside the gesture, so the browser lets it play
    audio.resume();
  }
});
