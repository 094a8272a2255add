# hauntd: multi-stage image.  The builder makes a wheel-only virtualenv; the runtime stage copies it and runs
# as an unprivileged user.  REDIS_URL selects an external Redis; without it the embedded Valkey keeps its
# append-only files in /data.
FROM python:3.11-slim AS builder
WORKDIR /src
RUN python -m venv /opt/hauntd
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY protocol ./protocol
COPY server ./server
COPY clients ./clients
RUN /opt/hauntd/bin/pip install --no-cache-dir .

FROM python:3.11-slim
RUN useradd --system --create-home --uid 10001 hauntd && mkdir /data && chown hauntd /data
COPY --from=builder /opt/hauntd /opt/hauntd
ENV PATH="/opt/hauntd/bin:$PATH" PYTHONUNBUFFERED=1
USER hauntd
WORKDIR /home/hauntd
EXPOSE 8765
VOLUME ["/data"]
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["python", "-c", "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8765/healthz', timeout=2).status == 200 else 1)"]
ENTRYPOINT ["hauntd"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8765", "--data-dir", "/data"]
