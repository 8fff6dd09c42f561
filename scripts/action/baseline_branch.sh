#!/usr/bin/env bash
# Baseline history on a dedicated git branch (default `gpugate-baselines`),
# so nightly runs keep it without pull requests (docs/github-actions.md,
# "Where the history lives").
#
# The branch holds one folder per source branch (the branch the runs were
# measured on, e.g. main/), and in it gpugate's baselines folder layout:
#   <source branch>/<suite>/<runner class>.json    (the newest K runs each)
# It always has exactly one commit: every update replaces it, so the branch
# never grows beyond K runs per suite and class. Updates are compare-and-swap:
# the push carries --force-with-lease on the commit the update started from;
# a concurrent update makes it fail, and the update is redone on top of the
# other one (both runs are kept).
#
#   baseline_branch.sh fetch BRANCH SOURCE DEST
#       DEST/ gets the files of SOURCE/ on BRANCH (read-only; fork PRs can do
#       it with a read token). A missing branch or folder leaves DEST empty
#       and says so: the gate then reports a first run.
#   baseline_branch.sh push BRANCH SOURCE RESULTS KEEP
#       Appends RESULTS (one complete run) to SOURCE/<suite>/<class>.json on
#       BRANCH with `gpugate baseline update --keep KEEP` and pushes, retrying
#       a lost race up to GPUGATE_PUSH_ATTEMPTS times (default 5).
#
# Env: GPUGATE_BIN (gpugate), GPUGATE_REMOTE (default origin), GPUGATE_ENV_KEY
# (passed on by gpugate itself), GPUGATE_UPDATE_FORCE (set: baseline update
# --force, the action's rekey input). Runs inside the repository's checkout.
set -euo pipefail

remote=${GPUGATE_REMOTE:-origin}
bin=${GPUGATE_BIN:-gpugate}

. "$(dirname "$0")/annotate.sh"
die() { annotate error "$1" >&2; exit 2; }

