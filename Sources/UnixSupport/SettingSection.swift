/// Settings documented together under one heading: a module's table, or part of one.
///
/// The man page and the sample configuration list the sections in order, each with its
/// title and the paragraph that introduces it, then its settings' ``Setting/details``.
public struct SettingSection<Root>: Sendable {
    /// The heading (`MQTT`, `The host's CPU`).
    public let title: String
    /// What the settings have in common, in scdoc's markup; nil when the title says enough.
    public let introduction: String?
    /// The settings, in the order help lists them.
    public let settings: [Setting<Root>]

    /// Creates a section.
    public init(_ title: String, introduction: String? = nil, _ settings: [Setting<Root>]) {
        self.title = title
        self.introduction = introduction
        self.settings = settings
    }

    /// The same section, its settings applied to the part at `path` of a larger configuration.
    public func lifted<Outer>(into path: any WritableKeyPath<Outer, Root> & Sendable) -> SettingSection<Outer> {
        SettingSection<Outer>(title, introduction: introduction, settings.map { $0.lifted(into: path) })
    }
}
