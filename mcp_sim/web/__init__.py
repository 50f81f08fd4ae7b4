"""The search domain's page store and its world memory."""
