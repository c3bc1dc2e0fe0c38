; extensions: .go

(function_declaration name: (identifier) @name) @definition.function
(method_declaration
  receiver: (parameter_list (parameter_declaration type: [
    (type_identifier) @scope
    (pointer_type (type_identifier) @scope)
    (generic_type type: (type_identifier) @scope)
    (pointer_type (generic_type type: (type_identifier) @scope))]))
  name: (field_identifier) @name) @definition.function
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name type: [
  (type_identifier) (qualified_type) (pointer_type) (generic_type) (function_type) (map_type) (slice_type)
  (array_type) (channel_type)]) @definition.type
(type_alias name: (type_identifier) @name) @definition.type
(interface_type (method_elem name: (field_identifier) @name) @definition.function)
; package-level variables and constants, whatever their case (``ErrNotFound``, ``defaultTimeout``):
; ``GoHooks.top_level_matches`` (a pattern rooted at ``source_file`` was stepped at every node of the file)

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (selector_expression operand: (_) @receiver field: (field_identifier) @name)) @reference.call
(composite_literal type: (type_identifier) @name) @reference.call
(composite_literal type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  @reference.call

;; dynamic dispatch that static code can see (extraction keeps names the file defines or imports, and
;; exported ones: another file of the package may define them)
; a function handed as a value to code that may call it: ``getCommand(NoArgs, false)``, ``sort.Slice(xs, less)``
(argument_list (identifier) @name) @reference.value
(argument_list (selector_expression operand: (identifier) @receiver field: (field_identifier) @name))
  @reference.value
; ... or set as a field of a struct that code calls later: ``&Command{Args: NoArgs, RunE: run}``
(keyed_element value: (literal_element (identifier) @name)) @reference.value
(keyed_element value: (literal_element (selector_expression operand: (identifier) @receiver
  field: (field_identifier) @name))) @reference.value

; variable types: parameters, ``var x T``, struct fields, ``x := T{}`` / ``&T{}``, ``x := NewT()``, range values
(parameter_declaration name: (identifier) @name type: (_) @receiver) @reference.type
(var_spec name: (identifier) @name type: (_) @receiver) @reference.type
(field_declaration name: (field_identifier) @name type: (_) @receiver) @reference.type
(short_var_declaration left: (expression_list . (identifier) @name) right: (expression_list . [
  (composite_literal type: (_) @receiver)
  (unary_expression operand: (composite_literal type: (_) @receiver))])) @reference.type
(short_var_declaration left: (expression_list . (identifier) @name)
  right: (expression_list . (call_expression function: [(identifier) (selector_expression)] @receiver)))
  @reference.result
(range_clause left: (expression_list (_) (identifier) @name .) right: [(identifier) (selector_expression)] @receiver)
  @reference.element

; Embedded structs and interfaces: the outer type gets the embedded one's methods.
(field_declaration_list (field_declaration !name type: [(type_identifier) @name (pointer_type (type_identifier) @name)])
  @reference.inherit)
(field_declaration_list (field_declaration !name type: [
  (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name)
  (pointer_type (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))])
  @reference.inherit)
(interface_type (type_elem (type_identifier) @name) @reference.inherit)
(interface_type (type_elem (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))
  @reference.inherit)

(import_declaration) @import
