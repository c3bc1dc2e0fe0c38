"""Refs: what the user names (a branch, a tag, a sha, ``base..head``) turned into commit shas.

A name is resolved with ``git rev-parse --verify 'name^{commit}'``. When that fails the error says
why in the user's terms: the repository has no commits yet; the clone is shallow and the commit
lies beyond its cut-off (with the fetch command that brings it in); or the name is unknown, with
the closest branch and tag names (``difflib`` over ``git for-each-ref``). The default base of a
change is the merge-base of HEAD with the branch it will be merged into, the first that exists of:
the upstream, ``origin/HEAD``, ``origin/main``, ``origin/master``, ``main``, ``master``. The current
branch's own copies go last: ``origin/feature`` is where ``feature`` is pushed, not what it merges
into, and a base there would hide every pushed commit of the pull request. On ``main`` itself the
order still ends at ``origin/main`` (the unpushed commits) and finally ``main`` (nothing).
"""

from __future__ import annotations

import difflib
import re
from enum import Enum
from pathlib import Path
from typing import NamedTuple

from mnemo_core.vcs.git import GitError, Sha, decode_path, is_shallow, run_git

SUGGESTIONS = 5  # enough to spot a typo without burying the message
SUGGESTION_CUTOFF = 0.6  # difflib's default; lower suggests unrelated names
FALLBACK_BASES = ("origin/main", "origin/master", "main", "master")
_REF_PREFIXES = ("refs/heads/", "refs/tags/", "refs/remotes/")
_ANCESTRY_SYNTAX = re.compile(r"[~^]|@\{")  # HEAD~3, main^2, @{upstream}
_HISTORY_SYNTAX = re.compile(rf"^[0-9a-fA-F]{{4,64}}$|{_ANCESTRY_SYNTAX.pattern}")  # ...or an abbreviated sha
FETCH_HINT = (
    "fetch more history with `git fetch --deepen=N` (or `git fetch --unshallow`); "
    "in GitHub Actions set `fetch-depth: 0` on actions/checkout"
)


class UnknownRefError(GitError):
    """A name that is no branch, tag or commit of the repository."""


class EmptyRepositoryError(GitError):
    """The repository has no commits yet."""


class ShallowCloneError(GitError):
    """The commit needed lies beyond the cut-off of a shallow clone."""


class NoBaseError(GitError):
    """No base commit to compare against could be found."""


class Snapshot(Enum):
    """A state of the files that is not a commit."""

    STAGED = "staged"  # the index: what the next commit would hold
    WORKTREE = "worktree"  # the files on disk, untracked ones included


class HeadState(NamedTuple):
    """Where HEAD points: a branch (None when detached) and a commit (None before the first commit)."""

    sha: str | None
    branch: str | None

    @property
    def detached(self) -> bool:
        """HEAD names a commit, not a branch."""
        return self.branch is None and self.sha is not None

    @property
    def unborn(self) -> bool:
        """No commit yet on the current branch."""
        return self.sha is None


class BaseRef(NamedTuple):
    """The base a change is compared against: the ref chosen and its merge-base with HEAD."""

    name: str
    merge_base: str


class RevRange(NamedTuple):
    """Two commits to diff: ``base`` (old side) and ``head`` (new side), plus the user's spelling."""

    base: str
    head: str
    spec: str


def head_state(root: Path) -> HeadState:
    """The branch and commit HEAD points to; works for detached HEAD and for an empty repository."""
    branch = run_git(root, "symbolic-ref", "-q", "--short", "HEAD", check=False).strip()
    sha = run_git(root, "rev-parse", "--verify", "-q", "HEAD^{commit}", check=False).strip()
    return HeadState(sha.decode() or None, decode_path(branch) or None)


def resolve_ref(root: Path, ref: str) -> Sha:
    """The full sha of the commit ``ref`` names; a clear MnemoError when there is none. A ``Sha``
    is already resolved and comes back as it is."""
    if isinstance(ref, Sha):
        return ref
    if not ref or ref.startswith("-"):
        raise UnknownRefError(f"'{ref}' is not a valid ref name.")
    out = run_git(root, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}", check=False)
    if out.strip():
        return Sha(out.strip().decode())
    raise _unresolved(root, ref)


