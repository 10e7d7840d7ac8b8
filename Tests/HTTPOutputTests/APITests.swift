import BlectlProtocol
import Foundation
@testable import HTTPOutput
import SensorModel
import TestSupport
import Testing

@Suite("/api")
struct APITests {
    static let address: BluetoothAddress = "DC:A6:32:00:00:01"

    @Test("/api/devices and /api/status answer in the socket protocol's shapes")
    func shapes() async throws {
        try await withTestOutput { output in
            await output.apply([
                .connected(address: Self.address, name: "Thermometer"), .fahrenheit(Self.address, 117.1),
                .peripheralSeen(address: "F0:5E:CD:00:00:01", name: "HRM-Pro", rssi: -70, isThermometer: false),
            ])
            let devices = try await output.get("/api/devices")
            #expect(devices.status == 200)
            #expect(devices.headers["content-type"] == "application/json")
            let expected = Reply.success(id: nil, await output.hub.peripherals())
            #expect(devices.body == (try JSONLines.encode(expected)))
            #expect(try JSONLines.decode(Reply<[PeripheralInfo]>.self, from: devices.body).get().count == 2)
            let status = try await output.get("/api/status")
            let decoded = try JSONLines.decode(Reply<StatusResult>.self, from: status.body).get()
            #expect(decoded.connected.map(\.address) == [Self.address])
            #expect(decoded.section(HistoryStatus.self) != nil)
        }
    }

    @Test("/api/history takes the socket's parameters and answers as history does")
    func history() async throws {
        try await withTestOutput { output in
            await output.apply((0..<5).map { .fahrenheit(Self.address, 100 + Double($0)) })
            await output.apply([.fahrenheit("DC:A6:32:00:00:02", 90, name: "Other")])
            let response = try await output.get("/api/history?device=\(Self.address)&since=2&limit=2")
            #expect(response.status == 200)
            let expected = try await output.hub.history(HistoryQuery(address: Self.address, since: 2, limit: 2))
            #expect(response.body == (try JSONLines.encode(Reply.success(id: nil, expected))))
            #expect(expected.events.map(\.seq) == [3, 4])
            #expect(expected.more)
            let byName = try await output.get("/api/history?device=thermometer&since=0")
            #expect(try JSONLines.decode(Reply<HistoryResult>.self, from: byName.body).get().events.count == 5)
            let from = Timestamp(millisecondsSince1970: output.clock.now.millisecondsSince1970 - 1000).rfc3339
            let ranged = try await output.get("/api/history?from=\(from)")
            #expect(try JSONLines.decode(Reply<HistoryResult>.self, from: ranged.body).get().events.count == 1)
        }
    }

    @Test("/api/history since the largest seq answers nothing, from the file as from memory")
    func historySinceLargestSeq() async throws {
        try await withTestOutput { output in
            await output.apply((0..<3).map { .fahrenheit(Self.address, 100 + Double($0)) })
            await output.history.flush()
            await output.apply([.fahrenheit(Self.address, 103)])
            for device in ["", "&device=\(Self.address)"] {
                let response = try await output.get("/api/history?since=18446744073709551615\(device)")
                #expect(response.status == 200)
                let result = try JSONLines.decode(Reply<HistoryResult>.self, from: response.body).get()
                #expect(result.events.isEmpty && result.lastSeq == 4, "\(device)")
            }
        }
    }

    @Test("bad parameters get the socket's error replies with 400")
    func badParameters() async throws {
        try await withTestOutput { output in
            let cases = [
                ("/api/history", "\"history\" needs \"since\" or \"from\""),
                ("/api/history?since=x", "invalid value for \"since\""),
                ("/api/history?since=-1", "invalid value for \"since\""),
                ("/api/history?since=1&limit=0", "\"limit\" must be at least 1"),
                ("/api/history?from=yesterday", "invalid value for \"from\""),
                (
                    "/api/history?from=2026-11-30T02:00:00Z&until=2026-11-30T01:00:00Z",
                    "\"until\" is before \"from\""
                ),
            ]
            for (path, message) in cases {
                let response = try await output.get(path)
                #expect(response.status == 400, "\(path)")
                let reply = try JSONLines.decode(Reply<Empty>.self, from: response.body)
                #expect(reply.ok == false)
                #expect(reply.error == ErrorInfo(.badRequest, message), "\(path)")
            }
        }
    }

    @Test("read-only: other methods get 405, unknown paths 404, HEAD no body")
    func readOnly() async throws {
        try await withTestOutput { output in
            for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
                let response = try await request(output.port, "/api/history?since=0", method: method)
                #expect(response.status == 405, "\(method)")
                #expect(response.headers["allow"] == "GET, HEAD")
            }
            #expect(try await output.get("/nothing").status == 404)
            let head = try await request(output.port, "/metrics", method: "HEAD")
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
        }
    }
}
