// margo-web page: the elements the modules of the page work on, and small helpers they share.
// A leaf module (it imports none of the others), so it is ready before any of them runs.

const $ = (selector) => document.querySelector(selector);
export const ui = {
  status: $("[data-role=status]"),
  board: $("[data-role=board]"),
  boardBox: $("[data-role=board-box]"),
  boardArea: $(".board-area"),
  numbers: $("[data-role=numbers]"),
  levelView: $("[data-role=level-view]"),
  newGameBox: $("[data-role=new-game-box]"),
  gameInfo: $("[data-role=game-info]"),
  comment: $("[data-role=comment]"),
  connection: $("[data-role=connection]"),
  hover: $("[data-role=hover]"),
  players: $("[data-role=players]"),
  counts: $("[data-role=counts]"),
  moves: $("[data-role=moves]"),
  slices: $("[data-role=slices]"),
  download: $("[data-role=download]"),
  crash: $("[data-role=crash]"),
  replaceEngine: $("[data-role=replace-engine]"),
  analysisToggle: $("[data-role=analysis-toggle]"),
  analysis: $("[data-role=analysis]"),
  analysisText: $("[data-role=analysis-text]"),
  winrateGraph: $("[data-role=winrate-graph]"),
  form: $("[data-role=new-game]"),
  replayBar: $("[data-role=replay-bar]"),
  slider: $("[data-role=slider]"),
  ply: $("[data-role=ply]"),
  sgfFile: $("[data-role=sgf-file]"),
  reviewGame: $("[data-action=review-game]"),
  reviewBox: $("[data-role=review-box]"),
  reviewButton: $("[data-action=review]"),
  reviewVisits: $("[data-role=review-visits]"),
  stopReview: $("[data-action=stop-review]"),
  ownership: $("[data-role=ownership]"),
  reviewedSgf: $("[data-role=reviewed-sgf]"),
  reviewProgress: $("[data-role=review-progress]"),
  reviewGraph: $("[data-role=review-graph]"),
  reviewMove: $("[data-role=review-move]"),
  mistakes: $("[data-role=mistakes]"),
  savedList: $("[data-role=saved-list]"),
  watchGames: $("[data-role=watch-games]"),
  crosstable: $("[data-role=crosstable]"),
  ratings: $("[data-role=ratings]"),
  resultPanel: $("[data-role=result-panel]"),
  winner: $("[data-role=winner]"),
  resultWhy: $("[data-role=result-why]"),
  resultRules: $("[data-role=result-rules]"),
  resultDownload: $("[data-role=result-download]"),
  resign: $("[data-action=resign]"),
  resignConfirm: $("[data-role=resign-confirm]"),
  rules: $("[data-role=rules]"),
  tryBar: $("[data-role=try-bar]"),
  variationText: $("[data-role=variation-text]"),
  variationUndo: $("[data-action=variation-undo]"),
  variationBack: $("[data-action=variation-back]"),
  playFromHere: $("[data-action=play-from-here]"),
  playHere: $("[data-role=play-here]"),
  playHereForm: $("[data-role=play-here-form]"),
  playHereWhat: $("[data-role=play-here-what]"),
  playHereError: $("[data-role=play-here-error]"),
};

export function escapeHtml(text) {
  return String(text ?? "").replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
}

export function setStatus(text, kind = "") {
  ui.status.textContent = text;
  ui.status.title = text;   // the line is cut to one row (the board's size depends on it)
  ui.status.className = "status" + (kind ? ` ${kind}` : "");
}

export async function fetchJson(url, options) {
  const response = await fetch(url, options);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

// An engine named by its command line, shortened for a table cell (the whole line is the
// cell's tooltip): its --player and --seed, else the program's file name and first word.
export function shortName(name) {
  const words = String(name ?? "").trim().split(/\s+/);
  if (words.length <= 1) return words[0] || "";
  const after = (flag) => { const i = words.indexOf(flag); return i >= 0 ? words[i + 1] : null; };
  const player = after("--player");
  if (player) return player + (after("--seed") ? ` #${after("--seed")}` : "");
  const program = words[0].split("/").pop();
  const rest = words.slice(1).find((w) => !w.startsWith("-"));
  return rest ? `${program} ${rest.split("/").pop()}` : program;
}
