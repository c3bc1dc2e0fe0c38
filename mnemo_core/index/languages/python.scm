; extensions: .py .pyi
; grammar: python

(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
(module (assignment left: (identifier) @name) @definition.constant)
(module (expression_statement (assignment left: (identifier) @name)) @definition.constant)

(call function: (identifier) @name) @reference.call
(call function: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call
(decorator (identifier) @name) @reference.call
(decorator (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call

(class_definition superclasses: (argument_list (identifier) @name @reference.inherit))
(class_definition superclasses: (argument_list
  (attribute object: (_) @receiver attribute: (identifier) @name) @reference.inherit))
(class_definition superclasses: (argument_list
  (subscript value: (identifier) @name) @reference.inherit))
(class_definition superclasses: (argument_list
  (subscript value: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.inherit))

(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import
