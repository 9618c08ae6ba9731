// The languages the page may be shown in, offered in the header (?lang= keeps the choice).

import { $, el, t } from "./dom.js";

// Each language by its own name (a language not named here, by its code).
const LANGUAGE_NAMES = { en: "English", es: "Español" };

// The languages the page may be shown in: the rulebook's own first (no ?lang=), then each.
export function offerLanguages(languages, asked) {
  const select = $("#language");
  select.replaceChildren(
    el("option", { value: "" }, t("the rulebook's")),
    ...languages.map((code) => el("option", { value: code, lang: code }, LANGUAGE_NAMES[code] || code)),
  );
  select.value = asked && languages.includes(asked) ? asked : "";
}
