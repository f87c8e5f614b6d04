"""The project's error vocabulary: one base, and the refusal every operator verb may answer.

A `Refusal` changes nothing: it names why (a documented `code`, docs/API.md "Errors")
and the control API turns it into an error reply. Failures of the parts below it keep
their own classes on the same base, with the builtin they also are where one fits (a
lost link is a `ConnectionError`, a bad rule file a `ValueError`).
"""
from __future__ import annotations


class MjtableError(Exception):
    """Base of every error the controller raises on purpose."""


class Refusal(MjtableError):
    """A refused request: ``code`` is one of the documented error codes; nothing changed."""

    def __init__(self, code: str, message: str, **details) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details  # more fields of the error object (e.g. the result kept on a conflict)
