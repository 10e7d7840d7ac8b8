import Central
import Glibc
import MQTTOutput
import SensorModel
import ConcurrencySupport
import UnixSupport

/// The gateway's own CPU temperature as a device of its own (`host_cpu = yes`): read from a
/// Linux thermal zone on a timer, reported as every thermometer's reading is (profile
/// `host-cpu`), so it reaches the socket, the history and MQTT.
///
/// Its address is a stable pseudo-address: the first six bytes of `/etc/machine-id` with
/// the locally administered bit set and the multicast bit clear (`x2:…`), so history and
/// MQTT ids survive restarts and differ between machines.
actor HostCPUSource: SensorSource {
    nonisolated var sourceName: String { "host CPU" }
    nonisolated let executor: EventLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    let zone: ThermalZone
    let address: BluetoothAddress
    let name: String
    let interval: Duration
    let report: @Sendable (SensorEvent) -> Void
    private var timer: LoopTimer?

    init(
        zone: ThermalZone, address: BluetoothAddress, name: String, interval: Duration, executor: EventLoop,
        report: @escaping @Sendable (SensorEvent) -> Void
    ) {
        self.zone = zone
        self.address = address
        self.name = name
        self.interval = interval
        self.executor = executor
        self.report = report
    }

    /// Finds the thermal zone (`setting`: `auto` or a zone's directory) to read every
    /// `interval` once started; nil, after saying why in the log, when there is no zone to read.
    static func make(
        zone setting: String, interval: Duration, executor: EventLoop, log: Log,
        report: @escaping @Sendable (SensorEvent) -> Void
    ) -> HostCPUSource? {
        guard let zone = ThermalZone.find(setting) else {
            log.warning(
                setting == "auto"
                    ? "host_cpu: this machine has no thermal zone in \(ThermalZone.root): no host CPU device"
                    : "host_cpu: \(setting) is not a thermal zone (no temp file): no host CPU device")
            return nil
        }
        let address = machineAddress()
        let source = HostCPUSource(
            zone: zone, address: address, name: MQTTOutput.hostName() + " CPU", interval: interval,
            executor: executor, report: report)
        log.notice("host_cpu: \(zone.directory) (\(zone.type ?? "no type")) as \(address), every \(interval)")
        return source
    }

    /// Reads the zone now, then every `interval`.
    func start() {
        tick()
    }

    /// Stops the timer.
    func shutdown() {
        timer?.cancel()
        timer = nil
    }

    private func tick() {
        report(sample())
        timer = executor.schedule(after: interval) { [weak self] in
            self?.assumeIsolated { $0.tick() }
        }
    }

    /// One reading of the zone, or why there is none.
    func sample() -> SensorEvent {
        switch zone.read() {
        case .success(let measurement): .reading(address, name: name, measurement)
        case .failure(let error): .readingError(address, name: name, error)
        }
    }

    /// The pseudo-address of this machine (see the type's documentation); `02:00:00:00:00:01`
    /// when `/etc/machine-id` cannot be read.
    static func machineAddress(machineID path: String = "/etc/machine-id") -> BluetoothAddress {
        let text = ((try? readTextFile(path, limit: 4096)) ?? nil) ?? ""
        let hex = Array(text.utf8.prefix(12))
        guard hex.count == 12, let value = UInt64(String(decoding: hex, as: UTF8.self), radix: 16) else {
            return BluetoothAddress(value: 0x0200_0000_0001)
        }
        // First byte: locally administered (bit 1) and unicast (bit 0 clear).
        return BluetoothAddress(value: value & ~(UInt64(0x03) << 40) | UInt64(0x02) << 40)
    }
}

/// A Linux thermal zone: a directory with `temp` (millidegrees Celsius) and `type`.
struct ThermalZone: Sendable, Equatable {
    /// Where the kernel lists thermal zones.
    static let root = "/sys/class/thermal"

    let directory: String
    let type: String?

    /// The zone `setting` names: `auto` picks, among `root`'s `thermal_zone*`, the first whose
    /// type names a CPU or SoC (`cpu-thermal` on a Pi, `x86_pkg_temp`), else the first; a
    /// directory is taken as it is if it has a `temp` file.
    static func find(_ setting: String, root: String = root) -> ThermalZone? {
        guard setting == "auto" else {
            return exists(setting + "/temp") ? ThermalZone(directory: setting, type: readType(setting)) : nil
        }
        let zones = listZones(root).map { ThermalZone(directory: root + "/" + $0, type: readType(root + "/" + $0)) }
        let cpu = zones.first { zone in
            let type = zone.type?.lowercased() ?? ""
            return ["cpu", "soc", "x86_pkg_temp"].contains { type.contains($0) }
        }
        return cpu ?? zones.first
    }

    /// The temperature now.
    func read() -> Result<Measurement, ReadingError> {
        let text: String
        do {
            guard let contents = try readTextFile(directory + "/temp", limit: 64) else {
                return .failure(ReadingError(.empty, raw: [], detail: "\(directory)/temp is gone"))
            }
            text = contents
        } catch {
            return .failure(ReadingError(.empty, raw: [], detail: "\(error)"))
        }
        return HostCPUProfile.decode(text, path: directory + "/temp")
    }

    private static func readType(_ directory: String) -> String? {
        ((try? readTextFile(directory + "/type", limit: 256)) ?? nil).map(\.withoutSpaceAround)
    }

    private static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// `thermal_zone<N>` entries, in numeric order.
    private static func listZones(_ root: String) -> [String] {
        guard let directory = opendir(root) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix("thermal_zone"), Int(name.dropFirst("thermal_zone".count)) != nil { names.append(name) }
        }
        return names.sorted { Int($0.dropFirst(12))! < Int($1.dropFirst(12))! }
    }
}

extension String {
    /// The text without white space (newlines too: sysfs files end with one) at either end.
    fileprivate var withoutSpaceAround: String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(self[first...last])
    }
}
