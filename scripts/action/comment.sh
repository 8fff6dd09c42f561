#!/usr/bin/env bash
# Action step "Comment on the pull request": creates or updates ONE sticky
# comment (found by a hidden marker) with the Markdown report, through the
# GitHub REST API with the gh CLI. The report is data: it is sent as a JSON
# field, never evaluated. Env: GH_TOKEN, GPUGATE_COMMENT (the report
# gpugate fitted to one comment with --pr-comment), GPUGATE_PR,
# GPUGATE_REPO, GPUGATE_COMMENT_KEY (which use of the action),
# GPUGATE_COMMENT_AUTHOR (the login whose comment is updated;
# default github-actions[bot], the GITHUB_TOKEN's: a comment that anyone
# else wrote with the marker is never edited).
set -euo pipefail
# One sticky comment per use of the action in the job (its mode, suite and
# runner class: run.sh's comment-key).
marker="<!-- gpugate-report${GPUGATE_COMMENT_KEY:+ $GPUGATE_COMMENT_KEY} -->"
[ -n "${GPUGATE_PR:-}" ] || { echo "not a pull request; no comment"; exit 0; }
[ -f "${GPUGATE_COMMENT:-}" ] || { echo "no comment report at '${GPUGATE_COMMENT:-}'"; exit 0; }
# gpugate wrote it to fit (GitHub takes at most 65536 characters): folded
# rows left out first, then the last rows of each table, counted.
body=$(printf '%s\n' "$marker"; cat "$GPUGATE_COMMENT")
author=${GPUGATE_COMMENT_AUTHOR:-github-actions[bot]}
id=$(gh api --paginate "repos/$GPUGATE_REPO/issues/$GPUGATE_PR/comments" \
       --jq "[.[] | select((.body | startswith(\"$marker\")) and .user.login == \"$author\")][0].id // empty" |
     head -n 1)
if [ -n "$id" ]; then
  gh api -X PATCH "repos/$GPUGATE_REPO/issues/comments/$id" -f body="$body" >/dev/null
  echo "updated comment $id"
else
  gh api -X POST "repos/$GPUGATE_REPO/issues/$GPUGATE_PR/comments" -f body="$body" >/dev/null
  echo "created a comment"
fi
