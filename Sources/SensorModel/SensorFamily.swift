/// What every layer needs to know of one kind of sensor, declared once, by its profile.
///
/// A profile in ThermometerProfiles declares its family in its own file; the outputs, the
/// central and the daemon learn names, models, quantities and counters from a
/// ``SensorCatalog`` of these declarations, never by comparing a profile's id. Units,
/// ranges and Home Assistant's device classes belong to each ``Quantity`` (exhaustive
/// switches), so a family only lists the quantities it carries.
public struct SensorFamily: Sendable, Hashable {
    /// Whether a family's readings need a key configured for the device.
    public enum KeyUse: Sendable, Hashable {
        /// Never encrypted.
        case none
        /// Encrypted or not, as the device is set up (BTHome): a key, once configured, is required.
        case optional
        /// Always encrypted: nothing is read without the device's key.
        case required
    }

    /// The profile's stable name in outputs and the store, e.g. `ruuvi`.
    public let id: ProfileID
    /// A short human name of the format, e.g. `"RuuviTag (data format 5)"`.
    public let name: String
    /// Who makes the devices, as Home Assistant's device registry shows it.
    public let manufacturer: String
    /// The models known to speak this format, most common first.
    public let models: [String]
    /// The quantities its readings may carry, in ``Quantity`` order.
    public let quantities: [Quantity]
    /// How many values the sensor's own measurement counter takes before it wraps (256 for
    /// a one-byte counter); `nil` when the format has none.
    public let counterModulus: UInt64?
    /// Whether its readings come only in scan responses, which BlueZ asks for only when
    /// scanning actively (Govee).
    public let needsActiveScanning: Bool
    /// Whether it needs a key.
    public let key: KeyUse
    /// Whether the device sends text (the raw value is that text) rather than bytes (the raw
    /// value is their hex).
    public let sendsText: Bool

    /// Declares a family.
    public init(
        id: ProfileID, name: String, manufacturer: String, models: [String], quantities: [Quantity],
        counterModulus: UInt64? = nil, needsActiveScanning: Bool = false, key: KeyUse = .none,
        sendsText: Bool = false
    ) {
        self.id = id
        self.name = name
        self.manufacturer = manufacturer
        self.models = models
        self.quantities = Quantity.allCases.filter(quantities.contains)
        self.counterModulus = counterModulus
        self.needsActiveScanning = needsActiveScanning
        self.key = key
        self.sendsText = sendsText
    }

    /// The models as one label (`"LYWSD03MMC / MHO-C401"`), for a device registry's model field.
    public var modelLabel: String { models.joined(separator: " / ") }

    /// The index of `model` in ``models``, for a decoder that told the model apart; nil
    /// when the family does not list it.
    public func modelIndex(of model: String) -> UInt8? {
        models.firstIndex(of: model).flatMap { UInt8(exactly: $0) }
    }

    /// The index of the longest of ``models`` that `deviceName` holds (`GVH5075_1A2B` holds
    /// `H5075`; `TP357S (2142)` holds `TP357S` and `TP357`), for formats whose devices name
    /// their model; nil when it holds none.
    public func modelIndex(named deviceName: String?) -> UInt8? {
        guard let deviceName else { return nil }
        let held = models.indices.filter { deviceName.contains(models[$0]) }
        return held.max { models[$0].utf8.count < models[$1].utf8.count }.flatMap { UInt8(exactly: $0) }
    }

    /// What is known of a profile no catalog lists (an old history row, a newer peer's).
    public static func unknown(_ id: ProfileID) -> SensorFamily {
        SensorFamily(
            id: id, name: id.rawValue, manufacturer: "Bluetooth LE", models: [id.rawValue],
            quantities: Quantity.allCases)
    }
}

/// The sensor families a daemon knows, by profile id.
public struct SensorCatalog: Sendable {
    /// Every family, in the order given.
    public let families: [SensorFamily]
    private let byID: [ProfileID: Int]
    /// Each family's ``SensorFamily/modelLabel``, joined once, in `families` order.
    private let modelLabels: [String]

    /// A catalog of `families`; ids must be unique (a duplicate is a programming error).
    public init(_ families: [SensorFamily]) {
        self.families = families
        var byID: [ProfileID: Int] = [:]
        for (index, family) in families.enumerated() {
            precondition(byID.updateValue(index, forKey: family.id) == nil, "two sensor families named \(family.id)")
        }
        self.byID = byID
        modelLabels = families.map(\.modelLabel)
    }

    /// The model and manufacturer of `id`'s family, for a reading's `model` and
    /// `manufacturer`: the model at `modelIndex` when the decoder told it apart, else the
    /// family's label; `nil` when the catalog does not list the family.
    ///
    /// One dictionary lookup and no allocation: the label was joined when the catalog was made.
    public func maker(of id: ProfileID, modelIndex: UInt8? = nil) -> (model: String, manufacturer: String)? {
        guard let index = byID[id] else { return nil }
        let family = families[index]
        if let modelIndex, Int(modelIndex) < family.models.count {
            return (family.models[Int(modelIndex)], family.manufacturer)
        }
        return (modelLabels[index], family.manufacturer)
    }

    /// The family of `id`, or `nil` when the catalog does not list it.
    public subscript(id: ProfileID) -> SensorFamily? {
        byID[id].map { families[$0] }
    }

    /// The family of `id`; ``SensorFamily/unknown(_:)`` when the catalog does not list it.
    public func family(of id: ProfileID) -> SensorFamily {
        self[id] ?? .unknown(id)
    }
}
