; extensions: .ts .mts .cts
; include: _ecmascript _typescript
