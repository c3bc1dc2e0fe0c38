"""``mnemo-mcp``: mnemo's answers as tools of a Model Context Protocol server on stdio, for agents."""
