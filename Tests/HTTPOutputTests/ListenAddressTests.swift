@testable import HTTPOutput
import UnixSupport
import Glibc
import Testing

@Suite("http_listen addresses")
struct ListenAddressTests {
    @Test("IPv4 and bracketed IPv6 with a port parse; host names and bare IPv6 do not")
    func parsing() {
        #expect(ListenAddress("127.0.0.1:9266")?.description == "127.0.0.1:9266")
        #expect(ListenAddress("[::]:9266")?.description == "[::]:9266")
        #expect(ListenAddress("[::1]:80")?.port == 80)
        #expect(ListenAddress("0.0.0.0:0")?.port == 0)
        for bad in [
            "localhost:9266", "127.0.0.1", "::1:9266", "[127.0.0.1]:80", "127.0.0.1:65536", ":9266", "", "[::1]",
        ] {
            #expect(ListenAddress(bad) == nil, "\(bad)")
        }
    }

    @Test("loopback: 127.0.0.0/8, ::1 and mapped 127.x; not the wildcard or a LAN address")
    func loopback() {
        for address in ["127.0.0.1:1", "127.8.9.1:1", "[::1]:1", "[::ffff:127.0.0.1]:1"] {
            #expect(ListenAddress(address)!.isLoopback, "\(address)")
        }
        for address in ["0.0.0.0:1", "[::]:1", "192.168.1.2:1", "[fe80::1]:1", "[::ffff:10.0.0.1]:1"] {
            #expect(!ListenAddress(address)!.isLoopback, "\(address)")
        }
    }

    @Test("port 0 binds a free port and reports it, on IPv4 and IPv6")
    func freePort() throws {
        for address in ["127.0.0.1:0", "[::1]:0"] {
            let (fd, port) = try ListenAddress(address)!.listen()
            defer { close(fd) }
            #expect(port != 0)
        }
    }

    @Test("a port in use is an error naming the address and http_listen")
    func portInUse() throws {
        let (fd, port) = try ListenAddress("127.0.0.1:0")!.listen()
        defer { close(fd) }
        #expect(throws: SystemError.self) { _ = try ListenAddress("127.0.0.1:\(port)")!.listen() }
        do {
            _ = try ListenAddress("127.0.0.1:\(port)")!.listen()
        } catch {
            #expect(error.description == "bind(127.0.0.1:\(port), http_listen): Address already in use")
        }
    }
}
