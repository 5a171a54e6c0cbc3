#!/usr/bin/env bash
# A one-node Slurm cluster on loopback, for tests/bake/slurm.rs (issue 39), with no systemd:
#
#   tests/slurm/cluster.sh start DIR   # munged, slurmctld, slurmd; waits until the node is idle
#   tests/slurm/cluster.sh stop DIR    # stops exactly the daemons it started (their PID files)
#
# Everything (keys, sockets, state, spool, logs, PID files, slurm.conf) lives under DIR;
# commands then find the cluster through SLURM_CONF=DIR/slurm.conf. Debian's packages:
# `apt-get install --no-install-recommends slurmctld slurmd slurm-client munge` (.ci/run).
set -euo pipefail
action=${1:?usage: cluster.sh start|stop DIR}
dir=${2:?usage: cluster.sh start|stop DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

stop() {
    # slurmd first (it reports to slurmctld), munged last (both use it).
    for daemon in slurmd slurmctld munged; do
        pidfile="$dir/$daemon.pid"
        [ -s "$pidfile" ] || continue
        pid=$(cat "$pidfile")
        # Only that daemon: a PID file left by a crash may name a reused PID.
        if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$daemon" ] && kill "$pid" 2>/dev/null; then
            for _ in $(seq 1 100); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.1
            done
            kill -9 "$pid" 2>/dev/null || true
        fi
        rm -f "$pidfile"
    done
}

if [ "$action" = stop ]; then
    stop
    exit 0
fi
[ "$action" = start ] || { echo "usage: cluster.sh start|stop DIR" >&2; exit 2; }

for tool in munged slurmctld slurmd sbatch sinfo; do
    if ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$tool" ]; then
        echo "cluster.sh: $tool is missing: apt-get install --no-install-recommends slurmctld slurmd slurm-client munge" >&2
        exit 3
    fi
done
export PATH="$PATH:/usr/sbin"

# munged: a 0700 folder, a 0400 key, `--force` as root.
mkdir -p "$dir/munge" "$dir/state" "$dir/spool"
chmod 0700 "$dir/munge"
if [ ! -s "$dir/munge/munge.key" ]; then
    head -c 1024 /dev/urandom > "$dir/munge/munge.key"
fi
chmod 0400 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munge/munged.log" \
    --seed-file="$dir/munge/munge.seed"

# Two free loopback ports (a test run beside another cluster must not collide with it).
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
host=$(uname -n | cut -d. -f1)   # what slurmctld compares SlurmctldHost with
cpus=$(nproc)
cat > "$dir/slurm.conf" <<CONF
ClusterName=hearth
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket,cred_expire=10
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=2,sched_interval=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
NodeName=hearth1 NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=bake Nodes=hearth1 Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
trap 'stop' ERR
slurmctld -i -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF" -N hearth1

# Up when the node is exactly `idle` (`idle*` is a node slurmctld has not heard from).
for _ in $(seq 1 300); do
    state=$(sinfo -h -N -o '%T' 2>/dev/null || true)
    if [ "$state" = idle ]; then
        echo "cluster.sh: up (SLURM_CONF=$SLURM_CONF)"
        exit 0
    fi
    sleep 0.1
done
echo "cluster.sh: the node did not become idle in 30 s (sinfo: ${state:-nothing}); logs:" >&2
tail -n 20 "$dir"/slurmctld.log "$dir"/slurmd.log "$dir"/munge/munged.log >&2 || true
stop
exit 1
