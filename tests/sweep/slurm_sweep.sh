#!/usr/bin/env bash
# `systole sweep --slurm --wait` on a real one-node Slurm cluster started here (Debian's slurm-wlm
# and munge): munged, slurmctld and slurmd with a private config, state and ports in a temporary
# folder, stopped by their pids at the end. Exits 77 (skipped, with the reason) where Slurm is not
# installed, we are not root, or the cluster does not come up.
# usage: slurm_sweep.sh SYSTOLE MODEL.onnx WORK_DIR
set -uo pipefail
systole=$1 model=$2 work=$3
skip() { echo "skipped: $*"; exit 77; }
for tool in munged slurmctld slurmd sbatch sinfo; do command -v "$tool" > /dev/null || skip "$tool is not installed (Debian: slurm-wlm, munge)"; done
[ "$(id -u)" -eq 0 ] || skip "a private Slurm cluster needs root here"

rm -rf "$work" && mkdir -p "$work"/{munge,state,spool,log}
work=$(cd "$work" && pwd)
pids=()
stop() { for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done; wait 2> /dev/null; }
trap stop EXIT

dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none && chmod 400 "$work/munge/munge.key"
chmod 700 "$work/munge"
munged --foreground --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.socket" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/log/munged.log" --seed-file="$work/munge/seed" > "$work/log/munged.out" 2>&1 &
pids+=($!)

host=$(hostname -s)
port=$((17000 + RANDOM % 2000))
cat > "$work/slurm.conf" <<CONF
ClusterName=systole-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf
sleep 1
slurmctld -D -i > "$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D > "$work/log/slurmd.out" 2>&1 &
pids+=($!)
up=""
for _ in $(seq 60); do
  state=$(sinfo -h -o %T 2> /dev/null | head -1)
  case "$state" in idle*|mixed*|alloc*) up=1; break ;; esac
  sleep 0.5
done
if [ -z "$up" ]; then
  tail -5 "$work"/log/*.log "$work"/log/*.out 2> /dev/null
  skip "the one-node Slurm cluster did not come up (node state: '${state:-none}')"
fi
echo "slurm: one node '$host' up"

printf 'isa: tiny\nmodels: [%s]\ngrid:\n  memories.dram.bytes_per_cycle: [2, 4, 8, 16]\noptions: [--timing-only]\n' "$model" > "$work/spec.yaml"
"$systole" sweep "$work/spec.yaml" -o "$work/out" --slurm --wait || { tail -20 "$work"/log/*.log; exit 1; }
ok=$(grep -c ',ok,' "$work/out/results.csv")
tasks=$(ls "$work/out/slurm" | wc -l)
echo "results.csv: $ok runs ok; $tasks Slurm task logs"
[ "$ok" -eq 4 ] && [ "$tasks" -eq 4 ] || exit 1
grep -q -- '--array=0-3' "$work/out/sweep.sbatch" || exit 1
echo "slurm sweep: every array task ran and the results were collected"
