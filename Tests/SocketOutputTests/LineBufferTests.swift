@testable import SocketOutput
import Testing

@Suite("Buffers")
struct BufferTests {
    @Test("LineBuffer splits lines, strips CR, and bounds length")
    func lineBuffer() {
        var lines = LineBuffer(maxLineLength: 8)
        Array("ab\r\ncd".utf8).withUnsafeBytes { lines.append($0) }
        #expect(lines.next() == .line(Array("ab".utf8)))
        #expect(lines.next() == .incomplete)
        Array("e\n".utf8).withUnsafeBytes { lines.append($0) }
        #expect(lines.next() == .line(Array("cde".utf8)))
        Array("123456789".utf8).withUnsafeBytes { lines.append($0) }
        #expect(lines.next() == .tooLong)
        var last = LineBuffer(maxLineLength: 8)
        Array("tail".utf8).withUnsafeBytes { last.append($0) }
        last.finish()
        #expect(last.next() == .line(Array("tail".utf8)))
    }
}
