# docauth, CPU image: installs exactly what the README installs (scripts/setup: Debian packages,
# .venv with the pinned requirements, docauth itself) and serves with gunicorn (`docauth serve`).
#   docker build -t docauth .
#   docker run -p 8080:8080 -v docauth-data:/var/lib/docauth docauth
#   docker run --rm -v docauth-data:/var/lib/docauth docauth .venv/bin/docauth keys create --name clerk
# GPU variant: Dockerfile.gpu (docs/api.md, "Deployment").
ARG BASE_IMAGE=debian:bookworm
FROM ${BASE_IMAGE}

SHELL ["/bin/bash", "-o", "pipefail", "-c"]
ENV DEBIAN_FRONTEND=noninteractive \
    PYTHONUNBUFFERED=1 \
    DOCAUTH_DATA_DIR=/var/lib/docauth \
    OMP_THREAD_LIMIT=1 \
    TF_CPP_MIN_LOG_LEVEL=2

WORKDIR /opt/docauth
COPY . .

# The README's set-up, run as root so it installs its system packages too.
RUN ./scripts/setup \
    && rm -rf /var/lib/apt/lists/* /root/.cache/pip \
    && useradd --system --uid 10001 --create-home --home-dir /var/lib/docauth docauth

USER 10001
EXPOSE 8080
VOLUME ["/var/lib/docauth"]
HEALTHCHECK --interval=30s --timeout=5s --start-period=180s \
    CMD [".venv/bin/python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/readyz', timeout=4)"]
CMD [".venv/bin/docauth", "serve", "--host", "0.0.0.0", "--port", "8080"]
