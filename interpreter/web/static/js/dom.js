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

// Values in the rulebook's language, as its trace shows them (yes/no: sí/no).
const WORDS = { en: { yes: "yes", no: "no", none: "none" }, es: { yes: "sí", no: "no", none: "ninguno" } };
let words = WORDS.en;

export function setLanguage(language) {
  words = WORDS[language] || WORDS.en;
}

export function show(value) {
  if (value === true) return words.yes;
  if (value === false) return words.no;
  if (value === null || value === undefined) return words.none;
  if (Array.isArray(value)) return value.map(show).join(", ");
  if (typeof value === "object") {
    return Object.entries(value).map(([k, v]) => `${k} ${show(v)}`).join(", ");
  }
  return String(value);
}

export const $ = (selector) => document.querySelector(selector);
