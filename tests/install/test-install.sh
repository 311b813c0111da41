#!/bin/sh
# meson install into a DESTDIR, then build a program against the installed
# gstrtpcc-1.0.pc and run it, and check the plugins landed where the prefix
# says: what `meson install` gives a user, without touching the system.
# Usage: test-install.sh BUILD_DIR SOURCE_DIR [SANITIZE]
set -eu
build=$1
src=$2
sanitize=${3:-none}
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT

meson install -C "$build" --no-rebuild --destdir "$dest" --quiet >/dev/null

pc=$(find "$dest" -name gstrtpcc-1.0.pc | head -n 1)
[ -n "$pc" ] || { echo "FAIL: no gstrtpcc-1.0.pc installed"; exit 1; }
pcdir=$(dirname "$pc")
libdir=$(dirname "$pcdir")
plugindir=$libdir/gstreamer-1.0
for p in libgstrtpcc.so libgstrtpccfec.so libgstlinkemu.so \
    libgstplayoutbuffer.so libgstsendbuffer.so; do
  [ -f "$plugindir/$p" ] || { echo "FAIL: $p not in $plugindir"; exit 1; }
done
n=$(find "$plugindir" -maxdepth 1 -name 'libgst*.so' | wc -l)

# the installed .pc names the real prefix; a copy points it into DESTDIR
prefix=$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=prefix gstrtpcc-1.0)
mkdir -p "$dest/pc"
sed "s|^prefix=.*|prefix=$dest$prefix|" "$pc" > "$dest/pc/gstrtpcc-1.0.pc"
flags=$(PKG_CONFIG_PATH=$dest/pc pkg-config --cflags --libs gstrtpcc-1.0)
extra=
case "$sanitize" in
  *address*|*undefined*) extra="-fsanitize=$sanitize" ;;
esac
# shellcheck disable=SC2086
cc -std=c11 -Wall -Werror $extra -o "$dest/list-controllers" \
  "$src/tests/install/list-controllers.c" $flags
LD_LIBRARY_PATH=$libdir "$dest/list-controllers" > "$dest/out.txt"
for c in ccid2 fbra fixed gcc nada rr tfrc; do
  grep -qx "$c" "$dest/out.txt" || { echo "FAIL: $c not listed"; cat "$dest/out.txt"; exit 1; }
done
echo "installed library, headers, pkg-config file and $n plugins work from $dest"
