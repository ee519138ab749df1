#!/bin/sh
# fast
# make install into a DESTDIR: no @PREFIX@ or @SYSCONFDIR@ left in any file,
# the unit runs PREFIX/bin/wattpath on SYSCONFDIR/wattpath/wattpath.yaml with
# DynamicUser and LoadCredential=, the skeleton is there (the example config,
# secrets/ mode 0700), profiles and maps under PREFIX/share/wattpath, and the
# installed binary checks the installed config (with maps_dir pointed at the
# DESTDIR, since its compiled-in PREFIX is not there).  A second install keeps
# an edited config; uninstall removes everything but that edited config.
. "$(dirname "$0")/lib.sh"

command -v make >/dev/null || skip "make missing"
D=$T/root
P=/usr/local	# the default: another PREFIX would rebuild the tree
make -s -C "$ROOT" install DESTDIR="$D" SYSCONFDIR=/etc \
	>"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "make install"; }
grep -rl '@PREFIX@\|@SYSCONFDIR@' "$D" && fail "placeholders left in the files above"
U=$D$P/lib/systemd/system/wattpath.service
[ -f "$U" ] || fail "no unit"
grep -qx "ExecStart=$P/bin/wattpath run -c /etc/wattpath/wattpath.yaml" "$U" ||
	fail "ExecStart not substituted"
grep -qx "LoadCredential=secrets:/etc/wattpath/secrets" "$U" || fail "no LoadCredential"
grep -qx "DynamicUser=yes" "$U" || fail "no DynamicUser"
[ "$(stat -c %a "$D/etc/wattpath/secrets")" = 700 ] || fail "secrets/ not 0700"
[ -f "$D/etc/wattpath/wattpath.yaml" ] || fail "no /etc/wattpath/wattpath.yaml"
for f in pdu-profiles/raritan-pdu2.yaml meter-maps/eastron-sdm630.yaml \
    grafana/wattpath.json prometheus/wattpath-alerts.yml wattpath.yaml.example; do
	[ -f "$D$P/share/wattpath/$f" ] || fail "no share/wattpath/$f"
done
[ -e "$D$P/share/wattpath/wattpath.service" ] && fail "a raw unit in share/"
[ -x "$D$P/bin/wattpath" ] || fail "no binary"
[ -f "$D$P/share/man/man5/wattpath.yaml.5" ] || fail "no man page"
sed "s|^collector:|collector:\n  maps_dir: $D$P/share/wattpath|" \
	"$D/etc/wattpath/wattpath.yaml" >"$T/check.yaml"
"$D$P/bin/wattpath" check-config -c "$T/check.yaml" >"$T/check.log" 2>&1 ||
	{ cat "$T/check.log"; fail "installed config does not check"; }

# An edited config survives a reinstall and the uninstall.
echo "# edited" >>"$D/etc/wattpath/wattpath.yaml"
make -s -C "$ROOT" install DESTDIR="$D" >/dev/null 2>&1 || fail "reinstall"
tail -1 "$D/etc/wattpath/wattpath.yaml" | grep -q edited || fail "reinstall replaced the config"
make -s -C "$ROOT" uninstall DESTDIR="$D" >"$T/un.log" 2>&1 ||
	{ cat "$T/un.log"; fail "make uninstall"; }
left=$(find "$D" -type f | sed "s|^$D||")
[ "$left" = /etc/wattpath/wattpath.yaml ] || fail "left after uninstall: $left"
rm "$D/etc/wattpath/wattpath.yaml"
make -s -C "$ROOT" install DESTDIR="$D" >/dev/null 2>&1 || fail "install 3"
make -s -C "$ROOT" uninstall DESTDIR="$D" >/dev/null 2>&1 || fail "uninstall 2"
[ -z "$(find "$D" -type f)" ] || fail "files left: $(find "$D" -type f)"
[ -e "$D/etc/wattpath" ] && fail "/etc/wattpath left"
exit 0
