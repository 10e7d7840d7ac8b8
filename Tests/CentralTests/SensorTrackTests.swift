@testable import Central
import Testing

@Suite struct SensorTrackTests {
    @Test func aPayloadChangesOnlyWhenItsFieldsBytesDo() {
        var track = SensorTrack(name: nil, heardAt: .now)
        let bthome = FieldKey.service("0000fcd2-0000-1000-8000-00805f9b34fb")
        let pvvx = FieldKey.service("0000181a-0000-1000-8000-00805f9b34fb")
        let ruuvi = FieldKey.manufacturer(0x0499)
        let heard: [(FieldKey, [UInt8])] = [
            (bthome, [0x40, 0x00, 0x01]), (bthome, [0x40, 0x00, 0x01]), (pvvx, [0x40, 0x00, 0x01]), (ruuvi, [5]),
            (pvvx, [0x40, 0x00, 0x01]), (ruuvi, [5]), (bthome, [0x40, 0x00, 0x02]), (pvvx, [0x40, 0x00, 0x02]),
            (bthome, [0x40, 0x00, 0x02]), (ruuvi, []),
        ]
        let changes = heard.map { field, bytes in track.payloadChanged(field, bytes) }
        #expect(changes == [true, false, true, true, false, false, true, true, false, true])
    }

    @Test func aLostSensorForgetsItsPayloads() {
        let start = ContinuousClock.now
        var track = SensorTrack(name: nil, heardAt: start)
        let field = FieldKey.manufacturer(0x0499)
        let first = track.payloadChanged(field, [1])
        track.markLost()
        track.heard(at: start + .seconds(1))
        let afterwards = track.payloadChanged(field, [1])
        #expect(first && afterwards)
    }
}
