#!/bin/bash
# run-e2e.sh - blectl end-to-end tests against REAL BlueZ, on a host without
# Bluetooth (no CONFIG_BT, no /dev/vhci). Run as root; `make e2e` calls it.
#
# How: boot Debian's stock kernel (unpacked from its package, never installed)
# under qemu/TCG with the host's / shared read-only over 9p; inside the guest:
# system dbus-daemon, btvirt (4 emulated LE controllers on one virtual radio),
# bluetoothd, the project's test peripheral(s), and blectld/blectl under test.
# ONE guest runs every scenario (guest/driver.py). Nothing touches the host's
# Bluetooth state or system bus: all of it lives in the guest.
#
# Usage: run-e2e.sh --bin-dir DIR [options]         (DIR holds blectld and blectl)
#        run-e2e.sh --central standin [options]     (rig validation, no binaries)
#        run-e2e.sh --systemd --deb FILE [options]  (the .deb under real systemd)
#   --central blectl|standin  the central under test (default blectl)
#   --scenarios LIST    comma list of 1..15, 8p, 10s, 10t (default 1,2,3,4,5,7,8,9,12,6; put 7, 8,
#                       8p, 9, 10, 10s, 10t, 11-15 before 6; 10 runs about 9 minutes: make e2e-memory
#                       raises VM_TIMEOUT and DRIVER_TIMEOUT; make e2e-adapters runs 11,12,13,15);
#                       "scanprobe" measures the rig
#   --keep-logs         keep the guest logs of a passing run (a failing run always keeps them)
#   --quiet             do not echo the guest console (it is saved to console.log)
#   --driver-arg ARG    pass ARG to guest/driver.py (repeatable, no spaces in ARG)
#   --systemd --deb F   boot a small Debian 12 with systemd instead (debootstrapped once into
#                       the scratch dir), install the package F there and run
#                       guest/systemd-driver.py: socket activation, watchdog, reload...
# Env: E2E_DIR (scratch dir under /tmp, default /tmp/blectl-e2e), VM_TIMEOUT
#      (default 540 s), DRIVER_TIMEOUT (default 460 s), MEM_MB, KPKG (kernel package)
# Exit: 0 every scenario passed, 1 the daemon under test failed a scenario (whatever
#       else happened), 2 the rig failed (setup, or during a scenario) and the daemon
#       failed nothing. The last run's logs, pass or fail: $E2E_DIR/last-run.tar.gz.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
W=${E2E_DIR:-/tmp/blectl-e2e}
B=$W/build
T_START=$(date +%s.%N)
elapsed() { echo "$(date +%s.%N) $T_START" | awk '{printf "%.1f", $1-$2}'; }
say() { echo "[e2e $(elapsed)s] $*"; }
setup_error() { say "SETUP ERROR: $*"; exit 2; }

CENTRAL=blectl BIN_DIR="" SCENARIOS=1,2,3,4,5,7,8,9,12,6 KEEP=0 QUIET=0 DRIVER_EXTRA="" SYSTEMD=0 DEB=""
while [ $# -gt 0 ]; do
  case "$1" in
    --bin-dir) BIN_DIR=$2; shift 2;;
    --central) CENTRAL=$2; shift 2;;
    --scenarios) SCENARIOS=$2; shift 2;;
    --keep-logs) KEEP=1; shift;;
    --quiet) QUIET=1; shift;;
    --driver-arg) DRIVER_EXTRA="$DRIVER_EXTRA $2"; shift 2;;
    --systemd) SYSTEMD=1; CENTRAL=deb; shift;;
    --deb) DEB=$2; shift 2;;
    -h|--help) sed -n '2,29p' "$0"; exit 0;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2;;
  esac
done
[ "$(id -u)" = 0 ] || setup_error "run as root (apt-get, qemu's 9p export of /)"
case "$W" in /tmp/?*) ;; *) setup_error "E2E_DIR must be under /tmp (the guest mounts it there)";; esac
case "$CENTRAL" in
  blectl)
    [ -n "$BIN_DIR" ] || setup_error "--bin-dir DIR (with blectld and blectl) is required"
    for b in blectld blectl; do [ -x "$BIN_DIR/$b" ] || setup_error "no executable $BIN_DIR/$b"; done;;
  standin) ;;
  deb) [ -f "$DEB" ] || setup_error "--systemd needs --deb FILE (make deb builds it)";;
  *) setup_error "--central must be blectl or standin";;
