#!/bin/sh
# Reports over several sites (issue 21): two simulated sites, each its own
# fleet, meters and collector (site.name site-a and site-b); `wattpath
# report -c a.yaml -c b.yaml` gives by_site rows equal to each site's own
# report and a fleet total that does not mix PUEs: the GPU and wall
# energies are the sites' sums, the facility boundary is the sum of each
# site's own facility energy (its wall x its PUE), the fleet PUE the sum of
# the metered facility energies over the sum of the IT energies, which
# agrees with the two simulators' truth within 0.5 %.  A site without
# meters leaves the fleet PUE and facility figure out, named in a warning.
# Two configs of one site, or --data-dir with several -c, are refused.
. "$(dirname "$0")/lib.sh"

SIM=${WATTPATH_SIM:-$(dirname "$WATTPATH")/wattpath-sim}
[ -x "$SIM" ] || SIM=$ROOT/build/wattpath-sim
[ -x "$SIM" ] || skip "no wattpath-sim built"
FA="--nodes 3 --racks 1 --pdus 2 --meters 2 --seed 31 --shape joules"
FB="--nodes 2 --racks 1 --pdus 2 --meters 2 --seed 41 --shape joules"
mkdir -p "$T/a" "$T/b"
sim_serve sima "$T/a/w.yaml" $FA --interval 1s
sim_serve simb "$T/b/w.yaml" $FB --interval 1s
sed -e 's|^site: .*|site: {name: site-a, zone: FR}|' "$T/a/w.yaml" >"$T/a.yaml"
sed -e 's|^site: .*|site: {name: site-b, zone: DE}|' \
    -e "s|^  listen: .*|  listen: 127.0.0.1:$(free_port)|" "$T/b/w.yaml" >"$T/b.yaml"
for s in a b; do
	"$WATTPATH" check-config -c "$T/$s.yaml" >"$T/cc.log" 2>&1 ||
		{ cat "$T/cc.log"; fail "config $s"; }
	bg "run_$s" "$WATTPATH" run -c "$T/$s.yaml"
done
now() { $PY -c 'import time; print("%.3f" % time.time())'; }
sleep 5
FROM=$(now)
sleep 62
TO=$(now)
sleep 3
for s in a b; do
	eval "p=\$PID_run_$s"; alive "$p"; kill "$p"
	wait_for 10 sh -c "! kill -0 $p" || fail "run $s did not stop"
done
"$SIM" truth $FA --from "$FROM" --to "$TO" --json >"$T/ta.json" || fail "truth a"
"$SIM" truth $FB --from "$FROM" --to "$TO" --json >"$T/tb.json" || fail "truth b"
W="--from $FROM --to $TO"
for s in a b; do
	"$WATTPATH" report -c "$T/$s.yaml" $W >"$T/r$s.json" 2>"$T/r$s.err" ||
		{ cat "$T/r$s.err"; fail "report of site $s"; }
done
"$WATTPATH" report -c "$T/a.yaml" -c "$T/b.yaml" $W >"$T/ab.json" 2>"$T/ab.err" ||
	{ cat "$T/ab.err"; fail "report over two sites"; }
# site b without its meters: no fleet PUE, no fleet facility figure
awk '/^meters:/ {skip = 1; next} skip && /^  - / {next} {skip = 0; print}' \
	"$T/b.yaml" >"$T/bn.yaml"
"$WATTPATH" report -c "$T/a.yaml" -c "$T/bn.yaml" $W >"$T/an.json" 2>"$T/an.err" ||
	{ cat "$T/an.err"; fail "report over two sites, one without meters"; }

$PY - "$T" <<'PYEOF' || fail "report over sites"
import json, sys
T = sys.argv[1]
ld = lambda n: json.load(open("%s/%s.json" % (T, n)))
ab, ra, rb, an = ld("ab"), ld("ra"), ld("rb"), ld("an")
ta, tb = ld("ta"), ld("tb")
fails = []
def near(name, a, b, tol=0.005):
    ok = a is not None and b is not None and abs(a - b) <= tol * abs(b)
    print("%-36s %18s %18s %s" % (name, a, b, "ok" if ok else "FAIL"))
    if not ok:
        fails.append(name)
rows = {r["site"]: r for r in ab["by_site"]}
if sorted(rows) != ["site-a", "site-b"]:
    fails.append("by_site: %r" % sorted(rows))
