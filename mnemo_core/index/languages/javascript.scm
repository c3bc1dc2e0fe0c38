; extensions: .js .jsx .mjs .cjs
; include: _ecmascript _jsx

(class_body (field_definition
  property: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.function)
(class_heritage (identifier) @name @reference.inherit)
(class_heritage (member_expression object: (_) @receiver property: (property_identifier) @name) @reference.inherit)
