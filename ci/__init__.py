"""Front ends for code review: the pre-commit gate (``mnemo-precommit``) and the pull-request comment
(``mnemo-ci``, also ``python -m ci``). Both parse their inputs, call ``for_pr``, render with
``mnemo_core.render_review`` and apply the policy of ``ci.policy``; only ``ci.github`` speaks HTTP."""

from mnemo_core.safepath import drop_working_directory

drop_working_directory()  # before pygls, numpy & co. are imported: see mnemo_core.safepath
