import SensorModel
import ThermometerProfiles

/// One subscribed temperature characteristic.
struct ThermometerStream {
    let address: BluetoothAddress
    let profile: any ThermometerProfile
    var lastValue: ContinuousClock.Instant
    /// Values delivered so far, so a read can tell whether any arrived while it ran.
    var received = 0
    /// The connect-time read's echo, dropped (``ConnectEcho``).
    var connectEcho = ConnectEcho()

    /// Counts a value that arrived at `now`; true when it is the connect-time read's echo,
    /// which is not reported (it still counts as data for the watchdog and for a read
    /// running meanwhile).
    mutating func receive(_ bytes: [UInt8], at now: ContinuousClock.Instant) -> Bool {
        lastValue = now
        received &+= 1
        return connectEcho.isEcho(bytes, at: now)
    }
}
