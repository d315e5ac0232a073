package knowledge

// ChildrenOf exposes childrenOf to the tests of the children's lifetime.
var ChildrenOf = childrenOf
