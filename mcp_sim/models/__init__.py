"""World-model clients: the WorldModel protocol, the OpenAI-compatible client, replay."""
