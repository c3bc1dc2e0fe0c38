"""The mnemo language server (pygls): commands, hover cards, code lenses, a fresh index."""

from mnemo_core.safepath import drop_working_directory

drop_working_directory()  # before pygls, numpy & co. are imported: see mnemo_core.safepath
