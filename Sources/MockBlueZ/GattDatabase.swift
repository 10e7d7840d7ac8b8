import DBusCore

/// 128-bit UUIDs as BlueZ prints them (lowercase, 16-bit ones expanded).
enum GattUUID {
    /// A Bluetooth SIG 16-bit UUID in its full form.
    static func sig(_ short: UInt16) -> String {
        "0000" + hexByte(Int(short >> 8)).lowercased() + hexByte(Int(short & 0xFF)).lowercased()
            + "-0000-1000-8000-00805f9b34fb"
    }

    static let clientConfiguration = sig(0x2902)
    static let userDescription = sig(0x2901)

    /// The thermometer's service and characteristics in one spelling.
    static func thermometer(_ number: Int, _ spelling: MockUUIDSpelling) -> String {
        "0000000\(number)-" + spelling.suffix
    }
}

/// What a characteristic's value is made of.
enum CharacteristicContent: Sendable, Equatable {
    /// The Pi's temperature text, `"112.5 F"`.
    case temperature
    /// The Pi's unit letter.
    case unit
    /// A fixed value.
    case fixed([UInt8])
    /// A value that cannot be read (Service Changed: indicate only).
    case unreadable
    /// A heart-rate measurement: flags byte, then beats per minute.
    case heartRate
    /// A memory sensor's command characteristic (pvvx 0x1F1F): the last answer.
    case memoryCommand
    /// A stock-firmware memory sensor's characteristic of service ebe0ccb0.
    case stockMemory(StockMemoryGatt.Role)
    case thermoProClock
    /// A thermometer's Current Time (0x2A2B): its clock.
    case currentTime
    /// Its Local Time Information (0x2A0F): the clock's zone.
    case localTimeInformation
}

/// What a descriptor holds.
enum DescriptorContent: Sendable, Equatable {
    /// Client Characteristic Configuration: notifications/indications on or off for this link.
    case clientConfiguration
    /// A Characteristic User Description.
    case text(String)
}

/// A descriptor of the peripheral's GATT database.
struct GattDescriptorNode: Sendable, Equatable {
    var handle: UInt16
    var uuid: String
    var content: DescriptorContent
}

/// A characteristic of the peripheral's GATT database.
struct GattCharacteristicNode: Sendable, Equatable {
    /// The declaration handle (BlueZ names the object after it).
    var handle: UInt16
    var uuid: String
    /// BlueZ's flag names in BlueZ's order (read, write-without-response, write, notify, indicate).
    var flags: [String]
    var content: CharacteristicContent
    var descriptors: [GattDescriptorNode]
    /// The value bluetoothd already cached while discovering (it reads the database hash and
    /// the server features itself); nil: `Value` starts empty.
    var discoveredValue: [UInt8]?

    var canNotify: Bool { flags.contains("notify") || flags.contains("indicate") }
}

/// A service of the peripheral's GATT database.
struct GattServiceNode: Sendable, Equatable {
    var handle: UInt16
    var uuid: String
    /// Whether bluetoothd exports it: it claims the GAP service (0x1800) for itself.
    var exported: Bool
    var characteristics: [GattCharacteristicNode]
    /// Whether it belongs to the peripheral's GATT application (goes away when the app restarts).
    var isApplication: Bool
}

/// A peripheral's GATT database, with the handles a BlueZ 5.66 peripheral gives it.
///
/// bluetoothd's own services take handles 0x0001–0x0014 (GAP, GATT with Service Changed,
/// Client Supported Features, Database Hash, Server Supported Features, Device Information
/// with PnP ID); registered applications follow from `applicationBase` on, which grows
/// each time the application registers again (handles are never reused).
struct GattDatabase: Sendable, Equatable {
    var services: [GattServiceNode]

    static let firstApplicationHandle: UInt16 = 0x0015

