// margo-web page: the rule presets of the new-game form (the designer's rules, Jocly's,
// Ludii's Spargo). The server owns the list (margo_gtp/web/presets.py) and sends it in its
// hello; picking one sets the folded rule options and the board size, and changing an option
// by hand makes the rules "custom". The server checks the name and the rules again.
import { escapeHtml, ui } from "./page.js";

const CUSTOM = "custom";
const CUSTOM_WORDS = "Your own choice of the rule options below.";
const DEFAULT_PRESET = "designer";   // a newcomer plays the designer's game
const select = ui.form.preset;
const words = document.querySelector("[data-role=preset-words]");
// The controls a preset sets: the folded options and "allow passing" beside the players.
const controls = [...ui.form.querySelectorAll("fieldset [name]"), ui.form.allow_pass];
let presets = [];

// The rules of the form as a new message sends them ({option: text}). The form counts
// levels from 1 as GTP does; the rules option is 0-based. Empty: no limit.
export function formRules() {
  const f = ui.form;
  const onOff = (box) => (box.checked ? "on" : "off");
  const rules = {
    first_player: f.first_player.value, ko_rule: f.ko_rule.value, scoring: f.scoring.value,
    komi: f.komi.value || "0", swap: onOff(f.swap), allow_pass: onOff(f.allow_pass),
    first_capture_wins: onOff(f.first_capture_wins), own_freedomless_group: f.own_freedomless_group.value,
    ko_position: f.ko_position.value, bridge_cutting: onOff(f.bridge_cutting), all_freedoms: onOff(f.all_freedoms),
  };
  if (f.max_level.value) rules.max_level = String(Number(f.max_level.value) - 1);
  return rules;
}

// The preset whose options the form holds now, else "custom".
function matchingPreset() {
  const rules = formRules();
  const same = (preset) => rules.max_level === undefined &&
    Object.entries(preset.options).every(([option, value]) => rules[option] === value);
  const found = presets.find(same);
  return found ? found.name : CUSTOM;
}

function showWords() {
  const preset = presets.find((p) => p.name === select.value);
  words.textContent = preset ? preset.words : CUSTOM_WORDS;
}

// By hand the empty board follows the new size; the default, set when the page opens, leaves
// the board to app.js (a game may be starting or coming back).
function applyPreset(name, byHand) {
  const preset = presets.find((p) => p.name === name);
  if (!preset) return;
  for (const [option, value] of Object.entries(preset.options)) {
    const control = ui.form[option];
    if (control.type === "checkbox") control.checked = value === "on";
    else control.value = value;
  }
  ui.form.max_level.value = "";   // no limit
  if (ui.form.size.value !== String(preset.size)) {
    ui.form.size.value = String(preset.size);
    if (byHand) ui.form.size.dispatchEvent(new Event("change"));
  }
}

// The list from the server's hello (again after a reconnect: what the player chose stays).
export function showPresets(list) {
  const first = presets.length === 0;
  presets = list || [];
  const chosen = select.value;
  select.innerHTML = [...presets.map((p) => `<option value="${escapeHtml(p.name)}">${escapeHtml(p.title)}</option>`),
    `<option value="${CUSTOM}">custom</option>`].join("");
  if (first && presets.some((p) => p.name === DEFAULT_PRESET)) {
    select.value = DEFAULT_PRESET;
    applyPreset(DEFAULT_PRESET, false);
  } else {
    select.value = chosen && [...select.options].some((o) => o.value === chosen) ? chosen : matchingPreset();
  }
  showWords();
}

// The preset a new game is started with: the one chosen, or "custom".
export function formPreset() {
  return select.value || CUSTOM;
}

// Words for a game's preset (a state's "preset"): its title, "custom rules", or "" for none.
export function presetTitle(name) {
  if (name === CUSTOM) return "custom rules";
  const preset = presets.find((p) => p.name === name);
  return preset ? preset.title : "";
}

select.addEventListener("change", () => {
  applyPreset(select.value, true);
  showWords();
});
for (const control of controls) {
  control.addEventListener(control.type === "checkbox" || control.tagName === "SELECT" ? "change" : "input", () => {
    select.value = matchingPreset();
    showWords();
  });
}
