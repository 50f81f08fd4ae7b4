"""The world spec: its models, loading with line mapping, state and fiction parts."""