    /// The database of `peripheral` with its application at `applicationBase`; nil when the
    /// application is not registered (between a restart's removal and re-registration).
    static func of(_ peripheral: MockPeripheral, applicationBase: UInt16, applicationUp: Bool = true) -> GattDatabase {
        var builder = Builder(next: 0x0001)
        builder.service(GattUUID.sig(0x1800), exported: false) { b in
            b.characteristic(GattUUID.sig(0x2A00), ["read"], .fixed(Array((peripheral.gapName ?? "").utf8)))
            b.characteristic(GattUUID.sig(0x2A01), ["read"], .fixed([0x00, 0x00]))
        }
        builder.next = 0x0008
        var hashSlot = 0
        builder.service(GattUUID.sig(0x1801)) { b in
            b.characteristic(GattUUID.sig(0x2A05), ["indicate"], .unreadable)
            b.characteristic(GattUUID.sig(0x2B29), ["read", "write"], .fixed([0x00]))
            hashSlot = b.characteristics.count
            b.characteristic(GattUUID.sig(0x2B2A), ["read"], .fixed([]), discovered: true)
            b.characteristic(GattUUID.sig(0x2B3A), ["read"], .fixed([0x01]), discovered: true)
        }
        // PnP ID: USB source, Linux Foundation (0x1D6B), product 0x0246, version 5.66.
        builder.service(GattUUID.sig(0x180A)) { b in
            b.characteristic(GattUUID.sig(0x2A50), ["read"], .fixed([0x02, 0x6B, 0x1D, 0x46, 0x02, 0x42, 0x05]))
        }
        if applicationUp {
            builder.next = max(applicationBase, builder.next)
            builder.application(peripheral)
        }
        var database = GattDatabase(services: builder.services)
        // The Database Hash changes with the layout; derive it from the handles and UUIDs.
        let hash = database.layoutHash()
        database.services[1].characteristics[hashSlot].content = .fixed(hash)
        database.services[1].characteristics[hashSlot].discoveredValue = hash
        return database
    }

    /// The handle after the application's last attribute (where the next registration starts).
    var endHandle: UInt16 {
        var last: UInt16 = 0
        for service in services {
            last = max(last, service.handle)
            for characteristic in service.characteristics {
                last = max(last, characteristic.handle + 1)
                for descriptor in characteristic.descriptors { last = max(last, descriptor.handle) }
            }
        }
        return last + 1
    }

    /// The exported services of `self` that `other` lacks (a service is the same when its handle
    /// and UUID are: a changed Database Hash value does not make the GATT service new).
    func exportedServices(missingFrom other: GattDatabase?) -> [GattServiceNode] {
        services.filter { service in
            service.exported
                && !(other?.services.contains { $0.handle == service.handle && $0.uuid == service.uuid } ?? false)
        }
    }

    /// The UUIDs of the primary services, sorted as `Device1.UUIDs` lists them.
    var serviceUUIDs: [String] { Array(Set(services.map(\.uuid))).sorted() }

