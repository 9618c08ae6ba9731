"""The page's own words, for the catalogue: shown in the rulebook's language (/api/words).

Its labels, its buttons and what its scripts write: the page is written in English
(static/index.html marks its texts `data-tr`, the scripts write `t("...")` and
`tn("...", "...", n)`); each of those texts is here, as a `tr`, so that
`python -m dsl.catalogue` puts it in dsl/locale/*.po and the catalogue test keeps it
translated. tests/test_web_choices.py checks that the page uses no text missing here.
"""

from __future__ import annotations

from dsl.messages import tr

PAGE_WORDS = (
    tr("yes"),
    tr("no"),
    tr("none"),
    tr("choose…"),
    tr("default: {value}"),
    tr("a, b, c"),
    tr("loading {name}…"),
    tr("(no character)"),
    tr("{name} (shipped)"),
    tr("nothing"),
    tr("the rules in the editor"),
    tr("Character: {name}"),
    tr("Character"),
    tr("undo of run {entry}"),
    tr("no changes"),
    tr("Undo"),
    tr("run {entry} undone"),
    tr("asks during the run: {choices}"),
    tr("Save a copy as {file}"),
    tr("Save to {file}"),
    tr("saved in {file} and {others} (journal entry {entry})"),
    tr("saved in {file} (journal entry {entry})"),
    tr("{file} (shipped: save under a new name)"),
    tr("{file} (in your folder)"),
    tr("{n} warning"),
    tr("{n} warnings"),
    tr("✓ checks"),
    tr("{n} error"),
    tr("{n} errors"),
    tr("saved {file}"),
    tr("saved {file} (journal entry {entry})"),
    tr("the save of {file} undone"),
    tr(
        "{file} was changed by someone else since you opened it: nothing was saved. Keep "
        "your edit (copy it), open the rulebook again and make it there."
    ),
    tr(
        "{file} is in your folder already: nothing was saved. Open it (choose it above) to "
        "save your edit over it, or save under another name."
    ),
    tr("house rules"),
    tr("a new house rule on {base}"),
    tr("could not start"),
    tr("computing…"),
    tr("exact: {done} of {total} units of work"),
    tr("sampling: {done} of {total} trials"),
    tr("probability of at least each outcome"),
    tr("probability of each outcome"),
    tr("exact"),
    tr("sampled, {trials} trials"),
    tr("mean {mean}"),
    tr("omitted {mass}"),
    tr(" — line {line}: {roll}"),
    tr("Roll die {position}: {die} ({low}–{high})"),
    tr("typed so far: {faces}"),
    tr("a face of {die}: {low} to {high}"),
    tr("{who} decides (line {line})"),
    tr("line {line}"),
    tr("not open now: {options}"),
    tr("forced dice"),
    tr("typed in"),
    tr("random"),
    tr("answered in advance"),
    tr("chosen at the table"),
    tr("the only option open"),
    tr("as chosen then"),
    tr("the best choice for the goal"),
    tr("no result"),
    tr("the acting character"),
    tr("{name}: {value} — {who}, {how}"),
    tr("dice: {dice} ({origin})"),
    tr("No character."),
    tr("from {low} to {high}"),
    tr("{n} more at 0 or empty"),
    tr("Rulebook"),
    tr("Choose a character."),
    tr("History"),
    tr("(journal.sqlite in your folder)"),
    tr("Action"),
    tr("Actions"),
    tr("Checks"),
    tr("Opposed checks"),
    tr("Rolls"),
    tr("Dice"),
    tr("seed"),
    tr("typed in, one by one"),
    tr("Run"),
    tr("Odds of"),
    tr("compared with"),
    tr("choices: the best for"),
    tr("the best"),
    tr("Odds"),
    tr("Enter"),
    tr("Take back the last die"),
    tr("Cancel"),
    tr("Take back the last answer"),
    tr("So far"),
    tr("Result"),
    tr("Changes"),
    tr("Choices"),
    tr("Save"),
    tr("Trace"),
    tr("Show"),
    tr("exactly"),
    tr("at least"),
    tr("Rules"),
    tr("Outline"),
    tr("New house rule"),
    tr("Save as"),
    tr("Odds with this edit"),
    tr("Served from your machine; nothing is fetched from elsewhere."),
    tr("API"),
    tr("licences of the bundled code"),
    tr("the whole result"),
)


def page_words(language: str) -> dict[str, str]:
    """The page's words in `language`: English → the language's."""
    return {str(word): word.render(language) for word in PAGE_WORDS}
