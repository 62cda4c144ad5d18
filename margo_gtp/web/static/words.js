// Plain words for a newcomer: the server's refusals and results said as one sentence, with
// the section of the rules (rules.js) that explains them. Only words live here: which move
// is refused and why still comes from the server (style.md item 24).

// Every refusal a move can get, as the server words it -> a sentence and the rules section
// it comes from. The rules core's: "illegal move: D5:1 for WHITE: <reason>" (engine/
// python_core.py and native.py); the game's (web/game.py): not your turn, over, no vertex.
const MOVE_REASONS = [
  [/^point is occupied$/, "a ball is already there", "rules-placing"],
  [/^point is not supported$/, "a ball above level 1 must rest on four balls", "rules-stacking"],
  [/^level is above max_level (\d+)$/, (m) => `this game's rules stop at level ${m[1]}`, "rules-options"],
  [/^suicide$/, "this ball would have no freedom and captures nothing", "rules-freedoms"],
  [/^suicide or repetition$/, "this ball would have no freedom, or it would repeat a position", "rules-freedoms"],
  [/^repetition/, "it would bring back an earlier position (ko)", "rules-ko"],
];

const REFUSALS = [
  [/^illegal move: it is not your turn$/, "Not yet: wait for your turn", "rules-placing"],
  [/^illegal move: (\S+: )?the game is over/, "The game is over: start a new one or a rematch", "rules-end"],
  [/^illegal move: pass:/, "Passing is off in this game (tick \u201callow passing\u201d under New game)", "rules-end"],
  [/^illegal move: swap:/, "Swap is only for the second player, on the second turn, with swap on", "rules-options"],
  [/^illegal move: .* is not a vertex$/, "That is not a point of the board", "rules-placing"],
  [/^illegal move: .* is off an? (\d+)x\d+ board$/, (m) => `That point is off this ${m[1]}\u00d7${m[1]} board`, "rules-placing"],
  [/^cannot undo$/, "There is no move to take back", null],
];

function say(words, found) {
  return typeof words === "function" ? words(found) : words;
}

// {text, rule} for an error message of the server, or null when it is no refused move.
// `rule` is the id of a section of the rules (null only where no rule of MarGo is at stake).
export function plainRefusal(message) {
  for (const [pattern, words, rule] of REFUSALS) {
    const found = pattern.exec(message);
    if (found) return { text: say(words, found), rule };
  }
  const match = /^illegal move: (\S+) for \w+: (.+)$/.exec(message);
  if (!match) return null;
  const [, point, reason] = match;
  for (const [pattern, words, rule] of MOVE_REASONS) {
    const found = pattern.exec(reason);
    if (found) return { text: `Not at ${point}: ${say(words, found)}`, rule };
  }
  return { text: `Not at ${point}: ${reason}`, rule: null };
}

const COLOURS = { W: "White", B: "Black" };
const ENDINGS = {
  "no legal move": "the player to move had no legal move left",
  resignation: "by resignation",
  time: "on time: the other side's clock ran out",
};

// The result panel's words for a game's result ("B+35") and status ("Black wins B+35 (no
// legal move)"): {winner: "W" | "B" | null, title, why}.
export function resultWords(result, status) {
  const winner = /^[WB]\+/.test(result || "") ? result[0] : null;
  const how = /\(([^)]*)\)\s*$/.exec(status || "");
  const ending = how ? ENDINGS[how[1]] || how[1] : "";
  const margin = winner && /^[WB]\+\d/.test(result) ? ` by ${result.slice(2)}` : "";
  return {
    winner,
    title: winner ? `${COLOURS[winner]} wins${margin}` : "Draw",
    why: ending ? `— ${ending} (${result})` : `(${result})`,
  };
}