esac
mkdir -p "$W" "$B" || setup_error "cannot create $W"
# one run at a time per scratch dir (and qemu under TCG takes every core anyway)
exec 9> "$W/.lock"
flock -n 9 || setup_error "another run-e2e.sh is using $W"

# ------------------------------------------------------------- 1. packages
PKGS="qemu-system-x86 busybox-static bluez bluez-test-tools dbus python3-dbus python3-gi kmod"
[ "$SYSTEMD" = 1 ] && PKGS="$PKGS debootstrap e2fsprogs"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  say "installing:$missing"
  export DEBIAN_FRONTEND=noninteractive
  if ! timeout 300 apt-get install -y -q --no-install-recommends $missing > "$B/apt.log" 2>&1; then
    timeout 180 apt-get update -q >> "$B/apt.log" 2>&1
    timeout 300 apt-get install -y -q --no-install-recommends $missing >> "$B/apt.log" 2>&1 \
      || { tail -20 "$B/apt.log"; setup_error "apt-get install failed (log: $B/apt.log)"; }
  fi
fi

# ------------------------------------ 2. Debian's kernel, unpacked (not installed)
kpkg() { apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}'; }
KPKG=${KPKG:-$(kpkg)}
if [ -z "$KPKG" ]; then timeout 180 apt-get update -q > "$B/apt-update.log" 2>&1; KPKG=$(kpkg); fi
[ -n "$KPKG" ] || setup_error "cannot tell which linux-image-*-amd64 package to fetch"
KVER=${KPKG#linux-image-}
KERNEL=$B/kroot/boot/vmlinuz-$KVER
if [ ! -f "$KERNEL" ]; then
  say "fetching $KPKG"
  rm -rf "$B/kroot" "$B/debs"; mkdir -p "$B/debs"
  fetch() { (cd "$B/debs" && timeout 300 apt-get download "$KPKG") > "$B/kernel-fetch.log" 2>&1; }
  fetch || { timeout 180 apt-get update -q >> "$B/kernel-fetch.log" 2>&1; fetch; } \
    || setup_error "apt-get download $KPKG failed (log: $B/kernel-fetch.log)"
  dpkg -x "$B"/debs/"$KPKG"_*.deb "$B/kroot" || setup_error "dpkg -x $KPKG failed"
  depmod -b "$B/kroot" "$KVER" || setup_error "depmod failed"
  rm -rf "$B/debs"
fi

# ------------------------------- 3. what the guest runs, into the shared scratch dir
# (the guest's /tmp is a fresh tmpfs: only $W is shared, read-write, same path)
rm -rf "${W:?}/guest" "${W:?}/peripheral" "${W:?}/bin"
cp -r "$HERE/guest" "$W/guest" && cp -r "$HERE/peripheral" "$W/peripheral" \
  || setup_error "cannot copy the guest scripts to $W"
cat > "$W/guest/modprobe-wrapper.sh" <<EOF
#!/bin/sh
# /proc/sys/kernel/modprobe in the guest: on-demand module loads (crypto for
# btvirt/bluetoothd, ...) come from the unpacked kernel package.
exec /sbin/modprobe -d $B/kroot "\$@"
EOF
chmod +x "$W"/guest/*.sh "$W/guest/init" "$W"/guest/*.py "$W"/peripheral/*.py
if [ "$CENTRAL" = blectl ]; then
  mkdir -p "$W/bin" && cp "$BIN_DIR/blectld" "$BIN_DIR/blectl" "$W/bin/" \
    || setup_error "cannot copy the binaries to $W/bin"
fi
rm -rf "${W:?}/deb"
if [ "$SYSTEMD" = 1 ]; then
  mkdir -p "$W/deb" && cp "$DEB" "$W/deb/" || setup_error "cannot copy $DEB to $W/deb"
fi

# ------------------------------- 3b. the systemd guest's root: Debian 12, once per package set
# debootstrap (minbase) with systemd-sysv, dbus, bluez and what the .deb depends on, so that
# `apt install ./blectl_*.deb` in the guest needs no network. Made into an ext4 image that
# qemu opens with snapshot=on: every run starts from the same, untouched system.
if [ "$SYSTEMD" = 1 ]; then
  deb_depends=$(dpkg-deb -f "$DEB" Depends Recommends | sed 's/^[A-Za-z-]*: //' | tr ',' '\n' \
    | sed 's/[(|].*//; s/ //g' | grep -v '^$')
  # mosquitto (the broker, its unit started at boot, listening on localhost), its clients
  # and libmosquitto1 (blectld dlopens it): the MQTT check under the unit's sandbox.
  ROOT_PKGS=$(printf '%s\n' systemd-sysv dbus bluez bluez-test-tools python3-dbus python3-gi kmod \
    mosquitto mosquitto-clients libmosquitto1 $deb_depends | sort -u | tr '\n' ',' | sed 's/,$//')
  ROOT_RECIPE=2   # bump when the set-up below changes: the image is made again
  KEY=$(echo "$ROOT_PKGS" | md5sum | cut -c1-12)
  BASE=$B/rootfs-$KEY        # debootstrap's result, kept for the next image
  IMAGE=$B/rootfs-$KEY-r$ROOT_RECIPE.ext4
  if [ ! -f "$IMAGE" ]; then
    if [ ! -f "$BASE/.complete" ]; then
      MIRROR=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null)
      MIRROR=${MIRROR:-http://deb.debian.org/debian}
      say "debootstrapping the systemd guest's root from $MIRROR (minutes): $ROOT_PKGS"
      rm -rf "$B"/rootfs-*
      timeout 1200 debootstrap --variant=minbase --include="$ROOT_PKGS" bookworm "$BASE.tmp" "$MIRROR" \
        > "$B/debootstrap.log" 2>&1 \
        || { tail -5 "$B/debootstrap.log"; setup_error "debootstrap failed (log: $B/debootstrap.log)"; }
      rm -f "$BASE.tmp"/var/cache/apt/archives/*.deb
      mv "$BASE.tmp" "$BASE" && touch "$BASE/.complete"
    fi
    say "making the systemd guest's root image"
    R=$B/rootfs.tmp; rm -rf "$R" "$B"/rootfs-*.ext4
    cp -a "$BASE" "$R" || setup_error "cannot copy $BASE"
    echo blectl-e2e > "$R/etc/hostname"
    # debootstrap writes no /etc/hosts (the installer does): without it "localhost" does not
    # resolve (no DNS in the guest), and mosquitto_sub and blectld's MQTT fail with "Lookup error".
    printf '127.0.0.1\tlocalhost\n127.0.1.1\tblectl-e2e\n::1\tlocalhost ip6-localhost ip6-loopback\n' \
      > "$R/etc/hosts"
    # Nothing on the console to log in to, and no timers doing work of their own mid-test.
    for unit in serial-getty@ttyS0.service getty@tty1.service apt-daily.timer apt-daily-upgrade.timer \
        e2scrub_all.timer e2scrub_reap.service fstrim.timer; do
      ln -sf /dev/null "$R/etc/systemd/system/$unit"
    done
    cat > "$R/usr/local/sbin/blectl-e2e" <<'ENTRY'
#!/bin/sh
# Runs the scratch dir's guest/systemd-main.sh (kernel argument e2e_w=, the 9p share).
for kv in $(cat /proc/cmdline); do
  case "$kv" in e2e_w=*) exec /bin/sh "${kv#e2e_w=}/guest/systemd-main.sh";; esac
done
echo "blectl-e2e: no e2e_w= on the kernel command line"; systemctl poweroff --force --force
ENTRY
    chmod 0755 "$R/usr/local/sbin/blectl-e2e"
    cat > "$R/etc/systemd/system/blectl-e2e.service" <<'UNIT'
[Unit]
Description=blectl end-to-end tests under systemd (run-e2e.sh --systemd)
After=multi-user.target

[Service]
Type=simple
ExecStart=/usr/local/sbin/blectl-e2e
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
UNIT
    mkdir -p "$R/etc/systemd/system/multi-user.target.wants"
    ln -sf /etc/systemd/system/blectl-e2e.service "$R/etc/systemd/system/multi-user.target.wants/"
    mkfs.ext4 -q -F -L blectl-e2e -d "$R" "$IMAGE.tmp" 2G && mv "$IMAGE.tmp" "$IMAGE" \
      || setup_error "mkfs.ext4 of the guest's root failed"
    rm -rf "$R"
  fi
fi

# ------------------------------------------------------------- 4. initramfs
# busybox + modules for the 9p root and the Bluetooth stack, in dependency
# order (insmod from RAM: much faster than modprobe over 9p under TCG). drbg and
# its helpers must come before ecdh_generic (its self-test needs an RNG); ecb,
# cmac, algif_*: AF_ALG crypto btvirt needs ("Failed to open Virtual HCI device");
# bnep: bluetoothd opens a BNEP socket at start and would otherwise wait for an
# on-demand modprobe over 9p. virtio_blk, ext4: the systemd guest's root image.
INITRD_MODS="virtio_pci 9pnet_virtio 9p virtio_rng sha3_generic jitterentropy_rng
  sha512_generic ctr drbg ecb cmac algif_skcipher algif_hash hci_vhci bnep virtio_blk ext4"
INITRD=$B/initramfs-$KVER.cpio.gz
if [ ! -f "$INITRD" ] || [ "$HERE/guest/init" -nt "$INITRD" ] || [ "$0" -nt "$INITRD" ]; then
  say "building the initramfs"
  R=$B/initramfs; rm -rf "$R"; mkdir -p "$R"/{bin,dev,proc,sys,newroot,modules}
  cp /bin/busybox "$R/bin/busybox" && cp "$HERE/guest/init" "$R/init" && chmod +x "$R/init" \
    || setup_error "initramfs: busybox/init copy failed"
  : > "$R/modules.order"
  for m in $INITRD_MODS; do
    modprobe -d "$B/kroot" -S "$KVER" --show-depends "$m" | awk '/^insmod/{print $2}'
  done | awk '!seen[$0]++' | while read -r ko; do
    cp "$ko" "$R/modules/" && basename "$ko" >> "$R/modules.order"
  done
  grep -q hci_vhci "$R/modules.order" || setup_error "initramfs: hci_vhci module not found"
  (cd "$R" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1 > "$INITRD.tmp") \
    && mv "$INITRD.tmp" "$INITRD" || setup_error "initramfs: cpio failed"
fi

# ------------------------------------------------------------- 5. one guest, all scenarios
RUN_ID=$(date +%Y%m%d-%H%M%S)-$$
OUT=$W/out/$RUN_ID
# keep the logs of the 10 newest earlier runs only
ls -1d "$W"/out/2* 2>/dev/null | sort | head -n -10 | xargs -r rm -rf
mkdir -p "$OUT"; ln -sfn "$RUN_ID" "$W/out/last"
DRIVER_ARGS="--central $CENTRAL --scenarios $SCENARIOS $DRIVER_EXTRA"
[ "$CENTRAL" = blectl ] && DRIVER_ARGS="$DRIVER_ARGS --bin-dir $W/bin"
# The systemd guest boots systemd from its image (e2e_root=) and has a watchdog to wait out.
ROOT_ARGS="" ROOT_DRIVE=""
if [ "$SYSTEMD" = 1 ]; then
  ROOT_ARGS="e2e_root=/dev/vda" ROOT_DRIVE="-drive file=$IMAGE,if=virtio,format=raw,snapshot=on"
fi
# 12 in the default list (issue 36) made it up to a minute longer: 60 s more than before
VM_TIMEOUT=${VM_TIMEOUT:-$([ "$SYSTEMD" = 1 ] && echo 600 || echo 540)}
DRIVER_TIMEOUT=${DRIVER_TIMEOUT:-$([ "$SYSTEMD" = 1 ] && echo 480 || echo 460)}
{ echo "DRIVER_ARGS='$DRIVER_ARGS'"; echo "DRIVER_TIMEOUT=$DRIVER_TIMEOUT"; } > "$OUT/guest.env"
say "booting $KVER under qemu (tcg, ${VM_TIMEOUT}s limit); central: $CENTRAL; logs: $OUT"
show() { if [ "$QUIET" = 1 ]; then cat > /dev/null; else cat; fi; }
# qemu is killed at VM_TIMEOUT by timeout(1), and by these traps if the script
# itself ends early (Ctrl-C, the CI job killed): timeout(1) puts qemu in its own
# process group, out of reach of the terminal's signals. The VM runs as a
# background job so that `wait` (unlike a foreground pipeline) lets the traps run.
# shellcheck disable=SC2317  # called from the traps below
kill_qemu() {
  local pid
  pid=$(cat "$OUT/qemu.pid" 2>/dev/null) || return 0
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = qemu-system-x86 ] && kill -KILL "$pid" 2>/dev/null
  return 0
}
trap kill_qemu EXIT
trap 'say "interrupted: killing qemu (logs: $OUT)"; kill_qemu; exit 2' INT TERM HUP
boot_vm() {
  (
    timeout -k 10 "$VM_TIMEOUT" qemu-system-x86_64 -accel tcg,thread=multi -pidfile "$OUT/qemu.pid" \
      -smp "$(nproc)" -m "${MEM_MB:-1024}" -nographic -no-reboot -nic none \
      -kernel "$KERNEL" -initrd "$INITRD" \
      -append "console=ttyS0 panic=1 loglevel=4 e2e_w=$W e2e_out=$OUT no_timer_check $ROOT_ARGS" $ROOT_DRIVE \
      -fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap \
      -device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
      -fsdev local,id=work,path="$W",security_model=none,multidevs=remap \
      -device virtio-9p-pci,fsdev=work,mount_tag=work \
      -device virtio-rng-pci \
      < /dev/null 2>&1 | sed -u 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g; s/\r$//' \
      | tee "$OUT/console.log" | show
    exit "${PIPESTATUS[0]}"
  ) &
  VM_JOB=$!
}
# Boot watchdog: the kernel's first words ("Probing EDD") come within seconds; the
# initramfs's "[init]" line at 2-5 s, 20 s on a loaded host. Once in about 25 runs qemu's
# TCG spun (175 % CPU) between SeaBIOS's "Booting from ROM..." and the kernel, printing
# nothing for its whole 480 s. A VM that has not reached "[init]" in BOOT_TIMEOUT is
# killed and booted again (its console kept), at most BOOT_ATTEMPTS times.
BOOT_TIMEOUT=${BOOT_TIMEOUT:-60}
BOOT_ATTEMPTS=${BOOT_ATTEMPTS:-3}
# The last run's logs, pass or fail, compressed where the summary says.
LAST_LOGS=$W/last-run.tar.gz
keep_last_run() {
  tar -C "$W/out" -czf "$LAST_LOGS.tmp" "$RUN_ID" 2>/dev/null && mv "$LAST_LOGS.tmp" "$LAST_LOGS"
}
booted() {
  local waited=0
  while [ "$waited" -lt "$BOOT_TIMEOUT" ]; do
    grep -q '^\[init\]' "$OUT/console.log" 2>/dev/null && return 0
    kill -0 "$VM_JOB" 2>/dev/null || return 0  # qemu ended: the verdict below tells why
    sleep 1
    waited=$((waited + 1))
  done
  return 1
}
BOOTS=0
for attempt in $(seq 1 "$BOOT_ATTEMPTS"); do
  BOOTS=$attempt
  boot_vm
  booted && break
  say "qemu did not reach the guest's init in ${BOOT_TIMEOUT}s (boot attempt $attempt of $BOOT_ATTEMPTS)"
  kill_qemu
  wait "$VM_JOB" 2>/dev/null
  mv "$OUT/console.log" "$OUT/console-stalled-$attempt.log"
  if [ "$attempt" = "$BOOT_ATTEMPTS" ]; then
    keep_last_run
    setup_error "the VM never booted; retries: qemu boots $((BOOTS - 1)); logs: $LAST_LOGS"
  fi
done
wait "$VM_JOB"
QRC=$?
[ "$QRC" = 124 ] || [ "$QRC" = 137 ] && say "qemu killed after ${VM_TIMEOUT}s"

# ------------------------------------------------------------- 6. verdict
echo "================================================================ blectl e2e ($CENTRAL)"
GRC=$(cut -d' ' -f1 "$OUT/guest.rc" 2>/dev/null)
BTVIRT=$(cat "$OUT/btvirt.attempts" 2>/dev/null || echo 0)
VERDICT=$(/usr/bin/python3 - "$OUT" "$GRC" "$BOOTS" "$BTVIRT" "$(elapsed)" <<'EOF'
import json, sys
out, grc, boots, btvirt, wall = sys.argv[1:6]
try:
    r = json.load(open(out + "/results.json"))
except (OSError, ValueError):
    r = {"results": [], "status": "SETUP", "retries": {}}
    print("  no results.json: the guest crashed, hung or was killed (see console.log)")
for x in r["results"]:
    extra = ""
    if "recovery_s" in x:
        extra = "  [recovery %.2f s]" % x["recovery_s"]
    print("  %-4s %-32s %s%s" % (x["status"], x["name"], x.get("detail", ""), extra))
kinds = [x["status"] for x in r["results"]]
if "FAIL" in kinds or r["status"] == "FAIL":
    code = 1                        # the daemon under test failed something
elif r["status"] in ("SETUP", "RIG") or "RIG" in kinds or grc != "0":
    code = 2                        # the rig failed; the daemon failed nothing
else:
    code = 0
retries = {"qemu boots": max(int(boots) - 1, 0), "btvirt starts": max(int(btvirt) - 1, 0)}
retries.update(r.get("retries", {}))
checks = [k for k in kinds if k != "INFO"]
summary = {"code": code, "passed": checks.count("PASS"), "checks": len(checks),
           "retries": retries, "wall_s": float(wall), "suite_s": r.get("suite_s"),
           "results": r["results"]}
json.dump(summary, open(out + "/summary.json", "w"), indent=1)
print("  suite %s s in the guest" % r.get("suite_s"))
security = (r.get("security") or {}).get("unit")
if security:    # the systemd guest: the installed unit's rating, as systemd-analyze prints it
    summary["security"] = r["security"]
    json.dump(summary, open(out + "/summary.json", "w"), indent=1)
    print("  systemd-analyze security blectld.service: %s" % security["line"])
    print("SECURITY %.1f %s" % (security["exposure"], security["verdict"]))
print("RETRIES " + ", ".join("%s %d" % kv for kv in retries.items()))
print("COUNT %d of %d checks passed" % (summary["passed"], summary["checks"]))
print("VERDICT %d" % code)
EOF
)
echo "$VERDICT" | grep -v '^VERDICT\|^RETRIES\|^COUNT\|^SECURITY'
RC=$(echo "$VERDICT" | awk '/^VERDICT/{print $2}')
RC=${RC:-2}
RETRIES=$(echo "$VERDICT" | sed -n 's/^RETRIES //p')
COUNT=$(echo "$VERDICT" | sed -n 's/^COUNT //p')
SECURITY=$(echo "$VERDICT" | sed -n 's/^SECURITY //p')
echo "  total wall time: $(elapsed)s"
keep_last_run
cp "$OUT/summary.json" "$W/last-summary.json" 2>/dev/null
WHAT=$(case "$RC" in 0) echo PASS;; 1) echo FAIL;; *) echo "RIG ERROR";; esac)
if [ "$RC" != 0 ] || [ "$KEEP" = 1 ]; then
  echo "  guest logs kept in $OUT:"
  if [ "$SYSTEMD" = 1 ]; then
    echo "    driver.log console.log journal.txt (the guest's whole journal) commands.log units.txt"
    echo "    systemd-analyze-security.txt"
    echo "    dbus-monitor.log peripheral-A.log dmesg.txt"
  else
    echo "    driver.log console.log bluetoothd.log (-d) dbus-monitor.log watch.log cli.log"
    echo "    $( [ "$CENTRAL" = blectl ] && echo blectld.log || echo standin-central.log ) peripheral-A.log peripheral-B.log dmesg.txt"
  fi
else
  rm -rf "$OUT"
fi
# The summary: the verdict, the count, every retry, where the logs are.
echo "$WHAT: ${COUNT:-no checks ran}; retries: ${RETRIES:-unknown};${SECURITY:+ systemd-analyze security: $SECURITY;} logs: $LAST_LOGS"
exit "$RC"
