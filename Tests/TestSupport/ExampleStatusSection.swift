public import BlectlProtocol

/// A `status` section no part of blectl knows, as a new output would add it: for the tests
/// that it passes through the protocol, `blectl status` and `/metrics` without any of them
/// knowing it. `ExampleStatus.sample` is `{"healthy":true,"items":[{"count":1,"name":"a"}],"queued":3}`.
public struct ExampleStatus: StatusSection, Equatable {
    /// `example`.
    public static let sectionName = "example"

    /// An entry of its list.
    public struct Item: Codable, Equatable, Sendable {
        /// Its name.
        public var name: String
        /// Its count.
        public var count: Int

        /// Creates an entry.
        public init(name: String, count: Int) {
            self.name = name
            self.count = count
        }
    }

    /// A number.
    public var queued: Int
    /// A flag.
    public var healthy: Bool
    /// A list of objects.
    public var items: [Item]

    /// Creates the section.
    public init(queued: Int, healthy: Bool, items: [Item]) {
        self.queued = queued
        self.healthy = healthy
        self.items = items
    }

    /// Three queued, healthy, one item `a` counting 1.
    public static let sample = ExampleStatus(queued: 3, healthy: true, items: [Item(name: "a", count: 1)])
    /// ``sample`` as `status` carries it.
    public static let sampleJSON = #""example":{"healthy":true,"items":[{"count":1,"name":"a"}],"queued":3}"#
}
