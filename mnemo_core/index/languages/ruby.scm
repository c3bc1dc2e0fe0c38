; extensions: .rb .rake

(class name: (constant) @name) @definition.class
(module name: (constant) @name) @definition.namespace
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.function

(superclass (constant) @name @reference.inherit)
(superclass (scope_resolution scope: (_) @receiver name: (constant) @name) @reference.inherit)

(call receiver: (_) @receiver method: (identifier) @name) @reference.call
(call !receiver method: (identifier) @name) @reference.call

; Specs (RSpec, minitest/spec): describe/context groups, it/specify cases and the let/subject/before
; blocks the runner runs for the cases of their group, each named by its word and its argument
; ("describe '#call'", "it 'parses'", "let :user"), so that a group cannot shadow the class it describes.
(call
  method: (identifier) @verb
  arguments: (argument_list . [(constant) (scope_resolution)] @name @described)
  block: (_)
  (#any-of? @verb "describe" "context" "feature")) @definition.class
(call
  !receiver
  method: (identifier) @verb
  arguments: (argument_list . [(string) (simple_symbol)] @name)
  block: (_)
  (#any-of? @verb "describe" "context" "feature" "shared_examples" "shared_context")) @definition.class
(call
  !receiver
  method: (identifier) @verb @name
  !arguments
  block: (_)
  (#any-of? @verb "it" "specify" "example" "scenario" "its" "subject" "subject!" "before" "after" "around")) @definition.function
(call
  !receiver
  method: (identifier) @verb
  arguments: (argument_list . [(string) (simple_symbol)] @name)
  block: (_)
  (#any-of? @verb "it" "specify" "example" "scenario" "test" "its" "let" "let!" "subject" "subject!" "before" "after" "around")) @definition.function

; variable types: ``x = Foo.new(...)`` (``@x``, read as ``self.x``, in every method of the class), and
; a spec's ``let(:x) { Foo.new(...) }`` (the name keeps its colon here: extraction files it under the
; let's group, where every example nested in it sees it)
(assignment left: [(identifier) (instance_variable)] @name
  right: (call receiver: [(constant) (scope_resolution)] @receiver method: (identifier) @_new)
  (#eq? @_new "new")) @reference.type
(call !receiver method: (identifier) @_let arguments: (argument_list . (simple_symbol) @name)
  block: [
    (block body: (block_body . (call receiver: [(constant) (scope_resolution) (identifier)] @receiver
      method: (identifier) @_new)))
    (do_block body: (body_statement . (call receiver: [(constant) (scope_resolution) (identifier)] @receiver
      method: (identifier) @_new)))]
  (#any-of? @_let "let" "let!" "subject" "subject!") (#eq? @_new "new")) @reference.type

(call !receiver method: (identifier) @_mixin arguments: (argument_list (constant) @name @reference.inherit)
  (#any-of? @_mixin "include" "extend" "prepend"))
(call !receiver method: (identifier) @_mixin
  arguments: (argument_list (scope_resolution scope: (_) @receiver name: (constant) @name) @reference.inherit)
  (#any-of? @_mixin "include" "extend" "prepend"))
