"""Making the document and side classifiers: generated training data (cached), the training loop, the
recipe that writes both models with their metadata, and the evaluation on generated and real images.

The classifiers themselves (what a check runs) are :mod:`docauth.classifiers`.
"""
