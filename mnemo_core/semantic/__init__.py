"""The semantic channel (optional extra ``mnemo[semantic]``): an encoder, vectors per symbol text,
and the similarity of a task to its candidates."""
