"""TypeScript uses the hooks shared by the ECMAScript languages."""

from __future__ import annotations

from mnemo_core.index.languages._ecmascript import EcmaScriptHooks

HOOKS = EcmaScriptHooks()
