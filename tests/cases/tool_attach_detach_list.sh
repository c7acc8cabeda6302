#!/bin/sh
# aioloop-setup attach (free device), list, list --json, status, detach and
# detach-all.
. /tests/lib.sh
need_setup
load_aioloop
mkscratch ext4 /mnt/s
mkfile /mnt/s/a.img 64M

# compact JSON: strip the layout (the paths used here have no blanks)
compact() {
	tr -d ' \t\n'
}

dev=$(aioloop-setup attach /mnt/s/a.img) || fail "attach failed"
log "attached $dev"
case "$dev" in
/dev/aioloop[0-9]*) ;;
*) fail "attach printed '$dev', expected /dev/aioloopN" ;;
esac
[ -b "$dev" ] || fail "$dev is not a block device"
expect_eq backing_file "$(loopattr "$dev" backing_file)" /mnt/s/a.img

# table
out=$(aioloop-setup list) || fail "list failed"
printf "%s\n" "$out"
hdr='NAME SIZELIMIT OFFSET AUTOCLEAR RO BACK-FILE DIO MODE LOG-SEC SIZE'
expect_eq "list header" "$(printf "%s\n" "$out" | head -1 | tr -s ' ')" "$hdr"
expect_eq "list rows" "$(printf "%s\n" "$out" | wc -l)" 2
row=$(printf "%s\n" "$out" | tail -1 | tr -s ' ')
expect_eq "list row" "$row" "$dev 0 0 0 0 /mnt/s/a.img 1 aio 512 67108864"

# JSON
json=$(aioloop-setup list --json) || fail "list --json failed"
printf "%s\n" "$json"
want='{"aioloop":[{"name":"'$dev'","back-file":"/mnt/s/a.img","offset":0,'
want=$want'"sizelimit":0,"size":67108864,"ro":false,"autoclear":false,'
want=$want'"partscan":false,"dio":true,"mode":"aio","log-sec":512}]}'
expect_eq "list --json" "$(printf "%s\n" "$json" | compact)" "$want"

# status
st=$(aioloop-setup status "$dev") || fail "status $dev failed"
printf "%s\n" "$st"
for kv in "device: $dev" "backing_file: /mnt/s/a.img" "offset: 0" \
	"sizelimit: 0" "size: 67108864" "read_only: no" "mode: aio" \
	"direct_io: yes" "logical_block_size: 512"; do
	printf "%s\n" "$st" | grep -qxF "$kv" || fail "status lacks '$kv'"
done
printf "%s\n" "$st" | grep -q '^aio_submitted: [0-9][0-9]*$' ||
	fail "status lacks the aio_submitted counter"

# the index forms of DEV
n=${dev#/dev/aioloop}
aioloop-setup status "$n" >/dev/null || fail "status $n failed"
aioloop-setup status "aioloop$n" >/dev/null || fail "status aioloop$n failed"

# detach
aioloop-setup detach "$dev" || fail "detach $dev failed"
[ ! -e "$SYSBLK/${dev##*/}/loop" ] || fail "$dev still bound after detach"
out=$(aioloop-setup list) || fail "list failed"
expect_eq "list after detach" "$out" ""
json=$(aioloop-setup list --json) || fail "list --json failed"
expect_eq "list --json after detach" "$(printf "%s\n" "$json" | compact)" \
	'{"aioloop":[]}'
if aioloop-setup status "$dev" 2>/dev/null; then
	fail "status of a detached device succeeded"
fi

# detach-all with several devices and options; escaping in JSON
mkfile /mnt/s/b.img 32M
mkfile '/mnt/s/q"b\s.img' 16M
d1=$(aioloop-setup attach /mnt/s/a.img) || fail "attach a failed"
d2=$(aioloop-setup attach --offset 1M --sizelimit 8M --read-only \
	/mnt/s/b.img) || fail "attach b failed"
d3=$(aioloop-setup attach '/mnt/s/q"b\s.img') || fail "attach q failed"
log "attached $d1 $d2 $d3"
[ "$d1" != "$d2" ] && [ "$d2" != "$d3" ] && [ "$d1" != "$d3" ] ||
	fail "attach reused a device: $d1 $d2 $d3"
out=$(aioloop-setup list) || fail "list failed"
printf "%s\n" "$out"
expect_eq "list rows" "$(printf "%s\n" "$out" | wc -l)" 4
row=$(printf "%s\n" "$out" | grep "^$d2 " | tr -s ' ')
expect_eq "list row $d2" "$row" \
	"$d2 8388608 1048576 0 1 /mnt/s/b.img 1 aio 512 8388608"
json=$(aioloop-setup list --json) || fail "list --json failed"
printf "%s\n" "$json"
printf "%s\n" "$json" | grep -qF '"back-file": "/mnt/s/q\"b\\s.img"' ||
	fail "back-file not escaped in JSON"
entry='"name":"'$d2'","back-file":"/mnt/s/b.img","offset":1048576,'
entry=$entry'"sizelimit":8388608,"size":8388608,"ro":true,'
printf "%s\n" "$json" | compact | grep -qF "$entry" ||
	fail "JSON entry of $d2 wrong"
expect_eq "JSON entries" "$(printf "%s\n" "$json" | grep -c '"name":')" 3

aioloop-setup detach-all || fail "detach-all failed"
for d in $d1 $d2 $d3; do
	[ ! -e "$SYSBLK/${d##*/}/loop" ] || fail "$d still bound after detach-all"
done
expect_eq "list after detach-all" "$(aioloop-setup list)" ""
