# docauth, CPU images (docs/deployment.md). Stages mirror scripts/setup (tests/test_service_docker.py):
#   runtime (the default target): slim, serves with gunicorn, models baked in, runs as uid 10001
#     docker build -t docauth .
#     docker run -p 8080:8080 -v docauth-data:/var/lib/docauth docauth
#     docker run --rm -v docauth-data:/var/lib/docauth docauth docauth keys create --name clerk
#   test: the runtime's packages plus the suite's (PostgreSQL server, Chromium, fonts, test pins)
#     docker build --target test -t docauth:test . && docker run --rm docauth:test
# GPU variant: Dockerfile.gpu. With PostgreSQL: compose.yaml.
ARG PYTHON_IMAGE=python:3.11.9-slim-bookworm

# -- what every image runs with: Python, Tesseract, poppler, the unprivileged user ----------------
FROM ${PYTHON_IMAGE} AS base
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PATH=/opt/docauth/.venv/bin:$PATH \
    DOCAUTH_DATA_DIR=/var/lib/docauth \
    OMP_THREAD_LIMIT=1 \
    TF_CPP_MIN_LOG_LEVEL=2
# Debian's packages move within bookworm (security fixes); the release pins them, not the version.
# hadolint ignore=DL3008
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        tesseract-ocr tesseract-ocr-eng poppler-utils \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --user-group --create-home --home-dir /var/lib/docauth docauth
WORKDIR /opt/docauth

# -- the runtime pins in their own layer: a change of code reinstalls nothing ---------------------
FROM ${PYTHON_IMAGE} AS deps
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
WORKDIR /opt/docauth
COPY requirements/cpu.txt requirements/cpu.txt
# setuptools >= 81 breaks face_recognition's pkg_resources import; face-recognition's own metadata
# would build dlib from source, dlib-bin in the pins is the same module prebuilt.
RUN python -m venv .venv \
    && .venv/bin/pip install --no-cache-dir "setuptools<81" wheel \
    && .venv/bin/pip install --no-cache-dir --prefer-binary -r requirements/cpu.txt \
    && .venv/bin/pip install --no-cache-dir --no-deps "face-recognition==1.3.0"

# -- test: everything scripts/setup installs, the whole checkout, the suite as CMD ----------------
FROM base AS test
# hadolint ignore=DL3008
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        fonts-ocr-b fonts-dejavu-core fonts-liberation postgresql chromium chromium-driver \
    && rm -rf /var/lib/apt/lists/*
COPY --from=deps /opt/docauth/.venv /opt/docauth/.venv
COPY requirements/extra.txt requirements/extra.txt
RUN .venv/bin/pip install --no-cache-dir -r requirements/extra.txt
COPY --chown=10001:10001 . .
RUN .venv/bin/pip install --no-cache-dir --no-deps --no-build-isolation -e . \
    && { [ -f models/face_embedder.onnx ] || .venv/bin/docauth train face-embedder --onnx-only; } \
    && chown 10001:10001 /opt/docauth
USER 10001
CMD ["python", "-m", "pytest", "-q"]

# -- embedder: the face descriptor, built from dlib's network in the pins (22 MB, not kept in git) --
FROM base AS embedder
COPY --from=deps /opt/docauth/.venv /opt/docauth/.venv
COPY requirements/extra.txt requirements/extra.txt
RUN .venv/bin/pip install --no-cache-dir "$(grep -E '^onnx==' requirements/extra.txt)"
COPY pyproject.toml README.md ./
COPY docauth docauth
COPY models/face_embedder.json models/face_embedder.json
RUN .venv/bin/pip install --no-cache-dir --no-deps --no-build-isolation -e . \
    && .venv/bin/docauth train face-embedder --onnx-only

# -- runtime: the slim image --------------------------------------------------------------------
FROM base AS runtime
COPY --from=deps /opt/docauth/.venv /opt/docauth/.venv
COPY pyproject.toml README.md ./
COPY docauth docauth
COPY models models
COPY --from=embedder /opt/docauth/models/face_embedder.onnx models/face_embedder.onnx
RUN .venv/bin/pip install --no-cache-dir --no-deps --no-build-isolation -e . \
    && python -c "import compileall, sys; sys.exit(not compileall.compile_dir('docauth', quiet=1))"
USER 10001
EXPOSE 8080
VOLUME ["/var/lib/docauth"]
HEALTHCHECK --interval=30s --timeout=5s --start-period=180s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/readyz', timeout=4)"]
CMD ["docauth", "serve", "--host", "0.0.0.0", "--port", "8080"]
