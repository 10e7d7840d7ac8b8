#!/bin/sh
# The systemd guest's test runner (run-e2e.sh --systemd). The guest booted Debian 12's
# systemd from its own root image, with dbus as the system bus; the image's
# blectl-e2e.service runs this once the system is up. It starts btvirt (hci0 the central,
# hci1 the peripheral), dbus-monitor, then guest/systemd-driver.py (which installs the .deb
# and drives systemd), saves the journal and ALWAYS powers the VM off.
. "$(dirname "$0")/common.sh"   # PATH, W, OUT, guest.env, step, start_btvirt
# btmgmt (in common.sh) quits at end of input before its reply arrives: give it the
# console, as the busybox guest's PID 1 has, rather than the service's /dev/null.
exec < /dev/console
finish() {   # $1 = rc for the host (0 pass, 1 fail, 2 setup)  $2 = reason
  step "finish rc=$1 $2"
  echo "$1 $2" > "$OUT/guest.rc"
  [ -n "$MONPID" ] && kill "$MONPID" 2>/dev/null
  [ -n "$BTVIRTPID" ] && kill "$BTVIRTPID" 2>/dev/null
  journalctl -b --no-pager -o short-monotonic > "$OUT/journal.txt" 2>&1
  systemctl list-units --all --no-pager > "$OUT/units.txt" 2>&1
  dmesg > "$OUT/dmesg.txt" 2>&1
  sync
  systemctl poweroff --force --force
  sleep 10; echo o > /proc/sysrq-trigger        # belt and braces
}

step "systemd guest up: $(systemctl --version | head -1), $(systemctl is-system-running)"
[ -c /dev/vhci ] || finish 2 "/dev/vhci missing (hci_vhci not loaded)"
start_btvirt "hci0 hci1"
dbus-monitor --system > "$OUT/dbus-monitor.log" 2>&1 &
MONPID=$!

step "driver (timeout ${DRIVER_TIMEOUT}s)"
{ timeout -k 5 "$DRIVER_TIMEOUT" /usr/bin/python3 "$W/guest/systemd-driver.py" --out "$OUT" --work "$W"; \
  echo $? > /run/driver.rc; } 2>&1 | tee "$OUT/driver.log"
rc=$(cat /run/driver.rc)
case $rc in
  0|1|2) finish "$rc" "driver exit $rc";;
  124|137) finish 1 "driver timed out after ${DRIVER_TIMEOUT}s";;
  *) finish 1 "driver crashed rc=$rc";;
esac
