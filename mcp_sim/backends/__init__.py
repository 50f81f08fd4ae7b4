"""World model backends: how a rendered prompt becomes a predicted observation."""