def _unresolved(root: Path, ref: str) -> GitError:
    """Why ``ref`` does not name a commit, as an error the user can act on."""
    names = ref_names(root)
    if head_state(root).unborn and (ref in ("HEAD", "@") or not names):
        return EmptyRepositoryError(
            "the repository has no commits yet; commit something first "
            "(staged and working-tree changes can be inspected before that)."
        )
    kind = run_git(root, "cat-file", "-t", ref, check=False).strip().decode()
    if kind:
        return UnknownRefError(f"'{ref}' names a {kind}, not a commit.")
    shallow = is_shallow(root)
    if shallow and _HISTORY_SYNTAX.search(ref):
        return ShallowCloneError(f"commit '{ref}' is not in this shallow clone; {FETCH_HINT}.")
    if _ANCESTRY_SYNTAX.search(ref):
        return UnknownRefError(f"unknown ref '{ref}': no such commit (is the history that deep?)")
    close = difflib.get_close_matches(ref, names, n=SUGGESTIONS, cutoff=SUGGESTION_CUTOFF)
    hint = f"close branch names: {', '.join(close)}" if close else "no branch or tag has a similar name"
    if shallow:
        hint += f" (this is a shallow clone; fetch the branch with `git fetch {_fetch_args(root, ref)}`)"
    return UnknownRefError(f"unknown ref '{ref}'; {hint}")


def _fetch_args(root: Path, ref: str) -> str:
    """``remote branch`` for a fetch of ``ref`` (``origin/x`` -> ``origin x``; a bare name from origin)."""
    remote, _, branch = ref.partition("/")
    if branch and remote in decode_path(run_git(root, "remote")).split():
        return f"{remote} {branch}"
    return f"origin {ref}"


def ref_names(root: Path) -> list[str]:
    """Short names of all branches, tags and remote-tracking branches (``origin/main``)."""
    out = run_git(root, "for-each-ref", "--format=%(refname)", *(p.rstrip("/") for p in _REF_PREFIXES))
    names = []
    for line in decode_path(out).splitlines():
        prefix = next((p for p in _REF_PREFIXES if line.startswith(p)), None)
        if prefix is not None and not line.endswith("/HEAD"):
            names.append(line[len(prefix) :])
    return sorted(set(names))


def merge_base(root: Path, a: str, b: str) -> Sha:
    """The best common ancestor of two commits; explains a shallow clone that lacks it."""
    out = run_git(root, "merge-base", resolve_ref(root, a), resolve_ref(root, b), check=False).strip()
    if out:
        return Sha(out.decode())
    if is_shallow(root):
        raise ShallowCloneError(f"'{a}' and '{b}' have no common commit in this shallow clone; {FETCH_HINT}.")
    raise NoBaseError(f"'{a}' and '{b}' have no common history; name a base that shares history with HEAD.")


def default_base(root: Path) -> BaseRef:
    """The base of the current change: the merge-base of HEAD with the branch it targets."""
    name = default_base_name(root)
    return BaseRef(name, merge_base(root, name, "HEAD"))


def default_base_name(root: Path) -> str:
    """The ref the current branch will be merged into (see the module docstring for the order)."""
    state = head_state(root)
    if state.unborn:
        raise EmptyRepositoryError("the repository has no commits yet, so there is no base to compare with.")
    for name in _base_candidates(root, state.branch):
        if run_git(root, "rev-parse", "--verify", "-q", f"{name}^{{commit}}", check=False).strip():
            return name
    raise NoBaseError(
        "no base branch found: HEAD has no upstream, there is no origin/HEAD and no main or "
        "master branch; name the base ref explicitly."
    )


def _base_candidates(root: Path, branch: str | None) -> list[str]:
    """Refs that may be the merge target, most specific first; the branch's own copies last."""
    candidates = []
    if branch is not None:
        upstream = run_git(root, "for-each-ref", "--format=%(upstream:short)", f"refs/heads/{branch}").strip()
        candidates.append(decode_path(upstream))
    origin_head = run_git(root, "symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD", check=False)
    candidates += [decode_path(origin_head.strip()), *FALLBACK_BASES]
    if branch is None:
        return [c for c in dict.fromkeys(candidates) if c]
    own_remote = {f"{remote}/{branch}" for remote in decode_path(run_git(root, "remote")).split()}
    rank = {c: 2 if c == branch else 1 if c in own_remote else 0 for c in dict.fromkeys(candidates) if c}
    return sorted(rank, key=rank.__getitem__)


def resolve_range(root: Path, spec: str = "") -> RevRange:
    """Commits for a change spec: ``A..B`` (A to B), ``A...B`` (merge-base of A and B to B),
    ``A`` (merge-base of A and HEAD to HEAD, like a pull request), or empty (the default base to HEAD).

    An omitted side of ``..`` or ``...`` means HEAD, as in git.
    """
    spec = spec.strip()
    if not spec:
        base = default_base(root)
        return RevRange(base.merge_base, resolve_ref(root, "HEAD"), f"{base.name}...HEAD")
    if "..." in spec:
        left, right = (part or "HEAD" for part in spec.split("...", 1))
        return RevRange(merge_base(root, left, right), resolve_ref(root, right), spec)
    if ".." in spec:
        left, right = (part or "HEAD" for part in spec.split("..", 1))
        return RevRange(resolve_ref(root, left), resolve_ref(root, right), spec)
    return RevRange(merge_base(root, spec, "HEAD"), resolve_ref(root, "HEAD"), spec)
