// The kernel's view of the wall clock, through the CLinux shim (adjtimex(2)).
import CLinux

/// The gateway's wall clock as the kernel keeps it.
public enum SystemClock {
    /// Whether the kernel says the clock is synchronised (`adjtimex` status without
    /// `STA_UNSYNC`): an NTP client or systemd-timesyncd set it. False when it cannot tell.
    public static func isSynchronized() -> Bool {
        clinux_clock_synchronized() == 1
    }
}
