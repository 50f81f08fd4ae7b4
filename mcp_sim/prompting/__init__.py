"""What the world model is shown: native-format rendering, canon, bounds, state view."""
