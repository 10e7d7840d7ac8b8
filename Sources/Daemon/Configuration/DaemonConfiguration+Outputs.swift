import Central
import Glibc
import HistoryStore
import HTTPOutput
import MQTTOutput
import ReadingHub
import SocketOutput
import UnixSupport

// The outputs' factories: each builds its output from its own settings in the
// configuration (adding an output is its module, its settings' table in the configuration
// and a factory here, listed in `DaemonService.init`).

extension HistoryStore {
    /// The history store in `stateDirectory`, unless `history = no`.
    static func configured(by configuration: DaemonConfiguration, stateDirectory: String, log: Log)
        throws(HistoryStoreError) -> HistoryStore?
    {
        guard configuration.history else { return nil }
        // The file, named in full: a state directory that does not exist yet is made. An
        // upgrade of an old file keeps asking systemd for more time to start (each batch of
        // rows takes well under a second, even on a Raspberry Pi).
        let notifier = SystemdNotifier()
        return try open(
            path: stateDirectory + "/" + fileName, configuration: configuration.historyStore, log: log,
            upgradeProgress: { copied, total in
                try? notifier.extendTimeout(
                    by: .seconds(60), status: "upgrading the history database: \(copied) of \(total) rows")
            })
    }
}

extension SocketServer {
    /// The Unix socket server, answering through `hub`, on `inheritedListener` when systemd
    /// passed one.
    static func configured(by configuration: DaemonConfiguration, hub: Hub, log: Log, inheritedListener: Int32?)
        -> SocketServer
    {
        SocketServer(
            configuration: configuration.socket, handler: RequestDispatcher(hub: hub), log: log,
            eventLoop: hub.executor,
            inheritedListener: inheritedListener)
    }
}

extension HTTPOutput {
    /// The HTTP output `http_listen` asks for; nil without one.
    static func configured(by configuration: DaemonConfiguration, hub: Hub, log: Log) -> HTTPOutput? {
        Configuration(settings: configuration.http).map { HTTPOutput(configuration: $0, hub: hub, log: log) }
    }
}

extension MQTTOutput {
    /// The MQTT output `mqtt_url` asks for, checked (a bad setting is exit 78); nil without one.
    static func configured(by configuration: DaemonConfiguration, stateDirectory: String, log: Log)
        throws(MQTTConfigurationError) -> MQTTOutput?
    {
        guard var mqtt = Configuration(settings: configuration.mqtt, hostName: hostName()) else { return nil }
        mqtt.stateDirectory = stateDirectory
        return try MQTTOutput(configuration: mqtt, sensors: KnownSensors.catalog, log: log)
    }

    /// The host name, the default gateway name.
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "blectl" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "blectl" : name
    }
}
