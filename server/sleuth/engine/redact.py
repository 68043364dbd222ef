"""Secret redaction for result text and query sanitisation for logs (docs/SPEC.md §8, seed 004 threats 4 and 5).

Two jobs, one pattern table:

* :func:`redact` replaces secrets in a line or snippet with ``[REDACTED]``: the value of an
  ``api_key = ...``/``password: "..."``/``token=...`` assignment (the key name stays, so a model
  still sees *what* was there), private-key headers, bearer tokens, JWTs and the well-known
  token shapes of AWS, GCP, Azure, GitHub, Slack, Stripe and OpenAI.
* :func:`sanitize_query` makes a query safe to show (a progress title): secrets masked, control
  characters (newlines included) replaced by spaces, length capped;
  :func:`log_string` makes it safe to *log*: the same masking and cap, then written as a JSON
  string literal with ``$`` and backticks escaped too, so a log line appended to any file (a
  shell start-up file included) carries the query as inert data, never as a command.

Both look at a bounded slice of the query only (:func:`excerpt`): a 50 MB pattern costs what a
short one does (redacting it whole held the event loop for about 0.5 s per MB).

Redaction is on by default (``Settings.redaction``); callers decide whether to apply it.
Every pattern is linear-time on the ``re`` engine (no nested quantifiers), so a hostile line
cannot stall the redactor.
"""

from __future__ import annotations

import json
import re
import reprlib

__all__ = ["PLACEHOLDER", "redact", "redact_answer", "contains_secret", "excerpt", "sanitize_query", "log_string",
           "MAX_LOGGED_QUERY", "REDACT_MARGIN"]

PLACEHOLDER = "[REDACTED]"
MAX_LOGGED_QUERY = 200
# Characters read past the cut before redacting: longer than the shortest match of every pattern
# below, so a secret that starts before the cut is seen whole enough to be masked (never half).
REDACT_MARGIN = 256

# Assignments: keep ``name <sep> [quote]`` and replace the value. The value must look like a
# secret (long enough) so ``password = None`` or ``token: str`` in ordinary code stays readable.
_ASSIGNMENT = re.compile(
    r"""(?ix)
    (?P<key>
        \b[\w.-]*?
        (?:api[_-]?key|apikey|access[_-]?key(?:[_-]?id)?|secret[_-]?access[_-]?key|client[_-]?secret
          |secret|token|auth[_-]?token|access[_-]?token|refresh[_-]?token|private[_-]?key
          |password|passwd|pwd|passphrase|credentials?|account[_-]?key|sas[_-]?token
          |aws_access_key_id|aws_secret_access_key|aws_session_token)
        [\w.-]*
    )
    (?P<sep>["']?\s*(?::|=|:=|=>)\s*)
    (?P<quote>["'`]?)
    (?P<value>[^\s"'`,;]{8,})
    """
)
# Standalone token shapes, replaced whole.
_TOKENS: tuple[re.Pattern[str], ...] = (
    re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),  # PEM / OpenSSH / PGP headers
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9\-_.~+/]{8,}=*"),
    re.compile(r"(?i)\bbasic\s+[A-Za-z0-9+/]{16,}=*"),
    re.compile(r"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}"),  # JWT
    re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b"),  # AWS access key id
    re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"),  # GCP API key
    re.compile(r"\bya29\.[0-9A-Za-z_-]{20,}"),  # GCP OAuth access token
    re.compile(r"(?i)\bAccountKey=[A-Za-z0-9+/]{20,}={0,2}"),  # Azure storage connection string
    re.compile(r"(?i)\bSharedAccessSignature=[^\s;\"']{10,}|\bsig=[A-Za-z0-9%+/]{20,}={0,2}"),  # Azure SAS
    re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}\b|\bgithub_pat_[A-Za-z0-9_]{22,}"),  # GitHub
    re.compile(r"\bglpat-[A-Za-z0-9_-]{20}\b"),  # GitLab
    re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),  # Slack
    re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),  # Stripe
    re.compile(r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}"),  # OpenAI / Anthropic style
    re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"),
)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# What json.dumps leaves as is but a shell or a terminal would act on: ``$`` and backticks (command
# substitution inside double quotes), C1 controls, line/paragraph separators, bidi overrides.
_LOG_UNSAFE = re.compile(r"[$`\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def _mask_assignment(match: re.Match[str]) -> str:
    return f"{match.group('key')}{match.group('sep')}{match.group('quote')}{PLACEHOLDER}"


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED]``; unchanged (same object) when clean."""
    if not text:
        return text
    out = _ASSIGNMENT.sub(_mask_assignment, text)
    for pattern in _TOKENS:
        out = pattern.sub(PLACEHOLDER, out)
    return out


# The fields of a command's result that carry file text (grep's lines and context, sleuth.text's snippets).
_TEXT_FIELDS = frozenset({"text", "snippet", "before", "after", "line_text", "match_text", "lines"})
Answer = dict[str, object] | list[object] | str | int | float | bool | None


def redact_answer(value: Answer, in_text: bool = False) -> Answer:
    """A command's result as a model may see it: every file-text field (:data:`_TEXT_FIELDS`, at any
    depth) redacted, the rest unchanged. Offsets into a masked line (highlights) are left as they were:
    a model reads the text; a person's views (the CLI, the editor) get the unmasked result, as rg shows."""
    if isinstance(value, str):
        return redact(value) if in_text else value
    if isinstance(value, dict):
        return {k: redact_answer(v, in_text or k in _TEXT_FIELDS) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_answer(v, in_text) for v in value]
    return value


def contains_secret(text: str) -> bool:
    """True when :func:`redact` would change ``text``."""
    return bool(text) and redact(text) != text


def _as_text(value: object, max_length: int) -> str:
    """A non-string query as text without converting all of a huge value (reprlib's bounded repr)."""
    if isinstance(value, str):
        return value
    short = reprlib.Repr()
    short.maxstring = short.maxother = max_length + REDACT_MARGIN
    short.maxlist = short.maxtuple = short.maxdict = 32
    return short.repr(value)


def excerpt(text: str, max_length: int) -> str:
    """The first ``max_length`` characters of ``text`` with secrets masked, ``...`` when cut.

    Redaction runs on ``max_length + REDACT_MARGIN`` characters, never on the whole text: cut with
    a margin, redact, cut again. A secret straddling the final cut was whole (or long enough to
    match) inside the margin, so what is kept of it is masked, not half of it in the clear.
    """
    cut = len(text) > max_length
    text = redact(text[:max_length + REDACT_MARGIN])
    if cut or len(text) > max_length:
        text = text[:max_length] + "..."
    return text


def sanitize_query(query: object, max_length: int = MAX_LOGGED_QUERY) -> str:
    """A query as it may be shown (a progress title): secrets masked, control characters -> space, capped."""
    if query is None or query == "":
        return "[empty]"
    return _CONTROL.sub(" ", excerpt(_as_text(query, max_length), max_length))


def log_string(query: object, max_length: int = MAX_LOGGED_QUERY) -> str:
    """``query`` as a JSON string literal for a log line: masked and capped like :func:`sanitize_query`,
    quotes, backslashes and control characters JSON-escaped, ``$`` and backticks as ``\\u0024``/``\\u0060``.

    ``json.loads`` gives back the (capped, masked) text; no shell, terminal or log viewer sees a
    quote, a substitution or a line break it could act on.
    """
    text = "" if query is None else _as_text(query, max_length)
    quoted = json.dumps(excerpt(text, max_length), ensure_ascii=False)
    return _LOG_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)
