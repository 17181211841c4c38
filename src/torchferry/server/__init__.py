"""``ferry server``: ``ferry check`` as a Language Server (LSP over stdio, built on pygls).

:mod:`~torchferry.server.analysis` holds what needs no protocol (settings, configuration
per file, the workspace's classes, a document's findings); :mod:`~torchferry.server.convert`
turns findings into the protocol's types; :mod:`~torchferry.server.protocol` schedules
checks; :mod:`~torchferry.server.features` answers the client.  Only ``torchferry.check``
is imported (never torch): the server runs in the lint-only install.
"""
