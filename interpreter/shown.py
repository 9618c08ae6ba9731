"""Values as a trace step or an error shows them: whole when short, cut short when long.

A value a run builds may be long (a text of 100,000 characters, a list of 10,000 items:
`Limits.text_length`, `value_size`); a trace shows it in every step that names it, and an
error may quote it. `glimpse(value, length)` is what they show instead: the value itself
when its text is at most `length` characters, else its first `length` characters or so,
then how much was left out (`… 99,500 more characters`, `… 9,800 more items`). It goes
through no more of the value than it shows, whatever the value's size.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from dsl.messages import Message, show_value, tr_n
from interpreter.values import Record


def more_characters(count: int) -> Message:
    return tr_n("… {n} more character", "… {n} more characters", count)


def more_items(count: int) -> Message:
    return tr_n("… {n} more item", "… {n} more items", count)


class Switch:
    """Whether a record remembers whether it is shown whole within a length, as a text
    and as data (`Record._whole`, set the first time it is asked): a trace shows a table's
    row in its lookup's step and again in the check that read it (off: found each time)."""

    kept = True


SWITCH = Switch()


def _whole(record: Record, length: int, as_data: bool) -> bool:
    """Whether `record` is shown whole within `length` (as data: `_data`; else `_glimpse`),
    remembered by the record (it is immutable) where SWITCH.kept."""
    if not SWITCH.kept:
        return _data(record, length, False)[2] if as_data else _glimpse(record, length, False)[1]
    kept = getattr(record, "_whole", None)
    if kept is None:
        kept = record._whole = {}
    key = (as_data, length)
    whole = kept.get(key)
    if whole is None:
        if len(kept) >= 8:  # (a record asked at many lengths: bounded)
            kept.clear()
        whole = _data(record, length, False)[2] if as_data else _glimpse(record, length, False)[1]
        kept[key] = whole
    return whole


def glimpse(value, length: int):
    """The value itself when it is shown in at most about `length` characters; else a
    text (a `Message`: in any language) showing its first `length` characters or so."""
    kind = type(value)
    if kind is int or kind is bool or value is None or kind is Fraction:
        return value  # (a number's digits are bounded: Limits.number_digits)
    if kind is str and len(value) <= length:
        return value
    # Whether it is shown whole, first, its text not written (what is shown whole is
    # the value itself); written only when it is cut.
    if kind is Record:
        whole = _whole(value, length, False)
    else:
        _, whole, _ = _glimpse(value, length, False)
    return value if whole else _glimpse(value, length)[0]


def _glimpse(value, room: int, build: bool = True) -> tuple:
    """(what to show, whether it is the whole value, about how many characters); what to
    show is None for a list or record when not `build`: only whether and how long."""
    if isinstance(value, str):
        if len(value) <= room:
            return value, True, len(value)
        cut = max(room, 0)
        left = len(value) - cut
        shown = Message.joined([value[:cut], more_characters(left)]) if build else None
        return shown, False, cut + 20
    if type(value) is tuple or type(value) is list:
        return _sequence(value, room, build)
    if type(value) is int or type(value) is bool or value is None:  # (no ABC's hook asked)
        return value, True, len(show_value(value))
    if type(value) is Record or isinstance(value, Mapping):
        return _record(value, room, build)
    if isinstance(value, Message):
        return _glimpse(str(value), room, build)
    text = show_value(value)
    return value, True, len(text)


def _sequence(items, room: int, build: bool = True) -> tuple:
    parts: list = ["["]
    used, whole = 1, True
    for i, item in enumerate(items):
        if i:
            parts.append(", ")
            used += 2
        if used >= room:
            parts.append(more_items(len(items) - i))
            whole = False
            break
        shown, all_of_it, size = _glimpse(item, room - used, build)
        parts.append(shown)
        used += size
        whole = whole and all_of_it
    parts.append("]")
    return Message.joined(parts, "") if build else None, whole, used + 1


def _record(record, room: int, build: bool = True) -> tuple:
    """As `show_value` shows a record: `label {name: value, ...}`."""
    parts: list = []
    used, whole = 0, True
    label = record.get("label")
    if label is not None:
        shown, whole, used = _glimpse(label, room, build)
        parts += [shown, " "]
        used += 1
    parts.append("{")
    used += 1
    names = [name for name in record if name != "label"]
    for i, name in enumerate(names):
        if i:
            parts.append(", ")
            used += 2
        if used >= room:
            parts.append(more_items(len(names) - i))
            whole = False
            break
        key, whole_key, size = _glimpse(str(name), room - used, build)
        shown, all_of_it, more = _glimpse(record[name], room - used - size, build)
        parts += [key, ": ", shown]
        used += size + 2 + more
        whole = whole and whole_key and all_of_it
    parts.append("}")
    if label is not None and not names:
        return parts[0], whole, used
    return Message.joined(parts, "") if build else None, whole, used + 1


def glimpse_data(value, length: int):
    """A value of a step's data (its JSON) cut as `glimpse` cuts its text: a long text's
    first `length` characters then what was left out; a long list's first items then a
    text saying how many more; a record's first fields then `…`: how many more. The value
    itself when it is short."""
    kind = type(value)
    if kind is int or kind is bool or value is None or kind is Fraction:
        return value
    if kind is str and len(value) <= length:
        return value
    few = (kind is list or kind is tuple) and len(value) * 24 <= length  # a few dice, say
    if few and all(type(v) is int and v.bit_length() < 64 for v in value):
        return value
    # (as `glimpse`: whether it is all kept found first, the cut data made only if not)
    if kind is Record:
        whole = _whole(value, length, True)
    else:
        _, _, whole = _data(value, length, False)
    return value if whole else _data(value, length)[0]


def _data(value, room: int, build: bool = True) -> tuple:
    """(the data, about how many characters its text takes, whether it is all of it);
    the data is None for a cut text, a list or a record when not `build`."""
    kind = type(value)
    if kind is int or kind is bool or value is None:
        return value, 4, True
    if isinstance(value, str):
        if len(value) <= room:
            return value, len(value), True
        cut = max(room, 0)
        left = len(value) - cut
        shown = Message.joined([value[:cut], more_characters(left)]) if build else None
        return shown, cut + 20, False
    if kind is tuple or kind is list:
        out: list | None = [] if build else None
        used, whole = 1, True
        for i, item in enumerate(value):
            if used >= room:
                if out is not None:
                    out.append(more_items(len(value) - i))
                whole = False
                break
            data, size, all_of_it = _data(item, room - used, build)
            if out is not None:
                out.append(data)
            used += size + 2
            whole = whole and all_of_it
        return out, used, whole
    if kind is Record or isinstance(value, Mapping):
        found: dict | None = {} if build else None
        used, whole = 1, True
        names = list(value)
        for i, name in enumerate(names):
            if used >= room:
                if found is not None:
                    found["…"] = more_items(len(names) - i)
                whole = False
                break
            data, size, all_of_it = _data(value[name], room - used - len(str(name)), build)
            if found is not None:
                found[name] = data
            used += len(str(name)) + size + 4
            whole = whole and all_of_it
        return found, used, whole
    return value, len(show_value(value)), True
