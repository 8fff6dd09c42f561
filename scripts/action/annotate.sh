# Sourced by the action's scripts: the one way they write a workflow
# command. Input values end up in these messages (a mode, a branch, a
# path): % CR LF are escaped as the runner expects, so a value cannot end
# the message and start a command of its own.
#   annotate error|warning MESSAGE
annotate() {
  local s=${2//%/%25}
  s=${s//$'\r'/%0D}
  printf '::%s title=gpugate::%s\n' "$1" "${s//$'\n'/%0A}"
}
