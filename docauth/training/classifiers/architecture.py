"""The classifier network: a small CNN trained from scratch (no pretrained weights exist offline).

Stem: one strided 3x3 convolution. Body: depthwise-separable 3x3 convolutions
with BatchNorm and ReLU, downsampling by stride 2 at each stage, so most
parameters sit in cheap 1x1 point-wise convolutions. Head: global average
pooling, dropout, softmax. At 128x128 input the default network has ~0.22 M
parameters; the early downsampling (128 -> 64 -> 32 before any wide layer)
keeps training several times faster on CPU cores than keeping 64x64
resolution for a stage (docs/training.md).

Keras is imported inside the functions on purpose: importing this module is free.
"""

from __future__ import annotations

# (filters, separable convolutions) per stage; each stage halves the resolution.
DEFAULT_STAGES = ((32, 1), (64, 1), (128, 2), (192, 2), (256, 2))
# 0.9 rather than Keras' 0.99: short runs (tests, the large-batch end of the batch-size
# study, a few dozen steps) must still end with usable moving statistics.
BN_MOMENTUM = 0.9


def build_model(
    n_classes: int,
    *,
    height: int = 128,
    width: int = 128,
    channels: int = 3,
    stages: tuple[tuple[int, int], ...] = DEFAULT_STAGES,
    stem_filters: int = 24,
    dropout: float = 0.2,
    name: str = "classifier",
):
    """A compiled-free Keras model: float32 (N, H, W, C) in [0, 1] -> softmax (N, n_classes)."""
    import keras  # deferred on purpose: TensorFlow takes seconds to import
    from keras import layers

    inputs = keras.Input((height, width, channels), name="image")
    x = layers.Conv2D(stem_filters, 3, strides=2, padding="same", use_bias=False, name="stem_conv")(inputs)
    x = layers.BatchNormalization(momentum=BN_MOMENTUM, name="stem_bn")(x)
    x = layers.ReLU(name="stem_relu")(x)
    for i, (filters, n_convs) in enumerate(stages):
        for j in range(n_convs):
            x = layers.SeparableConv2D(filters, 3, strides=2 if j == 0 else 1, padding="same", use_bias=False,
                                       name=f"stage{i}_sep{j}")(x)
            x = layers.BatchNormalization(momentum=BN_MOMENTUM, name=f"stage{i}_bn{j}")(x)
            x = layers.ReLU(name=f"stage{i}_relu{j}")(x)
    x = layers.GlobalAveragePooling2D(name="pool")(x)
    x = layers.Dropout(dropout, name="dropout")(x)
    outputs = layers.Dense(n_classes, activation="softmax", name="probabilities")(x)
    return keras.Model(inputs, outputs, name=name)
