// margo-web page: the Watch tab (the games of a referee folder, its crosstable and ratings,
// a live game followed over the websocket), for app.js.

import { mode, replay, send, showReplay } from "./app.js";
import { escapeHtml, fetchJson, setStatus, shortName, ui } from "./page.js";

// ---------------------------------------------------------------- watch a referee folder

export async function refreshWatch() {
  let data;
  try {
    data = await fetchJson("/api/watch");
  } catch (error) {
    setStatus(error.message, "error");
    return;
  }
  const selected = replay && replay.key;
  ui.watchGames.innerHTML = "<tr><th>#</th><th>White</th><th>Black</th><th>Result</th></tr>" +
    data.games.map((g) => `<tr data-key="${escapeHtml(g.key)}" data-title="${escapeHtml(
      `${g.folder === "." ? "" : g.folder + " "}game ${g.game}: ${shortName(g.white)} – ${shortName(g.black)}`)}"${g.live ? " data-live" : ""}` +
      `${g.key === selected ? ' class="selected"' : ""}><td>${escapeHtml(g.folder === "." ? "" : g.folder + " ")}${g.game}</td>` +
      `<td title="${escapeHtml(g.white)}">${escapeHtml(shortName(g.white))}</td><td title="${escapeHtml(g.black)}">${escapeHtml(shortName(g.black))}</td>` +
      `<td>${g.live ? `<span class="live-badge">live</span> ${g.moves} moves` : escapeHtml(g.result)}</td></tr>`).join("");
  const names = Object.keys(data.crosstable).sort();
  ui.crosstable.innerHTML = names.length ? `<tr><th></th>${names.map((n) => `<th title="${escapeHtml(n)}">${escapeHtml(shortName(n))}</th>`).join("")}</tr>` +
    names.map((a) => `<tr><th title="${escapeHtml(a)}">${escapeHtml(shortName(a))}</th>${names.map((b) => {
      const cell = data.crosstable[a][b];
      return `<td>${cell ? `${cell.score}/${cell.games}` : ""}</td>`;
    }).join("")}</tr>`).join("") : "<tr><td>no finished games yet</td></tr>";
  const elo = (value) => (value === null || value === undefined ? "—" : Math.round(value));
  ui.ratings.innerHTML = data.ratings.length ? "<tr><th>engine</th><th>Elo</th><th>95%</th><th>games</th></tr>" +
    data.ratings.map((r) => `<tr><td title="${escapeHtml(r.name)}">${escapeHtml(shortName(r.name))}</td><td>${elo(r.elo)}</td>` +
      `<td>${elo(r.low)} … ${elo(r.high)}</td><td>${escapeHtml(r.games ?? "")}</td></tr>`).join("")
    : "<tr><td>none (tournaments write them)</td></tr>";
  if (replay && replay.live && !data.games.some((g) => g.key === replay.key && g.live)) {
    openWatchGame(replay.key, replay.title);   // the live game just finished: show its record
  }
}

let watchRequest = 0;   // only the answer to the latest request is shown

export async function openWatchGame(key, title = replay ? replay.title : key) {
  const mine = ++watchRequest;
  send({ type: "unwatch" });
  try {
    const data = await fetchJson(`/api/watch/${encodeURIComponent(key)}`);
    if (mode !== "watch" || mine !== watchRequest) return;
    showReplay(data, title, "end");   // a watched game opens at its latest position
  } catch (error) {
    if (mine === watchRequest) setStatus(error.message, "error");
    return;
  }
  followLive();
}

// A live game: the server pushes its new frames over the websocket as the feed grows.
export function followLive() {
  if (mode === "watch" && replay && replay.live && !replay.replay) {
    send({ type: "watch", key: replay.key, since: replay.frames.length });
  }
}

export function receiveWatched(data) {
  if (mode !== "watch" || !replay || replay.key !== data.key) return;
  data.frames = replay.frames.slice(0, data.since).concat(data.frames);
  showReplay(data, replay.title, "end");
}
