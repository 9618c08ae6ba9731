"""Whole encounters: who wins, in how many rounds, with what left; exact or sampled.

`answering` (`encounter_odds`, `EncounterOdds`: the entry, exact else sampled, saying why),
`description` (an encounter's file, bounded), `turns` (one turn's rules, the same counted or
rolled), `chain` (the absorbing chain, exactly), `health_reads` (whether a rule may read a
health), `trials` (seeded trials through `map_tasks`, merged by their counts).
"""
