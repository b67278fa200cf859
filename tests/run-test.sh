#!/bin/sh
# Runs one test for automake's TAP driver. A Criterion binary is asked for TAP
# on stdout (its own report goes to stderr, kept in the log); a script speaks
# TAP itself.
case "$1" in
*.sh) exec bash "$@" ;;
*) exec "$@" --tap=/dev/stdout --jobs=1 ;;
esac