for name, own in (("site-a", ra), ("site-b", rb)):
    row = rows.get(name, {})
    for b in ("gpu", "wall", "facility"):
        near("%s %s = its own report" % (name, b),
             row["boundaries"][b]["energy_j"], own["boundaries"][b]["energy_j"], 1e-12)
    near("%s PUE = its own" % name, row["pue"]["value"], own["pue"]["value"], 1e-12)
    near("%s facility = wall x its PUE" % name, row["boundaries"]["facility"]["energy_j"],
         row["boundaries"]["wall"]["energy_j"] * row["pue"]["value"], 1e-9)
    if row["report"]["boundaries"] != own["boundaries"]:
        fails.append("%s: the embedded report differs" % name)
F = ab["fleet"]
for b in ("gpu", "wall", "facility"):
    near("fleet %s = sum of sites" % b, F["boundaries"][b]["energy_j"],
         sum(r["boundaries"][b]["energy_j"] for r in rows.values()), 1e-12)
near("fleet output tokens", F["output_tokens"],
     ta["totals"]["tokens_output"] + tb["totals"]["tokens_output"])
near("fleet GPU energy vs truth", F["boundaries"]["gpu"]["energy_j"],
     ta["totals"]["gpu_j"] + tb["totals"]["gpu_j"])
near("site-a facility metered vs truth", rows["site-a"]["pue"]["facility_energy_j"], ta["totals"]["facility_j"])
near("site-b facility metered vs truth", rows["site-b"]["pue"]["facility_energy_j"], tb["totals"]["facility_j"])
near("fleet metered facility", F["pue"]["facility_energy_j"],
     ta["totals"]["facility_j"] + tb["totals"]["facility_j"])
tp = (ta["totals"]["facility_j"] + tb["totals"]["facility_j"]) / \
     (ta["totals"]["it_j"] + tb["totals"]["it_j"])
near("fleet PUE vs truth", F["pue"]["value"], tp)
# the fleet facility figure is each site's own, not the fleet wall x one PUE
mixed = F["boundaries"]["wall"]["energy_j"] * F["pue"]["value"]
print("fleet wall x fleet PUE would be %.1f J; the sites' sum is %.1f J" %
      (mixed, F["boundaries"]["facility"]["energy_j"]))
near("fleet J/output token (wall)", F["boundaries"]["wall"]["j_per_output_token"],
     F["boundaries"]["wall"]["energy_j"] / F["output_tokens"], 1e-12)
# site b without meters
G = an["fleet"]
if G["pue"]["value"] is not None or G["boundaries"]["facility"]["energy_j"] is not None:
    fails.append("fleet PUE or facility with a site that has none: %r" % G)
if G["boundaries"]["wall"]["energy_j"] is None:
    fails.append("no fleet wall figure with a site lacking meters")
W = " | ".join(an["warnings"])
if "site-b" not in W or "not metered" not in W or "none at site-b" not in W:
    fails.append("warnings without site-b: %s" % W)
if fails:
    print("FAILED: " + ", ".join(fails)); sys.exit(1)
PYEOF

# Refused: one site twice; --data-dir with several sites; md.
sed -e "s|^  data_dir: .*|  data_dir: \"$T/a/data\"|" "$T/a.yaml" >"$T/a2.yaml"
"$WATTPATH" report -c "$T/a.yaml" -c "$T/a2.yaml" $W >/dev/null 2>"$T/e1.err" &&
	fail "one site given twice passed"
grep -q "both site 'site-a'" "$T/e1.err" || { cat "$T/e1.err"; fail "no message for a site twice"; }
"$WATTPATH" report -c "$T/a.yaml" -c "$T/b.yaml" --data-dir "$T/a/data" $W \
	>/dev/null 2>"$T/e2.err"
[ $? = 2 ] && grep -q "data-dir goes with one -c" "$T/e2.err" ||
	{ cat "$T/e2.err"; fail "--data-dir with several -c"; }
"$WATTPATH" report -c "$T/a.yaml" -c "$T/b.yaml" --format md $W >/dev/null 2>"$T/e3.err"
[ $? = 2 ] || { cat "$T/e3.err"; fail "--format md over several sites"; }
alive "$PID_sima"
alive "$PID_simb"
exit 0
