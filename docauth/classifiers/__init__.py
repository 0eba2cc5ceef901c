"""classifiers stage: document / not (binary) and side (front / back / open), two small Keras CNNs.

Importing this package loads no framework; models are loaded through :mod:`docauth.runtime`.
"""

from docauth.classifiers.stage import Classification, DocumentClassifier

__all__ = ["Classification", "DocumentClassifier"]
