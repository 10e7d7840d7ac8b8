@testable import Central
import SensorModel
import Testing
import ThermometerProfiles

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

    @Test func aCounterAFewStepsBackFromAnotherAdapterIsALateReportNotARestart() {
        let start = ContinuousClock.now
        func admit(_ track: inout SensorTrack, _ counter: UInt32, echo: Bool) -> SensorTrack.Admission {
            track.admit(
                Self.reading(counter), at: start, payloadChanged: true, minInterval: .zero,
                unchangedRefresh: .seconds(30), echo: echo)
        }
        var track = SensorTrack(name: nil, heardAt: start)
        #expect(admit(&track, 10, echo: false) == .new(lost: 0))
        #expect(admit(&track, 11, echo: false) == .new(lost: 0))
        // Another adapter's report of 10, late: the same measurement.
        #expect(admit(&track, 10, echo: true) == .repeated)
        #expect(admit(&track, 11, echo: true) == .repeated)
        // The same adapter going back is the sensor restarting: a new measurement.
        var alone = SensorTrack(name: nil, heardAt: start)
        _ = admit(&alone, 10, echo: false)
        _ = admit(&alone, 11, echo: false)
        #expect(admit(&alone, 10, echo: false) == .new(lost: 0))
    }

    // MARK: Received and missed

    /// A reading of a format with a counter of `modulus` values (nil: none).
    private static func reading(_ counter: UInt32?, modulus: UInt64? = 256, raw: String = "") -> AdvertisementReading {
        AdvertisementReading(
            measurement: Measurement(profile: "test", quantities: Quantities([.temperature: 21]), raw: raw),
            counter: counter, counterModulus: modulus)
    }

    /// Feeds `counters` (each heard once) one a second, or at `seconds`, and returns the track.
    private static func track(_ counters: [UInt32], modulus: UInt64 = 256, at seconds: [Int]? = nil) -> SensorTrack {
        let start = ContinuousClock.now
        var track = SensorTrack(name: nil, heardAt: start)
        for (index, counter) in counters.enumerated() {
            let now = start + .seconds(seconds?[index] ?? index)
            track.heard(at: now)
            _ = track.admit(
                reading(counter, modulus: modulus), at: now, payloadChanged: true, minInterval: .zero,
                unchangedRefresh: .seconds(30))
        }
        return track
    }

    @Test func gapsInTheCounterAreMissedMeasurements() {
        let track = Self.track([10, 11, 13, 14, 17], at: [0, 1, 3, 4, 7])
        #expect(track.reception.basis == .counter)
        #expect(track.reception.received == 5)
        #expect(track.reception.missed == 3)
        #expect(track.lostPackets == 3)
    }

    @Test func aCounterThatWrapsMissesNothing() {
        // One byte: 254, 255, 0, 1; two bytes (Ruuvi): 65534, 65535, 0.
        let byte = Self.track([253, 254, 255, 0, 1, 2])
        #expect(byte.reception.received == 6)
        #expect(byte.reception.missed == 0)
        let ruuvi = Self.track([65533, 65534, 65535, 0, 1], modulus: 1 << 16)
        #expect(ruuvi.reception.missed == 0)
        // A wrap with measurements missed across it: 254, then 1 three seconds later (255 and 0).
        let start = ContinuousClock.now
        var track = SensorTrack(name: nil, heardAt: start)
        for (seconds, counter) in [(0, 253), (1, 254), (4, 1)] as [(Int, UInt32)] {
            _ = track.admit(
                Self.reading(counter), at: start + .seconds(seconds), payloadChanged: true, minInterval: .zero,
                unchangedRefresh: .seconds(30))
        }
        #expect(track.reception.missed == 2)
    }

    @Test func aSensorThatRestartsMissesNothing() {
        // Back to a small value: a step of more than half the range (50 → 2 in a byte).
        let back = Self.track([48, 49, 50, 2, 3])
        #expect(back.reception.received == 5)
        #expect(back.reception.missed == 0)
        // From 200 to 3: a step of 59 in a byte, less than half way round, but the sensor
        // measures every second and only one second passed: a restart, not 58 missed.
        let forward = Self.track([198, 199, 200, 3, 4])
        #expect(forward.reception.received == 5)
        #expect(forward.reception.missed == 0)
        // Ruuvi's sequence from 40,000 back to 0 is a step of 25,536 forward in 16 bits.
        let ruuvi = Self.track([39998, 39999, 40000, 0, 1], modulus: 1 << 16)
        #expect(ruuvi.reception.missed == 0)
        // Encrypted BTHome's 32-bit counter.
        let encrypted = Self.track([7_000_000, 7_000_001, 1, 2], modulus: 1 << 32)
        #expect(encrypted.reception.missed == 0)
    }

    @Test func aSensorWithoutACounterIsCountedByItsInterval() {
        let start = ContinuousClock.now
        var track = SensorTrack(name: nil, heardAt: start)
        // One advertisement a second, about; those at 5, 6, 9, 10 and 11 s are not heard.
        let heard = [0, 1, 2, 3, 4, 7, 8, 12, 13]
        for second in heard {
            let now = start + .seconds(second) + .milliseconds(second % 3 * 10)
            track.heard(at: now)
            _ = track.admit(
                Self.reading(nil, raw: "\(second)"), at: now, payloadChanged: true, minInterval: .zero,
                unchangedRefresh: .seconds(30))
        }
        #expect(track.reception.basis == .interval)
        #expect(track.reception.received == heard.count)
        #expect(track.reception.missed == 5)
        let interval = track.interval ?? .zero
        #expect(interval > .milliseconds(980) && interval < .milliseconds(1020))
    }

    @Test func theSameAdvertisingEventTwiceIsOneAdvertisement() {
        let start = ContinuousClock.now
        var track = SensorTrack(name: nil, heardAt: start)
        for second in 0..<6 {
            for offset in [0, 2] {
                let now = start + .seconds(second) + .milliseconds(offset)
                track.heard(at: now)
                _ = track.admit(
                    Self.reading(nil, raw: "\(second)"), at: now, payloadChanged: true, minInterval: .zero,
                    unchangedRefresh: .seconds(30))
            }
        }
        #expect(track.reception.received == 6)
        #expect(track.reception.missed == 0)
    }

    @Test func scanningPassivelyCountsNoIntervals() {
        let start = ContinuousClock.now
        var track = SensorTrack(name: nil, heardAt: start)
        for second in [0, 1, 2, 3, 10] {
            let now = start + .seconds(second)
            track.heard(at: now, countsGaps: false)
            _ = track.admit(
                Self.reading(nil, raw: "\(second)"), at: now, payloadChanged: true, minInterval: .zero,
                unchangedRefresh: .seconds(30))
        }
        #expect(track.reception.missed == 0)
    }

    @Test func theLastHourSlides() {
        let start = ContinuousClock.now
        var window = HourWindow(origin: start)
        window.add(received: 7, missed: 3, at: start)
        window.add(received: 1, missed: 1, at: start + .seconds(1800))
        #expect(window.totals(at: start + .seconds(1800)) == (8, 4))
        // The first bucket (0-5 min) leaves the hour when the bucket of 60-65 min begins.
        #expect(window.totals(at: start + .seconds(3599)) == (8, 4))
        #expect(window.totals(at: start + .seconds(3600)) == (1, 1))
        window.add(received: 2, missed: 0, at: start + .seconds(3700))
        #expect(window.totals(at: start + .seconds(3700)) == (3, 1))
        // Hours later, all gone; the ring is reused.
        #expect(window.totals(at: start + .seconds(20000)) == (0, 0))
        window.add(received: 5, missed: 5, at: start + .seconds(20000))
        #expect(window.totals(at: start + .seconds(20000)) == (5, 5))
    }

    @Test func theReceptionStateIsSmallAndFixed() {
        // Inline: counts, the period, twelve buckets of two 32-bit counts; no array to grow.
        print(
            "reception: Reception \(MemoryLayout<Reception>.size) bytes, SensorTrack \(MemoryLayout<SensorTrack>.size)")
        #expect(MemoryLayout<Reception>.size <= 192)
    }
}
