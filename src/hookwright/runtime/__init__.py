"""The reference agent: a model loop, its built-in tools and the hook points around them."""
