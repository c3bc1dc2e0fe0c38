; extensions: .java

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.function
(constructor_declaration name: (identifier) @name) @definition.function
(compact_constructor_declaration name: (identifier) @name) @definition.function
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.constant
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.constant

(method_invocation object: (_) @receiver name: (identifier) @name) @reference.call
(method_invocation !object name: (identifier) @name) @reference.call
(object_creation_expression type: [(type_identifier) @name (generic_type . (type_identifier) @name)]) @reference.call
(object_creation_expression type: [
  (scoped_type_identifier . (_) @receiver . (type_identifier) @name .)
  (generic_type . (scoped_type_identifier . (_) @receiver . (type_identifier) @name .))]) @reference.call
(method_reference . [(identifier) (type_identifier) (field_access) (this)] @receiver . (identifier) @name .)
  @reference.call

(superclass [(type_identifier) @name (generic_type . (type_identifier) @name)] @reference.inherit)
(super_interfaces (type_list [(type_identifier) @name (generic_type . (type_identifier) @name)] @reference.inherit))
(extends_interfaces (type_list [(type_identifier) @name (generic_type . (type_identifier) @name)] @reference.inherit))

(import_declaration) @import
