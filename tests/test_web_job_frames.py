"""A job's frame (interpreter.web.frames.job_frame): written by orjson where it can be, by the
standard encoder where orjson refuses, read by the worker to the very same job."""

from __future__ import annotations

import json
import socket

import pytest

from interpreter.web import frames

JOB = {
    "job": "run",
    "args": {"body": {"rulebook": "brujería", "seed": 12, "params": {"bono": 1.5, "n": -3}}},
    "lang": None,
    "stream_lang": "es",
    "seconds": 21.0,
    "most": 32_000_000,
    "tell": {"kind": "run", "path": "/api/run", "page": None},
}


def read_back(frame: bytes) -> dict:
    """The job as a worker reads it (interpreter.web.worker.main)."""
    ours, theirs = socket.socketpair()
    with ours, theirs:
        ours.sendall(frame)
        kind, status, payload = frames.receive(theirs)
    assert kind == frames.JOB
    return frames.job_of(payload, status)


def payload(frame: bytes) -> bytes:
    return frame[frames._HEADER.size :]


@pytest.mark.skipif(frames.FAST_JSON is None, reason="orjson is not installed")
def test_a_job_is_written_by_orjson_and_read_the_same():
    import orjson

    frame = frames.job_frame(JOB)
    assert payload(frame) == orjson.dumps(JOB)
    assert read_back(frame) == JOB


def test_with_the_switch_off_the_standard_encoder_writes_it(monkeypatch):
    monkeypatch.setattr(frames, "FAST_JSON", None)
    frame = frames.job_frame(JOB)
    assert payload(frame) == json.dumps(JOB, ensure_ascii=False).encode("utf-8")
    assert read_back(frame) == JOB


@pytest.mark.parametrize("value", [10**30, -(10**25), {1: "a key that is not a text"}])
def test_what_orjson_refuses_goes_to_the_standard_encoder(value):
    job = {**JOB, "args": {"body": {"params": {"big": value}}}}
    frame = frames.job_frame(job)
    assert payload(frame) == json.dumps(job, ensure_ascii=False).encode("utf-8")
    assert read_back(frame) == json.loads(json.dumps(job))  # (a key: a text, as ever)


@pytest.mark.skipif(frames.FAST_LOADS is None, reason="orjson is not installed")
def test_a_job_orjson_wrote_is_read_by_orjson(monkeypatch):
    """Fails with `frames.FAST_LOADS` off: json.loads then reads every job."""
    frame = frames.job_frame(JOB)
    assert frame[: frames._HEADER.size] == frames._HEADER.pack(
        frames.JOB, frames.BY_ORJSON, len(payload(frame))
    )
    read, loads = [], json.loads
    monkeypatch.setattr(frames.json, "loads", lambda *a: read.append(a) or loads(*a))
    assert read_back(frame) == JOB
    assert read == []


@pytest.mark.parametrize("value", [2**64, 10**30, -(2**63) - 1])
def test_a_whole_number_orjson_would_read_as_a_float_is_read_by_json_loads(value):
    """orjson reads a whole number past 64 bits as a float: a job holding one, which the
    standard encoder wrote, is read by json.loads (its status says so)."""
    job = {**JOB, "args": {"body": {"seed": value}}}
    frame = frames.job_frame(job)
    assert frame[1:3] == b"\x00\x00"  # (its status: 0, the standard encoder's)
    read = read_back(frame)
    assert read == job
    assert type(read["args"]["body"]["seed"]) is int
