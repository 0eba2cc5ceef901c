"""The MRZ line recogniser: a small convolutional network read out with CTC.

A strip cut along one MRZ line (:func:`docauth.ocr.mrz.finder.cut_strip`,
32 x 768, ink = 1) goes in; for each of 192 column frames the model gives
probabilities over the CTC blank and the 37 MRZ characters. CTC needs no
character segmentation, so merged glyphs under blur, a grid that does not fit
and a line found a glyph short or long are all the same to it.

:func:`decode_line` turns the frames into text of the line length the format
demands, with the top alternatives of every character for the check-digit
correction in :func:`docauth.ocr.mrz.parse_mrz`. :func:`build_model` is the
network; its training (``docauth train mrz``) is :mod:`docauth.training.line_model`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from docauth.ocr.mrz.format import MRZ_CHARS
from docauth.ocr.mrz.finder import LINE_H, LINE_W

MODEL_NAME = "mrz_lines"
BLANK = "(blank)"
LABELS = [BLANK, *MRZ_CHARS]  # CTC blank first: Keras' CTC loss reserves class 0 for it
FRAMES = LINE_W // 4
TOP_K = 3  # candidates kept per character: the correction rules weigh the recogniser's top three
# The largest change in the line model's probabilities an engine may bring (the runtime's tuner reads it from
# the metadata): the reader trusts an unchecked character above a set probability, so a shift of a few
# hundredths (bf16 brings about 0.03) changes which zones are reported valid.
TOLERANCE = {"max_abs_diff": 0.005,
             "why": "the reader compares these probabilities with thresholds (an unchecked MRZ character is "
                    "trusted, a printed value is sure, above a set probability); an engine that moves them by "
                    "more than this changes which reads are trusted, whatever its top answers"}
# Dilations of the recogniser's mixing layers along the line (build_model): with 4 and 8 each frame sees about
# seven glyphs either side, a whole name word or date (v8, docs/training.md).
MRZ_CONTEXT = (1, 2, 4, 8)
# Name prefix of those layers (dilation appended): the training's init_from finds new ones by it.
CONTEXT_LAYER = "context_d"


# --- decoding --------------------------------------------------------------------
@dataclass
class LineRead:
    text: str
    alternatives: list  # per character: [(char, probability), ...] best first
    confidence: float  # geometric mean of the chosen characters' probabilities


def _greedy(logp: np.ndarray, blank_bias: float) -> list[tuple[int, int, int]]:
    """(label, first frame, last frame) of each emitted character."""
    best = logp[:, 1:].argmax(1) + 1
    # Ties go to the blank, as argmax over all classes (blank first) would give them.
    best[logp[:, 0] + blank_bias >= logp[np.arange(len(logp)), best]] = 0
    # A character starts where the best label changes to a non-blank; it runs while the label repeats.
    starts = np.flatnonzero((best != 0) & (best != np.concatenate([[0], best[:-1]])))
    if len(starts) == 0:
        return []
    changed = np.flatnonzero(best[1:] != best[:-1]) + 1  # frames where the label changes
    ends = np.append(changed, len(best))[np.searchsorted(changed, starts, side="right")] - 1
    return [(int(best[a]), int(a), int(b)) for a, b in zip(starts, ends)]


def decode_line(probs: np.ndarray, length: int | None = None, labels: list = LABELS) -> LineRead:
    """Text of one line from its (frames, classes) probabilities.

    With ``length`` the blank's weight is nudged until greedy decoding emits
    exactly that many characters (a glyph lost in a blank, or one read twice,
    costs a shift of the whole rest of the line otherwise); when no nudge gets
    there, the nearest length is returned and the parser reports it.

    >>> p = np.full((6, len(LABELS)), 1e-4); p[:, 0] = 1.0
    >>> p[1, LABELS.index("P")] = p[3, LABELS.index("<")] = 5.0
    >>> decode_line(p / p.sum(1, keepdims=True)).text
    'P<'
    """
    logp = np.log(np.maximum(probs, 1e-12))
    segments = _greedy(logp, 0.0)
    if length is not None and len(segments) != length:
        lo, hi = -12.0, 12.0  # more blank weight: fewer characters
        best = segments
        for _ in range(14):
            mid = (lo + hi) / 2
            seg = _greedy(logp, mid)
            if abs(len(seg) - length) < abs(len(best) - length):
                best = seg
            if len(seg) == length:
                break
            if len(seg) > length:
                lo = mid
            else:
                hi = mid
        segments = best
    if not segments:
        return LineRead("", [], 0.0)
    chosen = [label for label, _a, _b in segments]
    peaks = [a + int(np.argmax(probs[a:b + 1, label])) for label, a, b in segments]
    chars = probs[peaks, 1:]
    p = chars / np.maximum(1e-9, chars.sum(1, keepdims=True))  # character given "not blank"
    top = np.argsort(-p, axis=1)[:, :TOP_K]
    alternatives = [[(labels[j + 1], float(row[j])) for j in order] for row, order in zip(p, top)]
    logs = np.log(np.maximum(p[np.arange(len(chosen)), np.array(chosen) - 1].astype(np.float64), 1e-9))
    confidence = float(np.exp(np.mean(logs)))
    return LineRead("".join(labels[k] for k in chosen), alternatives, confidence)


def vote_lines(reads: list[LineRead], length: int) -> LineRead | None:
    """One line from several reads of it (the same line cut a little differently), character by character.

    Each read of ``length`` characters votes its candidates' probabilities at each position; reads of
    another length (a glyph lost or doubled in that cut) would vote out of step and are left out. Errors
    of one cut (a glyph clipped at the strip's edge, a stroke lost in the background) rarely repeat in
    the others, so the vote is surer than any one read. None when no read has the length.

    >>> a = LineRead("P<", [[("P", 0.9), ("F", 0.1)], [("<", 1.0)]], 0.95)
    >>> b = LineRead("F<", [[("F", 0.6), ("P", 0.4)], [("<", 1.0)]], 0.77)
    >>> voted = vote_lines([a, b, LineRead("P", [[("P", 1.0)]], 1.0)], 2)
    >>> voted.text, voted.alternatives[0]
    ('P<', [('P', 0.65), ('F', 0.35)])
    """
    same = [r for r in reads if len(r.text) == length]
    if not same:
        return None
    votes: list[dict] = [{} for _ in range(length)]
    for read in same:
        for position, candidates in zip(votes, read.alternatives):
            for char, p in candidates:
                position[char] = position.get(char, 0.0) + p / len(same)
    alternatives = [sorted(v.items(), key=lambda cp: -cp[1])[:TOP_K] for v in votes]
    confidence = float(np.exp(np.mean([np.log(max(a[0][1], 1e-9)) for a in alternatives])))
    return LineRead("".join(a[0][0] for a in alternatives), alternatives, confidence)


# --- model ---------------------------------------------------------------------------
def build_model(width: int = LINE_W, labels: list = LABELS, name: str = MODEL_NAME,
                context: tuple = (1, 2)):
    """(training model with logits out, inference model with probabilities out), sharing weights.

    About 70 M multiply-adds per MRZ line: separable convolutions down to 4 x 192,
    then the column features are mixed along the line (at the default ``context``,
    the dilations of those residual mixing layers, each frame sees about four glyphs,
    enough to tell '<<' from 'K' and a line's end from its middle; each further
    doubling adds reach and ~5 M multiply-adds, :data:`MRZ_CONTEXT`). ``width``/``labels``/``name``: the
    same network for other single lines of print; one frame per 4 columns.
    """
    import keras  # deferred: building the network is for training and stand-ins; reading loads no Keras
    from keras import layers

    inp = keras.Input((LINE_H, width, 1), name="strip")
    x = layers.Conv2D(24, 3, strides=2, padding="same", use_bias=False)(inp)
    x = layers.BatchNormalization()(x)
    x = layers.ReLU()(x)
    for filters, pool in ((48, (2, 2)), (96, None), (96, (2, 1)), (160, None)):
        x = layers.SeparableConv2D(filters, 3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
        if pool:
            x = layers.MaxPooling2D(pool)(x)
    # (4, 192, 160) -> (192, 640): one feature vector per column frame.
    x = layers.Permute((2, 1, 3))(x)
    x = layers.Reshape((width // 4, -1))(x)
    x = layers.Dense(160, activation="relu")(x)
    for dilation in context:
        y = layers.SeparableConv1D(160, 5, padding="same", dilation_rate=dilation, activation="relu",
                                   name=f"{CONTEXT_LAYER}{dilation}")(x)
        x = layers.Add()([x, y])
    x = layers.Dropout(0.15)(x)
    logits = layers.Dense(len(labels), name="logits")(x)
    probs = layers.Softmax(name="probabilities")(logits)
    return keras.Model(inp, logits, name=f"{name}_train"), keras.Model(inp, probs, name=name)
