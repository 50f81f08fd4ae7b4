"""The call pipeline: from a tool call to a committed, journaled observation."""
