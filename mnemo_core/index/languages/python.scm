; extensions: .py .pyi
; grammar: python

(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
; the module's constants: ``PythonHooks.top_level_matches`` (a pattern rooted at ``module`` was stepped
; at every node of the file)

(call function: (identifier) @name) @reference.call
(call function: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call
(decorator (identifier) @name) @reference.call
(decorator (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call

; a metaclass runs when the class is defined (and each subclass): the class calls its ``__new__``/``__init__``
(class_definition superclasses: (argument_list (keyword_argument name: (identifier) @_kw
  value: (identifier) @name) @reference.call (#eq? @_kw "metaclass")))
(class_definition superclasses: (argument_list (keyword_argument name: (identifier) @_kw
  value: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call (#eq? @_kw "metaclass")))

(class_definition superclasses: (argument_list (identifier) @name @reference.inherit))
(class_definition superclasses: (argument_list
  (attribute object: (_) @receiver attribute: (identifier) @name) @reference.inherit))
(class_definition superclasses: (argument_list
  (subscript value: (identifier) @name) @reference.inherit))
(class_definition superclasses: (argument_list
  (subscript value: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.inherit))

; variable types: x = Class(...), x: Type, parameters with annotations, self.attr = Class(...)
(assignment left: (identifier) @name
  right: (call function: [(identifier) (attribute)] @receiver)
  (#match? @receiver "^([a-z_][a-z0-9_]*\\.)*_?[A-Z]")) @reference.type
(assignment left: (attribute object: (identifier) attribute: (identifier)) @name
  right: (call function: [(identifier) (attribute)] @receiver)
  (#match? @receiver "^([a-z_][a-z0-9_]*\\.)*_?[A-Z]")) @reference.type
(assignment left: [(identifier) (attribute object: (identifier) attribute: (identifier))] @name
  type: (type) @receiver) @reference.type
; ``self.store = store``: the attribute has the type the function declares for the variable
(assignment left: (attribute object: (identifier) @_self attribute: (identifier)) @name
  right: (identifier) @receiver (#any-of? @_self "self" "cls")) @reference.copy
(assignment left: (identifier) @name
  right: (call function: [(identifier) (attribute)] @receiver)
  (#match? @receiver "^([a-zA-Z_][a-zA-Z0-9_]*\\.)*[a-z_][a-z0-9_]*$")) @reference.result
; ``si = self.app.session_interface``: what the chain holds, typed through the classes along it
(assignment left: (identifier) @name right: (attribute) @receiver) @reference.held
; ``cls = template_class or self.template_class``: the first alternative's declared type
(assignment left: (identifier) @name right: (boolean_operator left: (identifier) @receiver
  operator: "or")) @reference.copy
; ``self.parser = yacc.yacc()``: the attribute holds what the function returns, in every method
(assignment left: (attribute object: (identifier) @_self attribute: (identifier)) @name
  right: (call function: [(identifier) (attribute)] @receiver) (#any-of? @_self "self" "cls")
  (#match? @receiver "^([a-zA-Z_][a-zA-Z0-9_]*\\.)*[a-z_][a-z0-9_]*$")) @reference.result
; ``obj, rest = resolve()``: the first of the values a call hands back, as its declared
; ``-> tuple[Command | Parameter, str]`` names first (an unpacked class, which is rare, would be typed the same)
(assignment left: (pattern_list . (identifier) @name)
  right: (call function: [(identifier) (attribute)] @receiver)) @reference.result
; loop variables: an element of what is iterated (``for p in self.get_params()`` -> ``-> list[Parameter]``)
(for_statement left: (identifier) @name
  right: (call function: [(identifier) (attribute)] @receiver)) @reference.result
(for_statement left: (identifier) @name right: [(identifier) (attribute)] @receiver) @reference.element
; ``with make() as x``: what the call returns (``__enter__`` mostly hands back the same object)
(with_item value: (as_pattern (call function: [(identifier) (attribute)] @receiver)
  alias: (as_pattern_target (identifier) @name))) @reference.result
(typed_parameter (identifier) @name type: (type) @receiver) @reference.type
; ``isinstance(node, c_ast.Node)``: code that checks a variable's class uses it as one (a function's
; checks of one variable are one union: ``isinstance(x, A)`` ... ``isinstance(x, (B, C))``)
(call function: (identifier) @_isinstance arguments: (argument_list . (identifier) @name
  . [(identifier) (attribute)] @receiver .) (#eq? @_isinstance "isinstance")) @reference.type
(call function: (identifier) @_isinstance arguments: (argument_list . (identifier) @name
  . (tuple [(identifier) (attribute)] @receiver) .) (#eq? @_isinstance "isinstance")) @reference.type
(typed_default_parameter name: (identifier) @name type: (type) @receiver) @reference.type
; ``except UsageError as e`` (or ``(A, B)``): what is caught passed an isinstance check of the class; the
; handlers and checks of one variable in a function are one union, as isinstance's are
(except_clause value: (as_pattern [(identifier) (attribute)] @receiver
  alias: (as_pattern_target (identifier) @name)) @_isinstance) @reference.type
(except_clause value: (as_pattern (tuple [(identifier) (attribute)] @receiver)
  alias: (as_pattern_target (identifier) @name)) @_isinstance) @reference.type
; a parametrised test's parameters: the classes their values are built as (``[(IntRange(0, 5), "3")]``)
(decorator (call function: (attribute attribute: (identifier) @_mark (#eq? @_mark "parametrize"))
  arguments: (argument_list . [(string) (tuple) (list)] @name . [(list) (tuple)] @receiver)))
  @reference.test_parametrize

; a class bound to a name (``context_class = Context`` in a class body, ``cls = Option``): calling it builds one
(assignment left: [(identifier) (attribute object: (identifier) attribute: (identifier))] @name
  right: [(identifier) (attribute)] @receiver
  (#match? @receiver "^([a-z_][a-z0-9_]*\\.)*_?[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*$")) @reference.alias
; a parameter whose default is a class (``lexer=CLexer``, ``session_class=Session``): calling it builds one
(default_parameter name: (identifier) @name value: [(identifier) (attribute)] @receiver
  (#match? @receiver "^([a-z_][a-z0-9_]*\\.)*_?[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*$")) @reference.alias
; implicit calls: a property read on self, the context manager protocol of ``with``
; on self, cls or a variable (kept where its type is declared in the same scope: ``map.merge_slashes``
; of ``def bind(self, map: Map)``, a test's ``result.output``)
(attribute object: (identifier) @receiver attribute: (identifier) @name) @reference.read
; an assignment to one runs a property's setter (``session.permanent = True``), not its getter
(assignment left: (attribute object: (identifier) @receiver attribute: (identifier) @name)) @reference.write
; and through a chain of attributes (``ctx.request.blueprints``: ``ctx`` typed, ``request`` a property
; returning a ``Request``), kept where the chain starts at self or at a variable typed in the same scope
(attribute object: (attribute) @receiver attribute: (identifier) @name) @reference.read
; ``getattr(obj, name)`` on anything but self: a module's ``__getattr__`` (PEP 562) may run
(call function: (identifier) @_getattr arguments: (argument_list . (identifier) @receiver . (_) @name)
  (#eq? @_getattr "getattr") (#not-match? @receiver "^(self|cls)$")) @reference.read
(with_item value: [(identifier) (attribute) (call)] @name) @reference.enter
(with_item value: (as_pattern . [(identifier) (attribute) (call)] @name)) @reference.enter
; and iteration, of ``__iter__``
(for_statement right: [(identifier) (attribute) (call)] @name) @reference.iterate
(for_in_clause right: [(identifier) (attribute) (call)] @name) @reference.iterate
; and the dunder methods a value's class runs without call syntax (kept where its class is known)
(call function: (identifier) @_len arguments: (argument_list . [(identifier) (attribute) (call)] @name .)
  (#eq? @_len "len")) @reference.length
(call function: (identifier) @_next arguments: (argument_list . [(identifier) (attribute) (call)] @name)
  (#eq? @_next "next")) @reference.advance
(if_statement condition: [(identifier) (attribute) (call)] @name) @reference.truth
(elif_clause condition: [(identifier) (attribute) (call)] @name) @reference.truth
(while_statement condition: [(identifier) (attribute) (call)] @name) @reference.truth
(not_operator argument: [(identifier) (attribute) (call)] @name) @reference.truth
(boolean_operator [(identifier) (attribute) (call)] @name) @reference.truth
(call function: (identifier) @_bool arguments: (argument_list . [(identifier) (attribute) (call)] @name .)
  (#eq? @_bool "bool")) @reference.truth
(call function: (identifier) @_str arguments: (argument_list . [(identifier) (attribute) (call)] @name .)
  (#any-of? @_str "str" "repr" "format")) @reference.text
(interpolation expression: [(identifier) (attribute) (call)] @name) @reference.text
(subscript value: [(identifier) (attribute) (call)] @name) @reference.item
(comparison_operator [(identifier) (attribute) (call)] @name) @reference.compare
(binary_operator left: [(identifier) (attribute) (call)] @name) @reference.operator
(binary_operator right: [(identifier) (attribute) (call)] @name) @reference.operator
(augmented_assignment left: [(identifier) (attribute)] @name) @reference.operator

; the class a function builds and hands back (a fixture without a return annotation)
(return_statement (call function: [(identifier) (attribute)] @receiver @name
  (#match? @receiver "^([a-z_][a-z0-9_]*\\.)*_?[A-Z]"))) @reference.returns
(expression_statement (yield (call function: [(identifier) (attribute)] @receiver @name
  (#match? @receiver "^([a-z_][a-z0-9_]*\\.)*_?[A-Z]")))) @reference.returns
(return_statement (call function: [(identifier) (attribute)] @receiver @name
  (#match? @receiver "^([A-Za-z_][A-Za-z0-9_]*\\.)*[a-z_][a-z0-9_]*$"))) @reference.returns_result
(return_statement (identifier) @receiver @name) @reference.returns
(expression_statement (yield (identifier) @receiver @name)) @reference.returns

;; dynamic dispatch that static code can see (extraction keeps only names the file defines or imports)
; a function handed as a value to code that may call it: ``sorted(key=f)``, ``register(f)``, ``cbs.append(self.m)``
(argument_list (identifier) @name) @reference.value
; ... or in a list or tuple handed over (``parametrize("fn", [up, low])``, ``run_all((a, b))``)
(argument_list [(list [(identifier) @name (tuple (identifier) @name)]) (tuple (identifier) @name)]) @reference.value
(keyword_argument value: (identifier) @name) @reference.value
(argument_list (attribute object: (identifier) @receiver attribute: (identifier) @name)
  (#any-of? @receiver "self" "cls")) @reference.value
; ... a method of the object's own, in a list or tuple handed over (``register([(is_set, self._structure_set)])``)
(argument_list [(list [(attribute object: (identifier) @receiver attribute: (identifier) @name)
    (tuple (attribute object: (identifier) @receiver attribute: (identifier) @name))])
  (tuple (attribute object: (identifier) @receiver attribute: (identifier) @name))]
  (#any-of? @receiver "self" "cls")) @reference.value
; a class, or an object built from one, handed to code that may build it or call its methods:
; ``add_converter(IntConverter)``, ``md.register(Processor(md), "p", 10)``, ``run_all([Upper(), Strip()])``
(call function: (_) @_f arguments: (argument_list [(identifier) @name
  (call function: [(identifier) @name (attribute object: (identifier) @receiver attribute: (identifier) @name)])
  (list [(identifier) @name (call function: [(identifier) @name
    (attribute object: (identifier) @receiver attribute: (identifier) @name)])])])
  (#match? @name "^_?[A-Z][a-z]")
  (#not-match? @_f "^((t|typing)[.])?(isinstance|issubclass|super|type|cast|getattr|hasattr|setattr|TypeVar|NewType)$")) @reference.handed
; ... or an object built earlier, stored in a collection that code runs later (``fltr = OutputFilter();
; stack.postprocess.append(fltr)``; kept where the variable's class is known)
(call function: (attribute attribute: (identifier) @_store) arguments: (argument_list (identifier) @name)
  (#any-of? @_store "append" "appendleft" "add" "insert" "register" "put")) @reference.handed
; a function stored in a registry: ``FILTERS = {"upper": do_upper}``, ``HANDLERS = [a, b]``, ``R[k] = f``
(dictionary (pair value: (identifier) @name)) @reference.registered
(dictionary (pair value: (attribute object: (identifier) @receiver attribute: (identifier) @name))) @reference.registered
(assignment right: (list (identifier) @name)) @reference.registered
(assignment right: (tuple (identifier) @name)) @reference.registered
(assignment left: (subscript) right: (identifier) @name) @reference.registered
(dictionary (pair value: (call function: [(identifier) @name
  (attribute object: (identifier) @receiver attribute: (identifier) @name)]) (#match? @name "^_?[A-Z][a-z]"))) @reference.registered
(assignment right: [(list (call function: (identifier) @name)) (tuple (call function: (identifier) @name))]
  (#match? @name "^_?[A-Z][a-z]")) @reference.registered
; a registry read (``FILTERS[name]``, ``FILTERS.get(name)``, ``self.handlers[kind]``) and written (``R[k] = f``)
(subscript value: (identifier) @name (#match? @name "^_*[A-Z][A-Z0-9_]*$")) @reference.lookup
; (one held by the class is a registry of functions where what is looked up is called: ``self.handlers[kind](x)``)
(call function: (subscript value: (attribute object: (identifier) @receiver attribute: (identifier) @name))
  (#any-of? @receiver "self" "cls")) @reference.lookup
(call function: (attribute object: (identifier) @name attribute: (identifier) @_get)
  (#any-of? @_get "get" "copy" "items" "values" "pop") (#match? @name "^_*[A-Z][A-Z0-9_]*$")) @reference.lookup
(call function: (call function: (attribute object: (attribute object: (identifier) @receiver
  attribute: (identifier) @name) attribute: (identifier) @_get)) (#eq? @_get "get")
  (#any-of? @receiver "self" "cls")) @reference.lookup
(assignment left: (subscript value: (identifier) @name (#match? @name "^_*[A-Z][A-Z0-9_]*$"))) @reference.store
(assignment left: (subscript value: (attribute object: (identifier) @receiver attribute: (identifier) @name))
  (#any-of? @receiver "self" "cls")) @reference.store
(call function: (attribute object: (identifier) @name attribute: (identifier) @_add)
  (#any-of? @_add "append" "add" "setdefault" "update") (#match? @name "^_*[A-Z][A-Z0-9_]*$")) @reference.store
(call function: (attribute object: (attribute object: (identifier) @receiver attribute: (identifier) @name)
  attribute: (identifier) @_add) (#any-of? @_add "append" "add" "setdefault" "update")
  (#any-of? @receiver "self" "cls")) @reference.store
; a method looked up by a name built from a literal prefix: ``getattr(self, "visit_" + type(node).__name__)``,
; or by a variable the function builds so (``method = "visit_" + ...; getattr(self, method)``), or by a
; class's name alone (``getattr(self, type(node).__name__)``, ``node_class.__name__.upper()``)
(call function: (identifier) @_getattr arguments: (argument_list . (identifier) @receiver
  . [(binary_operator) (string) (call) (identifier) (attribute)] @name) (#eq? @_getattr "getattr")
  (#any-of? @receiver "self" "cls")) @reference.dispatch
; a library handed the object (or, with none, the calling module) to collect its functions by name
; prefix (``Hooks.prefix_collectors``): PLY's ``yacc.yacc(module=self)`` runs the ``p_*`` rules,
; ``lexer = lex.lex()`` the module's ``t_*`` rules
(call function: [(identifier) @name (attribute attribute: (identifier) @name)] @_collect
  arguments: (argument_list (keyword_argument name: (identifier) @_kw value: (identifier) @receiver))
  (#any-of? @_kw "module" "object") (#any-of? @receiver "self" "cls")) @reference.dispatch
(call function: (attribute object: (identifier) @_library attribute: (identifier) @name) @_collect
  arguments: (argument_list) @_arguments (#eq? @_library @name)
  (#not-match? @_arguments "(module|object) *=")) @reference.dispatch

;; a definition named by its dotted path in a string, for code that imports it by name at run time
; (a plugin table, Django's ``MIDDLEWARE``, an entry point's ``"pkg.mod:Class"``), is found by scanning
; the source (``PythonHooks.dotted_strings``): a pattern here matched every string, a fifth of all matches

(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import
; a module-level alias binds a second name, as an import from the module itself would (``length = Length``),
; as does a type variable bound to a class (``CmdType = TypeVar("CmdType", bound=Command)``, ``cls:
; type[CmdType]``; the bound may be quoted): ``PythonHooks.top_level_matches``
