"""The imperative shell: WebSocket server, Redis store, fan-out, and the ``hauntd`` command line."""
