public import SensorModel
import UnixSupport

/// Which adapters the central uses, as the `adapters` setting writes them (issue 36):
/// `auto`, `all`, or a list of adapters by address (`hciN` accepted, to be resolved to its
/// address at start).
public enum AdapterSet: Sendable, Hashable {
    /// `auto`: the daemon's default choice.
    case automatic
    /// `all`: every adapter present, and those that appear later.
    case all
    /// The adapters listed, in their order, each once.
    case listed([Member])

    /// One adapter of a list.
    public enum Member: Sendable, Hashable, CustomStringConvertible {
        /// The adapter with this address: its identity, kept when a USB reset renumbers it.
        case address(BluetoothAddress)
        /// The adapter named so now (`hci1`): to be resolved to its address at start.
        case unresolved(name: String)

        /// The address, or the name.
        public var description: String {
            switch self {
            case .address(let address): address.description
            case .unresolved(let name): name
            }
        }
    }

    /// Parses `auto`, `all`, or `ADDRESS, ADDRESS…` (either case, `hciN` too); an empty
    /// text is `auto`.
    public init(parsing text: String) throws(AdapterSetError) {
        let trimmed = text.trimmed
        switch trimmed.lowercased() {
        case "", "auto": self = .automatic
        case "all": self = .all
        default: self = .listed(try Self.members(of: trimmed))
        }
    }

    /// The members of a comma-separated list, refusing empty, malformed and repeated entries.
    private static func members(of list: String) throws(AdapterSetError) -> [Member] {
        var members: [Member] = []
        for entry in list.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmed }) {
            let member = try member(entry)
            guard !members.contains(member) else { throw .repeated(entry) }
            members.append(member)
        }
        return members
    }

    /// One entry: an address or `hciN`.
    private static func member(_ entry: String) throws(AdapterSetError) -> Member {
        if entry.isEmpty { throw .emptyEntry }
        if ["auto", "all"].contains(entry.lowercased()) { throw .keywordInList(entry) }
        if let address = BluetoothAddress(entry) { return .address(address) }
        let name = entry.lowercased()
        let digits = name.dropFirst(3)
        guard name.hasPrefix("hci"), !digits.isEmpty, digits.allSatisfy({ ("0"..."9").contains($0) }),
            let index = Int(digits)
        else { throw .malformed(entry) }
        return .unresolved(name: "hci\(index)")
    }
}

/// Why an `adapters` setting was refused.
public enum AdapterSetError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An empty entry (two commas, or one at an end).
    case emptyEntry
    /// Neither an address nor `hciN`.
    case malformed(String)
    /// An adapter listed twice.
    case repeated(String)
    /// `auto` or `all` among other entries.
    case keywordInList(String)

    /// A message for the user.
    public var description: String {
        switch self {
        case .emptyEntry: "an empty entry in the list of adapters (a comma too many?)"
        case .malformed(let entry):
            "'\(entry)' is not an adapter: give its address (00:1A:7D:DA:71:10) or its name (hci0)"
        case .repeated(let entry): "'\(entry)' is listed twice"
        case .keywordInList(let entry): "'\(entry)' stands alone, not in a list of adapters"
        }
    }
}
