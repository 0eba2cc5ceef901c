"""The document outline model: which pixels of a photo or scan belong to the document.

Contours of edges and colour segments find a card on a plain table, but not on
a cluttered desk, over a keyboard or on grass, where the portrait, a sticker or
the background's own shapes make better rectangles. A small encoder-decoder
network, trained on the generator's captures (whose labels carry the exact
corners), marks the document's pixels; the quad is then fitted to that mask
(:func:`mask_to_quad`) and refined on the full-resolution edges by
:mod:`docauth.ocr.locate`. For an opened passport the data page is the
document: the facing page is not marked.

Input: RGB squashed to 192 x 192, float32 in [0, 1]; output: 96 x 96
probabilities. It runs through the runtime layer like every model.

Optional and not shipped yet: its first training run located documents worse
than the contour locator (docs/history.md, "Model versions"). ``DocumentReader.load`` uses it
only when ``models/outline.keras`` exists. Its training (``docauth train
outline``) is :mod:`docauth.training.outline`.
"""

from __future__ import annotations

import cv2
import numpy as np

from docauth.ocr.quad import fit_sides, order_corners, quad_from_contour

MODEL_NAME = "outline"
INPUT_SIDE = 192
MASK_SIDE = 96
LABELS = ["background", "document"]


def preprocess(rgb: np.ndarray) -> np.ndarray:
    """(192, 192, 3) float32 in [0, 1], aspect not kept (the mask is stretched back the same way)."""
    small = cv2.resize(rgb, (INPUT_SIDE, INPUT_SIDE), interpolation=cv2.INTER_AREA)
    return small.astype(np.float32) * (1.0 / 255.0)


def mask_to_quad(mask: np.ndarray, image_shape, threshold: float = 0.5) -> tuple[np.ndarray, float] | None:
    """Four corners (image order TL, TR, BR, BL, input coordinates) of the largest marked region, and its
    share of the image; None when nothing document-sized is marked."""
    h, w = image_shape[:2]
    binary = (mask >= threshold).astype(np.uint8)
    n, labels, stats, _c = cv2.connectedComponentsWithStats(binary, connectivity=4)
    if n <= 1:
        return None
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    share = float(stats[k, cv2.CC_STAT_AREA]) / binary.size
    if share < 0.02:
        return None
    # Upsample the soft mask of that region for a sub-cell outline.
    soft = np.where(labels == k, mask, 0.0).astype(np.float32)
    big_side = 384
    soft = cv2.resize(soft, (big_side, big_side), interpolation=cv2.INTER_LINEAR)
    region = (soft >= threshold).astype(np.uint8)
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    contour = max(contours, key=cv2.contourArea)
    quad = quad_from_contour(contour, cv2)
    if quad is None:
        quad = cv2.boxPoints(cv2.minAreaRect(contour)).astype(np.float64)
    points = contour.reshape(-1, 2).astype(np.float64)
    quad = fit_sides(order_corners(quad), points, cv2)
    scale = np.array([w / big_side, h / big_side])
    quad = order_corners(quad * scale)
    quad[:, 0] = np.clip(quad[:, 0], 0, w - 1)
    quad[:, 1] = np.clip(quad[:, 1], 0, h - 1)
    return quad, share


# --- model ----------------------------------------------------------------------------
def build_model():
    """(training model with logits, inference model with probabilities); ~0.1 M parameters."""
    import keras  # deferred: building the network is for training; reading loads no Keras
    from keras import layers

    def block(x, filters, stride=1):
        x = layers.SeparableConv2D(filters, 3, strides=stride, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        return layers.ReLU()(x)

    inp = keras.Input((INPUT_SIDE, INPUT_SIDE, 3), name="image")
    x = layers.Conv2D(16, 3, strides=2, padding="same", use_bias=False)(inp)
    x = layers.BatchNormalization()(x)
    s96 = layers.ReLU()(x)
    s48 = block(block(s96, 32, 2), 32)
    s24 = block(block(s48, 64, 2), 64)
    s12 = block(block(s24, 96, 2), 96)
    x = block(s12, 128)
    # Context: the whole card must be seen to tell its edge from the portrait's.
    x = layers.SeparableConv2D(128, 3, padding="same", dilation_rate=2, activation="relu")(x)
    for skip, filters in ((s24, 64), (s48, 32), (s96, 16)):
        x = layers.UpSampling2D(interpolation="bilinear")(x)
        x = layers.Concatenate()([x, skip])
        x = block(x, filters)
    logits = layers.Conv2D(1, 1, name="logits")(x)
    probs = layers.Activation("sigmoid", name="probabilities")(logits)
    return keras.Model(inp, logits, name="outline_train"), keras.Model(inp, probs, name=MODEL_NAME)
