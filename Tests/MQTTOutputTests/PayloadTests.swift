import BlectlProtocol
@testable import MQTTOutput
import SensorModel
import Testing

@Suite struct PayloadTests {
    private static let time = Timestamp(rfc3339: "2026-12-02T03:04:05.678Z")!

    @Test("A state payload written by hand is StatePayload's bytes", arguments: [nil, -61, 0, 127])
    func statePayload(rssi: Int?) {
        let quantities: [Quantities] = [
            Quantities([.temperature: 21.37, .humidity: 48.5, .battery: 97]), Quantities([.humidity: 50]),
            Quantities([.temperature: -0.5, .pressure: 1013.25, .voltage: 2.95]), Quantities(),
        ]
        for (index, values) in quantities.enumerated() {
            let reading = Reading(
                seq: UInt64(index) + 41, time: Self.time, address: BluetoothAddress("A4:C1:38:AD:00:0\(index)")!,
                name: index == 1 ? nil : "ATC_AD000\(index)",
                measurement: Measurement(profile: "bthome", quantities: values, raw: "40000164"))
            for gateway in ["bench", #"g"w/\"#] {
                #expect(
                    Payload.state(reading, gateway: gateway, rssi: rssi)
                        == Payload.bytes(StatePayload(reading: reading, gateway: gateway, rssi: rssi)))
            }
        }
    }
}
