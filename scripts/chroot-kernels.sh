#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernels that bookworm cannot build modules for, in one Debian
# unstable chroot made with debootstrap:
#
#   7.2      Debian unstable's linux-image/headers-7.2.*+deb14-amd64. The
#            headers want gcc-16 and a kbuild linked against glibc 2.38
#            or later.
#   6.12-rt  trixie's PREEMPT_RT flavour, linux-image/headers-6.12.*+
#            deb13-rt-amd64, built with trixie's gcc-14. trixie is a
#            second apt source in the chroot.
#
# The chroot holds each kernel's headers (the module is built there, see
# scripts/in-chroot.sh), its image and modules (the test VM boots them),
# the compilers, kmod and sparse. The mirror and keyring are those of the
# system's own Debian entry (scripts/debian-mirror.sh).
#
#   scripts/chroot-kernels.sh          set up or update (idempotent),
#                                      print the chroot's directory
#   scripts/chroot-kernels.sh --dir    print the directory
#   scripts/chroot-kernels.sh --check  exit 0 if set up
#
# The chroot is $AIOLOOP_CACHE/sid (default /var/cache/aioloop/sid),
# about 1.5 GB. Needs root (debootstrap, chroot).
set -euo pipefail

cd "$(dirname "$0")/.."
CACHE=${AIOLOOP_CACHE:-/var/cache/aioloop}
DIR=$CACHE/sid
# bump when the chroot's content changes in a way that needs a new one
RECIPE=3
PKGS="make gcc-16 gcc-14 libc6-dev kmod xz-utils zstd sparse bc bison
flex libelf-dev libssl-dev pahole python3 ca-certificates dkms"

done_file=$DIR/.aioloop-kernels

ready() {
	[ "$(head -n 1 "$done_file" 2>/dev/null)" = "recipe $RECIPE" ]
}

case "${1:-}" in
--dir)
	echo "$DIR"
	exit 0
	;;
--check)
	ready
	exit
	;;
"") ;;
*)
	echo "usage: $0 [--dir|--check]" >&2
	exit 2
	;;
esac

if ready; then
	echo "$DIR"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "chroot-kernels: needs root (debootstrap, chroot)" >&2
	exit 1
fi
command -v debootstrap >/dev/null || {
	echo "chroot-kernels: debootstrap missing (run scripts/deps.sh)" >&2
	exit 1
}
mirror=$(scripts/debian-mirror.sh)
uri=${mirror%% *} key=${mirror#* }
log=$CACHE/sid-setup.log
mkdir -p "$CACHE"
echo "chroot-kernels: setting up $DIR from $uri (log: $log)" >&2
exec 3>&2
exec >"$log" 2>&1

in_chroot() {
	scripts/in-chroot.sh "$DIR" "$@"
}

fail() {
	echo "chroot-kernels: $*" | tee /dev/fd/3
	exit 1
}

if [ ! -x "$DIR/usr/bin/apt-get" ]; then
	rm -rf "$DIR"
	debootstrap --variant=minbase ${key:+--keyring="$key"} sid "$DIR" \
		"$uri" || fail "debootstrap failed (see $log)"
fi
keyopt=
if [ -n "$key" ]; then
	install -D -m 0644 "$key" "$DIR/etc/apt/keyrings/aioloop-debian.gpg"
	keyopt="Signed-By: /etc/apt/keyrings/aioloop-debian.gpg"
fi
rm -f "$DIR/etc/apt/sources.list"
for s in sid trixie; do
	printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\n%s\n' \
		"$uri" "$s" "$keyopt" >"$DIR/etc/apt/sources.list.d/$s.sources"
done
# A mirror may serve a snapshot whose Release files have passed their
# Valid-Until date; their signatures are still checked.
echo 'Acquire::Check-Valid-Until "false";' \
	>"$DIR/etc/apt/apt.conf.d/99aioloop"
# unstable by default; trixie only for what is asked from it
cat >"$DIR/etc/apt/preferences.d/aioloop" <<'EOT'
Package: *
Pin: release n=trixie
Pin-Priority: 100
EOT
in_chroot apt-get update -q || fail "apt-get update failed (see $log)"
# shellcheck disable=SC2086
in_chroot apt-get install -y -q --no-install-recommends $PKGS ||
	fail "installing the compilers failed (see $log)"
# The kernel images want an initramfs generator; the test VM brings its
# own initramfs, so an empty package stands in for one.
pkg=$DIR/tmp/aioloop-no-initramfs
rm -rf "$pkg"
mkdir -p "$pkg/DEBIAN"
cat >"$pkg/DEBIAN/control" <<'EOT'
Package: aioloop-no-initramfs
Version: 1
Architecture: all
Maintainer: aioloop <aioloop@localhost>
Provides: linux-initramfs-tool
Description: no initramfs generator (the aioloop test VM has its own)
EOT
dpkg-deb -b "$pkg" "$pkg.deb" >/dev/null
in_chroot dpkg -i /tmp/aioloop-no-initramfs.deb ||
	fail "installing the initramfs stand-in failed (see $log)"

# newest NAME-pattern package of a suite (apt-cache policy order)
newest() {
	in_chroot apt-cache search --names-only "$1" | awk '{ print $1 }' |
		sort -V | tail -n 1
}
img72=$(newest '^linux-image-7\.2\.[0-9]+\+deb14-amd64$')
imgrt=$(newest '^linux-image-6\.12\.[0-9]+\+deb13-rt-amd64$')
[ -n "$img72" ] || fail "no linux-image-7.2.*+deb14-amd64 in sid"
[ -n "$imgrt" ] || fail "no linux-image-6.12.*+deb13-rt-amd64 in trixie"
in_chroot apt-get install -y -q --no-install-recommends \
	"$img72" "${img72/image/headers}" ||
	fail "installing $img72 failed (see $log)"
in_chroot apt-get install -y -q --no-install-recommends -t trixie \
	"$imgrt" "${imgrt/image/headers}" ||
	fail "installing $imgrt failed (see $log)"
# Debian's 7.2 headers leave out scripts/checker-valid.sh, which a C=1
# or C=2 build runs to see whether sparse is recent enough; one that asks
# sparse the same question (does it know __typeof_unqual__?) stands in.
for h in "$DIR"/usr/src/linux-headers-*-common*/scripts; do
	[ -e "$h/checker-valid.sh" ] && continue
	cat >"$h/checker-valid.sh" <<'EOT'
#!/bin/sh -eu
# SPDX-License-Identifier: GPL-2.0
# checker-valid.sh CHECK CHECKFLAGS...: print 1 if the checker works
[ -x "$(command -v "$1")" ] || { echo 0; exit 0; }
t=$(mktemp --suffix=.c)
trap 'rm -f "$t"' EXIT
printf 'static int u(const int *q)\n{\n\t__typeof_unqual__(*q) v = *q;\n\treturn v;\n}\n' >"$t"
"$@" "$t" 2>&1 | awk -v c=1 '/error/ { c = 0 } END { print c }'
EOT
	chmod +x "$h/checker-valid.sh"
done
in_chroot apt-get clean
{
	echo "recipe $RECIPE"
	echo "${img72#linux-image-}"
	echo "${imgrt#linux-image-}"
} >"$done_file"
echo "chroot-kernels: ${img72#linux-image-} and ${imgrt#linux-image-} in $DIR" |
	tee /dev/fd/3
echo "$DIR" >&3
