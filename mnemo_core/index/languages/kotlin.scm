; extensions: .kt .kts

(class_declaration "class" (type_identifier) @name) @definition.class
(class_declaration "interface" (type_identifier) @name) @definition.interface
(object_declaration (type_identifier) @name) @definition.class
(function_declaration (simple_identifier) @name) @definition.function

(delegation_specifier [
  (user_type (type_identifier) @name)
  (constructor_invocation (user_type (type_identifier) @name))] @reference.inherit)

(call_expression . (simple_identifier) @name) @reference.call
(call_expression . (navigation_expression . (_) @receiver (navigation_suffix (simple_identifier) @name) .))
  @reference.call
; a function reference runs the function where it is handed (``xs.map(::upper)``), as Java's ``this::m``
(callable_reference . (simple_identifier) @name .) @reference.call
