#!/usr/bin/env bash
# Multi-node benchmark on the test hosts (network namespaces + sshd, tests/integration/netns_hosts.sh; root):
#   1. tokens/s of 2 hosts x 2 ranks vs 1 host x 4 ranks, same config (ZeRO 2, CPU, Gloo), measured side by side,
#      with the veth links unshaped and shaped to 10 Gbit/s (tc tbf, both directions);
#   2. time from Start to the first step with 1, 2 and 3 hosts (the supervisor's "first step" log line).
# All ranks share this machine's cores in both layouts, so the ratio isolates what the launch, ssh and the
# TCP path between namespaces cost. Usage: bench_multinode.sh BUILD_DIR [STEPS]
set -euo pipefail
build=$(cd "${1:?usage: bench_multinode.sh BUILD_DIR [STEPS]}" && pwd)
steps=${2:-24}
src=$(cd "$(dirname "$0")/../../.." && pwd)
fts="$build/bin/fts"
work=$(mktemp -d)
prefix="fb$$"; prefix=${prefix:0:8}
harness="$src/tests/integration/netns_hosts.sh"
trap 'bash "$harness" down "$work/hosts" "$prefix" 3; rm -rf "$work"' EXIT
bash "$harness" up "$work/hosts" "$prefix" 3

python3 - "$src" "$work" "$steps" <<'PY'
import json, sys
src, work, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
q = f"{src}/resources/quickstart"
c = json.load(open(f"{q}/quickstart.json"))
c["model"]["path"] = f"{q}/model"
c["data"]["train"] = f"{q}/sample_stories.jsonl"
c["training"].update({"max_steps": steps, "eval_interval": 0, "save_interval": 0, "device": "cpu", "log_interval": 1,
                      "output_dir": f"{work}/out"})
c["deepspeed"]["train_micro_batch_size_per_gpu"] = 2
c["deepspeed"]["gradient_accumulation_steps"] = 1
c["deepspeed"]["zero_optimization"] = {"stage": 2}
c["deepspeed"]["scheduler"]["params"]["total_num_steps"] = steps
c["deepspeed"]["scheduler"]["params"]["warmup_num_steps"] = 2
json.dump(c, open(f"{work}/bench.json", "w"), indent=1)
first = dict(c); first["training"] = dict(c["training"], max_steps=2)
json.dump(first, open(f"{work}/first.json", "w"), indent=1)
PY

ssh=(--ssh-config "$work/hosts/ssh_config")
tps() {  # mean tokens/s of the run named $2 in store $1, after the first 3 steps
  python3 - "$1" "$2" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
run = db.execute("select id from runs where name=? order by id desc limit 1", (sys.argv[2],)).fetchone()[0]
v = [r[0] for r in db.execute("select value from metrics where run_id=? and name='tokens_per_s' and step>3 order by step", (run,))]
print(f"{sum(v)/len(v):.1f}")
PY
}
firststep() {
  python3 - "$1" "$2" <<'PY'
import sqlite3, sys, re
db = sqlite3.connect(sys.argv[1])
run = db.execute("select id from runs where name=? order by id desc limit 1", (sys.argv[2],)).fetchone()[0]
m = [r[0] for r in db.execute("select message from logs where run_id=? and message like 'first step %'", (run,))]
print(re.search(r"first step ([0-9.]+)", m[-1]).group(1))
PY
}
printf 'h1 slots=2\nh2 slots=2\n' > "$work/two.hostfile"
echo "== tokens/s, ZeRO 2, 4 ranks, $steps steps (CPU, Gloo), $(nproc) cores"
for shape in unshaped 10gbit; do
  if [ "$shape" = 10gbit ]; then
    for k in 1 2; do bash "$harness" link "$work/hosts" "$prefix" "$k" rate 10gbit; done
  fi
  "$fts" train "$work/bench.json" --store "$work/s.sqlite" --quiet --nproc 4 --name "one-$shape"
  "$fts" train "$work/bench.json" --store "$work/s.sqlite" --quiet --hostfile "$work/two.hostfile" "${ssh[@]}" --name "two-$shape"
  one=$(tps "$work/s.sqlite" "one-$shape"); two=$(tps "$work/s.sqlite" "two-$shape")
  echo "links $shape: 1 host x 4 ranks $one tok/s, 2 hosts x 2 ranks $two tok/s, ratio $(python3 -c "print(f'{$two/$one:.3f}')")"
done
for k in 1 2; do tc qdisc del dev "${prefix}v$k" root 2>/dev/null || true; ip netns exec "${prefix}h$k" tc qdisc del dev eth0 root 2>/dev/null || true; done
echo "== time from Start to the first step (1 rank per host, 2 steps)"
for n in 1 2 3; do
  : > "$work/first$n.hostfile"
  for k in $(seq 1 "$n"); do echo "h$k slots=1" >> "$work/first$n.hostfile"; done
  "$fts" train "$work/first.json" --store "$work/f.sqlite" --quiet --hostfile "$work/first$n.hostfile" "${ssh[@]}" --name "first-$n"
  echo "$n host(s): first step $(firststep "$work/f.sqlite" "first-$n") s after the start"
done
"$fts" train "$work/first.json" --store "$work/f.sqlite" --quiet --name first-local
echo "local, 1 rank (no ssh): first step $(firststep "$work/f.sqlite" first-local) s after the start"
