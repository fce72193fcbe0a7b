#!/bin/sh
# Run one test with a time limit and no stdin, as strace's tests/run.sh does.
: "${TIMEOUT_DURATION:=600}"
case "$1" in
*.test | *.tap) exec timeout -k 5 "$TIMEOUT_DURATION" "${SHELL:-/bin/sh}" "$@" < /dev/null ;;
*) exec timeout -k 5 "$TIMEOUT_DURATION" "$@" < /dev/null ;;
esac
