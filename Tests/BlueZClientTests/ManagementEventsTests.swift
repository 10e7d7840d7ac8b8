@testable import BlueZClient
import ConcurrencySupport
import Glibc
import SensorModel
import TestSupport
import Testing

/// Management events built from the layout of BlueZ's doc/mgmt-api.txt (all little-endian).
enum ManagementBytes {
    /// An event: code, controller index, parameter length, parameters.
    static func event(_ code: UInt16, index: UInt16, _ parameters: [UInt8]) -> [UInt8] {
        le16(code) + le16(index) + le16(UInt16(parameters.count)) + parameters
    }

    /// Device Found (0x0012): address (little-endian), address type, RSSI, flags, data length, data.
    static func deviceFound(
        index: UInt16 = 0, address: String, type: UInt8 = 2, rssi: Int8 = -60, flags: UInt32 = 4, data: [UInt8]
    ) -> [UInt8] {
        let bytes = BluetoothAddress(address)!.bytes.reversed()
        let parameters =
            Array(bytes) + [type, UInt8(bitPattern: rssi)] + le16(UInt16(flags & 0xFFFF)) + le16(UInt16(flags >> 16))
            + le16(UInt16(data.count)) + data
        return event(0x0012, index: index, parameters)
    }

    /// One AD structure: length, type, data.
    static func structure(_ type: UInt8, _ data: [UInt8]) -> [UInt8] { [UInt8(data.count + 1), type] + data }

    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
}

@Suite("Advertisements from the kernel's management socket: decoding")
struct ManagementEventsTests {
    typealias Bytes = ManagementBytes

    /// A pvvx-like advertisement: flags, a complete name, 16-bit service data (0x181A),
    /// manufacturer data (0x0969), 32-bit and 128-bit service data.
    static let data: [UInt8] =
        Bytes.structure(0x01, [0x06]) + Bytes.structure(0x09, Array("ATC_0A0B0C".utf8))
        + Bytes.structure(0x16, [0x1A, 0x18, 0x01, 0x02, 0x03])
        + Bytes.structure(0xFF, [0x69, 0x09, 0xAA, 0xBB])
        + Bytes.structure(0x20, [0x78, 0x56, 0x34, 0x12, 0x09])
        + Bytes.structure(0x21, Array(0..<16) + [0x42])

    static func decode(_ bytes: [UInt8]) throws(ManagementDecodeError) -> ManagementAdvertisement? {
        do {
            return try bytes.withUnsafeBytes { buffer in try ManagementEvents.decode(buffer) }
        } catch let error as ManagementDecodeError {
            throw error
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test("Device Found: controller, address, type, RSSI, flags, and the fields BlueZ's properties carry")
    func deviceFound() throws {
        let advertisement = try #require(
            try Self.decode(
                Bytes.deviceFound(
                    index: 1, address: "A4:C1:38:0A:0B:0C", rssi: -71, flags: 0x0001_0004, data: Self.data)
            ))
        #expect(advertisement.index == 1)
        #expect(advertisement.address == BluetoothAddress("A4:C1:38:0A:0B:0C"))
        #expect(advertisement.addressType == 2)
        #expect(advertisement.flags == 0x0001_0004)
        let update = advertisement.update
        #expect(update.rssi == -71)
        #expect(update.name == "ATC_0A0B0C")
        #expect(update.manufacturerData == [0x0969: [0xAA, 0xBB]])
        #expect(
            update.serviceData == [
                "0000181a-0000-1000-8000-00805f9b34fb": [0x01, 0x02, 0x03],
                "12345678-0000-1000-8000-00805f9b34fb": [0x09],
                "0f0e0d0c-0b0a-0908-0706-050403020100": [0x42],
            ])
        #expect(!update.uuidsChanged)
    }

