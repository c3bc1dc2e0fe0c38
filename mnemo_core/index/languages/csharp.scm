; extensions: .cs

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.function
(constructor_declaration name: (identifier) @name) @definition.function
(local_function_statement name: (identifier) @name) @definition.function

(base_list [(identifier) @name (generic_name (identifier) @name)] @reference.inherit)

(invocation_expression function: (identifier) @name) @reference.call
(invocation_expression function: (member_access_expression expression: (_) @receiver name: (identifier) @name))
  @reference.call
(object_creation_expression type: [(identifier) @name (generic_name (identifier) @name)]) @reference.call
