; JSX components used as elements: <UserCard /> calls UserCard (JavaScript and TSX).

(jsx_opening_element name: (identifier) @name (#match? @name "^[A-Z]")) @reference.call
(jsx_self_closing_element name: (identifier) @name (#match? @name "^[A-Z]")) @reference.call
(jsx_opening_element name: (member_expression object: (_) @receiver property: (property_identifier) @name))
  @reference.call
(jsx_self_closing_element name: (member_expression object: (_) @receiver property: (property_identifier) @name))
  @reference.call

; a function handed to a component as a prop, which calls it: <Button onClick={handleClick} />
(jsx_attribute (jsx_expression (identifier) @name)) @reference.value
(jsx_attribute (jsx_expression (member_expression object: [(identifier) (this)] @receiver
  property: (property_identifier) @name))) @reference.value
