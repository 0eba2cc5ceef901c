"""docauth: identity-document checking.

Stages live in the folder named after them: ``classifiers`` (document / side),
``ocr`` (localisation, MRZ, printed fields), ``matching`` (face and text),
``runtime`` (where and how models run), ``store`` (person database),
``pipeline`` (composes the stages), ``service`` (HTTP), ``batch`` (archives),
``synth`` (synthetic training and test data).

The front door is four plain functions (:mod:`docauth.front`)::

    import docauth
    result = docauth.check("passport.jpg")   # a path, bytes, a PIL image or an RGB array
    print(result.decision, result.reason_codes)

Importing this package has no side effects and loads no framework: the
functions are looked up on first use and the models load on the first call.
"""

__version__ = "0.1.0"

_FRONT = ("check", "read", "classify", "compare_faces", "configure", "image_array")
__all__ = [*_FRONT, "__version__"]


def __getattr__(name: str):
    if name in _FRONT:
        from docauth import front

        return getattr(front, name)
    raise AttributeError(f"module 'docauth' has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *_FRONT})
