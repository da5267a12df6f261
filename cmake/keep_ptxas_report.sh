#!/usr/bin/env bash
# CUDA compiler launcher: runs the compile command and keeps ptxas's resource report (-Xptxas=-v)
# beside the object as OBJECT.ptxas, for `smemlab explain` (registers and shared memory per
# kernel as compiled). The report's lines stay off the console unless the first argument is
# --echo; anything else the compiler prints passes through.
echo_report=0
if [ "${1:-}" = "--echo" ]; then
  echo_report=1
  shift
fi
object=""
previous=""
for arg in "$@"; do
  [ "$previous" = "-o" ] && object=$arg
  previous=$arg
done
log=${object:-/dev/null}.ptxas
"$@" 2>"$log.tmp"
status=$?
if [ $echo_report -eq 1 ]; then
  cat "$log.tmp" >&2
else
  grep -v -E '^ptxas info|^ *[0-9]+ bytes stack frame' "$log.tmp" >&2
fi
grep -E '^ptxas info|bytes stack frame' "$log.tmp" >"$log"
rm -f "$log.tmp"
exit $status
