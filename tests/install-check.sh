#!/usr/bin/env bash
# `make install` into a temporary prefix, then checks what a user gets: the launcher on the PATH
# (version, a real run that needs the QEMU plugin), a man page per command rendered by man(1),
# and bash completion of commands and options. Part of `make test`.
set -euo pipefail
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
make -s install PREFIX="$prefix" > /dev/null
fail() { echo "install-check: $*" >&2; exit 1; }

splice="$prefix/bin/splice"
version=$("$splice" --version)
grep -q '^splice .*commit' <<<"$version" || fail "splice --version names no commit"
# The plugin is found beside the installed jar: an exact instruction count of a test program.
count=$("$splice" run --count build/programs/rv64/count_loop 2>&1 >/dev/null | sed -n 's/^splice: \([0-9]*\) instructions executed.*/\1/p' || true)
[ -n "$count" ] && [ "$count" -gt 0 ] || fail "installed splice run --count gave no count"

# One man page per command the help lists, and each renders with its sections.
for page in splice splice-disasm splice-patch splice-bat-translate splice-weigh-measure splice-profile-record; do
  f="$prefix/share/man/man1/$page.1"
  [ -f "$f" ] || fail "no man page $page.1"
  text=$(MANWIDTH=100 man -l "$f" 2>/dev/null)
  for section in NAME SYNOPSIS OPTIONS; do
    grep -q "^$section" <<<"$text" || fail "$page.1 has no $section section"
  done
done
grep -q 'bad input or a refused rewrite' <(man -l "$prefix/share/man/man1/splice-disasm.1" 2>/dev/null) \
  || fail "splice-disasm.1 lists no exit statuses"
commands=$("$splice" --help | sed -n '/^Commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
for c in $commands; do
  [ -f "$prefix/share/man/man1/splice-$c.1" ] || fail "command $c has no man page"
done

# Completion: words as bash would pass them to the function the script registers.
complete_words() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE};
           _complete_splice 2>/dev/null; printf "%s\n" "${COMPREPLY[@]}"' _ \
    "$prefix/share/bash-completion/completions/splice" "$@"
}
# Outputs are captured before grep -q reads them: under pipefail, `words | grep -q` fails when grep
# exits at its match before the writer is done (SIGPIPE, status 141; session 12's CI run under load).
words=$(complete_words splice di)
grep -qx disasm <<<"$words" || fail "completion of 'splice di' lacks disasm"
[ "$(complete_words splice bat '' | sort | tr '\n' ' ')" = "dump translate " ] || fail "completion of 'splice bat' is not dump, translate"
words=$(complete_words splice disasm --st)
grep -qx -- --start-address <<<"$words" || fail "completion of 'splice disasm --st' lacks --start-address"
echo "install-check: installed launcher, plugin, $(ls "$prefix/share/man/man1" | wc -l) man pages and completion work"
