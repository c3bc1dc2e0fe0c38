; Patterns shared by JavaScript, TypeScript and TSX (see their query files).

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (_) @name) @definition.class
(class_body (method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.function)
(lexical_declaration (variable_declarator
  name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(variable_declaration (variable_declarator
  name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(expression_statement (assignment_expression
  left: (member_expression object: (identifier) @_exports property: (property_identifier) @name)
  right: [(arrow_function) (function_expression)])
  (#eq? @_exports "exports")) @definition.function
; ``module.exports = function xhrAdapter(config) {...}``: a CommonJS module's one function, by its own name
(expression_statement (assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
  right: (function_expression name: (identifier) @name))
  (#eq? @_module "module") (#eq? @_exports "exports")) @definition.function
; ``module.exports = function (grunt) {...}``, ``export default (config) => ...``: a module's one
; anonymous function, named as its module exports it (``exports``, ``default``)
(expression_statement (assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @name)
  right: [(function_expression !name) (arrow_function)])
  (#eq? @_module "module") (#eq? @name "exports")) @definition.function
(export_statement "default" @name value: [(function_expression !name) (arrow_function)]) @definition.function
; methods assigned to an object or a prototype (``res.send = function send(body) {...}``,
; ``Router.prototype.route = function (path) {...}``): methods of ``res`` and ``Router``
(expression_statement (assignment_expression
  left: (member_expression object: (identifier) @scope property: (property_identifier) @name)
  right: [(arrow_function) (function_expression)])
  (#not-match? @scope "^(exports|module)$")) @definition.function
(expression_statement (assignment_expression
  left: (member_expression
    object: (member_expression object: (identifier) @scope property: (property_identifier) @_prototype)
    property: (property_identifier) @name)
  right: [(arrow_function) (function_expression)])
  (#eq? @_prototype "prototype")) @definition.function
;; functions held in an object literal or handed to a call, which tasks name as often as declared ones
; ``{transformRequest: function (data) {...}, parse(text) {...}, done: () => {...}}``
(object (pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.function)
(object (method_definition name: (property_identifier) @name) @definition.function)
; ``{transformRequest: [function transformRequest(data) {...}]}``: a list of one kind of hook
(pair key: (property_identifier) @name value: (array . (function_expression) @definition.function .))
; a named callback: ``new Promise(function dispatchXhrRequest(resolve) {...})``,
; ``forEach(methods, function forEachMethodNoData(method) {...})`` (test callbacks are named by their text)
(new_expression arguments: (arguments (function_expression name: (identifier) @name) @definition.function))
(call_expression
  function: (_) @_callee
  arguments: (arguments (function_expression name: (identifier) @name) @definition.function)
  (#not-match? @_callee "^(describe|context|suite|it|test|specify)([.(]|$)"))
; the module's constants (``const LIMIT = 10``, exported or not): ``EcmaScriptHooks.top_level_matches``
; (a pattern rooted at ``program`` was stepped at every node of the file)

; Test suites and cases: describe("...", () => {}) and it/test("...", () => {}) callbacks, named by
; their description with its quotes, so that describe("UserService") cannot shadow UserService.
(call_expression
  function: [(identifier) @_call (member_expression object: (identifier) @_call)]
  arguments: (arguments . (string) @name . [(arrow_function) (function_expression)] @definition.function)
  (#any-of? @_call "describe" "context" "suite" "it" "test" "specify"))
(call_expression
  function: (call_expression
    function: (member_expression object: (identifier) @_call property: (property_identifier) @_each))
  arguments: (arguments . (string) @name . [(arrow_function) (function_expression)] @definition.function)
  (#eq? @_each "each")
  (#any-of? @_call "describe" "it" "test"))

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (member_expression
  object: (_) @receiver property: [(property_identifier) (private_property_identifier)] @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.call
(new_expression constructor: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.call

;; dynamic dispatch that static code can see (extraction keeps only names the file defines or imports)
; a function handed as a value to code that may call it: ``xs.map(upper)``, ``el.on("x", utils.low)``,
; ``run(this.handle)``
(arguments (identifier) @name) @reference.value
(arguments (member_expression object: [(identifier) (this)] @receiver property: (property_identifier) @name))
  @reference.value
; a function stored in a registry: ``const HANDLERS = {up: upper, low}``, ``const HOOKS = [upper]``, or in
; an object handed to a call: ``run({onDone: done})`` (an object assigned to ``module.exports`` is no registry)
(variable_declarator value: [
  (object [(pair value: (identifier) @name) (shorthand_property_identifier) @name])
  (array (identifier) @name)]) @reference.registered
(arguments (object [(pair value: (identifier) @name) (shorthand_property_identifier) @name])) @reference.value

(import_statement) @import
(export_statement source: (_)) @import
(lexical_declaration (variable_declarator value: (call_expression function: (identifier) @_require))
  (#eq? @_require "require")) @import
(variable_declaration (variable_declarator value: (call_expression function: (identifier) @_require))
  (#eq? @_require "require")) @import
