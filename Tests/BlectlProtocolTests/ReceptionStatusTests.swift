import BlectlProtocol
import Testing

/// The reception fields of `status.advertisements.sensors` (docs/protocol.md).
@Suite struct ReceptionStatusTests {
    private static func sensor() -> AdvertisementStatus.Sensor {
        AdvertisementStatus.Sensor(
            address: "A4:C1:38:AD:00:01", profile: "test", readings: 427, lostPackets: 3, staleAfter: 60, lost: false)
    }

    @Test func theRatioIsTheLastHoursShareReceivedToFourPlaces() throws {
        var sensor = Self.sensor()
        sensor.setReception(countedBy: "counter", received: 900, missed: 300, receivedLastHour: 2, missedLastHour: 1)
        #expect(sensor.ratioLastHour == 0.6667)
        let text = try JSONLines.encodeString(sensor)
        for key in [
            "\"counted_by\":\"counter\"", "\"received\":900", "\"missed\":300", "\"received_last_hour\":2",
            "\"missed_last_hour\":1", "\"ratio_last_hour\":0.6667", "\"lost_packets\":3",
        ] {
            #expect(text.contains(key), "\(key) in \(text)")
        }
        #expect(try JSONLines.decode(AdvertisementStatus.Sensor.self, from: Array(text.utf8)) == sensor)
    }

    @Test func nothingCountedHasNoRatio() {
        var sensor = Self.sensor()
        sensor.setReception(countedBy: "interval", received: 0, missed: 0, receivedLastHour: 0, missedLastHour: 0)
        #expect(sensor.ratioLastHour == nil)
        sensor.setReception(countedBy: nil, received: 5, missed: 0, receivedLastHour: 5, missedLastHour: 0)
        #expect(sensor.ratioLastHour == nil)
    }

    @Test func anOlderDaemonsSensorDecodesWithoutTheCounts() throws {
        let old =
            #"{"address":"A4:C1:38:AD:00:01","profile":"bthome","readings":1,"lost_packets":0,"stale_after":60,"#
            + #""lost":false}"#
        let sensor = try JSONLines.decode(AdvertisementStatus.Sensor.self, from: Array(old.utf8))
        #expect(sensor.received == nil && sensor.ratioLastHour == nil && sensor.lastHeard == nil)
    }
}