# A branch or folder name from the workflow: letters, digits, . _ - / + @
# only (no "..", no "@{", not starting with - or /), so it is one path below
# the baselines branch and one git ref.
check_name() {
  [[ "$2" =~ ^[A-Za-z0-9._+@][A-Za-z0-9._/+@-]*$ && "$2" != *..* && "$2" != *@\{* ]] ||
    die "$1 '$2' is not a plain branch or folder name (letters, digits and . _ - / + @)"
}

# Fetches BRANCH into refs/gpugate/baselines; prints its commit, or nothing
# when the remote has no such branch. A remote that cannot be read is an
# error, never "no branch yet": that would pass a gate that compared nothing.
# Callers run it in $(...): check its status.
fetch_branch() {
  local branch=$1 out rc=0
  out=$(git ls-remote --heads "$remote" "refs/heads/$branch" 2>&1) || rc=$?
  if [ "$rc" -ne 0 ]; then
    printf '%s\n' "$out" >&2
    die "cannot read the remote '$remote' to look for the baseline branch (git ls-remote failed, exit $rc): is this a checkout with access to it?"
  fi
  if [ -z "$out" ]; then
    git update-ref -d refs/gpugate/baselines 2>/dev/null || true
    return 0
  fi
  if ! out=$(git fetch --quiet --no-tags --depth=1 "$remote" \
               "+refs/heads/$branch:refs/gpugate/baselines" 2>&1); then
    printf '%s\n' "$out" >&2
    die "cannot fetch the baseline branch from $remote"
  fi
  # A branch gpugate keeps has one commit that gpugate wrote. Any other
  # (a mistyped "main", "docs", "gh-pages") is refused: a refresh replaces
  # the branch with one commit, which would drop that branch's history.
  local parents subject
  parents=$(git cat-file -p refs/gpugate/baselines | sed -n '/^$/q; /^parent /p' | wc -l)
  subject=$(git log -1 --format=%s refs/gpugate/baselines)
  if [ "$parents" -ne 0 ] || [[ "$subject" != "gpugate baselines: "* ]]; then
    die "the branch '$branch' on $remote is not a gpugate baselines branch (its head $(git rev-parse --short=12 refs/gpugate/baselines) has $parents parent(s) and the message '${subject:0:60}'): gpugate keeps each history on a branch of its own, one commit that every refresh replaces; name a branch that does not exist yet (baseline-branch: gpugate-baselines) and the first refresh creates it"
  fi
  git rev-parse refs/gpugate/baselines
}

cmd_fetch() {
  local branch=$1 source=$2 dest=$3 commit
  check_name "baseline branch" "$branch"; check_name "source branch" "$source"
  mkdir -p "$dest"
  commit=$(fetch_branch "$branch") || exit 2
  if [ -z "$commit" ]; then
    echo "gpugate: no branch '$branch' on $remote yet: no baseline (the first refresh creates it)"
    return 0
  fi
  if ! git cat-file -e "$commit:$source" 2>/dev/null; then
    echo "gpugate: branch '$branch' has no baselines of '$source' yet"
    return 0
  fi
  git archive --format=tar "$commit" "$source" |
    tar -x -m -C "$dest" --strip-components="$(awk -F/ '{print NF}' <<< "$source")"
  echo "gpugate: baselines of '$source' from $branch@${commit:0:12} in $dest"
}

# One attempt: update on top of what the remote has now, then push with a
# lease on it. Exit 0 pushed, 10 lost the race, other = error. It runs
# under `||` (set -e does not apply), so every step is checked here: a
# failed git command must never push an empty tree or an empty commit.
attempt() {
  local branch=$1 source=$2 results=$3 keep=$4 work old tree line path rel blob commit now out
  work=$(mktemp -d) || return 2
  fail() { annotate error "$1" >&2; rm -rf "$work"; return 2; }
  old=$(fetch_branch "$branch") || { rm -rf "$work"; return 2; }
  [ -n "$old" ] || echo "gpugate: no branch '$branch' on $remote yet: creating it"
  mkdir -p "$work/tree/$source" || { fail "cannot create a work folder"; return 2; }
  if [ -n "$old" ] && git cat-file -e "$old:$source" 2>/dev/null; then
    # -m: the files get the time of extraction, not the commit's, which a
    # runner whose clock ran ahead may have put in the future (every file
    # would then be newer than the marker below).
    git archive --format=tar "$old" "$source" | tar -x -m -C "$work/tree" ||
      { fail "cannot read the baselines of '$source' from $branch"; return 2; }
  fi
  touch "$work/before"
  if ! line=$("$bin" baseline update --results "$results" --baseline "$work/tree/$source/" --keep "$keep" \
               ${GPUGATE_UPDATE_FORCE:+--force}); then
    rm -rf "$work"; return 2
  fi
  echo "$line" | sed "s|$work/tree/||"
  # The file gpugate wrote: the one history newer than the marker (not a
  # path parsed from its console line, which escapes what it prints).
  path=$(find "$work/tree/$source" -type f -name '*.json' -newer "$work/before" -print)
  if [ -z "$path" ] || [ "$(printf '%s\n' "$path" | wc -l)" -ne 1 ]; then
    fail "cannot tell which baseline file gpugate updated"; return 2
  fi
  rel=${path#"$work/tree/"}
  # The new tree: the old one with this file replaced, built in a private
  # index (the checkout's index and work tree are not touched).
  export GIT_INDEX_FILE="$work/index"
  if [ -n "$old" ]; then git read-tree "$old"; else git read-tree --empty; fi ||
    { unset GIT_INDEX_FILE; fail "git read-tree failed"; return 2; }
  blob=$(git hash-object -w "$path") && [ -n "$blob" ] &&
    git update-index --add --cacheinfo "100644,$blob,$rel" && tree=$(git write-tree) && [ -n "$tree" ] ||
    { unset GIT_INDEX_FILE; fail "git could not store the updated baseline ($rel)"; return 2; }
  unset GIT_INDEX_FILE
  commit=$(GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-gpugate} GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-gpugate@localhost} \
           GIT_COMMITTER_NAME=${GIT_COMMITTER_NAME:-gpugate} GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL:-gpugate@localhost} \
           git commit-tree "$tree" -m "gpugate baselines: $rel" -m "${line##*: }") && [ -n "$commit" ] ||
    { fail "git commit-tree failed: nothing was pushed"; return 2; }
  rm -rf "$work"
  if out=$(git push --quiet --force-with-lease="refs/heads/$branch:$old" "$remote" "$commit:refs/heads/$branch" 2>&1); then
    echo "gpugate: pushed $branch@${commit:0:12} ($rel)"
    return 0
  fi
  # Lost the race only when the branch moved since it was read; any other
  # refusal (permissions, a hook, the network) is an error with git's words.
  now=$(git ls-remote --heads "$remote" "refs/heads/$branch" 2>/dev/null | cut -f1)
  [ "$now" != "$old" ] && return 10
  printf '%s\n' "$out" >&2
  annotate error "git push to '$branch' was refused (see git's message above)" >&2
  return 2
}

cmd_push() {
  local branch=$1 source=$2 results=$3 keep=$4 n rc
  check_name "baseline branch" "$branch"; check_name "source branch" "$source"
  [ -f "$results" ] || die "no results file '$results'"
  local attempts=${GPUGATE_PUSH_ATTEMPTS:-5}
  for ((n = 1; n <= attempts; n++)); do
    rc=0
    attempt "$branch" "$source" "$results" "$keep" || rc=$?
    [ "$rc" -eq 0 ] && return 0
    [ "$rc" -ne 10 ] && exit "$rc"
    echo "gpugate: $branch moved while updating (attempt $n of $attempts); updating again on top of it"
    sleep "$(awk -v n="$n" 'BEGIN { srand(); printf "%.2f", n * (0.5 + rand()) }')"
  done
  die "could not push the baseline to '$branch' after $attempts attempts (other jobs kept moving it)"
}

case "${1:-}" in
  fetch) [ $# -eq 4 ] || die "usage: baseline_branch.sh fetch BRANCH SOURCE DEST"; cmd_fetch "$2" "$3" "$4" ;;
  push) [ $# -eq 5 ] || die "usage: baseline_branch.sh push BRANCH SOURCE RESULTS KEEP"; cmd_push "$2" "$3" "$4" "$5" ;;
  *) die "usage: baseline_branch.sh fetch|push ..." ;;
esac
