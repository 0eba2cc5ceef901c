"""ocr stage."""
