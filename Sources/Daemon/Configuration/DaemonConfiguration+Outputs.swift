import Central
import Glibc
import HistoryStore
import HTTPOutput
import MQTTOutput
import ReadingHub
import SocketOutput
import UnixSupport

extension Hub.Limits {
    /// The defaults with the configured scan length.
    init(configuration: DaemonConfiguration) {
        self.init()
        defaultScan = configuration.scanTimeout
        peripherals = configuration.maxDevices
        aliases = configuration.aliases
    }
}

extension HistoryStore.Configuration {
    /// The configured commit interval, retention and size bound.
    init(configuration: DaemonConfiguration) {
        self.init()
        commitInterval = configuration.historyCommitInterval
        retention = configuration.historyRetention
        maxBytes = configuration.historyMaxBytes
    }
}

extension SocketServer.Configuration {
    /// The configured socket, group and limits.
    init(configuration: DaemonConfiguration) {
        self.init(path: configuration.socketPath)
        group = configuration.socketGroup
        maxClients = configuration.maxClients
        maxLineLength = configuration.maxLineLength
        maxQueuedBytes = configuration.clientQueueBytes
        maxClientsPerUser = configuration.maxClientsPerUser
        maxPendingRequestsPerUser = configuration.maxPendingRequestsPerUser
        maxQueuedBytesTotal = configuration.maxQueuedBytesTotal
    }
}

extension MQTTOutput {
    /// The MQTT output `mqtt_url` asks for, checked (a bad setting is exit 78); nil without one.
    static func configured(by configuration: DaemonConfiguration, stateDirectory: String, log: Log)
        throws(MQTTConfigurationError) -> MQTTOutput?
    {
        guard let mqtt = Configuration(configuration: configuration, stateDirectory: stateDirectory) else { return nil }
        return try MQTTOutput(configuration: mqtt, sensors: KnownSensors.catalog, log: log)
    }
}

extension MQTTOutput.Configuration {
    /// The `mqtt_*` settings; nil when no broker is configured.
    init?(configuration: DaemonConfiguration, stateDirectory: String) {
        let settings = configuration.mqtt
        guard let broker = settings.broker else { return nil }
        self.init(broker: broker, gateway: settings.gateway ?? Self.hostName())
        protocolVersion = settings.protocolVersion
        username = settings.username
        passwordFile = settings.passwordFile
        caFile = settings.caFile
        certFile = settings.certFile
        keyFile = settings.keyFile
        clientID = settings.clientID
        topicPrefix = settings.topicPrefix
        discoveryPrefix = settings.discoveryPrefix
        qos = Int32(settings.qos)
        retainState = settings.retainState
        expireAfter = settings.expireAfter
        backlogMax = settings.backlogMax
        self.stateDirectory = stateDirectory
    }

    /// The host name, the default gateway name.
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "blectl" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "blectl" : name
    }
}

extension HTTPOutput.Configuration {
    /// The configured address; nil when no HTTP is configured.
    init?(configuration: DaemonConfiguration) {
        guard let address = configuration.httpListen else { return nil }
        self.init(address: address)
        maxConnections = configuration.httpMaxConnections
    }
}
