; TypeScript declarations and heritage (TypeScript and TSX).

(interface_declaration name: (type_identifier) @name) @definition.interface
(interface_body (method_signature name: (property_identifier) @name) @definition.function)
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(class_body (abstract_method_signature name: (property_identifier) @name) @definition.function)
(class_body (public_field_definition
  name: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.function)
(function_signature name: (identifier) @name) @definition.function

(extends_clause value: (identifier) @name @reference.inherit)
(extends_clause value: (member_expression object: (_) @receiver property: (property_identifier) @name)
  @reference.inherit)
(implements_clause (type_identifier) @name @reference.inherit)
(implements_clause (generic_type name: (type_identifier) @name) @reference.inherit)
(extends_type_clause type: (type_identifier) @name @reference.inherit)
(extends_type_clause type: (generic_type name: (type_identifier) @name) @reference.inherit)
