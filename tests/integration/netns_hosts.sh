#!/usr/bin/env bash
# Test hosts for the multi-node tests: N Linux network namespaces joined by veth pairs to a bridge in the
# calling namespace, each running Debian's sshd with a host key and an authorized key made for the test.
# Needs root (CI runs as root), iproute2 and openssh-server.
#   netns_hosts.sh up   DIR PREFIX N   -> DIR/ssh_config (Host h1..hN, key, known_hosts), DIR/env
#   netns_hosts.sh down DIR PREFIX N   -> every process in the namespaces killed, namespaces and bridge gone
#   netns_hosts.sh link DIR PREFIX K up|down|rate RATE   -> host K's link state, or a tc rate limit
# PREFIX: at most 8 characters, unique per test run (interface names must fit in 15).
set -euo pipefail
cmd=$1 dir=$2 prefix=$3
sum=$(echo -n "$prefix" | cksum | cut -d' ' -f1)
net="10.$(( sum % 200 + 20 )).$(( sum / 200 % 250 ))"  # a /24 per prefix
br="${prefix}br"

case "$cmd" in
up)
  n=$4
  mkdir -p "$dir" /run/sshd
  ssh-keygen -q -t ed25519 -N '' -C fts-test -f "$dir/id_ed25519"
  ssh-keygen -q -t ed25519 -N '' -C fts-test-other -f "$dir/other_key"
  ssh-keygen -q -t ed25519 -N '' -C fts-test-host -f "$dir/host_key"
  cp "$dir/id_ed25519.pub" "$dir/authorized_keys"
  chmod 600 "$dir/authorized_keys"
  cat > "$dir/sshd_config" <<CFG
HostKey $dir/host_key
AuthorizedKeysFile $dir/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PrintMotd no
AcceptEnv none
MaxStartups 64
CFG
  ip link add "$br" type bridge
  ip addr add "$net.1/24" dev "$br"
  ip link set "$br" up
  : > "$dir/known_hosts"
  {
    echo "Host *"
    echo "  User root"
    echo "  IdentityFile $dir/id_ed25519"
    echo "  IdentitiesOnly yes"
    echo "  UserKnownHostsFile $dir/known_hosts"
    echo "  StrictHostKeyChecking yes"
    echo "  LogLevel ERROR"
  } > "$dir/ssh_config.tail"
  : > "$dir/ssh_config"
  for k in $(seq 1 "$n"); do
    ns="${prefix}h$k"
    ip netns add "$ns"
    # name lookups inside the host: no DNS server is reachable from it, so point the resolver at the host's own
    # loopback (refused at once) instead of the machine's server (c10d's reverse lookups would wait ~10 s)
    mkdir -p "/etc/netns/$ns"
    echo "nameserver 127.0.0.1" > "/etc/netns/$ns/resolv.conf"
    ip link add "${prefix}v$k" type veth peer name eth0 netns "$ns"
    ip link set "${prefix}v$k" master "$br" up
    ip -n "$ns" addr add "$net.$((10 + k))/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    ip -n "$ns" route add default via "$net.1"
    ip netns exec "$ns" /usr/sbin/sshd -f "$dir/sshd_config" -o "ListenAddress=$net.$((10 + k))" \
      -o "PidFile=$dir/sshd_h$k.pid" -E "$dir/sshd_h$k.log"
    echo "$net.$((10 + k)) $(cut -d' ' -f1-2 "$dir/host_key.pub")" >> "$dir/known_hosts"
    printf 'Host h%s\n  HostName %s\n' "$k" "$net.$((10 + k))" >> "$dir/ssh_config"
  done
  cat "$dir/ssh_config.tail" >> "$dir/ssh_config"
  echo "SUPERVISOR_ADDR=$net.1" > "$dir/env"
  # sshd is up once its pid file exists
  for k in $(seq 1 "$n"); do
    for _ in $(seq 1 100); do [ -s "$dir/sshd_h$k.pid" ] && break; sleep 0.05; done
  done
  ;;
down)
  n=$4
  for k in $(seq 1 "$n"); do
    ns="${prefix}h$k"
    if ip netns list | grep -qw "$ns"; then
      pids=$(ip netns pids "$ns" || true)
      [ -n "$pids" ] && kill -9 $pids 2>/dev/null || true
      ip netns del "$ns" || true
    fi
    rm -rf "/etc/netns/$ns"
    ip link del "${prefix}v$k" 2>/dev/null || true
  done
  ip link del "$br" 2>/dev/null || true
  ;;
link)
  k=$4 what=$5
  case "$what" in
  up|down) ip -n "${prefix}h$k" link set eth0 "$what" ;;
  rate)  # both directions: the bridge side of the veth and the host's own eth0
    tc qdisc replace dev "${prefix}v$k" root tbf rate "$6" burst 4mbit latency 50ms
    ip netns exec "${prefix}h$k" tc qdisc replace dev eth0 root tbf rate "$6" burst 4mbit latency 50ms ;;
  esac
  ;;
*) echo "usage: $0 up|down|link DIR PREFIX ..." >&2; exit 2 ;;
esac
