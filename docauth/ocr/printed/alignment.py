"""How well a known string fits a read line, by the CTC recogniser's own per-frame probabilities.

The greedy read of a line keeps one class per frame; a blurred glyph may lose there to a blank or a
look-alike while the glyph printed still holds a real share of that frame. :class:`LineFrames` keeps, per
frame, only the classes a printed value can use (letters folded case-insensitively and to their base letter,
digits, separators); :func:`align` finds the best CTC path that spells a sequence of tokens somewhere in the
line (free prefix and suffix: the frames outside the value keep the greedy read) and scores it against the
greedy path over the same frames.

A token is a set of columns any of which spells it (O and 0 in a number), optionally skippable (a separator
a page may or may not print):

>>> frames = LineFrames.from_columns(np.array([
...     #  blank  A    B    8   ' '
...     [0.90, 0.05, 0.01, 0.01, 0.0],
...     [0.10, 0.85, 0.01, 0.01, 0.0],
...     [0.70, 0.20, 0.01, 0.01, 0.0],
...     [0.10, 0.02, 0.30, 0.55, 0.0],  # a blurred B read as 8
...     [0.95, 0.01, 0.01, 0.01, 0.0]]), letters=[1, 2])
>>> fit = align(frames, [Token((1,)), Token((4,), optional=True), Token((2,))])
>>> fit.span, [round(s, 2) for s in fit.shares], round(fit.llr, 2)
((1, 3), [0.85, 0.3], -0.61)
>>> [round(s, 2) for s in align(frames, [Token((1,)), Token((1,))]).shares]  # a blank between repeats
[0.85, 0.02]
>>> [round(s, 2) for s in align(frames, [Token((2,)), Token((1,))]).shares]  # BA: no B before the A
[0.01, 0.85]
>>> align(frames, [Token((1,))] * 4) is None  # four A's need seven frames (blanks between)
True
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

# The columns kept per frame: the blank, the 26 letters (any case, any diacritic), the digits, separators.
COLUMNS = ("",) + tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ") + tuple("0123456789") + tuple(" ./-,'")
COLUMN = {ch: i for i, ch in enumerate(COLUMNS) if ch}
BLANK = 0
LETTERS = tuple(range(1, 27))
DIGITS = tuple(range(27, 37))
SEPARATORS = tuple(range(37, len(COLUMNS)))
# Frames' probabilities below this count as this: a glyph the model gave nothing still costs a finite amount.
FLOOR = 1e-6
# Kinds of the greedy class at each frame, for telling where a value's neighbours start.
BLANK_KIND, LETTER_KIND, DIGIT_KIND, OTHER_KIND = 0, 1, 2, 3
_STROKED = str.maketrans("ØøŁłĐđĦħ", "OoLlDdHh")


def column_of(ch: str) -> int | None:
    """The kept column a model class adds to: its letter in upper case without diacritics, or itself.

    >>> [COLUMNS[column_of(c)] for c in "aÉø7/"], column_of("ß"), column_of("(")
    (['A', 'E', 'O', '7', '/'], None, None)
    """
    if ch in COLUMN:
        return COLUMN[ch]
    base = "".join(c for c in unicodedata.normalize("NFKD", ch.translate(_STROKED)) if not unicodedata.combining(c))
    return COLUMN.get(base.upper()) if len(base) == 1 else None


def kind_of(ch: str) -> int:
    return LETTER_KIND if ch.isalpha() else DIGIT_KIND if ch.isdigit() else OTHER_KIND


@dataclass(eq=False)
class LineFrames:
    """One line's frames: ``probs`` (frames x ``COLUMNS``, float16), the greedy class's probability per frame
    (``best``), and that class (``greedy``, the model's index, 0 for the blank) with its kind (``kinds``)."""

    probs: np.ndarray
    best: np.ndarray
    greedy: np.ndarray
    kinds: np.ndarray
    fits: dict = field(default_factory=dict, repr=False, compare=False)  # align() per token sequence

    @classmethod
    def from_columns(cls, probs: np.ndarray, letters=(), digits=()) -> "LineFrames":
        """Frames given already as kept columns (a hand-made matrix): greedy over them."""
        probs = np.asarray(probs, np.float32)
        greedy = probs.argmax(1)
        kinds = np.full(len(greedy), OTHER_KIND, np.int8)
        kinds[greedy == BLANK] = BLANK_KIND
        kinds[np.isin(greedy, list(letters))] = LETTER_KIND
        kinds[np.isin(greedy, list(digits))] = DIGIT_KIND
        return cls(probs.astype(np.float16), probs.max(1).astype(np.float16), greedy, kinds)

    @classmethod
    def concatenated(cls, parts: list["LineFrames"]) -> "LineFrames":
        """The frames of a value's parts that the detector cut apart, read one after the other."""
        return cls(np.concatenate([p.probs for p in parts]), np.concatenate([p.best for p in parts]),
                   np.concatenate([p.greedy for p in parts]), np.concatenate([p.kinds for p in parts]))

    @cached_property
    def peak(self) -> np.ndarray:
        """Each column's highest probability on any frame: a token none of whose columns reaches a bound there
        can be ruled out without aligning."""
        return self.probs.astype(np.float32).max(0)

    def neighbour(self, t: int, step: int) -> int:
        """The kind of the first glyph the greedy read emits beyond frame ``t`` going ``step`` (-1 or +1), past
        the rest of the glyph at ``t`` itself; BLANK_KIND at the line's end."""
        n = len(self.greedy)
        own = self.greedy[t]
        t += step
        while 0 <= t < n and own != 0 and self.greedy[t] == own:
            t += step
        while 0 <= t < n and self.greedy[t] == 0:
            t += step
        return int(self.kinds[t]) if 0 <= t < n else BLANK_KIND


class Folding:
    """The map from a model's (allowed) classes to the kept columns, made once per recogniser."""

    def __init__(self, labels: list[str], kept: np.ndarray):
        self.kept = kept
        self.matrix = np.zeros((len(kept), len(COLUMNS)), np.float32)
        self.kinds = np.zeros(len(kept), np.int8)
        for k, cls in enumerate(kept):
            ch = labels[cls]
            if cls == 0:
                self.matrix[k, BLANK] = 1.0
                continue
            self.kinds[k] = kind_of(ch)
            col = column_of(ch)
            if col is not None:
                self.matrix[k, col] = 1.0

    def __call__(self, allowed_frames: np.ndarray, at_best: np.ndarray) -> LineFrames:
        """``allowed_frames``: frames x the allowed classes; ``at_best``: the greedy one's position per frame."""
        probs = allowed_frames @ self.matrix
        best = allowed_frames[np.arange(len(at_best)), at_best]
        return LineFrames(probs.astype(np.float16), best.astype(np.float16), self.kept[at_best].astype(np.int32),
                          self.kinds[at_best])


@dataclass(frozen=True)
class Token:
    columns: tuple[int, ...]
    optional: bool = False


@dataclass(frozen=True)
class Fit:
    """The best path spelling the tokens: ``llr`` its log-likelihood over the greedy path's on the frames it
    spans (``span``: first and last frame of a token); ``shares`` each emitted token's highest probability on
    its own frames (the skipped optional ones left out); ``worst`` the lowest log-ratio of a frame's
    probability on the path over the greedy class's (a glyph read clearly that the path calls blank or
    another glyph costs there, however long the value it is spread over)."""

    llr: float
    shares: tuple[float, ...]
    span: tuple[int, int]
    worst: float = 0.0


def align(frames: LineFrames, tokens: list[Token]) -> Fit | None:
    """The best CTC path (Viterbi) spelling ``tokens`` as a substring of the line, or None when the line has too
    few frames. Optional tokens may be skipped, never two in a row, never the first or the last."""
    key = tuple(tokens)
    if key not in frames.fits:
        frames.fits[key] = _align(frames, tokens)
    return frames.fits[key]


def _align(frames: LineFrames, tokens: list[Token]) -> Fit | None:
    n_tokens = len(tokens)
    if n_tokens == 0 or tokens[0].optional or tokens[-1].optional:
        raise ValueError("a value starts and ends with a glyph it must print")
    if any(a.optional and b.optional for a, b in zip(tokens, tokens[1:])):
        raise ValueError("two optional tokens in a row")
    probs = frames.probs.astype(np.float32)
    n_frames = len(probs)
    member = np.zeros((probs.shape[1], n_tokens), np.float32)
    for k, token in enumerate(tokens):
        member[list(token.columns), k] = 1.0
    token_probs = probs @ member  # frames x tokens
    base = np.log(np.maximum(frames.best.astype(np.float32), FLOOR))[:, None]
    n_states = 2 * n_tokens + 1  # blank, token 0, blank, token 1, ..., blank
    emit = np.empty((n_frames, n_states), np.float32)
    emit[:, 0::2] = np.log(np.maximum(probs[:, BLANK:BLANK + 1], FLOOR)) - base
    emit[:, 1::2] = np.log(np.maximum(token_probs, FLOOR)) - base
    # Which earlier states (back 2, 3, 4) may step into each state.
    back = np.zeros((5, n_states), bool)
    back[0] = back[1] = True
    for k, token in enumerate(tokens):
        s = 2 * k + 1
        if k >= 1 and _distinct(token, tokens[k - 1]):
            back[2, s] = True  # from the previous token, no blank between
        if k >= 1 and tokens[k - 1].optional:
            back[2, s - 1] = True  # blank before the skipped token to the blank after it
            back[3, s] = True  # blank before the skipped token to this one
            back[4, s] = _distinct(token, tokens[k - 2])  # the token before the skipped one to this one
    back[1, 0] = False
    score = np.full(n_states, -np.inf, np.float32)
    pointer = np.zeros((n_frames, n_states), np.int8)  # how far back each state's best predecessor is
    started = np.zeros((n_frames, n_states), bool)  # the path starts here (free prefix before)
    best, best_end = -np.inf, None
    candidates = np.full((5, n_states), -np.inf, np.float32)
    for t in range(n_frames):
        candidates[:] = -np.inf
        candidates[0] = score
        for d in range(1, 5):
            candidates[d, d:] = np.where(back[d, d:], score[:-d], -np.inf)
        step = candidates.argmax(0)
        new = candidates[step, np.arange(n_states)]
        if new[1] < 0.0:  # entering the first token fresh beats any path so far
            new[1], started[t, 1] = 0.0, True
        pointer[t] = step
        score = new + emit[t]
        last = n_states - 2
        if score[last] > best:
            best, best_end = float(score[last]), t
    if best_end is None or not np.isfinite(best):
        return None
    return _traced(frames, tokens, token_probs, emit, pointer, started, best, best_end)


def _distinct(a: Token, b: Token) -> bool:
    """Can ``a`` follow ``b`` with no blank between? Only where no column spells both (CTC merges repeats)."""
    return not set(a.columns) & set(b.columns)


def _traced(frames: LineFrames, tokens: list[Token], token_probs: np.ndarray, emit: np.ndarray, pointer: np.ndarray,
            started: np.ndarray, llr: float, end: int) -> Fit:
    shares = [0.0] * len(tokens)
    emitted = [False] * len(tokens)
    worst = 0.0
    s, t = 2 * len(tokens) - 1, end
    while True:
        worst = min(worst, float(emit[t, s]))
        if s % 2:
            k = s // 2
            emitted[k] = True
            shares[k] = max(shares[k], float(token_probs[t, k]))
        if started[t, s]:
            break
        s -= int(pointer[t, s])
        t -= 1
    return Fit(llr, tuple(share for share, was in zip(shares, emitted) if was), (t, end), worst)
