; extensions: .rs

(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type
(mod_item name: (identifier) @name body: (_)) @definition.namespace
(macro_definition name: (identifier) @name) @definition.function
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant

; ``impl Type {}`` owns its functions (``Type.method``) without being a symbol itself.
(impl_item type: [
  (type_identifier) @name
  (generic_type type: (type_identifier) @name)
  (scoped_type_identifier name: (type_identifier) @name)
  (generic_type type: (scoped_type_identifier name: (type_identifier) @name))]) @definition.impl

; ``impl Trait for Type``: Type implements Trait; ``trait A: B`` extends B.
(impl_item trait: [
  (type_identifier) @name
  (generic_type type: (type_identifier) @name)
  (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
  (generic_type type: (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name))]
  @reference.inherit)
(trait_item bounds: (trait_bounds [
  (type_identifier) @name
  (generic_type type: (type_identifier) @name)] @reference.inherit))

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression value: (_) @receiver field: (field_identifier) @name)) @reference.call
(call_expression function: (scoped_identifier path: (_) @receiver name: (identifier) @name)) @reference.call
(call_expression function: (generic_function function: [
  (identifier) @name
  (field_expression value: (_) @receiver field: (field_identifier) @name)
  (scoped_identifier path: (_) @receiver name: (identifier) @name)])) @reference.call
(macro_invocation macro: (identifier) @name) @reference.call
; Calls inside macro arguments (``assert_eq!(User::new(x).id(), y)``), which the grammar leaves as
; token trees. A method call there is also seen as a bare call of its name, which rarely resolves.
(token_tree (identifier) @name . (token_tree)) @reference.call
(token_tree (identifier) @receiver . "::" . (identifier) @name . (token_tree)) @reference.call
(token_tree (_) @receiver . "." . (identifier) @name . (token_tree)) @reference.call
(struct_expression name: (type_identifier) @name) @reference.call
(struct_expression name: (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)) @reference.call

;; dynamic dispatch that static code can see (extraction keeps only names the file defines or imports)
; a function handed as a value to code that may call it: ``xs.iter().map(upper)``, ``map(util::lower)``,
; or stored in a struct's field: ``Handler { cb: upper }``
(arguments (identifier) @name) @reference.value
(arguments (scoped_identifier path: (identifier) @receiver name: (identifier) @name)) @reference.value
(field_initializer value: (identifier) @name) @reference.value

(use_declaration) @import
(mod_item !body) @import
