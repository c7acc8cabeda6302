#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/aioloop-setup.bash-completion: sourced into a clean bash, it
# registers a completion for aioloop-setup that completes commands,
# options and arguments; with the bash-completion package's helpers
# loaded too, when installed.
set -euo pipefail
cd "$(dirname "$0")/../.."

fail() {
	echo "FAIL: $*" >&2
	exit 1
}
COMP=tools/aioloop-setup.bash-completion
[ -f $COMP ] || fail "no $COMP"

# check [BASH_COMPLETION_SCRIPT]: run the checks in a fresh bash
check() {
	bash --norc --noprofile -s "$@" <<'EOT'
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -n "${1:-}" ] && . "$1"
. tools/aioloop-setup.bash-completion || fail "sourcing failed"
spec=$(complete -p aioloop-setup) || fail "no completion for aioloop-setup"
echo "$spec"
case "$spec" in
*"-F _aioloop_setup aioloop-setup") ;;
*) fail "unexpected: $spec" ;;
esac
# comp WANT WORDS...: complete the last word of "aioloop-setup WORDS..."
# (WANT sorted)
comp() {
	local want=$1 got
	shift
	COMP_WORDS=(aioloop-setup "$@")
	COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_aioloop_setup aioloop-setup "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" || true
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')
	got=${got% }
	[ "$got" = "$want" ] || fail "'aioloop-setup $*': got '$got', expected '$want'"
	echo "ok: '$*' -> $got"
}
comp "detach detach-all" de
comp "set-capacity set-direct-io" set-
comp "add attach detach detach-all find help list remove set-capacity set-direct-io status" ""
comp "add attach" a
comp "--help --version" --
comp "--json" list --j
comp "--read-only" attach --re
comp "--no-direct-io" attach --no
comp "1024 2048 4096 512" attach -b ""
comp "4096" attach --block-size 4
comp "off on" set-direct-io /dev/aioloop0 ""
comp "off" set-direct-io /dev/aioloop0 of
comp "detach detach-all" help det
# the first argument of attach completes file names
tmp=$(mktemp -d)
touch "$tmp/disk-a.img" "$tmp/disk-b.img"
comp "$tmp/disk-a.img $tmp/disk-b.img" attach "$tmp/disk-"
rm -rf "$tmp"
# aiolosetup: losetup's options
spec=$(complete -p aiolosetup) || fail "no completion for aiolosetup"
case "$spec" in
*"-F _aiolosetup aiolosetup") ;;
*) fail "unexpected: $spec" ;;
esac
lcomp() {
	local want=$1 got
	shift
	COMP_WORDS=(aiolosetup "$@")
	COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_aiolosetup aiolosetup "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" || true
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')
	got=${got% }
	[ "$got" = "$want" ] || fail "'aiolosetup $*': got '$got', expected '$want'"
	echo "ok: aiolosetup '$*' -> $got"
}
lcomp "--detach --detach-all" --det
lcomp "--direct-io --direct-io=off --direct-io=on" --dir
lcomp "--direct-io=off --direct-io=on" --direct-io=
lcomp "--output --output-all" --outp
lcomp "BACK-FILE BACK-INO BACK-MAJ:MIN" -O BACK
lcomp "NAME,DIO" -l -O NAME,D
lcomp "1024 2048 4096 512" -b ""
tmp=$(mktemp -d)
touch "$tmp/disk-a.img"
lcomp "$tmp/disk-a.img" -f --show "$tmp/disk-"
rm -rf "$tmp"
EOT
}

check
BC=/usr/share/bash-completion/bash_completion
if [ -f $BC ]; then
	echo "with $BC:"
	check $BC
else
	echo "note: bash-completion not installed; checked without its helpers"
fi
echo "bash completion: ok"
