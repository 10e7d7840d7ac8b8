@testable import BlueZClient
import DBusCore
import Testing

@Suite("BlueZ error classification")
struct BlueZErrorTests {
    @Test("Errors with a generic name are told apart by a phrase in their message")
    func phrases() {
        let busy = "Operation already in progress"
        #expect(BlueZError(DBusError(name: "org.bluez.Error.Failed", message: busy)) == .inProgress(busy))
        #expect(
            BlueZError(DBusError(name: "org.bluez.Error.Failed", message: "Not connected")) == .failed("Not connected"))
        let gone = "Message recipient disconnected from message bus without replying"
        #expect(BlueZError(DBusError(name: DBusError.Name.noReply, message: gone)) == .serviceUnavailable(gone))
        #expect(BlueZError(DBusError(name: DBusError.Name.noReply, message: "no reply")) == .timeout("no reply"))
        #expect(BlueZError(DBusError(name: DBusError.Name.noReply, message: "")) == .timeout(""))
    }
}
