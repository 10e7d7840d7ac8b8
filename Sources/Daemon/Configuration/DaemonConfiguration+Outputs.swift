import HistoryStore
import HTTPOutput
import ReadingHub
import SocketOutput

extension Hub.Limits {
    /// The defaults with the configured scan length.
    init(configuration: DaemonConfiguration) {
        self.init()
        defaultScan = configuration.scanTimeout
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

extension HTTPOutput.Configuration {
    /// The configured address; nil when no HTTP is configured.
    init?(configuration: DaemonConfiguration) {
        guard let address = configuration.httpListen else { return nil }
        self.init(address: address)
        maxConnections = configuration.httpMaxConnections
    }
}
