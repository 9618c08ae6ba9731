"""The campaign journal: every saved run kept, undone, replayed against a changed rule.

from interpreter.journal import Journal, save_run, holding
journal = Journal.beside("menecma.yaml")            # journal.sqlite in its folder
with holding(journal, ["menecma.yaml"]):             # no other save comes between
    sheet = engine.load_sheet("menecma.yaml")
    outcome = engine.run("usar_numina", sheet, {"numina": "Grito Báquico"}, dice)
    number = save_run(journal, outcome, sheet, book, dice)
journal.entries(newest_first=True)                  # the history
undo(journal)                                        # the sheet as before the last run
replay(journal, dsl.load("brujeria_miedo_duro"))    # what a house rule would change
"""
