"""docauth: identity-document checking.

Stages live in the folder named after them: ``classifiers`` (document / side),
``ocr`` (localisation, MRZ, printed fields), ``matching`` (face and text),
``runtime`` (where and how models run), ``store`` (person database),
``pipeline`` (composes the stages), ``service`` (HTTP), ``batch`` (archives),
``synth`` (synthetic training and test data).

Importing this package has no side effects and loads no framework.
"""

__version__ = "0.1.0"
