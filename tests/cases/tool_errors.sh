#!/bin/sh
# aioloop-setup exit codes and messages: 3 without the module, 1 for a
# failed operation, 2 for usage errors.
. /tests/lib.sh
need_setup

# run_rc WANT CMD...: CMD exits WANT; its stderr is left in $err
run_rc() {
	_want=$1
	shift
	_rc=0
	err=$("$@" 2>&1 >/dev/null) || _rc=$?
	[ "$_rc" = "$_want" ] ||
		fail "'$*': exit $_rc, expected $_want (stderr: $err)"
}

[ ! -d /sys/module/aioloop ] || rmmod aioloop || fail "cannot unload aioloop"
[ ! -e /dev/aioloop-control ] || fail "/dev/aioloop-control without module"
mkfile /tmp/aiotest-a.img 4M

# module not loaded
for c in "list" "list --json" "attach /tmp/aiotest-a.img" "detach 0" \
	"detach-all" "status 0" "find" "add" "remove 0" "set-capacity 0" \
	"set-direct-io 0 off"; do
	# shellcheck disable=SC2086
	run_rc 3 aioloop-setup $c
	expect_eq "message ($c)" "$err" \
		"aioloop-setup: aioloop module is not loaded (try: modprobe aioloop)"
done
# usage errors come first, help works without the module
run_rc 2 aioloop-setup list --bogus
run_rc 0 aioloop-setup --help
run_rc 0 aioloop-setup attach --help
run_rc 0 aioloop-setup --version

load_aioloop

# failed operations
run_rc 1 aioloop-setup attach /tmp/aiotest-missing.img
expect_eq message "$err" \
	"aioloop-setup: cannot open /tmp/aiotest-missing.img: No such file or directory"
run_rc 1 aioloop-setup detach /dev/aioloop0
case "$err" in
"aioloop-setup: /dev/aioloop0: "*": No such device or address") ;;
*) fail "detach of an unbound device: '$err'" ;;
esac
run_rc 1 aioloop-setup status aioloop0
run_rc 1 aioloop-setup detach /dev/aioloop99
run_rc 1 aioloop-setup remove 99
run_rc 1 aioloop-setup attach --block-size 1000 /tmp/aiotest-a.img
case "$err" in
*": Invalid argument") ;;
*) fail "attach --block-size 1000: '$err'" ;;
esac
dev=$(attach /tmp/aiotest-a.img)
run_rc 1 aioloop-setup attach /tmp/aiotest-a.img "$dev"
case "$err" in
*": Device or resource busy") ;;
*) fail "attach to a bound device: '$err'" ;;
esac
run_rc 1 aioloop-setup remove "$dev"
detach "$dev"

# usage errors
run_rc 2 aioloop-setup
run_rc 2 aioloop-setup frobnicate
run_rc 2 aioloop-setup attach --bogus /tmp/aiotest-a.img
run_rc 2 aioloop-setup attach
run_rc 2 aioloop-setup attach --offset 12Q /tmp/aiotest-a.img
run_rc 2 aioloop-setup attach --offset
run_rc 2 aioloop-setup attach --find /tmp/aiotest-a.img /dev/aioloop1
run_rc 2 aioloop-setup detach
run_rc 2 aioloop-setup detach /dev/sda
run_rc 2 aioloop-setup status
run_rc 2 aioloop-setup set-direct-io /dev/aioloop0 maybe
run_rc 2 aioloop-setup list extra
expect_eq "devices left bound" "$(aioloop-setup list)" ""
