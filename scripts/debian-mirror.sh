#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Print the Debian mirror and the keyring that the system's own apt entry
# for Debian uses, as "URI KEYRING" (KEYRING empty when the entry names
# none). Other suites (bookworm-backports, trixie, sid) are fetched from
# the same mirror.
set -eu

uri= key=
src=/etc/apt/sources.list.d/debian.sources
if [ -f $src ]; then
	uri=$(awk '/^URIs:/ { print $2; exit }' $src)
	key=$(awk '/^Signed-By:/ { print $2; exit }' $src)
elif [ -f /etc/apt/sources.list ]; then
	uri=$(awk '$1 == "deb" && $3 ~ /^bookworm/ { print $2; exit }' \
		/etc/apt/sources.list)
fi
if [ -z "$uri" ]; then
	echo "debian-mirror: no Debian entry in the apt sources" >&2
	exit 1
fi
echo "$uri $key"
