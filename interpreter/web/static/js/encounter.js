// A whole encounter in the page (POST /api/encounter): the chosen character against a
// rival of the same rulebook, each taking the chosen action on its turn, the rival given
// as the action's character parameter; who wins and in how many rounds, as bars.

import { send } from "./api.js";
import { $, el, number, percent, t } from "./dom.js";

// The rival's choices: the rulebook's characters.
export function fillRivals(names) {
  const select = $("#encounter-rival");
  const kept = select.value;
  select.replaceChildren(...names.map((name) => el("option", { value: name }, name)));
  if (names.includes(kept)) select.value = kept;
  else if (names.length > 1) select.value = names[1];
}

// The health a combatant falls by: the character's first resource (D&D's Hit Points),
// offered until one is typed in.
export function offerHealth(character) {
  const box = $("#encounter-health");
  const first = character && character.resources.length ? character.resources[0].path : "";
  box.placeholder = first;
  if (!box.dataset.typed) box.value = first;
}

function bar(p) {
  return el("div", { class: "bar" }, el("div", { class: "fill", style: `width: ${100 * p}%` }));
}

// The damage field's choices: the action's result fields (describe's).
export function offerDamage(fields) {
  $("#encounter-damages").replaceChildren(...fields.map((name) => el("option", { value: name })));
}

// `request`: the page's subject (rulebook, character, action, params); `roles`: the
// action's character parameters (the first is where the rival goes); `fields`: its
// result's fields.
export async function encounter(request, roles, fields = []) {
  const rival = $("#encounter-rival").value;
  const health = $("#encounter-health").value.trim();
  if (!health) throw new Error(t("name the health field: the field of the sheet a combatant falls by"));
  if (!request.character) throw new Error(t("choose a character to fight"));
  const damage = $("#encounter-damage").value.trim();
  if (!roles.length && !damage) {
    // it can change no sheet but its own: every round would end as it began, and the
    // answer would be "undecided" with no word of why
    throw new Error(t("{action} takes no rival: name its damage field, the field of its result the rival loses from its health ({fields})",
      { action: request.action, fields: fields.join(", ") || t("none") }));
  }
  const rounds = Number($("#encounter-rounds").value) || 20;
  const me = request.character;
  const them = rival === me ? `${rival} 2` : rival;
  const combatant = (name, sheet) => ({
    name, sheet, action: request.action, params: request.params,
    ...(roles.length ? { target: roles[0] } : {}),
    ...(damage ? { damage } : {}),
  });
  const body = {
    rulebook: request.rulebook, health, rounds, lang: request.lang,
    sides: { [me]: [combatant(me, me)], [them]: [combatant(them, rival)] },
  };
  const answer = await send("/api/encounter", body);
  render(answer);
  return answer;
}

function render(answer) {
  $("#encounter-method").textContent = answer.method === "exact"
    ? t("exact: every state counted")
    : t("sampled ({trials} trials): {why}", { trials: answer.trials, why: answer.reason });
  $("#encounter-winners").replaceChildren(...answer.winners.map((w) => el("tr", {},
    el("th", {}, w.side === null ? t("undecided after {n} rounds", { n: answer.max_rounds }) : w.side),
    el("td", { class: "p" }, percent(w.probability, 2)),
    el("td", {}, bar(w.probability)))));
  $("#encounter-rounds-table").replaceChildren(...answer.rounds.map((r) => el("tr", {},
    el("th", {}, String(r.rounds)),
    el("td", { class: "p" }, percent(r.probability, 2)),
    el("td", {}, bar(r.probability)))));
  $("#encounter-mean").textContent = t("mean rounds: {mean}", { mean: number(answer.mean_rounds, 3) });
  $("#encounter").hidden = false;
}
