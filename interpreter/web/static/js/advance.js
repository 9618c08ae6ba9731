// The choices of an action answered in advance for its odds, or left to the best play.

import { $, el, t } from "./dom.js";

// Each choice answered in advance for the odds, or left to the best play; a choice
// asked more than once (in a loop) may be answered apart for its N-th time (`name#N`)
export function offerAnswers(choices) {
  $("#odds-choices").hidden = choices.length === 0;
  $("#odds-choices").replaceChildren(...choices.map((choice) => {
    const times = el("span", { class: "odds-times" });
    const apart = el("button", {
      type: "button", class: "odds-apart", dataset: { choice: choice.name },
      onclick: () => times.append(occurrenceRow(choice, times.children.length + 2)),
    }, t("answer its N-th time apart"));
    return el("span", { class: "odds-choice-box" },
      el("label", {}, `${choice.name} `, answerField(choice)), " ", apart, times);
  }));
}

// An answer given in advance to a choice: its options, or, for options built from the
// roll (`option each d in r.sorted`), any value typed in (its fixed options suggested).
function answerField(choice) {
  const data = { choice: choice.name };
  if ((choice.options_from || []).length) {
    const list = `odds-options-${choice.name}`;
    return el("span", {},
      el("input", { class: "odds-choice short", dataset: data, list, placeholder: t("the best") }),
      el("datalist", { id: list }, ...choice.options.map((option) => el("option", { value: option }))));
  }
  return el("select", { class: "odds-choice", dataset: data },
    el("option", { value: "" }, t("the best")),
    ...choice.options.map((option) => el("option", { value: option }, option)));
}

// A row answering the N-th time a choice is asked: its number, and the answer.
function occurrenceRow(choice, next) {
  return el("label", { class: "odds-occurrence" },
    `${choice.name} #`,
    el("input", { type: "number", min: 1, step: 1, value: next, class: "odds-time tiny", dataset: { choice: choice.name } }),
    " ", answerField(choice));
}

// The answers given in advance: {name: value} for every time, {"name#N": value} for one.
export function answersInAdvance() {
  const answers = {};
  for (const field of document.querySelectorAll("#odds-choices .odds-choice")) {
    const value = field.value.trim();
    if (!value) continue;
    const row = field.closest(".odds-occurrence");
    const time = row ? row.querySelector("input.odds-time").value.trim() : "";
    answers[time ? `${field.dataset.choice}#${time}` : field.dataset.choice] = value;
  }
  return answers;
}
