import BlueZClient
import Glibc
import Testing

@Suite("Controller reset through libbluetooth")
struct ControllerResetTests {
    @Test("a controller that does not exist: the HCI call fails with its errno, named in the error")
    func missingController() async {
        // hci999 exists nowhere: no controller of this machine is touched.
        do {
            try await HCIControllerReset().resetController(index: 999)
            Issue.record("hci999 was reset")
        } catch {
            #expect(error.index == 999)
            // ENODEV with Bluetooth in the kernel; EAFNOSUPPORT without; EPERM-like in a sandbox.
            #expect([ENODEV, EAFNOSUPPORT, EPERM, EACCES].contains(error.code), "\(error)")
            #expect(error.description.hasPrefix("cannot reset hci999: "))
        }
    }

    @Test("a missing permission says what grants it")
    func permissionHint() {
        let error = ControllerResetError(index: 0, code: EPERM)
        #expect(error.description.contains("CAP_NET_ADMIN") && error.description.contains("adapter_reset = yes"))
    }
}
