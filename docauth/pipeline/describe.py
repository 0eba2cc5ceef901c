"""Which models each stage runs, where (backend, mode) and why: for /v1/runtime and the result trees."""

from __future__ import annotations

from docauth.pipeline.contracts import Classifier, Faces, Reader
from docauth.runtime import InferenceModel


def _model_info(model: InferenceModel) -> dict:
    return {"version": model.metadata.get("version"), **model.describe()}


def _reasons(models: list[InferenceModel]) -> str:
    return "; ".join(f"{m.name}: {m.backend_name} ({m.reason})" for m in models)


def describe_stages(classifier: Classifier, reader: Reader | None, faces: Faces | None) -> dict:
    models = classifier.models()
    out: dict = {"classifier": {"models": [_model_info(m) for m in models], "reason": _reasons(models) or None,
                                **classifier.describe()}}
    if reader is not None:
        models = reader.models()
        out["reader"] = {"models": [_model_info(m) for m in models],
                         "reason": _reasons(models) or "Tesseract (subprocess) for printed fields"}
    out["faces"] = {"reason": "dlib HOG detector and 5-point landmarks, CPU; descriptor: face_embedder on the "
                              "runtime layer"} \
        if faces is not None else None
    return out
