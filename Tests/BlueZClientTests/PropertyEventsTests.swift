@testable import BlueZClient
import DBusCore
import Testing

@Suite struct PropertyEventsTests {
    private static let path: BlueZPath = BlueZPath("/org/bluez/hci0/dev_A4_C1_38_AD_00_01")

    /// The advertisement update a Device1 change carrying `serviceData` makes.
    private func update(_ serviceData: [String: DBusValue]) -> AdvertisementUpdate? {
        var events: [BlueZEvent] = []
        PropertyEvents.emit(
            Self.path, BlueZ.Interface.device, ["ServiceData": serviceData.dbusValue], problem: { _ in }
        ) { events.append($0) }
        guard case .deviceAdvertised(_, let update)? = events.first else { return nil }
        return update
    }

    @Test func serviceDataUUIDsComeInLowerCase() {
        let bytes: DBusValue = [UInt8]([0x40, 0x00, 0x2A]).dbusValue
        #expect(
            update(["0000FCD2-0000-1000-8000-00805F9B34FB": bytes])?.serviceData
                == ["0000fcd2-0000-1000-8000-00805f9b34fb": [0x40, 0x00, 0x2A]])
        #expect(
            update(["0000fcd2-0000-1000-8000-00805f9b34fb": bytes, "0000181A-0000-1000-8000-00805F9B34FB": bytes])?
                .serviceData.keys.sorted()
                == ["0000181a-0000-1000-8000-00805f9b34fb", "0000fcd2-0000-1000-8000-00805f9b34fb"])
        #expect(update(["0000fcd2-0000-1000-8000-00805f9b34fb": bytes])?.serviceData.count == 1)
        #expect(update(["ÄBC": bytes])?.serviceData == ["äbc": [0x40, 0x00, 0x2A]])
    }
}
