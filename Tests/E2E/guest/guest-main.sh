#!/bin/sh
# Stage 2: PID 1 in the guest, on the host's root filesystem (read-only 9p),
# with tmpfs on /run /tmp /var/lib/bluetooth /var/log /root and the e2e scratch
# dir shared read-write at the same path as on the host.
# Starts the system dbus-daemon, btvirt (4 emulated LE controllers), dbus-monitor,
# then runs the scenario driver (which owns bluetoothd, the peripherals and the
# central), collects logs and ALWAYS powers the VM off. Never exits (PID 1).
. "$(dirname "$0")/common.sh"   # PATH, W, OUT, guest.env, step, start_btvirt
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
start_btvirt "hci0 hci1 hci2 hci3"

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
