"""Which face encoder made an encoding: its name, version and size.

The matcher makes encodings and the store keeps them as templates; both take these from here, so a
template from a different encoder is never compared with a fresh encoding.
"""

FACE_MODEL_NAME = "dlib_face_recognition_resnet_model_v1"
FACE_MODEL_VERSION = "face_recognition_models-0.3.0"
ENCODING_SIZE = 128
