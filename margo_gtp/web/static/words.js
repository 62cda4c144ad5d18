// Plain words for a newcomer: the server's refusals and results said as one sentence, with
// the section of the rules (index.html's dialog) that explains them. Only words live here:
// which move is refused and why still comes from the server (style.md item 24).

// The rules core's reason (the end of "illegal move: D5:1 for WHITE: suicide") -> a sentence
// and the rules section it comes from.
const REASONS = [
  [/^point is occupied$/, "a ball is already there", "rules-placing"],
  [/^point is not supported$/, "a ball above level 1 must rest on four balls", "rules-stacking"],
  [/^level is above max_level (\d+)$/, (m) => `these rules stop at level ${m[1]}`, "rules-stacking"],
  [/^suicide$/, "this ball would have no freedom and captures nothing", "rules-freedoms"],
  [/^suicide or repetition$/, "this ball would have no freedom, or it would repeat a position", "rules-freedoms"],
  [/^repetition/, "it would bring back an earlier position (ko)", "rules-ko"],
];

// {text, rule} for an error message of the server, or null when it is no refused move.
export function plainRefusal(message) {
  if (message === "illegal move: it is not your turn") return { text: "Not yet: wait for your turn", rule: null };
  if (message === "illegal move: the game is over") return { text: "The game is over: start a new one or a rematch", rule: "rules-end" };
  if (message.startsWith("illegal move: pass:")) {
    return { text: "Passing is off in this game (tick \u201callow passing\u201d under New game)", rule: "rules-end" };
  }
  if (message.startsWith("illegal move: swap:")) {
    return { text: "Swap is only for the second player, on the second turn, with swap on", rule: null };
  }
  const match = /^illegal move: (\S+) for \w+: (.+)$/.exec(message);
  if (!match) return null;
  const [, point, reason] = match;
  for (const [pattern, words, rule] of REASONS) {
    const found = pattern.exec(reason);
    if (found) return { text: `Not at ${point}: ${typeof words === "function" ? words(found) : words}`, rule };
  }
  return { text: `Not at ${point}: ${reason}`, rule: null };
}

const COLOURS = { W: "White", B: "Black" };
const ENDINGS = {
  "no legal move": "the player to move had no legal move left",
  resignation: "by resignation",
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
