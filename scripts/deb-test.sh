#!/bin/sh
# deb-test.sh DEB - checks the Debian package without installing it on this
# host (make deb-test; not part of make check): unpacks it with dpkg -x into
# a throw-away root, checks its file list, modes, conffiles and unit, runs
# the unpacked binary's check-config on the unpacked example configuration
# (with maps_dir pointed at the unpacked /usr/share/wattpath, as its
# compiled-in /usr/share/wattpath is not this root) and on a config whose
# secret is a systemd credential, then runs the maintainer scripts' own
# logic (the debhelper snippets, which talk to this host's systemd, cut out)
# against that root through DPKG_ROOT: configure, remove, purge.
set -u
DEB=${1:?usage: deb-test.sh wattpath_VERSION_ARCH.deb}
R=$(mktemp -d "${TMPDIR:-/tmp}/wp-deb.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$R"' EXIT INT TERM
fail() { echo "deb-test: FAIL: $*" >&2; exit 1; }
note() { echo "deb-test: $*" >&2; }

dpkg-deb -x "$DEB" "$R/root" || fail "dpkg -x"
dpkg-deb -e "$DEB" "$R/ctl" || fail "dpkg -e"
dpkg-deb -c "$DEB" | awk '{print $1, $6}' >"$R/list"
D=$R/root

# The file list.
for f in ./usr/bin/wattpath ./lib/systemd/system/wattpath.service \
    ./etc/wattpath/wattpath.yaml ./usr/share/man/man8/wattpath.8.gz \
    ./usr/share/man/man5/wattpath.yaml.5.gz ./usr/share/doc/wattpath/copyright \
    ./usr/share/wattpath/pdu-profiles/raritan-pdu2.yaml \
    ./usr/share/wattpath/meter-maps/eastron-sdm630.yaml \
    ./usr/share/wattpath/grafana/wattpath.json \
    ./usr/share/wattpath/prometheus/wattpath-alerts.yml \
    ./usr/share/doc/wattpath/deploy.md.gz; do
	grep -q " $f\$" "$R/list" || fail "not in the package: $f"
done
grep -q '^drwx------ ./etc/wattpath/secrets/$' "$R/list" ||
	fail "etc/wattpath/secrets/ is not drwx------: $(grep secrets "$R/list")"
grep -q '^-rw-r--r-- ./etc/wattpath/wattpath.yaml$' "$R/list" ||
	fail "the config is not 0644 (the dynamic user reads it)"
grep -q ' ./var/' "$R/list" && fail "the package ships /var (systemd makes the state dir)"
grep -q 'share/wattpath/wattpath.service' "$R/list" && fail "a raw unit in share/"
grep -qx /etc/wattpath/wattpath.yaml "$R/ctl/conffiles" || fail "the config is no conffile"
grep -rl '@PREFIX@\|@SYSCONFDIR@' "$D" && fail "placeholders left in the files above"
U=$D/lib/systemd/system/wattpath.service
for l in "ExecStart=/usr/bin/wattpath run -c /etc/wattpath/wattpath.yaml" \
    "ExecStartPre=/usr/bin/wattpath check-config -c /etc/wattpath/wattpath.yaml" \
    "DynamicUser=yes" "StateDirectory=wattpath" \
    "LoadCredential=secrets:/etc/wattpath/secrets"; do
	grep -qx "$l" "$U" || fail "unit lacks $l"
done
grep -q 'deb-systemd-helper' "$R/ctl/postinst" || fail "postinst does not enable the unit"
grep -q 'deb-systemd-helper purge' "$R/ctl/postrm" || fail "postrm does not purge the unit's state"
grep -q 'systemctl.*start' "$R/ctl/postinst" && fail "postinst starts the service before it is configured"
note "file list, modes, conffiles and unit ok ($(wc -l <"$R/list") entries)"

# The unpacked binary on the unpacked example.
"$D/usr/bin/wattpath" version >/dev/null || fail "the binary does not run"
sed "s|^collector:|collector:\n  maps_dir: $D/usr/share/wattpath|" \
	"$D/etc/wattpath/wattpath.yaml" >"$R/check.yaml"
"$D/usr/bin/wattpath" check-config -c "$R/check.yaml" >"$R/check.log" 2>&1 ||
	{ cat "$R/check.log"; fail "check-config of the installed example"; }
# ... and a secret as systemd hands it over (LoadCredential=secrets:DIR).
mkdir -p "$R/cred"
( umask 077; echo s3cret >"$R/cred/secrets_bmc" )
chmod 0400 "$R/cred/secrets_bmc"; chmod 0500 "$R/cred"
sed -e 's|password_env: WATTPATH_BMC_PASSWORD|password_credential: secrets_bmc|' \
	"$R/check.yaml" >"$R/cred.yaml"
grep -q 'password_credential: secrets_bmc' "$R/cred.yaml" || fail "no credential in the example"
CREDENTIALS_DIRECTORY=$R/cred "$D/usr/bin/wattpath" check-config -c "$R/cred.yaml" \
	>"$R/cred.log" 2>&1 || { cat "$R/cred.log"; fail "check-config with a credential"; }
chmod 0700 "$R/cred"
note "check-config of the example ok, with a systemd credential too"

# The maintainer scripts' own logic, into the throw-away root.
for s in postinst postrm; do
	[ -f "$R/ctl/$s" ] || fail "no $s"
	sed '/^# Automatically added by dh_/,/^# End automatically added section/d' \
		"$R/ctl/$s" >"$R/$s"
	grep -q 'deb-systemd\|systemctl' "$R/$s" && fail "$s: host-touching lines left"
done
chmod 0755 "$D/etc/wattpath/secrets"
DPKG_ROOT=$D sh "$R/postinst" configure || fail "postinst configure"
[ "$(stat -c %a "$D/etc/wattpath/secrets")" = 700 ] || fail "postinst left secrets/ open"
mkdir -p "$D/var/lib/private/wattpath/journal"
echo x >"$D/var/lib/private/wattpath/journal/seg"
ln -s private/wattpath "$D/var/lib/wattpath"
echo pw >"$D/etc/wattpath/secrets/bmc"
DPKG_ROOT=$D sh "$R/postrm" remove || fail "postrm remove"
[ -f "$D/etc/wattpath/secrets/bmc" ] && [ -f "$D/var/lib/private/wattpath/journal/seg" ] ||
	fail "remove took the secrets or the data"
rm -f "$D/etc/wattpath/wattpath.yaml"	# what dpkg does to a conffile on purge
DPKG_ROOT=$D sh "$R/postrm" purge || fail "postrm purge"
for p in etc/wattpath var/lib/wattpath var/lib/private/wattpath; do
	[ -e "$D/$p" ] || [ -L "$D/$p" ] && fail "purge left /$p"
done
note "postinst configure, postrm remove and purge ok"
note "PASS $DEB"
