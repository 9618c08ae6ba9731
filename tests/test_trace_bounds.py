"""Output bounded: a trace keeps `trace_steps` steps and says how many more there were; each
value it shows is cut to `shown_length` characters; errors quote values cut too.

The issue's attack: a text doubled in a loop, then shown again and again, made a trace of
hundreds of megabytes (249 MB from a 400-byte request). Its trace, as text and as JSON,
now stays under a size these tests state.
"""

from __future__ import annotations

import json

import pytest
from web_client import page_client

import dsl
from interpreter import Engine, Limits, SeededDice, render_text
from interpreter.errors import LimitExceeded, RequirementFailed
from interpreter.json_data import dumps, run_data
from interpreter.web import create_app

DOUBLED = """action go() {
  let s = "ab"
  repeat 15 times { set s to "{s}{s}" }
  repeat 200 times { repeat 300 times { note s } }
  result { n: size(s) }
}
"""
#: the trace's steps past the action's line: each `set` of the doubled text (a step of
#: the working, shown with --verbose), then one note of 65,536 characters per pass
NOTES = 15 + 200 * 300

#: what the doubling rulebook's trace may take at most, with the default limits: 1,000
#: steps of at most ~`shown_length` characters each (and their data, in JSON)
TEXT_BYTES = 450_000
JSON_BYTES = 1_200_000


def doubled() -> tuple:
    engine = Engine(dsl.load_text(DOUBLED, "doubled.rules"))
    return engine, engine.run("go", engine.sheet({}), {}, SeededDice(1))


def test_the_doubling_trace_is_bounded_in_text_and_json():
    engine, out = doubled()
    limits = engine.limits
    assert out.result["n"] == 2**16
    trace = out.trace
    assert len(trace) == limits.trace_steps + 1
    last = trace[-1]
    assert last.kind == "more" and last.data == {"steps": 1 + NOTES - limits.trace_steps}
    assert str(last.text) == f"… {1 + NOTES - limits.trace_steps} more steps"
    text = render_text(trace)
    assert text.splitlines()[-1].endswith(f"… {1 + NOTES - limits.trace_steps} more steps")
    assert len(text.encode()) < TEXT_BYTES
    document = dumps(run_data(out))
    assert len(document.encode()) < JSON_BYTES
    # each note: the text's first shown_length characters, then how many more
    note = next(step for step in trace if step.kind == "note")
    assert note.kind == "note" and str(note.text).startswith("ab" * 10)
    assert str(note.text).endswith(f"… {2**16 - limits.shown_length} more characters")
    assert len(note.text) < limits.shown_length + 40
    data = next(s for s in json.loads(document)["trace"] if s["kind"] == "note")["data"]["note"]
    assert len(data) < limits.shown_length + 40 and data.endswith("more characters")


def test_the_limits_are_the_apps_to_choose():
    limits = Limits(trace_steps=10, shown_length=20)
    engine = Engine(dsl.load_text(DOUBLED, "doubled.rules"), limits)
    trace = engine.run("go", engine.sheet({}), {}, SeededDice(1)).trace
    assert len(trace) == 11 and trace[-1].data["steps"] == 1 + NOTES - 10
    assert all(len(step.text) < 60 for step in trace)


def test_in_spanish_too():
    engine = Engine(dsl.load_text(DOUBLED, "doubled.rules"), Limits(trace_steps=3))
    trace = engine.run("go", engine.sheet({}), {}, SeededDice(1)).trace
    assert render_text(trace, "es").endswith(f"… {1 + NOTES - 3} pasos más")


def test_a_server_answers_the_attack_in_bounded_size(tmp_path):
    (tmp_path / "doubled.rules").write_text(DOUBLED, encoding="utf-8")
    with page_client(create_app(tmp_path)) as client:
        answer = client.post("/api/run", json={"rulebook": "doubled", "action": "go"})
    assert answer.status_code == 200
    assert len(answer.content) < JSON_BYTES
    assert answer.json()["trace"][-1]["kind"] == "more"


def test_a_failed_runs_trace_is_bounded_too():
    text = DOUBLED.replace("repeat 200 times", "repeat 1000 times { repeat 5 times")
    text = text.replace("note s } }", "note s } } }")
    engine = Engine(dsl.load_text(text, "doubled.rules"))
    with pytest.raises(LimitExceeded, match="steps_per_run") as stopped:
        engine.run("go", engine.sheet({}), {}, SeededDice(1))
    trace = stopped.value.trace
    assert len(trace) == engine.limits.trace_steps + 1 and trace[-1].kind == "more"
    assert len(render_text(trace).encode()) < TEXT_BYTES


def test_a_list_and_a_roll_of_many_dice_are_shown_cut():
    text = """action go() {
      let l = [1, 2, 3, 4, 5, 6, 7, 8]
      repeat 10 times { set l to l + l }
      let m = l
      let r = 5000d6
      result { n: size(m), t: r }
    }"""
    engine = Engine(dsl.load_text(text, "cut.rules"))
    out = engine.run("go", engine.sheet({}), {}, SeededDice(1))
    shown = {step.kind: step for step in out.trace[1:]}
    assert str(shown["let"].text).endswith("… 8092 more items]")
    assert len(shown["let"].text) < 400
    roll = str(shown["roll"].text)
    assert "more items" in roll and len(roll) < 400
    faces = shown["roll"].data["faces"]
    assert len(faces) < 200 and str(faces[-1]).endswith("more items")


def test_an_error_quotes_a_long_value_cut():
    text = """action go() {
      let s = "ab"
      repeat 15 times { set s to "{s}{s}" }
      require size(s) < 10 else "{s}"
      result { n: 1 }
    }"""
    engine = Engine(dsl.load_text(text, "quote.rules"))
    with pytest.raises(RequirementFailed) as stopped:
        engine.run("go", engine.sheet({}), {}, SeededDice(1))
    message = str(stopped.value.message)
    assert message.startswith("abab") and message.endswith("more characters")
    assert len(message) < 400
