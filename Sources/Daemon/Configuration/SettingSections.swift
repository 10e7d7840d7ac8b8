public import UnixSupport

extension DaemonConfiguration {
    /// blectld's settings under their headings, in the order help lists them: what the man
    /// page and the sample configuration are written from (blectl-docs).
    public static var settingSections: [SettingSection<DaemonConfiguration>] { ConfigurationSetting.sections }
}