    @Test("an RSSI of 127 is none; the complete name wins over a shortened one; a zero length ends the data")
    func details() throws {
        let data =
            Bytes.structure(0x09, Array("Complete".utf8)) + Bytes.structure(0x08, Array("Short".utf8)) + [0x00]
            + Bytes.structure(0xFF, [0x01, 0x00, 0x05])
        let advertisement = try #require(
            try Self.decode(Bytes.deviceFound(address: "11:22:33:44:55:66", rssi: 127, data: data)))
        #expect(advertisement.update.rssi == nil)
        #expect(advertisement.update.name == "Complete")
        #expect(advertisement.update.manufacturerData.isEmpty)
    }

    @Test("events of other kinds are skipped, not errors")
    func otherEvents() throws {
        // New Settings (0x0006) and Discovering (0x0013), as every control socket hears them.
        #expect(try Self.decode(Bytes.event(0x0006, index: 0, [0x01, 0x00, 0x00, 0x00])) == nil)
        #expect(try Self.decode(Bytes.event(0x0013, index: 0, [0x06, 0x01])) == nil)
    }

    @Test(
        "truncated and inconsistent events are errors",
        arguments: [
            ("a header cut short", [0x12, 0x00, 0x00]),
            (
                "fewer parameters than the header says",
                Array(ManagementBytes.deviceFound(address: "11:22:33:44:55:66", data: []).dropLast())
            ),
            ("Device Found without its fixed parameters", ManagementBytes.event(0x0012, index: 0, [1, 2, 3, 4])),
            (
                "data shorter than its length",
                ManagementBytes.event(0x0012, index: 0, [1, 2, 3, 4, 5, 6, 2, 0xC4, 0, 0, 0, 0, 9, 0, 1])
            ),
            (
                "an AD structure past the end",
                ManagementBytes.deviceFound(address: "11:22:33:44:55:66", data: [0x05, 0xFF, 0x01])
            ),
        ] as [(String, [UInt8])])
    func malformed(_ what: String, _ bytes: [UInt8]) {
        #expect(throws: ManagementDecodeError.self, "\(what)") { try Self.decode(bytes) }
    }

    @Test("capabilities: both are needed, read from CapEff")
    func capabilities() {
        #expect(ManagementSocket.missingCapabilities(status: "Name:\tblectld\nCapEff:\t0000000000003000\n") == nil)
        #expect(ManagementSocket.missingCapabilities(status: "CapEff:\t0000000000001000\n") == ["CAP_NET_RAW"])
        #expect(
            ManagementSocket.missingCapabilities(status: "CapEff:\t0000000000000000\n") == [
                "CAP_NET_ADMIN", "CAP_NET_RAW",
            ])
    }
}

@Suite("Advertisements from the kernel's management socket: the socket")
struct ManagementSocketTests {
    @Test("opening without Bluetooth in the kernel or without the capabilities fails with a reason")
    func openFails() {
        // This machine's kernel has no Bluetooth, or the tests run without CAP_NET_ADMIN: either
        // way the socket must not open (with both, as root on a Bluetooth kernel, it may).
        do {
            _ = try ManagementSocket.open()
        } catch {
            #expect(error.description.contains("CAP_NET_ADMIN") || error.description.contains("management socket"))
        }
    }

    static func write(_ fd: Int32, _ event: [UInt8]) {
        #expect(event.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) } == event.count)
    }

    @Test("a garbage event between two advertisements is one problem; both, and the next one, are read")
    func garbageLosesNothingElse() async throws {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &fds) == 0)
        defer { close(fds[1]) }
        let events = [
            ManagementBytes.deviceFound(address: "11:22:33:44:55:01", data: ManagementEventsTests.data),
            [0x12, 0x00, 0x01, 0x00, 0x40, 0x00, 0x01],
            ManagementBytes.event(0x0006, index: 0, [1, 0, 0, 0]),
            ManagementBytes.deviceFound(index: 3, address: "11:22:33:44:55:02", data: ManagementEventsTests.data),
        ]
        for event in events { Self.write(fds[1], event) }
        let loop = EventLoop(label: "mgmt-test")
        let heard = Locked<(advertisements: [ManagementAdvertisement], problems: Int)>(([], 0))
        let done = OneShot<Bool>()
        let (socket, peer) = (fds[0], fds[1])
        loop.execute {
            let management = ManagementSocket.adopting(descriptor: socket)
            management.listen(
                on: loop,
                advertised: { advertisement in
                    let count = heard.withLock { state in
                        state.advertisements.append(advertisement)
                        return state.advertisements.count
                    }
                    // After the batch (this wake-up's reads), one more: the socket is still read.
                    if count == 2 {
                        loop.execute {
                            Self.write(peer, ManagementBytes.deviceFound(address: "11:22:33:44:55:03", data: []))
                        }
                    }
                    if count == 3 {
                        management.stop()
                        done.deliver(true)
                    }
                }, problem: { _ in heard.withLock { $0.problems += 1 } }, failed: { _ in })
            loop.schedule(after: Duration.seconds(5).scaled) {
                management.stop()
                done.deliver(false)
            }
        }
        #expect(await withCheckedContinuation { done.wait($0) })
        let (advertisements, problems) = heard.withLock { $0 }
        #expect(
            advertisements.map(\.address.description) == [
                "11:22:33:44:55:01", "11:22:33:44:55:02", "11:22:33:44:55:03",
            ])
        #expect(advertisements.map(\.index) == [0, 3, 0])
        #expect(problems == 1)
    }
}
