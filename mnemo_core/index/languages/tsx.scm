; extensions: .tsx
; include: _ecmascript _typescript _jsx
