# Sourced first by both guests' stage 2 (guest-main.sh, systemd-main.sh; each defines
# finish): the environment, W and OUT from the kernel command line, the run's settings
# (guest.env, written by run-e2e.sh), step logging, and start_btvirt "hci0 hci1 ...",
# which starts btvirt with that many emulated LE-only controllers on one virtual radio
# and returns once the kernel has set up every one (sets BTVIRTPID). btvirt also listens
# on /tmp/bt-server-le (-s): scenario 15's vhci-relay.py adds a controller through it that
# can be removed on its own.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
for kv in $(cat /proc/cmdline); do
  case "$kv" in e2e_w=*) W=${kv#e2e_w=};; e2e_out=*) OUT=${kv#e2e_out=};; esac
done
mkdir -p "$OUT"
. "$OUT/guest.env"          # DRIVER_ARGS, DRIVER_TIMEOUT
STEPS=$OUT/steps.log
up() { cut -d' ' -f1 /proc/uptime; }
step() { echo "[guest $(up)] $*" | tee -a "$STEPS"; }

# btvirt:
#
# The kernel sends HCI Reset to each emulated controller the moment btvirt creates
# it, but btvirt answers only once it has created all of them and entered its main
# loop. If that takes longer than the kernel's HCI command timeout (2 s), the
# controller's setup fails ("hci0: Opcode 0x0c03 failed: -110"), it stays in the
# kernel's setup state for good (BD address 00:00:00:00:00:00) and the management
# interface never announces it: bluetoothd never gets /org/bluez/hci0. hci0, created
# first, waits longest. What made btvirt slow: its first AF_ALG binds ("ecb(aes)",
# "cmac(aes)") ran four on-demand modprobes over 9p, under TCG, on a loaded host. So:
# 1. instantiate those two algorithms here, before btvirt, off the critical path;
# 2. wait until the management interface lists every controller (= the kernel's
#    setup of each one finished), and start btvirt again if one never shows up.

# the controllers the kernel's management interface lists, sorted, space-separated
mgmt_controllers() {
  timeout 10 btmgmt info 2>/dev/null | sed -n 's/^\(hci[0-9]*\):.*/\1/p' | sort | tr '\n' ' ' | sed 's/ $//'
}

start_btvirt() {
  CONTROLLERS=$1
  timeout 60 /usr/bin/python3 -c '
import socket
for kind, name in (("skcipher", "ecb(aes)"), ("hash", "cmac(aes)")):
    s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET)
    s.bind((kind, name))
    s.close()
' >> "$OUT/btvirt.log" 2>&1 || step "WARNING: could not instantiate ecb(aes)/cmac(aes) before btvirt"
  step "ecb(aes), cmac(aes) ready for btvirt"
  attempt=1
  while :; do
    step "starting btvirt (attempt $attempt)"
    echo "$attempt" > "$OUT/btvirt.attempts"     # the host's summary prints the retries
    btvirt -L -s -l"$(echo "$CONTROLLERS" | wc -w)" >> "$OUT/btvirt.log" 2>&1 &
    BTVIRTPID=$!
    deadline=$(( $(cut -d. -f1 /proc/uptime) + 15 ))
    listed=""
    while [ "$(cut -d. -f1 /proc/uptime)" -lt "$deadline" ] && kill -0 "$BTVIRTPID" 2>/dev/null; do
      listed=$(mgmt_controllers)
      [ "$listed" = "$CONTROLLERS" ] && break
      sleep 0.2
    done
    [ "$listed" = "$CONTROLLERS" ] && break
    step "controller setup failed: the management interface lists '$listed', want '$CONTROLLERS';" \
      "kernel: $(dmesg | grep -E 'hci[0-9]+: ' | tail -4 | tr '\n' ';')"
    kill "$BTVIRTPID" 2>/dev/null; wait "$BTVIRTPID" 2>/dev/null
    i=0; while [ -n "$(ls /sys/class/bluetooth 2>/dev/null)" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
    attempt=$((attempt + 1))
    [ $attempt -le 3 ] || finish 2 "btvirt: controller setup failed 3 times ($(tail -3 "$OUT/btvirt.log" | tr '\n' ' '))"
  done
  step "controllers set up: $listed"
}
