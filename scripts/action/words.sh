#!/usr/bin/env bash
# split_words TEXT: the shell words of an action input (extra-args,
# cmake-args), one per NUL-terminated record on stdout. Quotes group and are
# removed ("-DX='a b'" is one word, -DX=a b); nothing is evaluated (no
# variables, no command substitution). Returns 1 for text that is not shell
# words (an unclosed quote) and 3 when the text quotes but python3, which
# splits it, is missing; plain words need no python3.
split_words() {
  local text=$1
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import shlex, sys
words = shlex.split(sys.argv[1])
sys.stdout.write("".join(w + "\0" for w in words))' "$text" 2>/dev/null || return 1
  elif [[ "$text" == *[\'\"\\]* ]]; then
    return 3
  else
    local w=()
    read -r -a w <<< "$text"
    [ ${#w[@]} -eq 0 ] || printf '%s\0' "${w[@]}"
  fi
}

# read_words ARRAY INPUT TEXT: fills the array named ARRAY with TEXT's words.
# On failure sets WORDS_ERROR to a sentence naming the input and returns 1.
read_words() {
  local -n read_words_into=$1
  local input=$2 text=$3 words rc=0
  words=$(mktemp)
  split_words "$text" > "$words" || rc=$?
  case $rc in
    0) mapfile -d '' -t read_words_into < "$words" ;;
    3) WORDS_ERROR="$input with quotes or backslashes needs python3 on the runner to split them into words" ;;
    *) WORDS_ERROR="$input: not valid shell words (an unclosed quote?)" ;;
  esac
  rm -f "$words"
  [ "$rc" -eq 0 ]
}
