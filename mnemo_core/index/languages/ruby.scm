; extensions: .rb .rake

(class name: (constant) @name) @definition.class
(module name: (constant) @name) @definition.namespace
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.function

(superclass (constant) @name @reference.inherit)
(superclass (scope_resolution scope: (_) @receiver name: (constant) @name) @reference.inherit)

(call receiver: (_) @receiver method: (identifier) @name) @reference.call
(call !receiver method: (identifier) @name) @reference.call
