"""The OCR package is reading library: it imports no training, no data generation, no service, and no private
name of another module (each module's underscore names are its own)."""

import ast
from pathlib import Path

OCR = Path(__file__).resolve().parents[1] / "docauth" / "ocr"
FORBIDDEN = ("docauth.training", "docauth.synth", "docauth.service")


def _imports(path: Path):
    """(module, names) of every import in the file, those inside functions included."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, []
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module, [alias.name for alias in node.names]


def test_the_ocr_package_imports_no_training_data_generation_or_service():
    found = [(str(path.relative_to(OCR)), module) for path in sorted(OCR.rglob("*.py"))
             for module, _names in _imports(path) if module.startswith(FORBIDDEN)]
    assert found == []


def test_no_ocr_module_imports_another_modules_private_name():
    found = [(str(path.relative_to(OCR)), module, name) for path in sorted(OCR.rglob("*.py"))
             for module, names in _imports(path) if module.startswith("docauth.")
             for name in names if name.startswith("_") and not name.startswith("__")]
    assert found == []


def test_the_walk_sees_imports_inside_functions(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from docauth.synth import generate_sample\n")
    assert list(_imports(source)) == [("docauth.synth", ["generate_sample"])]
