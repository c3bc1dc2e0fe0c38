"""The JSON-RPC protocol of ``mnemo-lsp``: messages whose parameters do not fit the LSP's types.

pygls drops a request it cannot deserialize (a negative line, a missing field) after logging a
traceback, and the client waits forever for its answer. Here such a request is answered with
InvalidParams at once, and such a notification is dropped with a one-line warning.
"""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol.types import ResponseError
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol

log = logging.getLogger(__name__)
UNUSABLE = object()  # what a message that could not be deserialized becomes: handled already
DESERIALIZE_FAILED = "Unable to deserialize message"  # pygls' log line, with a traceback we replace


class MnemoProtocol(LanguageServerProtocol):
    """pygls' protocol, answering every request it cannot read."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        """A message object, or ``UNUSABLE`` for one that does not fit its type (answered here)."""
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            method = data.get("method", "a message")
            message = f"invalid parameters for {method}: they do not match the LSP's types ({exc.message})"
            log.warning("%s", message)
            if "id" in data and "method" in data:
                error = ResponseError(code=JsonRpcInvalidParams.CODE, message=message)
                self._send_response(data["id"], error=error)
            return UNUSABLE

    def handle_message(self, message: Any) -> None:
        """Handle a message, unless it was already answered as unusable."""
        if message is not UNUSABLE:
            super().handle_message(message)
