"""What makes and measures models: evaluations on generated and real data (the lab, not the reading library).

The reading library (classifiers, ocr, matching, runtime, pipeline) never imports this package.
"""
