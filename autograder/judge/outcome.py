"""What calling an answer gave: the `Outcome` every grading path judges.

An outcome crosses one boundary as plain data, between the grading child and
the grader (`wire.outcome_to_wire` / `wire.outcome_from_wire`); everywhere
else it is this dataclass.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

Kind = Literal["value", "not started", "raised", "changed input"]
CELL_FAILED = "CellFailed"  # the error of an answer whose own cell failed before defining it: no exception of Python's
OUTCOME_KINDS: tuple[Kind, ...] = ("value", "not started", "raised", "changed input")


@dataclass(frozen=True)
class Outcome:
    """kind "value": the answer returned `value` (with `peak`, the bytes it
    allocated at its peak, when its memory was measured, and `held`, what of
    that its notebook still held when the call was over, where measured from
    outside the grading child); "not started": it
    raised NotImplementedError, `message` says why; "raised": it raised the
    exception named `error` (TimeoutError when stopped, ProcessEnded when its
    code ended the grading process, CELL_FAILED when the cell that defines it
    failed first), with `message`; "changed input": it
    returned `value` but wrote into an array it was given, `message` says
    which (`calling.outcome_of` compares every input with a pristine copy).
    A "value" outcome's `message` is a note for its case's message should the
    value fail it (`noted`)."""
    kind: Kind
    value: Any = None
    error: str = ""
    message: str = ""
    peak: int | None = None
    held: int | None = None

    @classmethod
    def returned(cls, value, peak: int | None = None, held: int | None = None) -> Outcome:
        return cls("value", value, peak=peak, held=held)

    @classmethod
    def raising(cls, error: str, message: str) -> Outcome:
        return cls("raised", error=error, message=message)

    @classmethod
    def changing(cls, value, message: str) -> Outcome:
        return cls("changed input", value, message=message)

    @classmethod
    def cell_failed(cls, name: str, error: str) -> Outcome:
        """The answer `name` was never defined: its cell failed first with `error` (run_cells' words)."""
        return cls("raised", error=CELL_FAILED, message=f"its cell failed before {name} was defined: {error}")

    @classmethod
    def unstarted(cls, message: str) -> Outcome:
        return cls("not started", message=message)

    @property
    def has_value(self) -> bool:
        return self.kind == "value"

    @property
    def raised(self) -> bool:
        return self.kind == "raised"

    @property
    def not_started(self) -> bool:
        return self.kind == "not started"

    @property
    def changed_input(self) -> bool:
        return self.kind == "changed input"

    @property
    def timed_out(self) -> bool:
        return self.raised and self.error == "TimeoutError"

    def noted(self, note: str) -> Outcome:
        """The same outcome with `note` at the end of its message (the grading child's word on what the
        answer may have missed; a value's message is read only when the value fails its case)."""
        return replace(self, message=self.message + note) if note else self
