#!/bin/sh
# Stage 2: PID 1 in the guest, on the host's root filesystem (read-only 9p),
# with tmpfs on /run /tmp /var/lib/bluetooth /var/log /root and the e2e scratch
# dir shared read-write at the same path as on the host.
# Starts the system dbus-daemon, btvirt (4 emulated LE controllers), dbus-monitor,
# then runs the scenario driver (which owns bluetoothd, the peripherals and the
# central), collects logs and ALWAYS powers the VM off. Never exits (PID 1).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
for kv in $(cat /proc/cmdline); do
  case "$kv" in e2e_w=*) W=${kv#e2e_w=};; e2e_out=*) OUT=${kv#e2e_out=};; esac
done
mkdir -p "$OUT"
. "$OUT/guest.env"          # DRIVER_ARGS, DRIVER_TIMEOUT (written by run-e2e.sh)
STEPS=$OUT/steps.log
up() { cut -d' ' -f1 /proc/uptime; }
step() { echo "[guest $(up)] $*" | tee -a "$STEPS"; }
finish() {   # $1 = rc for the host (0 pass, 1 fail, 2 setup)  $2 = reason
  step "finish rc=$1 $2"
  echo "$1 $2" > "$OUT/guest.rc"
  [ -n "$MONPID" ] && kill "$MONPID" 2>/dev/null
  [ -n "$BTMONPID" ] && kill "$BTMONPID" 2>/dev/null
  [ -n "$MONPID$BTMONPID" ] && sleep 0.3            # their last writes
  for f in /run/dbus-monitor.log /run/hci.btsnoop; do [ -f "$f" ] && cp "$f" "$OUT/"; done
  [ -n "$BTVIRTPID" ] && kill "$BTVIRTPID" 2>/dev/null
  dmesg > "$OUT/dmesg.txt" 2>&1
  sync
  busybox poweroff -f
  sleep 10; echo o > /proc/sysrq-trigger        # belt and braces
}

step "stage 2 (kernel $(uname -r))"
mount -t devpts devpts /dev/pts 2>/dev/null
mount -t tmpfs tmpfs /dev/shm 2>/dev/null
echo "$W/guest/modprobe-wrapper.sh" > /proc/sys/kernel/modprobe   # on-demand module loads
[ -c /dev/vhci ] || finish 2 "/dev/vhci missing (hci_vhci not loaded)"

mkdir -p /run/dbus
dbus-daemon --system --fork --print-pid > /run/dbus/daemon.pid 2> "$OUT/dbus-daemon.log" \
  || finish 2 "dbus-daemon did not start"
step "system dbus-daemon up"

# btvirt: one process, N emulated LE-only controllers sharing one virtual radio.
# hci0 central, hci1 peripheral A, hci2 peripheral B, hci3 the "spacer" that keeps
# connection handles aligned (see spacer_link in driver.py)
#
# The kernel sends HCI Reset to each emulated controller the moment btvirt creates
# it, but btvirt answers only once it has created all four and entered its main
# loop. If that takes longer than the kernel's HCI command timeout (2 s), the
# controller's setup fails ("hci0: Opcode 0x0c03 failed: -110"), it stays in the
# kernel's setup state for good (BD address 00:00:00:00:00:00) and the management
# interface never announces it: bluetoothd never gets /org/bluez/hci0. hci0, created
# first, waits longest. What made btvirt slow: its first AF_ALG binds ("ecb(aes)",
# "cmac(aes)") ran four on-demand modprobes over 9p, under TCG, on a loaded host. So:
# 1. instantiate those two algorithms here, before btvirt, off the critical path;
# 2. wait until the management interface lists every controller (= the kernel's
#    setup of each one finished), and start btvirt again if one never shows up.
CONTROLLERS="hci0 hci1 hci2 hci3"
timeout 60 /usr/bin/python3 -c '
import socket
for kind, name in (("skcipher", "ecb(aes)"), ("hash", "cmac(aes)")):
    s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET)
    s.bind((kind, name))
    s.close()
' >> "$OUT/btvirt.log" 2>&1 || step "WARNING: could not instantiate ecb(aes)/cmac(aes) before btvirt"
step "ecb(aes), cmac(aes) ready for btvirt"

# the controllers the kernel's management interface lists, sorted, space-separated
mgmt_controllers() {
  timeout 10 btmgmt info 2>/dev/null | sed -n 's/^\(hci[0-9]*\):.*/\1/p' | sort | tr '\n' ' ' | sed 's/ $//'
}
attempt=1
while :; do
  step "starting btvirt (attempt $attempt)"
  echo "$attempt" > "$OUT/btvirt.attempts"     # the host's summary prints the retries
  btvirt -L -l4 >> "$OUT/btvirt.log" 2>&1 &
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

# every message on the system bus: the driver checks the daemon's calls on it, and it is
# BlueZ's side of the story in a post-mortem. Written to the guest's tmpfs and copied to
# $OUT at the end: dbus-monitor writes line by line, and over 9p under a loaded TCG host
# it fell 40 s behind the bus.
dbus-monitor --system > /run/dbus-monitor.log 2>&1 &
MONPID=$!
# every HCI packet of every controller (read it on the host: btmon -r hci.btsnoop)
btmon -w /run/hci.btsnoop > /dev/null 2>&1 &
BTMONPID=$!

step "driver: $DRIVER_ARGS (timeout ${DRIVER_TIMEOUT}s)"
# shellcheck disable=SC2086
{ timeout -k 5 "$DRIVER_TIMEOUT" /usr/bin/python3 "$W/guest/driver.py" --out "$OUT" --work "$W" \
    $DRIVER_ARGS; echo $? > /run/driver.rc; } 2>&1 | tee "$OUT/driver.log"
rc=$(cat /run/driver.rc)
sleep 0.3
case $rc in
  0|1|2) finish $rc "driver exit $rc";;
  124|137) finish 1 "driver timed out after ${DRIVER_TIMEOUT}s";;
  *) finish 1 "driver crashed rc=$rc";;
esac
