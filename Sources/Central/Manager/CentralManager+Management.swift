public import BlueZClient
public import UnixSupport

/// Advertisements from the kernel's Bluetooth management socket (`advert_source`, issue 37):
/// the same ``CentralEvent/advertised(_:_:_:)`` events BlueZ's signals make, for the same
/// adapters, without a D-Bus message per advertisement.
extension CentralManager {
    /// Opens the kernel's management socket and listens to it on the central's event loop;
    /// its advertisements replace BlueZ's signals while ``reportManagementAdvertisements(_:)``
    /// says so. bluetoothd keeps running the discovery: the socket only listens.
    ///
    /// - Parameter log: where undecodable events and a failing socket are told.
    /// - Throws: ``CentralError/managementSocket(_:)`` when it cannot be opened (no Bluetooth
    ///   in the kernel, or CAP_NET_ADMIN and CAP_NET_RAW missing).
    public func listenToManagementSocket(log: Log) throws(CentralError) {
        guard management == nil else { return }
        let socket: ManagementSocket
        do {
            socket = try ManagementSocket.open()
        } catch {
            throw .managementSocket(error.description)
        }
        listen(to: socket, log: log)
    }

    /// Listens to `socket`, opened here or given (tests: ``ManagementSocket/adopting(descriptor:)``).
    public func listen(to socket: ManagementSocket, log: Log) {
        closeManagementSocket()
        socket.listen(
            on: executor,
            advertised: { [weak self] advertisement in
                self?.assumeIsolated(passing: advertisement) { $0.managementAdvertised($1) }
            },
            problem: { [weak self] error in
                self?.assumeIsolated { central in
                    central.managementErrors += 1
                    // The first is a warning; a stream of them is not repeated at that level.
                    log.log(
                        central.managementErrors == 1 ? .warning : .debug,
                        "advertisements: an undecodable management event dropped: \(error)")
                }
            },
            failed: { [weak self] reason in
                self?.assumeIsolated { central in
                    log.warning("advertisements: \(reason); listening through D-Bus from now on")
                    central.closeManagementSocket()
                }
            })
        management = socket
    }

    /// Closes the management socket; advertisements come through BlueZ's signals again.
    public func closeManagementSocket() {
        management?.stop()
        management = nil
        managementReports = false
    }

    /// Whether the management socket is open.
    public var isListeningToManagementSocket: Bool { management != nil }

    /// Reports advertisements from the management socket (`true`, when it is open) or from
    /// BlueZ's signals. The advertisement monitor asks for the socket while discovery scans
    /// actively: passive scanning hears through BlueZ's advertisement monitors, whose reports
    /// the kernel sends as other events.
    public func reportManagementAdvertisements(_ on: Bool) {
        managementReports = on && management != nil
    }

    /// Whether advertisements come from the management socket now.
    public var reportsManagementAdvertisements: Bool { managementReports }

    /// One advertisement from the socket: reported as BlueZ's would be, as heard on the
    /// adapter in use whose controller heard it (other controllers' are not ours).
    func managementAdvertised(_ advertisement: ManagementAdvertisement) {
        guard managementReports, let adapter = managementAdapters[advertisement.index],
            let path = adapter.device(advertisement.address)
        else { return }
        if ownership != nil { noteHearing(path, advertisement.update.rssi) }
        reportAdvertisement(path, advertisement.update)
    }

    /// The adapters among `paths` by controller index: `/org/bluez/hci1` is controller 1.
    static func controllerIndices(_ paths: [BlueZPath]) -> [UInt16: BlueZPath] {
        var indices: [UInt16: BlueZPath] = [:]
        for path in paths {
            let name = path.lastElement
            guard name.hasPrefix("hci"), let index = UInt16(name.dropFirst(3)) else { continue }
            indices[index] = indices[index] ?? path
        }
        return indices
    }
}