    private func layoutHash() -> [UInt8] {
        var state: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ bytes: some Sequence<UInt8>) {
            for byte in bytes {
                state ^= UInt64(byte)
                state = state &* 0x0000_0100_0000_01b3
            }
        }
        for service in services {
            mix([UInt8(service.handle >> 8), UInt8(service.handle & 0xFF)])
            mix(service.uuid.utf8)
            for characteristic in service.characteristics {
                mix([UInt8(characteristic.handle & 0xFF)])
                mix(characteristic.uuid.utf8)
            }
        }
        var generator = SplitMix64(seed: state)
        return (0..<16).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    }

    /// Allocates handles in the order a GATT server does: service, then per characteristic its
    /// declaration, value, CCC (for notify/indicate) and other descriptors.
    private struct Builder {
        var next: UInt16
        var services: [GattServiceNode] = []
        var characteristics: [GattCharacteristicNode] = []

        mutating func service(
            _ uuid: String, exported: Bool = true, application: Bool = false, _ body: (inout Builder) -> Void
        ) {
            let handle = next
            next += 1
            characteristics = []
            body(&self)
            services.append(
                GattServiceNode(
                    handle: handle, uuid: uuid, exported: exported, characteristics: characteristics,
                    isApplication: application))
        }

        mutating func characteristic(
            _ uuid: String, _ flags: [String], _ content: CharacteristicContent, descriptions: [String] = [],
            discovered: Bool = false
        ) {
            let handle = next
            next += 2
            var descriptors: [GattDescriptorNode] = []
            if flags.contains("notify") || flags.contains("indicate") {
                descriptors.append(
                    GattDescriptorNode(handle: next, uuid: GattUUID.clientConfiguration, content: .clientConfiguration))
                next += 1
            }
            for text in descriptions {
                descriptors.append(
                    GattDescriptorNode(handle: next, uuid: GattUUID.userDescription, content: .text(text)))
                next += 1
            }
            var value: [UInt8]?
            if discovered, case .fixed(let bytes) = content { value = bytes }
            characteristics.append(
                GattCharacteristicNode(
                    handle: handle, uuid: uuid, flags: flags, content: content, descriptors: descriptors,
                    discoveredValue: value))
        }

        mutating func application(_ peripheral: MockPeripheral) {
            switch peripheral.kind {
            case .piThermometer(let thermometer):
                let spelling = thermometer.spelling
                service(GattUUID.thermometer(1, spelling), application: true) { b in
                    b.characteristic(
                        GattUUID.thermometer(2, spelling), ["read", "notify"], .temperature,
                        descriptions: ["CPU Temperature"])
                    b.characteristic(
                        GattUUID.thermometer(3, spelling), ["read", "write"], .unit,
                        descriptions: ["Temperature Units (F or C)"])
                }
                if thermometer.currentTime != nil {
                    service(GattUUID.sig(0x1805), application: true) { b in
                        b.characteristic(GattUUID.sig(0x2A2B), ["read", "write"], .currentTime)
                        b.characteristic(GattUUID.sig(0x2A0F), ["read", "write"], .localTimeInformation)
                    }
                }
            case .heartRateStrap:
                service(GattUUID.sig(0x180D), application: true) { b in
                    b.characteristic(GattUUID.sig(0x2A37), ["notify"], .heartRate)
                    b.characteristic(GattUUID.sig(0x2A38), ["read"], .fixed([0x01]))
                }
                service(GattUUID.sig(0x180F), application: true) { b in
                    b.characteristic(GattUUID.sig(0x2A19), ["read", "notify"], .fixed([0x5A]))
                }
            case .advertiser(let advertiser) where advertiser.memory?.isXiaomiStock == true:
                service(StockMemoryGatt.serviceUUID, application: true) { b in
                    for characteristic in StockMemoryGatt.characteristics {
                        b.characteristic(characteristic.uuid, characteristic.flags, .stockMemory(characteristic.role))
                    }
                }
            case .advertiser(let advertiser) where advertiser.memory?.firmware == .thermoProClock:
                service(ThermoProClockGatt.serviceUUID, application: true) { b in
                    b.characteristic(
                        ThermoProClockGatt.clockUUID, ["write-without-response", "write"], .thermoProClock)
                }
            case .advertiser(let advertiser) where advertiser.memory != nil:
                service(MemorySensorGatt.serviceUUID, application: true) { b in
                    b.characteristic(
                        MemorySensorGatt.characteristicUUID, ["read", "write-without-response", "notify"],
                        .memoryCommand)
                }
            case .beacon, .advertiser:
                break
            }
        }
    }
}

/// Object paths of a GATT database under a device, as BlueZ names them (`service0015/char0016/desc0018`).
enum GattPaths {
    static func service(_ device: ObjectPath, _ service: GattServiceNode) -> ObjectPath {
        device.appending("service" + hex4(service.handle))!
    }

    static func characteristic(_ service: ObjectPath, _ characteristic: GattCharacteristicNode) -> ObjectPath {
        service.appending("char" + hex4(characteristic.handle))!
    }

    static func descriptor(_ characteristic: ObjectPath, _ descriptor: GattDescriptorNode) -> ObjectPath {
        characteristic.appending("desc" + hex4(descriptor.handle))!
    }

    private static func hex4(_ value: UInt16) -> String {
        (hexByte(Int(value >> 8)) + hexByte(Int(value & 0xFF))).lowercased()
    }
}
