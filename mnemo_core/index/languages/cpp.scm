; extensions: .cpp .cc .cxx .c++ .hpp .hh .hxx .h .ipp .inl

(function_definition declarator: (function_declarator declarator: (identifier) @name)
  (#not-match? @name "^(TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P)$")) @definition.function
(function_definition declarator: [
  (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name)
  (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name))
  (reference_declarator (function_declarator declarator: [(identifier) (field_identifier)] @name))]) @definition.function
; GoogleTest: ``TEST(MathTest, Adds) {...}`` (and TEST_F, TEST_P, TYPED_TEST) is the test ``MathTest.Adds``.
(function_definition declarator: (function_declarator declarator: (identifier) @_macro
  parameters: (parameter_list
    . (parameter_declaration type: (type_identifier) @scope) . (parameter_declaration type: (type_identifier) @name) .))
  (#any-of? @_macro "TEST" "TEST_F" "TEST_P" "TYPED_TEST" "TYPED_TEST_P")) @definition.function
; ``void User::save() {}`` written outside the class is ``User.save``.
(function_definition declarator: [
  (function_declarator declarator: (qualified_identifier
    scope: (namespace_identifier) @scope name: [(identifier) (destructor_name) (operator_name)] @name))
  (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier
    scope: (namespace_identifier) @scope name: (identifier) @name)))
  (reference_declarator (function_declarator declarator: (qualified_identifier
    scope: (namespace_identifier) @scope name: (identifier) @name)))]) @definition.function
; Member functions declared in a class body (defined elsewhere, or pure virtual).
(field_declaration_list (field_declaration
  declarator: (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name))
  @definition.function)
(field_declaration_list (declaration
  declarator: (function_declarator declarator: [(identifier) (destructor_name)] @name)) @definition.function)
(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(alias_declaration name: (type_identifier) @name) @definition.type
(type_definition type: (struct_specifier !name body: (_)) declarator: (type_identifier) @name) @definition.struct

(base_class_clause (type_identifier) @name @reference.inherit)
(base_class_clause (template_type name: (type_identifier) @name) @reference.inherit)

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression argument: (_) @receiver field: (field_identifier) @name)) @reference.call
(call_expression function: (qualified_identifier scope: (_) @receiver name: (identifier) @name)) @reference.call
(new_expression type: (type_identifier) @name) @reference.call
