"""The mnemo language server (pygls): commands, hover cards, code lenses, a fresh index."""
