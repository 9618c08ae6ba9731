// The shared table: who this page is (the game master or a player), the join link and its
// QR for the game master, the party, and the evening's log as it happens (server-sent
// events: every run, save, undo and choice of every page); a page whose character another
// page saved or undid is shown again as it is now.

import { get, send, quote } from "./api.js";
import { $, el, show, t } from "./dom.js";

export const table = { role: "gm", character: null, rulebook: null, about: null, events: [] };

// Reads who this page is (before the rulebook is chosen: a player's is theirs).
export async function readTable() {
  const about = await get("/api/table");
  table.about = about;
  table.role = about.role;
  table.character = about.character;
  table.rulebook = about.rulebook;
  document.body.dataset.role = about.role;
  return about;
}

// Shows the table (in the page's words, loaded by then) and follows its events.
export async function showTable(hooks) {
  const { events } = await get("/api/table/log");
  table.events = events;
  renderTable();
  listen(events.length ? events[events.length - 1].id : 0, hooks);
}

// The table's panel in the page's words (again when they change: another rulebook).
export function renderTable() {
  const about = table.about;
  if (!about) return;
  $("#table-name").textContent = about.table;
  $("#table-role").textContent = about.role === "gm"
    ? t("you are the game master")
    : t("you are {player}", { player: about.player });
  $("#table-join").hidden = about.role !== "gm";
  if (about.role === "gm") {
    $("#table-link").textContent = about.join;
    $("#table-link").href = about.join;
    $("#table-code").textContent = about.code;
    if (!$("#table-qr").getAttribute("src")) $("#table-qr").src = "/api/table/qr.svg";
  }
  $("#secret-box").hidden = about.role !== "gm";
  renderParty(about.party);
  $("#table-log").replaceChildren();
  for (const event of table.events) addToLog(event, false);
}

// A player's page: their rulebook and character, fixed; before they pick, a button to.
export function narrowToPlayer() {
  if (table.role !== "player") return;
  const pick = $("#table-pick");
  pick.hidden = table.character !== null;
  if (table.character !== null) {
    $("#rulebook").value = table.rulebook;
    $("#rulebook").disabled = true;
    $("#character").disabled = true;
  }
  $("#editor-panel").hidden = true;
  $("#sweep-button").closest(".buttons").hidden = true;
  const encounter = $("#encounter-button");
  if (encounter) encounter.closest(".buttons").hidden = true;
}

export async function pickCharacter() {
  const body = { rulebook: $("#rulebook").value, character: $("#character").value };
  const answer = await send("/api/table/character", body);
  table.character = answer.character;
  table.rulebook = answer.rulebook;
}

function renderParty(party) {
  $("#table-party").replaceChildren(...party.map((seat) =>
    el("li", {}, seat.character
      ? t("{player} plays {character}", seat)
      : t("{player} (no character yet)", seat))));
}

let source = null;

function listen(after, hooks) {
  if (source) source.close();
  source = new EventSource(`/api/table/events?after=${quote(String(after))}`);
  const told = (message) => {
    const event = JSON.parse(message.data);
    addToLog(event);
    if (event.kind === "joined" || event.kind === "seat") {
      get("/api/table").then((about) => {
        table.about.party = about.party;
        renderParty(about.party);
      }).catch(() => {});
    }
    hooks.told(event);
  };
  for (const kind of ["run", "saved", "undo", "choice", "rulebook", "joined", "seat", "character", "edited"]) {
    source.addEventListener(kind, told);
  }
}

function whoOf(event) {
  return event.who || t("the game master");
}

// One line of the log: who, what, the dice and the result.
function lineOf(event) {
  const who = whoOf(event);
  switch (event.kind) {
    case "joined":
      return t("{who} joined the table", { who });
    case "seat":
      return t("{who} plays {character}", { who, character: event.character });
    case "undo":
      return t("{who} undid entry {entry}", { who, entry: event.entry });
    case "rulebook":
      return t("{who} saved the rulebook {rulebook}", { who, rulebook: event.rulebook });
    case "character":
      return t("{who} made the character {character}", { who, character: event.character });
    case "edited": {
      const changes = (event.changes || []).map((c) => `${c.path} ${show(c.before)} → ${show(c.after)}`);
      return t("{who} set values of {character}: {changes}", { who, character: event.character, changes: changes.join(", ") });
    }
    case "choice":
      return t("{who}: {action} waits for a choice: {name}",
        { who, action: event.action, name: (event.question && (event.question.label || event.question.name)) || "" });
    default: {
      const result = Object.entries(event.result || {}).map(([k, v]) => `${k} ${show(v)}`).join(", ");
      const dice = (event.dice || []).join(" ");
      const base = t("{who} ({character}): {action}", { who, character: event.character || "—", action: event.action });
      const saved = event.kind === "saved" ? ` · ${t("saved (journal entry {entry})", { entry: event.entry })}` : "";
      return `${base} · ${t("dice {dice}", { dice: dice || "—" })} · ${result || t("no result")}${saved}`;
    }
  }
}

// MAX_LOG: the lines the page keeps (the journal keeps them all)
const MAX_LOG = 500;

function addToLog(event, kept = true) {
  const log = $("#table-log");
  if (log.querySelector(`[data-event="${event.id}"]`)) return;
  if (kept) {
    table.events.push(event);
    if (table.events.length > MAX_LOG) table.events.shift();
  }
  const time = (event.at || "").slice(11, 16);
  const secret = event.audience === "gm" ? el("span", { class: "secret" }, t("secret")) : null;
  log.prepend(el("li", { dataset: { event: event.id, kind: event.kind } }, `${time} `, secret, secret ? " " : "", lineOf(event)));
}
