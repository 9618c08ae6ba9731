// Small helpers to build the page's elements (text is always set as text, never as HTML).

export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// The page's words in the rulebook's language (GET /api/words: English → its words).
// `t(text, {name: value})` as the server's `tr`: English in the code, `{name}` filled in.
let words = {};
export let language = "en";
// How the language writes numbers (dsl.messages.number_text): its decimal sign, and what
// follows a percentage ("8.33%", Spanish "8,33 %").
let numbers = { decimal: ".", percent: "%" };

export function setWords(answer) {
  words = answer.words;
  language = answer.language;
  numbers = answer.numbers || numbers;
  document.documentElement.lang = language;
  for (const node of document.querySelectorAll("[data-tr]")) {
    if (!node.dataset.tr) node.dataset.tr = node.textContent.trim();
    node.textContent = t(node.dataset.tr);
  }
  for (const node of document.querySelectorAll("[data-tr-placeholder]")) {
    node.placeholder = t(node.dataset.trPlaceholder);
  }
  // the name of a field with no label of its own (the seed's number, a die's face)
  for (const node of document.querySelectorAll("[data-tr-label]")) {
    node.setAttribute("aria-label", t(node.dataset.trLabel));
  }
}

export function t(text, params = {}) {
  const template = words[text] || text;
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

// A number with `digits` decimals as the page's language writes it: 1.700, Spanish 1,700.
export const number = (x, digits) => Number(x).toFixed(digits).replace(".", numbers.decimal);

// A chance (0 to 1) as a percentage with `digits` decimals: 8.33%, Spanish 8,33 %.
export const percent = (p, digits) => `${number(100 * p, digits)}${numbers.percent}`;

// "{n} error" or "{n} errors" (English and Spanish both: one, or other).
export const tn = (one, other, n, params = {}) => t(n === 1 ? one : other, { n, ...params });

// A value in the page's language, as its trace shows them (yes/no: sí/no; a lasting
// effect in words, never its keys).
export function show(value) {
  if (value === true) return t("yes");
  if (value === false) return t("no");
  if (value === null || value === undefined) return t("none");
  if (Array.isArray(value)) return value.map(show).join(", ");
  if (typeof value === "object" && EFFECT.every((key) => key in value)) return showEffect(value);
  if (typeof value === "object") {
    return Object.entries(value).map(([k, v]) => `${k} ${show(v)}`).join(", ");
  }
  if (typeof value === "number" && !Number.isInteger(value)) return String(value).replace(".", numbers.decimal);
  return String(value);
}

// What an answer warns about (`warnings`: a sheet's key that only looks like a field's
// name, a direction control in one, a parameter's misspelled skill), one item each, in
// `list` (a <ul>), hidden when there is none.
export function showWarnings(list, warnings) {
  list.replaceChildren(...(warnings || []).map((text) => el("li", {}, text)));
  list.hidden = !list.children.length;
}

export const $ = (selector) => document.querySelector(selector);

// What a lasting effect holds (the sheet's `modifier, targets, left, unit`), as the
// command line says it (dsl.messages): "Temblores: -2 a acciones, quedan 2 turnos".
const EFFECT = ["modifier", "targets", "left", "unit"];

function showEffect(effect) {
  const signed = effect.modifier > 0 ? `+${effect.modifier}` : String(effect.modifier);
  const targets = Array.isArray(effect.targets) ? effect.targets.join(", ") : "";
  const parts = effect.name ? [effect.name] : [];
  if (targets && effect.modifier) parts.push(t("{modifier} on {targets}", { modifier: signed, targets }));
  else if (effect.modifier) parts.push(signed);
  const unit = effect.left === 1 ? String(effect.unit) : pluralOf(String(effect.unit));
  if (!parts.length) return t("time left: {left} {unit}", { left: effect.left, unit });
  return t("{effect}, time left: {left} {unit}", { effect: parts.join(": "), left: effect.left, unit });
}

// A rulebook's word in the plural by the language's regular rule (dsl.messages.plural_of,
// its common cases): turno → turnos, mes → meses; round → rounds.
function pluralOf(word) {
  const parts = word.split(" ");
  const at = language === "es" ? 0 : parts.length - 1;
  const head = parts[at];
  if (!head || !/\p{L}$/u.test(head)) return word;
  if (language === "es") parts[at] = /[aeiouáéó]$/.test(head) ? `${head}s` : head.endsWith("z") ? `${head.slice(0, -1)}ces` : `${head}es`;
  else parts[at] = /(s|x|z|ch|sh)$/.test(head) ? `${head}es` : `${head}s`;
  return parts.join(" ");
}

// A place on a sheet as people read it (dsl.messages.path_shown): a lasting effect's
// field by its word, `Efectos.Temblores.left` → `Efectos.Temblores.tiempo restante`.
const EFFECT_FIELDS = {
  name: "name", modifier: "modifier", targets: "applies to", left: "time left", unit: "unit of time",
};

export function showPath(path) {
  const parts = String(path).split(".");
  const last = parts[parts.length - 1];
  if (parts.length < 3 || !(last in EFFECT_FIELDS)) return String(path);
  return [...parts.slice(0, -1), t(EFFECT_FIELDS[last])].join(".");
}
