; extensions: .php

(function_definition name: (name) @name) @definition.function
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(method_declaration name: (name) @name) @definition.function

(base_clause (name) @name @reference.inherit)
(class_interface_clause (name) @name @reference.inherit)
(use_declaration (name) @name @reference.inherit)

(function_call_expression function: (name) @name) @reference.call
(member_call_expression object: (_) @receiver name: (name) @name) @reference.call
(scoped_call_expression scope: (_) @receiver name: (name) @name) @reference.call
(object_creation_expression (name) @name) @reference.call
