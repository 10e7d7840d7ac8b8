import BlectlProtocol
import SensorModel

/// Every section blectld sets today, each with its fields filled (and some left null).
enum StatusSectionSamples {
    static let time = Timestamp(rfc3339: "2026-11-30T01:02:03.456Z")!

    static let history = HistoryStatus(
        path: "/var/lib/blectl/history.sqlite3", state: .degraded, reason: "disk full", rows: 11, oldest: time,
        bytes: 475_136, pending: 1, dropped: 0, committedSeq: 11)
    static let mqtt = MQTTStatus(
        broker: "mqtt://broker.lan:1883", clientID: "blectl-kitchen", gateway: "kitchen", state: .connected,
        since: time, ackedSeq: 1840, backlog: 2, published: 1840, connectAttempts: 1)
    static let socket = SocketStatus(clients: 2)
    static let advertisements: AdvertisementStatus = {
        var heard = AdvertisementStatus.Sensor(
            address: "A4:C1:38:AD:00:01", profile: "bthome", readings: 427, lostPackets: 3, staleAfter: 60, lost: false)
        heard.lastHeard = time
        heard.interval = 0.5
        heard.countedBy = "counter"
        (heard.received, heard.missed, heard.receivedLastHour, heard.missedLastHour) = (427, 3, 427, 3)
        heard.ratioLastHour = 0.993
        heard.adapters = [AdapterHearing(adapter: "hci0", rssi: -61, lastHeard: time)]
        let lost = AdvertisementStatus.Sensor(
            address: "A4:C1:38:AD:00:02", profile: nil, readings: 0, lostPackets: 0, staleAfter: 60, lost: true)
        return AdvertisementStatus(
            scanMode: "active", advertisements: 5120, readings: 2561, duplicates: 2559, lostPackets: 3, errors: 0,
            forgotten: 0, sensors: [heard, lost])
    }()
    static let scanWatchdog = ScanWatchdogStatus(
        periodSeconds: 90, adapterReset: false, discoveryRestarts: 2, powerCycles: 1, recoveries: 2,
        lastStep: "power_cycle", lastRecoveredBy: "power_cycle")
    static let sensorMemory: [SensorMemoryStatus] = {
        var sensor = SensorMemoryStatus(address: "A4:C1:38:00:00:05")
        sensor.downloads = 2
        sensor.lastDownload = time
        sensor.lastResult = "finished"
        sensor.stored = 40
        sensor.connectedSeconds = 4.5
        sensor.clockDriftSeconds = -3
        return [sensor]
    }()
    static let calibration = [CalibrationOffset(address: "A4:C1:38:00:00:01", quantity: "temperature", offset: 0.3)]
    static let adapters = [
        AdapterStatus(
            name: "hci0", address: "00:1A:7D:DA:71:10", alias: "BlueZ 5.66", powered: true, discovering: true,
            devicesHeard: 12, devicesOwned: 7, connected: 2, links: 2, linkLimit: 5, primary: true, recoverySteps: 0),
        AdapterStatus(
            name: "hci1", address: nil, alias: nil, powered: false, discovering: false, devicesHeard: 0, connected: 0,
            primary: false),
    ]
    static let missingAdapters = MissingAdapters(["00:1A:7D:DA:71:99"])

    /// A status with every one of them.
    static let status: StatusResult = {
        var status = StatusResult(adapter: "hci0", state: .poweredOn, connected: [], lastSeq: 13, started: time)
        status.setSection(history)
        status.setSection(mqtt)
        status.setSection(socket)
        status.setSection(advertisements)
        status.setSection(scanWatchdog)
        status.setSection(sensorMemory)
        status.setSection(calibration)
        status.setSection(adapters)
        status.setSection(missingAdapters)
        return status
    }()
}
